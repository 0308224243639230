"""``ingest --label/--suite`` win over what every format derives (the identity table in
docs/formats.md): one real file per registered format, loaded with ``label="X", suite="Y"``,
gives every run and output that label and suite. Iteration records have neither, so those
options are refused for them, and the archive is left as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from reportgen.errors import UsageError
from reportgen.formats.registry import all_formats
from reportgen.ingest import ingest

from .helpers import DATA, FIXTURES

REPO = Path(__file__).parents[2]
SAMPLE_RUNS = REPO / "sample_runs"
_TRAJS = DATA / "mini-swe-agent" / "trajs"
_SWE_AGENT = DATA / "swe-agent" / "tests" / "test_data" / "trajectories"

SAMPLES: dict[str, Path] = {
    "trace-v1": SAMPLE_RUNS / "nightly" / "2026-11-28" / "baseline.jsonl",
    "iteration-v1": SAMPLE_RUNS / "iterations" / "backlog-converging.jsonl",
    "outputs-v1": FIXTURES / "outputs" / "capital.jsonl",
    "agentdiff": FIXTURES / "agentdiff" / "baseline.json",
    "atif": DATA / "atif" / "harbor_openhands.json",
    "inspect": DATA / "inspect/tests/analysis/test_logs/2025-05-12T20-28-13-04-00_popularity.json",
    "swe-agent": _SWE_AGENT
    / "gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1"
    / "pydicom__pydicom-1458.traj",
    "mini-swe-agent": _TRAJS / "astropy__astropy-12907" / "astropy__astropy-12907.traj.json",
    "tau2-bench": DATA
    / "tau2-bench"
    / "2025-10-13T11:33:36.494859_airline_llm_agent_grok-3-mini_user_simulator_grok-3-mini.json",
    "tau-bench": DATA / "tau-bench" / "gpt-4o-airline.json",
    "claude-code": DATA / "claude-code" / "ai-sessions" / "claude-code-pomodoro-timer.jsonl",
    "codex-cli": DATA
    / "codex-cli"
    / "codemie-code"
    / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
    "gemini-cli": DATA / "gemini-cli" / "ai-sessions" / "gemini-cli-pomodoro-timer.json",
    "copilot-cli": DATA / "copilot-cli" / "agent-sessions" / "small.jsonl",
    # a conversation is its folder: base_state.json and events/event-*.json
    "openhands-sdk": DATA / "openhands-sdk" / "generated" / "c49b8685711f4d3e903285a41b3b6d3a",
    "openai-agents": DATA / "openai-agents" / "ingest" / "trials_weather_gpt-4o-mini_t0.json",
    # a submission is its folder: all_preds.jsonl loads the logs/*_result.json beside it
    "swe-bench-submission": DATA
    / "swe-bench-experiments/swe-polybench/evaluation/PBVerified/20260201_iswe_agent",
    "langfuse": DATA / "langfuse" / "agno-2025-06-11.trace.json",
    "langsmith": DATA / "langsmith" / "langsmith_py_wrap_openai_.json",
    "otel": DATA / "otel-genai" / "any-agent" / "OPENAI_trace.json",
    "harbor": DATA / "harbor-jobs" / "generated" / "jobs" / "terminus-2-mock",
    "swe-bench-harness": DATA / "swe-bench-harness" / "swebench-5.0.2" / "infra-ambiguous",
    # a scan has no runs of its own: loaded with the Inspect logs it scanned
    "inspect-scout": DATA / "inspect-scout",
}
"""One input per registered format (a file, or the folder the format needs). A new adapter
must add one here, and a row to the identity table in docs/formats.md."""

NO_RUNS = {"outputs-v1"}
"""Formats that load outputs but no runs."""

WITH_OTHERS = {"inspect-scout": {"inspect"}}
"""Formats whose sample also loads files of other formats (the runs a scan annotates)."""


def _sample(name: str) -> Path:
    """The sample of format ``name``; skips when it lies in the absent shared data."""
    path = SAMPLES[name]
    if path.is_relative_to(DATA) and not DATA.is_dir():
        pytest.skip(f"shared real-world traces not found at {DATA}")
    assert path.exists(), path
    return path


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_every_registered_format_has_a_sample() -> None:
    registered = {fmt.name for fmt in all_formats()}
    assert registered - SAMPLES.keys() == set(), "add a sample (and an identity table row)"
    assert SAMPLES.keys() - registered == set(), "a sample for a format no longer registered"


@pytest.mark.parametrize("name", sorted(SAMPLES.keys() - {"iteration-v1"}))
def test_label_and_suite_override_every_format(name: str, tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    report = ingest([_sample(name)], db, label="X", suite="Y")
    formats = {name, *WITH_OTHERS.get(name, ())}
    assert {row["format"] for row in report.loaded} == formats
    assert {f for (f,) in _rows(db, "SELECT DISTINCT format FROM files")} == formats
    runs = _rows(db, "SELECT label, suite, count(*) FROM runs GROUP BY ALL")
    outputs = _rows(db, "SELECT label, suite, count(*) FROM outputs GROUP BY ALL")
    if name in NO_RUNS:
        assert runs == []
        assert [(label, suite) for label, suite, _ in outputs] == [("X", "Y")]
    else:
        assert [(label, suite) for label, suite, _ in runs] == [("X", "Y")]
        assert [(label, suite) for label, suite, _ in outputs] in ([], [("X", "Y")])
    assert report.counts["runs"] + report.counts["outputs"] > 0


def _archive(db: Path) -> list[tuple[Any, ...]]:
    """What an archive holds, table by table (unchanged after a refused load)."""
    return _rows(
        db,
        "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM iterations),"
        " (SELECT count(*) FROM outputs), (SELECT list(path ORDER BY path) FROM files),"
        " (SELECT list(DISTINCT label ORDER BY label) FROM runs)",
    )


@pytest.mark.parametrize(("label", "suite"), [("X", None), (None, "Y"), ("X", "Y")])
def test_iteration_records_refuse_label_and_suite(
    label: str | None, suite: str | None, tmp_path: Path
) -> None:
    db = tmp_path / "a.duckdb"
    ingest([SAMPLES["trace-v1"]], db)
    before = _archive(db)
    iterations = _sample("iteration-v1")
    with pytest.raises(UsageError) as refused:
        ingest([iterations, FIXTURES / "outputs" / "capital.jsonl"], db, label=label, suite=suite)
    message = str(refused.value)
    assert str(iterations) in message
    assert ("--label" in message, "--suite" in message) == (label is not None, suite is not None)
    assert _archive(db) == before


def test_cli_refuses_label_for_iteration_records(tmp_path: Path) -> None:
    from reportgen.cli import app

    db = tmp_path / "a.duckdb"
    iterations = _sample("iteration-v1")
    result = CliRunner().invoke(
        app, ["ingest", str(iterations), "--label", "X", "--suite", "Y", "--db", str(db)]
    )
    assert result.exit_code == 2, result.output
    assert str(iterations) in result.stderr
    assert "--label and --suite" in result.stderr
    assert not db.exists()


def test_cli_label_suite_and_batch(tmp_path: Path) -> None:
    from reportgen.cli import app

    db = tmp_path / "a.duckdb"
    trace = SAMPLES["trace-v1"]
    args = ["ingest", str(trace), "--label", "X", "--suite", "Y", "--batch", "B", "--db", str(db)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    for table in ("runs", "outputs"):
        found = _rows(db, f"SELECT label, suite, batch, count(*) FROM {table} GROUP BY ALL")
        assert [row[:3] for row in found] == [("X", "Y", "B")], table
        assert found[0][3] > 0
