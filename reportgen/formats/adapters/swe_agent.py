"""SWE-agent trajectories (``.traj``): ``{environment, trajectory, history, info}``.

Each ``trajectory[]`` entry ``{action, observation, thought, response, state}`` is a ``tool``
step named by the first word of its command (``edit``, ``open``, ``python``...). SWE-agent has
no error flag, so the observation's text decides: an edit rejected for a syntax error or a
malformed reply is a retry, a traceback or a shell error is an error. ``info.model_stats``
(an object, or its Python-literal string form) gives the run's tokens and cost; ``execution_time``
(newer versions) gives step latency; ``info.submission`` is the output."""

from __future__ import annotations

import ast
import re
import shlex
from typing import Any

import duckdb

from reportgen.formats.adapters.messages import content_text
from reportgen.formats.adapters.rows import (
    Collector,
    amount,
    count,
    parse_document,
    require,
    stable_id,
    stage_each,
)
from reportgen.formats.adapters.why import swe_report, why
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

_ISSUE = re.compile(r"\bISSUE:\s*\n(.*?)\n\s*INSTRUCTIONS:", re.DOTALL)
WHAT = "SWE-agent trajectory (an object with trajectory and info)"
_TRAJ = Marked(rb'"trajectory"\s*:\s*\[')
_SWE_KEYS = re.compile(rb'"(?:environment|history|replay_config)"\s*:')
_RETRY = re.compile(
    r"Your proposed edit has introduced new syntax error|"
    r"Your output was not formatted correctly|did not contain a (?:command|valid)|"
    r"EXACTLY ONE (?:action|function call)|blocked by the tool|Your last output did not use"
)
_ERROR = re.compile(
    r"^Traceback \(most recent call last\)|: command not found|No such file or directory|"
    r"^(?:Error|ERROR)\b|^[A-Za-z_.]*(?:Error|Exception): |^Usage: |^usage: ",
    re.MULTILINE,
)


def first_word(command: str) -> str:
    """The command's name: its first word, skipping ``cd DIR &&`` and env assignments."""
    text = command.strip()
    while True:
        skip = re.match(r"cd\s+\S+\s*(?:&&|;)\s*", text)
        if not skip:
            break
        text = text[skip.end() :]
    for word in text.split():
        if re.match(r"^[A-Za-z_]\w*=", word):
            continue
        name = word.strip("\"'`()")
        return name.rsplit("/", 1)[-1] or word
    return "(empty)"


def model_stats(value: Any) -> dict[str, Any]:
    """``model_stats`` as a dict: SWE-agent writes it as an object or as a Python-literal
    string (``"{'instance_cost': 0.5, ...}"``), which ``ast.literal_eval`` reads safely."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip():
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def observation_status(observation: str) -> str:
    """ok, retry (a rejected edit or malformed reply) or error (traceback, shell error)."""
    head = observation[:4000]
    if _RETRY.search(head):
        return "retry"
    if head.lstrip().startswith("[File:"):
        return "ok"
    return "error" if _ERROR.search(head) else "ok"


def command_input(action: str) -> dict[str, Any]:
    """The step input: the full command, plus its arguments when it splits cleanly."""
    first_line = action.strip().split("\n", 1)[0]
    try:
        args = shlex.split(first_line)[1:]
    except ValueError:
        args = first_line.split()[1:]
    return {"command": action.strip(), "args": args}


class SweAgent:
    name = "swe-agent"
    description = "SWE-agent trajectory (.traj)"
    maps = (
        "a .traj -> a run (task: file name, label: run folder); a trajectory entry -> a tool step "
        "named by the command's first word; rejected edit/format error -> retry, traceback -> error"
    )

    def detect(self, source: SourceFile) -> bool:
        if source.path.name.endswith(".traj"):
            return True
        return bool(_TRAJ.search(source.head)) and bool(_SWE_KEYS.search(source.head))

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        stage_each(con, sources, self.name, WHAT, _parse)


def _issue(history: Any) -> str | None:
    """The task: the first user message of ``history`` that is not a demonstration, or only
    the issue text it quotes (between ``ISSUE:`` and ``INSTRUCTIONS:``)."""
    if not isinstance(history, list):
        return None
    first = next(
        (
            m
            for m in history
            if isinstance(m, dict) and m.get("role") == "user" and not m.get("is_demo")
        ),
        None,
    )
    text = content_text(first.get("content")) if first else None
    if text is None:
        return None
    found = _ISSUE.search(text)
    return found.group(1) if found else text


def _parse(rows: Collector, source: SourceFile) -> None:
    document = parse_document(source, WHAT)
    require(source, isinstance(document, dict), f"expected {WHAT}")
    require(source, "trajectory" in document, "required field is missing", "trajectory")
    trajectory = document["trajectory"]
    require(source, isinstance(trajectory, list), "expected a list", "trajectory")
    info = document.get("info") if isinstance(document.get("info"), dict) else {}
    task_id = source.path.name.split(".")[0]
    rows.begin(stable_id(source, task_id, 0))
    for position, entry in enumerate(trajectory):
        require(source, isinstance(entry, dict), "expected an object", f"trajectory[{position}]")
        require(
            source,
            isinstance(entry.get("action"), str),
            "required field is missing or not a string",
            f"trajectory[{position}].action",
        )
        action = entry["action"]
        observation = entry.get("observation")
        observation = observation if isinstance(observation, str) else ""
        seconds = amount(entry.get("execution_time"), "execution_time")
        rows.step(
            "tool",
            first_word(action),
            observation_status(observation),
            input=command_input(action),
            output=observation,
            latency_ms=None if seconds is None else seconds * 1000.0,
        )
    stats = model_stats(info.get("model_stats"))
    # Replayed demonstrations carry all-zero stats: zero means "not measured" there.
    spent = any(count(stats.get(k), k) for k in ("tokens_sent", "tokens_received"))
    cost = amount(stats.get("instance_cost"), "instance_cost")
    submission = info.get("submission")
    rows.end(
        source,
        task_id=task_id,
        suite="swe-bench",
        output=submission if isinstance(submission, str) else None,
        tokens_in=count(stats.get("tokens_sent"), "tokens_sent") if spent else None,
        tokens_out=count(stats.get("tokens_received"), "tokens_received") if spent else None,
        cost_usd=cost if cost else None,
        meta={
            "agent": "swe-agent",
            "exit_status": info.get("exit_status"),
            "api_calls": count(stats.get("api_calls"), "api_calls"),
            "environment": document.get("environment")
            if isinstance(document.get("environment"), str)
            else None,
            **why(
                goal=_issue(document.get("history")),
                scorer=swe_report(info.get("exit_status"), None),
            ),
        },
    )
