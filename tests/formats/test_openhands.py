"""OpenHands SDK conversations: every shared conversation (folders of per-event files and the
events JSONL), counts computed here from the raw events; the error classification decides
the outcome (auth, quota, rate limit, transient: not scored; agent_action: the agent's)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from .helpers import DATA, load, needs_data

FOLDER = DATA / "openhands-sdk"


def _conversations() -> list[Path]:
    """Each conversation: a folder with base_state.json, or an events JSONL file."""
    if not FOLDER.is_dir():
        return []
    found = [p.parent for p in FOLDER.rglob("base_state.json")]
    return sorted([*found, *FOLDER.rglob("*.jsonl")])


def _events(conversation: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if conversation.is_file():
        lines = conversation.read_text().splitlines()
        return {}, [json.loads(x) for x in lines if x.strip()]
    state = json.loads((conversation / "base_state.json").read_text())
    files = sorted((conversation / "events").glob("event-*.json"))
    return state, [json.loads(p.read_text()) for p in files]


def _expected(conversation: Path) -> dict[str, Any]:
    state, events = _events(conversation)
    actions = [e for e in events if e["kind"] == "ActionEvent"]
    answers = [e for e in events if e["kind"] in ("ObservationEvent", "AgentErrorEvent")]
    acted = {e["tool_call_id"] for e in actions}
    orphans = [e for e in answers if e["tool_call_id"] not in acted]
    responses = {e["llm_response_id"] for e in actions}
    errors = [e for e in events if e["kind"] == "ConversationErrorEvent"]
    if state:
        usages = [u for m in state["stats"]["usage_to_metrics"].values() for u in m["token_usages"]]
    else:  # the last cumulative stats update, over every usage id
        stats = [e["value"] for e in events if e.get("key") == "stats"][-1]
        usages = [m["accumulated_token_usage"] for m in stats["usage_to_metrics"].values()]
    status = state.get("execution_status") or next(
        (e["value"] for e in reversed(events) if e.get("key") == "execution_status"), None
    )
    kind = errors[-1]["classification"]["kind"] if errors and status == "error" else None
    return {
        "steps": len(responses) + len(actions) + len(orphans) + len(errors),
        "tool_calls": len(actions) + len(orphans),
        "tool_errors": sum(
            1
            for e in answers
            if e["kind"] == "AgentErrorEvent" or e["observation"].get("is_error") is True
        ),
        "tokens_in": sum(u["prompt_tokens"] for u in usages),
        "tokens_out": sum(u["completion_tokens"] for u in usages),
        "error_kind": {"auth": "auth", "rate_limit": "rate_limit"}.get(kind or ""),
        "failed": kind == "agent_action" or status == "stuck",
    }


@needs_data
@pytest.mark.parametrize("conversation", _conversations(), ids=lambda p: p.name)
def test_every_shared_conversation_counts(conversation: Path, tmp_path: Path) -> None:
    con = load(tmp_path, conversation)
    row = con.execute(
        """
        SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM steps),
               (SELECT count(*) FROM steps WHERE type = 'tool'),
               (SELECT count(*) FROM steps WHERE type = 'tool' AND status = 'error'),
               (SELECT coalesce(sum(tokens_in), 0) FROM steps),
               (SELECT coalesce(sum(tokens_out), 0) FROM steps),
               (SELECT any_value(error_kind) FROM runs),
               (SELECT coalesce(bool_or(success = false), false) FROM runs),
               (SELECT count(*) FILTER (success) FROM runs),
               (SELECT any_value(format) FROM runs)
        """
    ).fetchone()
    assert row is not None
    assert row[0] == 1 and row[8] == 0 and row[9] == "openhands-sdk"
    keys = ("steps", "tool_calls", "tool_errors", "tokens_in", "tokens_out", "error_kind", "failed")
    assert dict(zip(keys, row[1:8], strict=True)) == _expected(conversation)


@needs_data
def test_auth_failure_is_not_scored(tmp_path: Path) -> None:
    """The 401 conversation: error_kind auth, the SDK's words as the reason, success NULL; the
    first user message is the goal and hashes the task; suite the workspace folder."""
    con = load(tmp_path, FOLDER / "generated" / "3d4f4afbd48f4599a12103e02ffe8106")
    row = con.execute(
        "SELECT run_id, suite, label, task_id, success, error_kind, error_reason,"
        " meta->>'goal' FROM runs"
    ).fetchone()
    assert row == (
        "3d4f4afb-d48f-4599-a121-03e02ffe8106",
        "openhands-sdk/ws-gamma",
        "openai/mock-scripted-model",
        row[3],
        None,
        "auth",
        "LLMAuthenticationError: Your LLM API key appears to be invalid or has expired.",
        "GAMMA: rename the function parse_args to parse_cli in cli.py.",
    )
    assert row[3].startswith("prompt-")


@needs_data
def test_any_file_of_a_conversation_loads_it_once(tmp_path: Path) -> None:
    """One event file alone loads its whole conversation; the folder loads it once; the
    finish message is the output."""
    folder = FOLDER / "generated" / "c49b8685711f4d3e903285a41b3b6d3a"
    one = sorted((folder / "events").glob("event-*.json"))[3]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    alone = load(tmp_path / "a", one)
    whole = load(tmp_path / "b", folder)
    for con in (alone, whole):
        assert con.execute("SELECT count(*), sum(n_steps) FROM runs").fetchone() == (1, 8)
    finish = json.loads(sorted((folder / "events").glob("event-*.json"))[8].read_text())
    assert whole.execute("SELECT output FROM runs").fetchone() == (finish["action"]["message"],)


def _with_error(tmp_path: Path, classification: str, detail: str) -> Path:
    """The shared auth-failure conversation, its error reclassified."""
    source = FOLDER / "generated" / "3d4f4afbd48f4599a12103e02ffe8106"
    copy = tmp_path / source.name
    shutil.copytree(source, copy)
    path = next(copy.glob("events/event-00002-*.json"))
    event = json.loads(path.read_text())
    event["classification"]["kind"] = classification
    event["code"], event["detail"] = "LLMError", detail
    path.write_text(json.dumps(event))
    return copy


@needs_data
@pytest.mark.parametrize(
    ("classification", "kind", "success"),
    [
        ("rate_limit", "rate_limit", None),
        ("quota", "quota", None),
        ("transient", "network", None),
        ("agent_action", None, False),
        ("bad_request", None, False),
    ],
)
def test_classification_decides_the_outcome(
    tmp_path: Path, classification: str, kind: str | None, success: bool | None
) -> None:
    copy = _with_error(tmp_path, classification, "something failed")
    con = load(tmp_path, copy)
    assert con.execute("SELECT error_kind, success FROM runs").fetchone() == (kind, success)
