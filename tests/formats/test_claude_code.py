"""Claude Code session logs: every shared file, with counts computed here from the raw
records (usage once per message.id), sub-agents nested under their Task step, resumed
sessions counted once, grown files replacing their run, bad lines named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from reportgen.errors import InputError
from reportgen.ingest.loader import ingest

from .helpers import DATA, needs_data
from .helpers import load as _load


def load(folder: Path, *paths: Path) -> Any:
    folder.mkdir(parents=True, exist_ok=True)
    return _load(folder, *paths)


FOLDER = DATA / "claude-code"


def _files() -> list[Path]:
    return sorted(FOLDER.rglob("*.jsonl")) if FOLDER.is_dir() else []


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _expected(path: Path) -> dict[str, int]:
    """Runs, steps, tool errors and tokens of one file, straight from its records."""
    records = [r for r in _records(path) if r.get("type") in ("user", "assistant", "system")]
    agent_file = path.name.startswith("agent-")
    side = {r["uuid"] for r in records if r.get("isSidechain") is True}
    roots = [r for r in records if r.get("isSidechain") is True and r.get("parentUuid") not in side]
    runs = 1 if agent_file else 1 + len(roots)
    last_usage: dict[str, dict[str, Any]] = {}
    tool_uses = errors = interrupts = api_errors = 0
    erring: set[str] = set()
    for position, r in enumerate(records):
        message = r.get("message") or {}
        if r["type"] == "assistant":
            key = message.get("id") or r.get("requestId") or r.get("uuid")
            last_usage[str(key)] = message.get("usage") or {}
            blocks = message.get("content") if isinstance(message.get("content"), list) else []
            tool_uses += sum(1 for b in blocks if b.get("type") == "tool_use")
        elif r["type"] == "user":
            content = message.get("content")
            text = (
                content
                if isinstance(content, str)
                else "\n".join(b.get("text", "") for b in content or [] if b.get("type") == "text")
            )
            if text.lstrip().startswith("[Request interrupted by user"):
                interrupts += 1
            for b in content if isinstance(content, list) else []:
                interrupted = (
                    (r.get("toolUseResult") or {})
                    if isinstance(r.get("toolUseResult"), dict)
                    else {}
                )
                if b.get("type") == "tool_result" and (
                    b.get("is_error") is True or interrupted.get("interrupted") is True
                ):
                    erring.add(str(b.get("tool_use_id") or f"{r.get('parentUuid')}#{position}"))
        elif r["type"] == "system" and r.get("subtype") in ("api_error", "error"):
            api_errors += 1
    errors = len(erring)
    tokens_in = sum(
        (u.get("input_tokens") or 0)
        + (u.get("cache_creation_input_tokens") or 0)
        + (u.get("cache_read_input_tokens") or 0)
        for u in last_usage.values()
    )
    tokens_out = sum(u.get("output_tokens") or 0 for u in last_usage.values())
    return {
        "runs": runs,
        "steps": len(last_usage) + tool_uses + interrupts + api_errors,
        "tool_errors": errors,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
    }


@needs_data
@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(FOLDER)))
def test_every_shared_file_counts(path: Path, tmp_path: Path) -> None:
    con = load(tmp_path, path)
    row = con.execute(
        """
        SELECT (SELECT count(*) FROM runs),
               (SELECT count(*) FROM steps),
               (SELECT count(*) FROM steps WHERE type = 'tool' AND status = 'error'),
               (SELECT coalesce(sum(tokens_in), 0) FROM steps),
               (SELECT coalesce(sum(tokens_out), 0) FROM steps),
               (SELECT list(DISTINCT format) FROM runs)
        """
    ).fetchone()
    assert row is not None
    expected = _expected(path)
    assert dict(
        zip(("runs", "steps", "tool_errors", "tokens_in", "tokens_out"), row[:5], strict=True)
    ) == (expected)
    assert row[5] == ["claude-code"]


@needs_data
def test_sources_md_token_columns(tmp_path: Path) -> None:
    """The token columns SOURCES.md gives for one session (in / out / cache_w / cache_r)."""
    con = load(tmp_path, FOLDER / "codemie-code" / "session-3fe1b6bc.jsonl")
    usage = con.execute("SELECT meta->'usage' FROM runs").fetchone()
    assert usage is not None
    assert orjson.loads(usage[0]) == {
        "input": 15377,
        "output": 34781,
        "cache_write": 1707033,
        "cache_read": 5157884,
    }
    cost = con.execute("SELECT sum(cost_usd) FROM steps").fetchone()
    assert cost is not None
    # claude-sonnet-4-5: 3 / 15 / 3.75 / 0.30 dollars per million tokens
    expected = (15377 * 3 + 34781 * 15 + 1707033 * 3.75 + 5157884 * 0.30) / 1e6
    assert cost[0] == pytest.approx(expected)


@needs_data
def test_inline_sidechains_nest_under_their_task_step(tmp_path: Path) -> None:
    con = load(tmp_path, FOLDER / "claude-code-viewer" / "sample-project")
    parent_id = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
    meta_text = con.execute("SELECT meta FROM runs WHERE run_id = ?", [parent_id]).fetchone()
    assert meta_text is not None
    meta = orjson.loads(meta_text[0])
    assert meta["totals_include_children"] is False
    children = meta["children"]
    assert len(children) == 2
    for child in children:
        action = con.execute(
            "SELECT action FROM steps WHERE run_id = ? AND idx = ?", [parent_id, child["step"]]
        ).fetchone()
        assert action == ("Task",)
        back = con.execute(
            "SELECT meta->>'parent_run_id', (meta->>'parent_step')::INT FROM runs WHERE run_id = ?",
            [child["run_id"]],
        ).fetchone()
        assert back == (parent_id, child["step"])
    family = con.execute(
        "SELECT sum(tokens_in), sum(tokens_out) FROM steps WHERE list_contains(?, run_id)",
        [[parent_id, *(c["run_id"] for c in children)]],
    ).fetchone()
    assert family is not None
    with_children = meta["totals_with_children"]
    assert (with_children["tokens_in"], with_children["tokens_out"]) == family
    assert with_children["runs"] == 3


@needs_data
def test_subagents_folder_and_dangling_links(tmp_path: Path) -> None:
    con = load(tmp_path, FOLDER / "agent-sessions" / "subagent", FOLDER / "codemie-code")
    parent = "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"
    child = f"{parent}:agent-a0ad4f44468bdf20d"
    row = con.execute(
        "SELECT meta->>'parent_run_id', meta->'agent_meta'->>'agentType' FROM runs"
        " WHERE run_id = ?",
        [child],
    ).fetchone()
    assert row == (parent, "general-purpose")
    children = con.execute("SELECT meta->'children' FROM runs WHERE run_id = ?", [parent])
    entry = orjson.loads(children.fetchone()[0])  # type: ignore[index]
    assert [c["run_id"] for c in entry] == [child]
    dangling = con.execute(
        "SELECT meta->'children' FROM runs WHERE source_file LIKE '%incremental-subagents%'"
    ).fetchone()
    assert dangling is not None
    assert [(c["agent_id"], c["in_load"]) for c in orjson.loads(dangling[0])] == [
        ("a485154", False)
    ]


def _session_lines() -> list[bytes]:
    return (
        (
            FOLDER
            / "claude-code-viewer"
            / "sample-project"
            / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
        )
        .read_bytes()
        .splitlines()
    )


@needs_data
def test_resumed_session_counts_each_record_once(tmp_path: Path) -> None:
    """A resumed session's file repeats the earlier records (same uuid, same message.id) under
    a new session id and goes on: only what it adds belongs to it."""
    lines = _session_lines()
    first = tmp_path / "p" / "one.jsonl"
    first.parent.mkdir()
    first.write_bytes(b"\n".join(lines[:15]) + b"\n")
    resumed = []
    for line in lines:
        record = orjson.loads(line)
        record["sessionId"] = "resumed-session"
        resumed.append(orjson.dumps(record))
    (tmp_path / "p" / "two.jsonl").write_bytes(b"\n".join(resumed) + b"\n")
    alone = load(
        tmp_path / "alone",
        FOLDER
        / "claude-code-viewer"
        / "sample-project"
        / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    )
    whole = alone.execute("SELECT count(*), sum(tokens_in), sum(tokens_out) FROM steps").fetchone()
    con = load(tmp_path, tmp_path / "p")
    both = con.execute("SELECT count(*), sum(tokens_in), sum(tokens_out) FROM steps").fetchone()
    assert both == whole
    skipped = con.execute(
        "SELECT (meta->>'repeated_records_skipped')::INT FROM runs WHERE run_id = 'resumed-session'"
    ).fetchone()
    assert skipped is not None and skipped[0] > 0


@needs_data
def test_grown_session_file_replaces_its_run(tmp_path: Path) -> None:
    lines = _session_lines()
    log = tmp_path / "proj" / "s.jsonl"
    log.parent.mkdir()
    log.write_bytes(b"\n".join(lines[:12]) + b"\n")
    db = tmp_path / "a.duckdb"
    ingest([log], db)
    log.write_bytes(b"\n".join(lines) + b"\n")
    report = ingest([log], db)  # no replace=True
    assert report.replaced_runs == 1
    con = load(tmp_path / "fresh", log)
    fresh = con.execute("SELECT count(*), sum(tokens_in) FROM steps").fetchone()
    import duckdb

    archive = duckdb.connect(str(db))
    assert archive.execute("SELECT count(*) FROM runs").fetchone() == (1,)
    assert archive.execute("SELECT count(*), sum(tokens_in) FROM steps").fetchone() == fresh
    # a different file holding the same session id is still a conflict
    other = tmp_path / "elsewhere" / "s.jsonl"
    other.parent.mkdir()
    other.write_bytes(b"\n".join(lines[:20]) + b"\n")
    archive.close()
    with pytest.raises(InputError, match="already in the archive"):
        ingest([other], db)


def test_bad_line_is_named(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    good = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": "s1",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {"role": "user", "content": "hi"},
    }
    log.write_bytes(orjson.dumps(good) + b"\n{not json\n")
    with pytest.raises(InputError) as caught:
        ingest([log], tmp_path / "a.duckdb")
    assert caught.value.line == 2 and "invalid JSON" in caught.value.message
    bad = dict(good, type="assistant", uuid="a1", message="oops")
    log.write_bytes(orjson.dumps(good) + b"\n" + orjson.dumps(bad) + b"\n")
    with pytest.raises(InputError) as caught:
        ingest([log], tmp_path / "b.duckdb")
    assert (caught.value.line, caught.value.field) == (2, "message")


def test_user_prices_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "p" / "s.jsonl"
    log.parent.mkdir()
    base = {"sessionId": "s1", "parentUuid": None, "timestamp": "2026-01-01T00:00:00Z"}
    records = [
        {**base, "type": "user", "uuid": "u1", "message": {"role": "user", "content": "go"}},
        {
            **base,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "message": {
                "id": "m1",
                "model": "house-model-7",
                "content": [{"type": "text", "text": "ok"}],
                "usage": {"input_tokens": 1000, "output_tokens": 2000},
            },
        },
    ]
    log.write_bytes(b"\n".join(orjson.dumps(r) for r in records) + b"\n")
    con = load(tmp_path / "a", log)
    assert con.execute("SELECT cost_usd FROM steps WHERE type = 'llm'").fetchone() == (None,)
    (tmp_path / "reportgen.toml").write_text(
        '[prices."house-model-7"]\ninput = 1\noutput = 2\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)  # the nearest reportgen.toml's [prices] table
    con = load(tmp_path / "b", log)
    assert con.execute("SELECT cost_usd FROM steps WHERE type = 'llm'").fetchone() == (
        pytest.approx((1000 * 1 + 2000 * 2) / 1e6),
    )
    assert con.execute("SELECT cost_recomputed_usd FROM runs").fetchone() == (
        pytest.approx((1000 * 1 + 2000 * 2) / 1e6),
    )
    source = con.execute("SELECT meta->'prices'->>'source' FROM runs").fetchone()
    assert source is not None and str(source[0]).endswith("reportgen.toml [prices]")


def test_detected_when_the_head_is_all_file_snapshots(tmp_path: Path) -> None:
    """A session that opens with file-history snapshots longer than the 64 KB head."""
    snapshot = {
        "type": "file-history-snapshot",
        "messageId": "m0",
        "snapshot": {"trackedFileBackups": {"a.py": "x" * 70_000}},
    }
    user = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": "s-big",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {"role": "user", "content": "hello"},
    }
    log = tmp_path / "p" / "s-big.jsonl"
    log.parent.mkdir()
    log.write_bytes(orjson.dumps(snapshot) + b"\n" + orjson.dumps(user) + b"\n")
    report = ingest([log], tmp_path / "a.duckdb")
    assert [row["format"] for row in report.loaded] == ["claude-code"]


@needs_data
def test_resumed_session_in_a_later_load_counts_each_record_once(tmp_path: Path) -> None:
    """The resume is loaded a day after the session it repeats: the messages and events the
    archived run counted are skipped (message.id kept in each llm step's output; error and
    interrupt steps by type and start), so the archive holds what one load of both holds."""
    lines = _session_lines()
    first = tmp_path / "p" / "one.jsonl"
    first.parent.mkdir()
    first.write_bytes(b"\n".join(lines[:15]) + b"\n")
    resumed = []
    for line in lines:
        record = orjson.loads(line)
        record["sessionId"] = "resumed-session"
        resumed.append(orjson.dumps(record))
    later = tmp_path / "q" / "two.jsonl"
    later.parent.mkdir()
    later.write_bytes(b"\n".join(resumed) + b"\n")
    together = load(tmp_path / "together", first, later)
    want = together.execute(
        "SELECT count(*), sum(tokens_in), sum(tokens_out) FROM steps"
    ).fetchone()
    db = tmp_path / "a.duckdb"
    ingest([first], db)
    ingest([later], db)
    with duckdb.connect(str(db), read_only=True) as con:
        got = con.execute("SELECT count(*), sum(tokens_in), sum(tokens_out) FROM steps").fetchone()
        ids = con.execute(
            "SELECT count(*), count(DISTINCT output->>'message_id') FROM steps "
            "WHERE type = 'llm' AND output->>'message_id' IS NOT NULL"
        ).fetchone()
        skipped = con.execute(
            "SELECT (meta->>'repeated_records_skipped')::INT FROM runs WHERE run_id = 'resumed-session'"
        ).fetchone()
    assert got == want
    assert ids is not None and ids[0] == ids[1] > 0  # each API response once in the archive
    assert skipped is not None and skipped[0] > 0
    # the grown original itself is replaced, not deduplicated against its own earlier run
    first.write_bytes(b"\n".join(lines[:20]) + b"\n")
    report = ingest([first], db)
    assert report.replaced_runs == 1 and report.counts["steps"] > 0
