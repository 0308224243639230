"""tau-bench result files (sierra-research/tau-bench): a JSON list of
``{task_id, trial, reward, info, traj}``, ``traj`` being an OpenAI-format chat.

Shared with tau2-bench: the agent's turns become steps. Each tool call of an assistant message
is a ``tool`` step (its result, matched by call id, gives the output and the status: an error
flag or ``Error:`` text is an error); an assistant message with text and no tool call is an
``llm`` step ``reply``, whose input is what it answered: the user (simulated customer) turns,
tool results and the agent's own text beside tool calls since its previous reply, as text. User and system messages are not agent
steps of their own. A message's tokens, cost and latency go to its first step.

A result is a run: the model the file is named for (``gpt-4o-airline.json``: ``gpt-4o``) is its
label, the domain its suite (``tau-bench/airline``), ``trial`` its trial."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import duckdb

from reportgen.formats.adapters.messages import content_text
from reportgen.formats.adapters.rows import (
    Collector,
    maybe_json,
    parse_document,
    require,
    stable_id,
    stage_each,
)
from reportgen.formats.adapters.why import call_text, lines, why
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

WHAT = "tau-bench result file (a list of {task_id, trial, reward, info, traj})"
_LIST_OF_OBJECTS = re.compile(rb"^\s*\[\s*\{")
_KEYS = (Marked(rb'"traj"\s*:\s*\['), Marked(rb'"task_id"\s*:'))
_DOMAIN = re.compile(r"#\s*(\w+)\s+agent\s+policy", re.IGNORECASE)


@dataclass
class ChatStep:
    """A step being built from chat messages (the result may arrive later)."""

    type: str
    action: str
    input: Any = None
    output: Any = None
    status: str = "ok"
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None
    started_at: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def is_tool_error(content: Any, flagged: bool = False) -> bool:
    """A tool result is an error when flagged so, or when its text starts with ``Error:``."""
    return flagged or (isinstance(content, str) and content.lstrip().startswith("Error"))


def take_pending(pending: dict[str, ChatStep], call_id: Any) -> ChatStep | None:
    """The tool call a result answers: by its id, else the oldest call still unanswered."""
    step = pending.pop(str(call_id), None)
    if step is None and pending:
        step = pending.pop(next(iter(pending)))
    return step


def heard(messages: list[Any]) -> str | None:
    """What an agent reply answers: the messages since its previous reply (user turns, tool
    results, and its own text beside tool calls, which has no step of its own), as text, each
    prefixed by its role. So no user turn before the last reply is left off the page."""
    parts = []
    for message in messages:
        text = content_text(message.get("content"))
        if text is not None:
            parts.append(f"{message.get('role')}: {text}")
    return "\n\n".join(parts) or None


def last_reply(messages: list[Any]) -> str | None:
    """The agent's last message to the user: the text of the last assistant message that
    calls no tool; None when it never replied in words."""
    for message in reversed(messages):
        if (
            isinstance(message, dict)
            and message.get("role") == "assistant"
            and not message.get("tool_calls")
        ):
            text = content_text(message.get("content"))
            if text and text.strip():
                return text
    return None


def emit(rows: Collector, steps: list[ChatStep]) -> None:
    """Hand built steps to the collector, in order."""
    for s in steps:
        rows.step(
            s.type,
            s.action,
            s.status,
            input=s.input,
            output=s.output,
            tokens_in=s.tokens_in,
            tokens_out=s.tokens_out,
            cost_usd=s.cost_usd,
            latency_ms=s.latency_ms,
            started_at=s.started_at,
        )


class TauBench:
    name = "tau-bench"
    description = "tau-bench results (a list of {task_id, trial, reward, info, traj})"
    maps = (
        "a result -> a run (label: the model the file is named for, suite: tau-bench/<domain>, "
        "trial: trial); an assistant tool call -> a tool step "
        "('Error:' result -> error), a text reply -> llm step 'reply'; reward -> reward"
    )

    def detect(self, source: SourceFile) -> bool:
        head = source.head
        return bool(_LIST_OF_OBJECTS.match(head)) and all(k.search(head) for k in _KEYS)

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        stage_each(con, sources, self.name, WHAT, _parse)


def _domain(traj: list[Any]) -> str | None:
    """The domain from the system prompt's title ("# Airline Agent Policy" -> airline)."""
    for message in traj[:2]:
        if isinstance(message, dict) and message.get("role") == "system":
            found = _DOMAIN.search(str(message.get("content", ""))[:200])
            if found:
                return found.group(1).lower()
    return None


def _steps(traj: list[Any]) -> list[ChatStep]:
    steps: list[ChatStep] = []
    pending: dict[str, ChatStep] = {}
    since: list[Any] = []
    for message in traj:
        role = message.get("role")
        if role in ("user", "tool"):
            since.append(message)
        if role == "assistant":
            calls = message.get("tool_calls") or []
            for call in calls:
                function = call.get("function") or {}
                step = ChatStep(
                    "tool",
                    str(function.get("name") or "(unnamed)"),
                    input=maybe_json(function.get("arguments")),
                )
                steps.append(step)
                pending[str(call.get("id"))] = step
            if not calls and message.get("content"):
                steps.append(
                    ChatStep("llm", "reply", input=heard(since), output=message["content"])
                )
                since = []
            elif message.get("content"):
                since.append(message)  # text beside tool calls: shown with the next reply
        elif role == "tool":
            answered = take_pending(pending, message.get("tool_call_id"))
            if answered is not None:
                content = message.get("content")
                answered.output = content
                answered.status = "error" if is_tool_error(content) else "ok"
    return steps


def _parse(rows: Collector, source: SourceFile) -> None:
    document = parse_document(source, WHAT)
    require(source, isinstance(document, list), f"expected {WHAT}")
    stem = source.path.name.split(".")[0]
    for position, result in enumerate(document):
        where = f"[{position}]"
        require(source, isinstance(result, dict), "expected an object", where)
        for key in ("task_id", "traj"):
            require(source, key in result, "required field is missing", f"{where}.{key}")
        traj = result["traj"]
        require(source, isinstance(traj, list), "expected a list of messages", f"{where}.traj")
        task_id = str(result["task_id"])
        domain = _domain(traj)
        model = stem[: -len(domain) - 1] if domain and stem.endswith("-" + domain) else stem
        reward = result.get("reward")
        reward = float(reward) if isinstance(reward, (int, float)) else None
        info = result.get("info") if isinstance(result.get("info"), dict) else {}
        task = info.get("task")
        task = task if isinstance(task, dict) else {}
        rows.begin(stable_id(source, task_id, position))
        emit(rows, _steps(traj))
        rows.end(
            source,
            task_id=task_id,
            label=model,
            suite=f"tau-bench/{domain}" if domain else "tau-bench",
            trial=int(result.get("trial") or 0),
            reward=reward,
            success=None if reward is None else reward >= 1,
            output=last_reply(traj),
            meta={
                "benchmark": "tau-bench",
                "file": stem,
                "user_cost": info.get("user_cost"),
                **why(goal=task.get("instruction"), scorer=_scorer(info.get("reward_info"))),
            },
        )


def _scorer(info: Any) -> str | None:
    """The reward info in words: the reward; for the action check (``r_actions``: the
    database after the run against the one the expected actions leave), its result and the
    expected actions; for the output check (``r_outputs``), the outputs not said."""
    if not isinstance(info, dict) or not info:
        return None
    parts: list[str | None] = []
    if info.get("reward") is not None:
        parts.append(f"reward {info['reward']}")
    checks = info.get("info")
    checks = checks if isinstance(checks, dict) else {}
    if "r_actions" in checks:
        matched = checks["r_actions"] == 1
        parts.append(
            f"r_actions {checks['r_actions']}: the database "
            + ("matches" if matched else "does not match")
            + " the one the expected actions leave"
        )
        if not matched:
            expected = [a for a in info.get("actions") or [] if isinstance(a, dict)]
            parts += [
                "expected action: " + call_text(a.get("name"), a.get("kwargs")) for a in expected
            ]
    if "r_outputs" in checks:
        outputs = checks.get("outputs")
        outputs = outputs if isinstance(outputs, dict) else {}
        missing = [str(k) for k, v in outputs.items() if not v]
        parts.append(
            f"r_outputs {checks['r_outputs']}"
            + (f": expected outputs not said: {', '.join(missing)}" if missing else "")
        )
    return lines(*parts)
