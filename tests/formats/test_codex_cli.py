"""Codex CLI rollouts: every shared file, counts computed here from the raw records (call_id
joins, exit codes from whichever place, cumulative token_count differences), unknown usage
when a file has no token events, grown files replacing their run, bad lines named."""

from __future__ import annotations

import json
import re
from collections import deque
from pathlib import Path
from typing import Any

import orjson
import pytest

from reportgen.errors import InputError
from reportgen.ingest.loader import ingest

from .helpers import DATA, needs_data
from .helpers import load as _load

FOLDER = DATA / "codex-cli"
CALLS = {"function_call", "custom_tool_call", "web_search_call", "tool_search_call"}
CALLS |= {"image_generation_call"}
OUTPUTS = {"function_call_output", "custom_tool_call_output", "tool_search_output"}


def load(folder: Path, *paths: Path) -> Any:
    folder.mkdir(parents=True, exist_ok=True)
    return _load(folder, *paths)


def _files() -> list[Path]:
    return sorted(FOLDER.rglob("*.jsonl")) if FOLDER.is_dir() else []


def _expected(path: Path) -> dict[str, Any]:
    records = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    items = [(r["type"], r.get("payload") or {}) for r in records]
    events = [p for kind, p in items if kind == "event_msg"]
    exits = {
        str(p.get("call_id")): p["exit_code"]
        for p in events
        if p.get("type") == "exec_command_end" and isinstance(p.get("exit_code"), int)
    }
    failed_patch = {
        str(p.get("call_id"))
        for p in events
        if p.get("type") == "patch_apply_end" and p.get("success") is False
    }
    mcp_failed = {
        str(p.get("call_id"))
        for p in events
        if p.get("type") == "mcp_tool_call_end"
        and isinstance(p.get("result"), dict)
        and ("Err" in p["result"] or (p["result"].get("Ok") or {}).get("isError") is True)
    }
    calls: dict[str, deque[dict[str, Any]]] = {}
    tools = errors = 0
    for kind, p in items:
        if kind != "response_item":
            continue
        if p.get("type") in CALLS:
            tools += 1
            state = {"name": p.get("name"), "error": p.get("status") == "failed"}
            if p.get("type") == "web_search_call" and state["error"]:
                errors += 1
            if p.get("call_id"):
                calls.setdefault(str(p["call_id"]), deque()).append(state)
        elif p.get("type") in OUTPUTS and calls.get(str(p.get("call_id"))):
            call_id = str(p["call_id"])
            state = calls[call_id].popleft()
            output = p.get("output")
            code = None
            if isinstance(output, str):
                try:
                    meta = json.loads(output).get("metadata") or {}
                    code = meta.get("exit_code")
                except (ValueError, AttributeError):
                    found = re.search(r"(?:Process exited with code|Exit code:)\s*(-?\d+)", output)
                    code = int(found.group(1)) if found else None
            if state["name"] == "write_stdin":
                code = None
            code = exits.get(call_id, code)
            if (code not in (None, 0)) or call_id in failed_patch or call_id in mcp_failed:
                errors += 1
    # token usage: differences of the cumulative totals (four counters)
    keys = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens")
    previous: tuple[int, ...] | None = None
    tokens_in = tokens_out = turns = last_counted = 0
    records = [p for kind, p in items if kind == "token_usage_record"]
    forked = bool(items and items[0][1].get("forked_from_id"))
    responses: set[str] = set()
    for position, (kind, p) in enumerate(items):
        if records:  # newer rollouts: one token_usage_record per model call, once per response
            if kind != "token_usage_record" or p.get("response_id") in responses:
                continue
            responses.add(p.get("response_id"))
            usage = p["usage"]
            if any(usage.get(k) for k in keys):
                turns += 1
                last_counted = position
                tokens_in += usage.get("input_tokens") or 0
                tokens_out += usage.get("output_tokens") or 0
            continue
        if kind != "event_msg" or p.get("type") != "token_count":
            continue
        info = p.get("info")
        if not isinstance(info, dict):
            continue
        if forked and previous is None and isinstance(info.get("last_token_usage"), dict):
            # a fork's first total includes its parent's usage: this call is the last usage
            previous = tuple(info["total_token_usage"].get(k) or 0 for k in keys)
            delta = tuple(info["last_token_usage"].get(k) or 0 for k in keys)
        elif isinstance(info.get("total_token_usage"), dict):
            now = tuple(info["total_token_usage"].get(k) or 0 for k in keys)
            delta = (
                now
                if previous is None
                else tuple(a - b for a, b in zip(now, previous, strict=True))
            )
            if min(delta) < 0:
                last = info.get("last_token_usage") or {}
                delta = tuple(last.get(k) or 0 for k in keys)
            previous = now
        elif "prompt" in info or "completion" in info:
            delta = (info.get("prompt") or 0, 0, info.get("completion") or 0, 0)
        else:
            continue
        if any(delta):
            turns += 1
            last_counted = position
            tokens_in += delta[0]
            tokens_out += delta[2]
    known = turns > 0
    replies = [
        i
        for i, (kind, p) in enumerate(items)
        if kind == "response_item" and p.get("type") == "message" and p.get("role") == "assistant"
    ]
    extra = sum(
        1 for _, p in items if p.get("type") in ("error", "turn_aborted") and _ == "event_msg"
    )
    if known:
        last_event = last_counted
        llm = turns + (1 if any(i > last_event for i in replies) else 0)
    else:
        llm = len(replies)
    return {
        "steps": tools + llm + extra,
        "tool_errors": errors,
        "tokens_in": tokens_in if known else None,
        "tokens_out": tokens_out if known else None,
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
               (SELECT sum(tokens_in) FROM steps),
               (SELECT sum(tokens_out) FROM steps)
        """
    ).fetchone()
    assert row is not None
    expected = _expected(path)
    assert row[0] == 1
    got = dict(zip(("steps", "tool_errors", "tokens_in", "tokens_out"), row[1:], strict=True))
    assert got == expected


@needs_data
def test_sources_md_totals_and_exit_codes(tmp_path: Path) -> None:
    """SOURCES.md: the 0.125 rollout ends at in 6055836 / out 9118; exit codes 1 x3, 2 x1."""
    path = next(FOLDER.glob("codemie-code/rollout-2026-05-11*.jsonl"))
    con = load(tmp_path, path)
    assert con.execute("SELECT sum(tokens_in), sum(tokens_out) FROM steps").fetchone() == (
        6055836,
        9118,
    )
    codes = con.execute(
        "SELECT (output->>'exit_code')::INT AS c, count(*) FROM steps"
        " WHERE action = 'exec_command' GROUP BY c ORDER BY c"
    ).fetchall()
    assert codes == [(0, 39), (1, 3), (2, 1)]
    cached = con.execute("SELECT (meta->'usage'->>'cached_input')::BIGINT FROM runs").fetchone()
    assert cached == (4929536,)


def test_no_token_events_means_unknown_usage(tmp_path: Path) -> None:
    log = tmp_path / "r" / "rollout-x.jsonl"
    log.parent.mkdir()
    lines = [
        {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "s1"}},
        {
            "timestamp": "2026-01-01T00:00:01Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "assistant", "content": [{"text": "hi"}]},
        },
        {
            "timestamp": "2026-01-01T00:00:02Z",
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "shell",
                "call_id": "c1",
                "arguments": '{"command": ["false"]}',
            },
        },
        {
            "timestamp": "2026-01-01T00:00:03Z",
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": "c1",
                "output": "Process exited with code 1\nWall time: 0 s",
            },
        },
    ]
    log.write_bytes(b"\n".join(orjson.dumps(x) for x in lines) + b"\n")
    con = load(tmp_path / "db", log)
    assert con.execute(
        "SELECT type, status, tokens_in, parent FROM steps ORDER BY idx"
    ).fetchall() == [
        ("llm", "ok", None, None),
        ("tool", "error", None, 0),
    ]
    assert con.execute("SELECT (meta->>'usage_known')::BOOL FROM runs").fetchone() == (False,)


@needs_data
def test_grown_rollout_replaces_its_run(tmp_path: Path) -> None:
    path = next(FOLDER.glob("codemie-code/rollout-2026-05-11*.jsonl"))
    lines = path.read_bytes().splitlines()
    log = tmp_path / "s" / path.name
    log.parent.mkdir()
    log.write_bytes(b"\n".join(lines[:120]) + b"\n")
    db = tmp_path / "a.duckdb"
    ingest([log], db)
    log.write_bytes(path.read_bytes())
    report = ingest([log], db)
    assert report.replaced_runs == 1 and report.counts["runs"] == 1
    import duckdb

    con = duckdb.connect(str(db))
    assert con.execute("SELECT count(*) FROM runs").fetchone() == (1,)
    assert con.execute("SELECT sum(tokens_in) FROM steps").fetchone() == (6055836,)


def test_bad_line_is_named(tmp_path: Path) -> None:
    log = tmp_path / "rollout.jsonl"
    meta = {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "s"}}
    log.write_bytes(orjson.dumps(meta) + b'\n{"timestamp": 1, "type": "event_msg", "payload": 3}\n')
    with pytest.raises(InputError) as caught:
        ingest([log], tmp_path / "a.duckdb")
    assert (caught.value.line, caught.value.field) == (2, "payload")
