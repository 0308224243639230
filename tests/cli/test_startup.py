"""``reportgen --version`` and ``--help`` import none of the heavy libraries: the commands
import them when they run (bench/startup.py measures the time)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("duckdb", "pyarrow", "numpy", "plotly", "jinja2")


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["compare", "--help"]])
def test_start_up_imports_nothing_heavy(args: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "reportgen", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    top = {name.split(".")[0] for name in imported}
    assert "reportgen" in top and "typer" in top  # the trace did record the imports
    assert not top & set(HEAVY), sorted(top & set(HEAVY))


def _trace(path: Path, task: str, statuses: list[str], success: bool | None = None) -> Path:
    steps = [{"type": "tool_call", "action": "read_file", "status": s} for s in statuses]
    run = {"task_id": task, "steps": steps, **({} if success is None else {"success": success})}
    path.write_text(json.dumps(run))
    return path


def _compare_imports(baseline: Path, candidate: Path) -> set[str]:
    """The modules a whole ``compare BASELINE CANDIDATE --json`` process imported."""
    script = (
        "import sys; from reportgen.cli import main; sys.argv[0] = 'reportgen'\n"
        "try:\n    main()\nexcept SystemExit as done:\n    assert not done.code, done.code\n"
        "sys.stderr.write('\\n'.join(sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, "compare", str(baseline), str(candidate), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(result.stdout)["summary"]["metrics"]  # the statistics were computed
    return set(result.stderr.splitlines())


def test_compare_json_imports_no_scipy_stats_nor_rich(tmp_path: Path) -> None:
    # t intervals, Wilson intervals and McNemar's test come from scipy.special: scipy.stats
    # (about 0.5 s a process) only for Fisher's exact test of errored runs
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    for n in range(3):
        _trace(tmp_path / "b" / f"t{n}.json", f"t{n}", ["ok", "ok"], success=True)
        _trace(tmp_path / "c" / f"t{n}.json", f"t{n}", ["ok", "error", "ok"], success=True)
    imported = _compare_imports(tmp_path / "b", tmp_path / "c")
    assert "scipy.special" in imported  # the trace did record the imports
    assert not {"scipy.stats", "rich"} & imported


def test_compare_json_imports_no_scipy_stats_for_an_exact_test(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    for n in range(3):
        _trace(tmp_path / "b" / f"t{n}.json", f"t{n}", ["ok"], success=True)
        _trace(tmp_path / "c" / f"t{n}.json", f"t{n}", ["ok"], success=n > 0)
    # McNemar's exact test comes from scipy.special's binomial (tests/statistics/test_methods)
    assert "scipy.stats" not in _compare_imports(tmp_path / "b", tmp_path / "c")


def test_build_imports_no_pandas(tmp_path: Path) -> None:
    """pyarrow imports pandas (about 0.3 s a process) for ``pa.array``, ``pa.scalar`` and
    ``combine_chunks`` when it is installed: a build makes its Arrow columns from buffers."""
    pytest.importorskip("pandas")  # else the check below says nothing
    for label in ("baseline", "candidate"):
        folder = tmp_path / "runs" / label
        folder.mkdir(parents=True)
        for n in range(3):
            run = {"task_id": f"t{n}", "label": label, "suite": "s", "success": n > 0,
                   "started_at": "2026-11-28T02:00:00Z",
                   "steps": [{"type": "tool", "action": "read_file", "status": "ok",
                              "input": {"path": "a"}, "output": "x"}] * 3}  # fmt: skip
            (folder / f"t{n}.json").write_text(json.dumps(run))
    db = tmp_path / "a.duckdb"
    subprocess.run(
        [sys.executable, "-m", "reportgen", "ingest", str(tmp_path / "runs"), "--db", str(db)],
        check=True,
        capture_output=True,
    )
    script = (
        "import sys; from reportgen.cli import main; sys.argv[0] = 'reportgen'\n"
        "try:\n    main()\nexcept SystemExit as done:\n    assert not done.code, done.code\n"
        "sys.stderr.write('\\n'.join(sys.modules))"
    )
    out = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-c", script, "build", "--db", str(db), "--out", str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = set(result.stderr.splitlines())
    assert "pyarrow" in imported and (out / "index.html").is_file()
    assert not {m for m in imported if m.split(".")[0] == "pandas"}
