"""Numbers out of range in the session and agent formats: a token count of 1e300, 10^19 or a
30-digit string, a record dated after the year 9000, are refused with one line naming the
file and the field (exit 1), never an OverflowError deep in the ingest; the archive is kept."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.hostile.conftest import cli, one_line
from tests.site.shared_data import DATA

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="the shared data is not beside")

#: format, a real file, the key whose numbers are made hostile (every occurrence holding a
#: number), whether the file is JSON Lines.
CASES = [
    ("claude-code", "claude-code/ai-sessions/claude-code-pomodoro-timer.jsonl", "output_tokens"),
    (
        "codex-cli",
        "codex-cli/codemie-code/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
        "output_tokens",
    ),
    ("gemini-cli", "gemini-cli/ai-sessions/gemini-cli-pomodoro-timer.json", "thoughts"),
    ("openai-agents", "openai-agents/raw/trials_weather_gpt-4o-mini_t0.jsonl", "input_tokens"),
]
HOSTILE_NUMBERS = [1e300, 10**19, "1" * 30]


def _replace(value: Any, key: str, new: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: new if k == key and isinstance(v, int) else _replace(v, key, new)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_replace(v, key, new) for v in value]
    return value


def _rewrite(source: Path, target: Path, change: Callable[[Any], Any]) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    text = source.read_text(encoding="utf-8")
    if source.suffix == ".jsonl":
        records = [change(json.loads(line)) for line in text.splitlines() if line.strip()]
        target.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    else:
        target.write_text(json.dumps(change(json.loads(text))), encoding="utf-8")
    return target


@pytest.mark.parametrize("number", HOSTILE_NUMBERS, ids=["1e300", "10^19", "30-digits"])
@pytest.mark.parametrize(("name", "where", "key"), CASES, ids=[c[0] for c in CASES])
def test_a_count_out_of_range_is_refused_naming_file_and_field(
    tmp_path: Path, name: str, where: str, key: str, number: Any
) -> None:
    source = DATA / where
    file = _rewrite(source, tmp_path / "in" / source.name, lambda r: _replace(r, key, number))
    db = tmp_path / "a.duckdb"
    result = cli("ingest", file, "--db", db)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, source.name, key, "out of range")
    assert not db.exists(), "a refused first load leaves no archive behind"


def test_a_claude_code_record_dated_after_9000_is_refused(tmp_path: Path) -> None:
    source = DATA / CASES[0][1]

    def far(record: Any) -> Any:
        if isinstance(record, dict) and "timestamp" in record:
            return {**record, "timestamp": "9999-12-31T23:59:59.000Z"}
        return record

    file = _rewrite(source, tmp_path / "in" / source.name, far)
    result = cli("ingest", file, "--db", tmp_path / "a.duckdb")
    assert result.exit_code == 1, result.output
    one_line(result.stderr, source.name, "9999-12-31", "out of range")


def test_an_agents_span_ending_before_it_starts_has_no_negative_latency(tmp_path: Path) -> None:
    source = DATA / CASES[3][1]

    def backwards(record: Any) -> Any:
        if isinstance(record, dict) and record.get("object") == "trace.span":
            return {**record, "ended_at": "2000-01-01T00:00:00+00:00"}
        return record

    file = _rewrite(source, tmp_path / "in" / source.name, backwards)
    db = tmp_path / "a.duckdb"
    result = cli("ingest", file, "--db", db)
    assert result.exit_code == 0, result.output
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        negative = con.execute(
            "SELECT (SELECT count(*) FROM runs WHERE latency_ms < 0)"
            " + (SELECT count(*) FROM steps WHERE latency_ms < 0)"
        ).fetchone()
    finally:
        con.close()
    assert negative == (0,)


@pytest.mark.parametrize("where", ["run", "step"])
def test_a_native_trace_dated_after_9000_is_refused(tmp_path: Path, where: str) -> None:
    late = "9999-12-31T23:59:59Z"
    step: dict[str, Any] = {"type": "tool", "action": "a", "status": "ok"}
    run: dict[str, Any] = {"task_id": "t", "steps": [step]}
    (run if where == "run" else step)["started_at"] = late
    file = tmp_path / "in" / "late.jsonl"
    file.parent.mkdir()
    file.write_text(json.dumps(run) + "\n")
    result = cli("ingest", file, "--db", tmp_path / "a.duckdb")
    assert result.exit_code == 1, result.output
    one_line(result.stderr, "late.jsonl", "started_at", "9000")
