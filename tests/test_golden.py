"""Pins the whole output on the bundled sample_runs/: every site file (Parquet files by their
rows) and the CLI's JSON, Markdown and terminal reports, byte for byte (as SHA-256 digests),
so a refactoring that changes nothing visible can prove it.

Refresh after a deliberate change of output with::

    REPORTGEN_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py

On a mismatch the actual outputs are kept under pytest's tmp_path, named in the failure, to
diff against a build of the previous commit."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.resources import shipped_dir

GOLDEN = Path(__file__).parent / "golden" / "sample_runs.json"
BUILD_TIME = "2026-11-29T06:00:00Z"
# Tables that record when and from which path each load ran differ on every run; the build
# manifest holds hashes of reportgen's own code (a new version re-renders every page); the data
# manifest holds the checksums of the two volatile tables.
VOLATILE = {
    "site/data/files.parquet",
    "site/data/loads.parquet",
    "site/data/manifest.json",
    "site/.reportgen-manifest.json",
}

# name -> CLI arguments ({db} is the demo archive, {samples} the sample_runs folder)
COMMANDS: dict[str, list[str]] = {
    "compare.json": ["compare", "--db", "{db}", "--json"],
    "compare.md": ["compare", "--db", "{db}", "--markdown", "--max-cost-delta", "25"],
    "compare.txt": ["compare", "--db", "{db}", "--max-loops", "0", "--max-divergence", "0.3"],
    "compare-explain.txt": [
        "compare", "--db", "{db}", "--batch", "2026-11-28", "--explain", "--tree",
    ],
    "gate.json": ["gate", "--db", "{db}", "--json", "--max-divergence", "0.2",
                  "--min-convergence", "0.5"],
    "gate.md": ["gate", "--db", "{db}", "--markdown", "--max-recovery-ratio", "1"],
    "iterations.json": ["iterations", "{samples}/iterations", "--json"],
    "iterations.md": ["iterations", "{samples}/iterations", "--markdown",
                      "--max-spend-per-certified-step", "0.5", "--fail-on-thrash"],
    "formats.json": ["formats", "--json"],
}  # fmt: skip


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _parquet_rows(path: Path) -> bytes:
    """A Parquet file's rows as CSV text, with the checkout's path to the sample runs replaced
    (runs record the file they came from): the same in every clone."""
    import duckdb

    con = duckdb.connect()
    try:
        rows = con.execute(f"SELECT * FROM read_parquet('{path}')").fetchall()
    finally:
        con.close()
    text = "\n".join(repr(row) for row in rows)
    return text.replace(str(shipped_dir("sample_runs")), "<samples>").encode()


def _outputs(tmp_path: Path) -> dict[str, bytes]:
    """Every pinned output: site files under ``site/``, CLI outputs by their COMMANDS name."""
    from reportgen.demo import run_demo
    from reportgen.site import build_site

    db, _report, _summary = run_demo(tmp_path / "demo", site=False)
    site = tmp_path / "site"
    build_site(db, site, build_time=BUILD_TIME)
    found = {
        f"site/{p.relative_to(site).as_posix()}": (
            _parquet_rows(p) if p.suffix == ".parquet" else p.read_bytes()
        )
        for p in sorted(site.rglob("*"))
        if p.is_file() and f"site/{p.relative_to(site).as_posix()}" not in VOLATILE
    }
    runner = CliRunner()
    values = {"db": str(db), "samples": str(shipped_dir("sample_runs"))}
    for name, args in COMMANDS.items():
        result = runner.invoke(app, [a.format(**values) for a in args])
        assert result.exit_code in (0, 3), (name, result.output)
        found[name] = f"exit {result.exit_code}\n{result.stdout}".replace(str(db), "<db>").encode()
    return found


def test_sample_runs_output_is_pinned(tmp_path: Path) -> None:
    outputs = _outputs(tmp_path)
    digests = {name: _digest(data) for name, data in sorted(outputs.items())}
    if os.environ.get("REPORTGEN_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        pytest.skip(f"golden digests rewritten: {GOLDEN}")
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    kept = tmp_path / "actual"
    for name, data in outputs.items():
        (kept / name).parent.mkdir(parents=True, exist_ok=True)
        (kept / name).write_bytes(data)
    changed = sorted(n for n in expected.keys() & digests.keys() if expected[n] != digests[n])
    assert not changed, f"{len(changed)} output(s) changed, e.g. {changed[:5]}; actual in {kept}"
    assert sorted(digests.keys() - expected.keys()) == [], f"new outputs; actual in {kept}"
    assert sorted(expected.keys() - digests.keys()) == [], f"missing outputs; actual in {kept}"
