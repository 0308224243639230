"""Codex CLI 0.171 rollouts with ``token_usage_record`` lines (codex-cli/token-usage-record):
one model call per record, each response counted once; a resumed session in one file; a
forked session whose cumulative totals start from its parent's, counted once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .helpers import DATA, needs_data
from .test_codex_cli import load

FOLDER = DATA / "codex-cli" / "token-usage-record"
PARENT = "01a2387c-7985-72b2-89c4-9da9c6c8896b"
FORK = "01a2387c-ad1d-7f73-84df-b1a8af5fceb7"


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _file(run_id: str) -> Path:
    return next(FOLDER.rglob(f"rollout-*-{run_id}.jsonl"))


def _raw_counts(path: Path) -> dict[str, int]:
    """Counts from the raw records: one llm step per distinct response id of the usage
    records, one tool step per call, errors from non-zero exits."""
    records = _records(path)
    usage: dict[str, dict[str, int]] = {}
    for r in records:
        if r["type"] == "token_usage_record":
            usage.setdefault(r["payload"]["response_id"], r["payload"]["usage"])
    calls = [
        r
        for r in records
        if r["type"] == "response_item" and r["payload"].get("type") == "function_call"
    ]
    exits = [
        r["payload"]["item"].get("exit_code")
        for r in records
        if r["type"] == "event_msg"
        and r["payload"].get("type") == "item_completed"
        and r["payload"]["item"].get("type") == "CommandExecution"
    ]
    return {
        "runs": 1,
        "llm": len(usage),
        "tools": len(calls),
        "tool_errors": sum(1 for c in exits if c not in (None, 0)),
        "tokens_in": sum(u["input_tokens"] for u in usage.values()),
        "tokens_out": sum(u["output_tokens"] for u in usage.values()),
    }


def _loaded_counts(con: Any, run_id: str) -> dict[str, int]:
    row = con.execute(
        """
        SELECT count(DISTINCT run_id),
               count(*) FILTER (WHERE type = 'llm'),
               count(*) FILTER (WHERE type = 'tool'),
               count(*) FILTER (WHERE type = 'tool' AND status = 'error'),
               sum(tokens_in), sum(tokens_out)
        FROM steps WHERE run_id = ?
        """,
        [run_id],
    ).fetchone()
    keys = ("runs", "llm", "tools", "tool_errors", "tokens_in", "tokens_out")
    return dict(zip(keys, row, strict=True))


@needs_data
def test_each_file_counts_its_own_usage_records(tmp_path: Path) -> None:
    con = load(tmp_path, FOLDER)
    assert con.execute("SELECT count(*) FROM runs").fetchone() == (2,)
    for run_id in (PARENT, FORK):
        assert _loaded_counts(con, run_id) == _raw_counts(_file(run_id)), run_id


@needs_data
def test_resumed_session_is_one_run_with_both_turns(tmp_path: Path) -> None:
    path = _file(PARENT)
    turns = [r for r in _records(path) if r["payload"].get("type") == "task_complete"]
    assert len(turns) == 2
    con = load(tmp_path, path)
    assert con.execute("SELECT count(*) FROM runs").fetchone() == (1,)
    # the thread's running total at its end is what the run's steps add up to
    last = [r for r in _records(path) if r["type"] == "token_usage_record"][-1]
    thread = last["payload"]["thread_token_usage"]
    assert con.execute("SELECT sum(tokens_in), sum(tokens_out) FROM steps").fetchone() == (
        thread["input_tokens"],
        thread["output_tokens"],
    )


@needs_data
def test_fork_does_not_count_its_parents_usage_again(tmp_path: Path) -> None:
    """The fork's cumulative totals start from the parent's: parent + fork, loaded together,
    add up to the fork's final thread total, each part counted once."""
    con = load(tmp_path, FOLDER)
    last = [r for r in _records(_file(FORK)) if r["type"] == "token_usage_record"][-1]
    thread = last["payload"]["thread_token_usage"]
    assert con.execute("SELECT sum(tokens_in), sum(tokens_out) FROM steps").fetchone() == (
        thread["input_tokens"],
        thread["output_tokens"],
    )
    meta = con.execute("SELECT meta->>'forked_from_id' FROM runs WHERE run_id = ?", [FORK])
    assert meta.fetchone() == (PARENT,)


def _line(ordinal: int, kind: str, payload: dict[str, Any]) -> str:
    stamp = f"2026-12-02T20:40:{10 + ordinal % 40:02d}.000Z"
    return json.dumps({"timestamp": stamp, "ordinal": ordinal, "type": kind, "payload": payload})


def _usage(tokens_in: int, tokens_out: int) -> dict[str, int]:
    return {"input_tokens": tokens_in, "output_tokens": tokens_out, "cached_input_tokens": 0}


def _call(ordinal: int, call_id: str, response_id: str, tokens: int) -> list[str]:
    return [
        _line(
            ordinal,
            "response_item",
            {
                "type": "function_call",
                "id": f"fc-{call_id}",
                "name": "exec_command",
                "arguments": "{}",
                "call_id": call_id,
            },
        ),
        _line(
            ordinal + 1,
            "token_usage_record",
            {"response_id": response_id, "usage": _usage(tokens, 10)},
        ),
        _line(
            ordinal + 2,
            "response_item",
            {
                "type": "function_call_output",
                "call_id": call_id,
                "output": "Process exited with code 0",
            },
        ),
    ]


def test_a_fork_copying_its_parents_prefix_counts_it_once(tmp_path: Path) -> None:
    """A fork that copies its parent's records (ordinals below
    ``forked_from_ordinal_exclusive``), and a resume repeating a usage record: the copied
    prefix and the repeated record are counted once, in the parent."""
    parent = [_line(0, "session_meta", {"id": "p"})]
    parent += _call(1, "c1", "r1", 100) + _call(4, "c2", "r2", 200)
    parent.append(parent[-2])  # a resume repeating the last usage record
    fork = [
        _line(
            7,
            "session_meta",
            {"id": "f", "forked_from_id": "p", "forked_from_ordinal_exclusive": 7},
        )
    ]
    fork += parent[1:7] + _call(7, "c3", "r3", 400)
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "rollout-a-p.jsonl").write_text("\n".join(parent) + "\n")
    (folder / "rollout-b-f.jsonl").write_text("\n".join(fork) + "\n")
    con = load(tmp_path / "db", folder)
    got = con.execute(
        "SELECT run_id, sum(tokens_in), count(*) FILTER (WHERE type = 'tool') FROM steps"
        " GROUP BY run_id ORDER BY run_id"
    ).fetchall()
    assert got == [("f", 400, 1), ("p", 300, 2)]
