"""Each adapter recognises its own files and not the others' (nor reportgen's native files)."""

from __future__ import annotations

import json
import logging
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.formats.registry import adapters, detect_format
from reportgen.formats.source import is_input_file, measure
from reportgen.resources import shipped_dir

from .helpers import DATA, FIXTURES, load, needs_data, per_run
from .test_shared_data import EXPECTED

runner = CliRunner()


def _own_files() -> list[tuple[Path, str]]:
    found = [(p, "agentdiff") for p in sorted((FIXTURES / "agentdiff").glob("*.json"))]
    found += [(p, "otel") for p in sorted((FIXTURES / "otel").iterdir())]
    if DATA.is_dir():
        for path in sorted(DATA.rglob("*")):
            folder = path.relative_to(DATA).parts[0]
            if path.is_file() and is_input_file(path) and folder in EXPECTED:
                found.append((path, EXPECTED[folder]))
    return found


@pytest.mark.parametrize(("path", "name"), _own_files(), ids=lambda v: str(v)[-60:])
def test_exactly_its_adapter_claims_it(path: Path, name: str) -> None:
    source = measure(path, str(path), 1 << 26)
    claimed = [a.name for a in adapters() if a.detect(source)]
    if name == "mini-swe-agent" and path.name == "report.json":
        assert claimed == ["mini-swe-agent"]
    else:
        assert claimed == [name]
    assert detect_format(source).name == name


def test_native_files_stay_native(sample_runs: Path) -> None:
    files = [p for p in sorted(shipped_dir("sample_runs").rglob("*")) if is_input_file(p)]
    assert files
    for path in files:
        source = measure(path, str(path), 1 << 26)
        assert detect_format(source).name in {"trace-v1", "iteration-v1", "outputs-v1"}, path
        assert not [a.name for a in adapters() if a.detect(source)], path


def test_only_native_fields_is_certain_without_asking_adapters(tmp_path: Path) -> None:
    """A trace of only schema fields is native for certain (detection stops there); one key
    the schema does not know, in the run or a step, sends it past the adapters as before;
    no adapter's file in the shared data or the fixtures passes as certain."""
    from reportgen.formats.native.trace import NativeTrace

    native = NativeTrace()
    run = {
        "run_id": "r",
        "task_id": "t",
        "steps": [{"type": "tool", "action": "a", "status": "ok"}],
    }
    for name, record in (
        ("plain.json", run),
        ("extra_run_key.json", {**run, "trace_id": "x"}),
        ("extra_step_key.json", {**run, "steps": [{**run["steps"][0], "step_id": "s0"}]}),  # type: ignore[dict-item]
    ):
        path = tmp_path / name
        path.write_text(json.dumps(record))
        source = measure(path, name, 1 << 26)
        assert native.certain(source) is (name == "plain.json"), name
        assert detect_format(source).name == "trace-v1"
    for path, _ in _own_files():
        assert not native.certain(measure(path, str(path), 1 << 26)), path


def test_formats_command_lists_maps() -> None:
    result = runner.invoke(app, ["formats"])
    assert result.exit_code == 0
    for fmt in adapters():
        assert fmt.name in result.stdout and fmt.maps[:30] in result.stdout
    listed = json.loads(runner.invoke(app, ["formats", "--json"]).stdout)
    assert all(row["maps"] for row in listed)


def test_tau2_zero_simulations_is_a_notice(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "aborted.json"
    info = {"agent_info": {"llm": "m"}, "environment_info": {"domain_name": "airline"}}
    path.write_text(
        json.dumps({"timestamp": "2025-10-13", "info": info, "tasks": [], "simulations": []})
    )
    with caplog.at_level(logging.WARNING, logger="reportgen.formats"):
        con = load(tmp_path, path)
    assert per_run(con) == []
    assert con.execute("SELECT format, n_runs FROM files").fetchall() == [("tau2-bench", 0)]
    assert "holds zero simulations" in caplog.text and str(path) in caplog.text


def _inspect_sample(**extra: object) -> dict[str, object]:
    events = [
        {
            "event": "model",
            "model": "m",
            "timestamp": "2025-01-01T00:00:00+00:00",
            "working_time": 0.5,
            "output": {"usage": {"input_tokens": 10, "output_tokens": 2}},
        },
        {
            "event": "tool",
            "function": "bash",
            "arguments": {"cmd": "ls"},
            "error": {"type": "timeout", "message": "timed out"},
            "working_time": 3.0,
        },
    ]
    return {"id": "s1", "epoch": 2, "events": events, "scores": {"acc": {"value": "I"}}, **extra}


def test_inspect_sample_error_and_limit(tmp_path: Path) -> None:
    header = {
        "version": 2,
        "status": "error",
        "eval": {"task": "t", "model": "m", "created": "2025-01-01T00:00:00+00:00"},
    }
    samples = [
        _inspect_sample(),
        _inspect_sample(id="s2", error={"message": "RuntimeError: sandbox died"}),
        _inspect_sample(id="s3", limit={"type": "message", "limit": 10}),
    ]
    log = tmp_path / "log.eval"
    with zipfile.ZipFile(log, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(header))
        for s in samples:
            archive.writestr(f"samples/{s['id']}_epoch_2.json", json.dumps(s))
    con = load(tmp_path, log)
    rows = con.execute(
        "SELECT task_id, trial, success, reward, list(s.status ORDER BY idx),"
        " list(s.action ORDER BY idx) FROM runs r JOIN steps s USING (run_id) GROUP BY ALL ORDER BY 1"
    ).fetchall()
    assert rows == [
        ("s1", 2, False, 0.0, ["ok", "error"], ["m", "bash"]),
        # a sample error is the harness's (not scored); a limit is the agent's failure
        ("s2", 2, None, None, ["ok", "error", "error"], ["m", "bash", "sample_error"]),
        ("s3", 2, False, 0.0, ["ok", "error", "abandoned"], ["m", "bash", "message_limit"]),
    ]
    errors = con.execute("SELECT task_id, error_kind, error_reason FROM runs ORDER BY 1").fetchall()
    assert errors == [
        ("s1", None, None),
        ("s2", "sandbox", "RuntimeError: sandbox died"),
        ("s3", None, None),
    ]


@needs_data
def test_forced_format_reads_a_file_detection_would_not(tmp_path: Path) -> None:
    """--format forces an adapter: a SWE-agent trajectory renamed to .json still loads."""
    (original,) = (DATA / "swe-agent").rglob("swe-agent__test-repo-i1.traj")
    renamed = tmp_path / "run.json"
    renamed.write_bytes(original.read_bytes())
    db = tmp_path / "a.duckdb"
    result = runner.invoke(
        app, ["ingest", str(renamed), "--db", str(db), "--format", "swe-agent", "-q"]
    )
    assert result.exit_code == 0, result.output
