"""ATIF trajectories (Agent Trajectory Interchange Format, Harbor; ``ATIF-v1.x``):
``{schema_version, session_id, agent, steps, final_metrics}``.

One file is one run (run id = ``session_id``), or, with its continuation files
(``continued_trajectory_ref``, ``trajectory.cont-N.json``) in the same load, one run of them
all; a continuation loaded alone is run ``<session_id>/cont-N``. An ``agent`` step is an ``llm`` step (action =
its model, output = its message, ``metrics`` -> tokens and cost); each of its ``tool_calls`` is
a ``tool`` step (action = ``function_name``, input = ``arguments``, output = the observation
result answering it, ``parent`` = the llm step). A ``system`` step that carries an observation
(a context handoff to sub-agents) is a ``system`` step; other user and system messages are
prompts, not agent steps. ATIF has no error flag, so the observation's text decides: a
parse-error notice about the model's reply is a ``retry`` of its llm step; a traceback, an
``Error:`` line, a non-zero exit code, ``command not found`` or a timeout notice is an ``error``.
A trajectory that stops right after a tool call that is not a completion call (``finish``,
``mark_task_complete``...) and is not continued elsewhere was cut off (a timeout or a step
limit): it gets a final ``abandoned`` step. ``final_metrics`` totals are the run's tokens and
cost (they include sub-agent calls that have no steps here)."""

from __future__ import annotations

import re
from typing import Any

import duckdb

from reportgen.formats.adapters.rows import (
    Collector,
    amount,
    count,
    epoch_from_iso,
    explained,
    json_text,
    notice,
    parse_document,
    require,
)
from reportgen.formats.adapters.why import why as why_panel
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

WHAT = "ATIF trajectory (an object with schema_version ATIF-v1.x, session_id, agent and steps)"
_VERSION_MARK = Marked(rb'"schema_version"\s*:\s*"ATIF-v', b'"schema_version"')
_SIGNATURE = (
    Marked(rb'"session_id"\s*:'),
    Marked(rb'"steps"\s*:\s*\['),
    Marked(rb'"step_id"\s*:'),
    re.compile(rb'"source"\s*:\s*"(?:user|agent|system)"'),
)
_VERSION = re.compile(r"^(?:ATIF-v)?1\.\d+$")
_RETRY = re.compile(
    r"had parsing errors|Invalid JSON|No valid JSON|could not parse (?:your|the) response|"
    r"not formatted correctly|EXACTLY ONE (?:action|function call)",
    re.IGNORECASE,
)
_ERROR = re.compile(
    r"^Traceback \(most recent call last\)|: command not found|No such file or directory|"
    r"^(?:Error|ERROR)\b|^[A-Za-z_.]*(?:Error|Exception): |"
    r"exit(?:ed)?(?: with)?[ _](?:code|status)\W{0,3}[1-9]|<returncode>[1-9]\d*</returncode>|"
    r"\btimed out\b|^Timeout\b",
    re.MULTILINE,
)
_TIMEOUT = re.compile(r"\btime(?:d )?out\b|AgentTimeout", re.IGNORECASE)
# Tool calls that end a task (terminus-2, OpenHands, mini-swe-agent, Cline, smolagents...).
_COMPLETION_CALLS = frozenset(
    {
        "finish",
        "mark_task_complete",
        "task_complete",
        "submit",
        "attempt_completion",
        "complete_task",
        "final_answer",
    }
)
_SCAN_HEAD, _SCAN_TAIL = 4000, 2000


def _obj(value: Any) -> dict[str, Any]:
    """``value`` when it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def text_of(content: Any) -> str:
    """The text of a message or observation: a string, or the text parts of a content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in content
        )
    return "" if content is None else str(content)


def observation_status(text: str, flagged: bool = False) -> str:
    """ok, retry (the harness could not parse the model's reply) or error (error text)."""
    if flagged:
        return "error"
    if len(text) > _SCAN_HEAD + _SCAN_TAIL:
        text = text[:_SCAN_HEAD] + "\n" + text[-_SCAN_TAIL:]
    if _RETRY.search(text):
        return "retry"
    return "error" if _ERROR.search(text) else "ok"


def _worst(statuses: list[str]) -> str:
    for status in ("error", "retry"):
        if status in statuses:
            return status
    return "ok"


def task_of(source: SourceFile, document: dict[str, Any]) -> str:
    """The task: ``extra.task_id``/``task_name`` when given; else, for Harbor's layout
    (``<task>__<suffix>/agent/trajectory*.json``), the trial folder's task part; else the
    file name up to its first dot."""
    extra = _obj(document.get("extra"))
    for key in ("task_id", "task_name", "task"):
        value = extra.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    path = source.path
    if path.name.startswith("trajectory") and path.parent.name == "agent":
        trial = path.parent.parent.name
        if trial:
            return trial.split("__")[0]
    return path.name.split(".")[0]


class AtifTrajectory:
    name = "atif"
    description = "ATIF agent trajectory (Harbor, ATIF-v1.x)"
    maps = (
        "a trajectory -> a run (id: session_id, label: agent/model); an agent step -> llm step "
        "(metrics -> tokens), a tool call -> tool step; error text -> error, parse notice -> "
        "retry; cut off after a tool call -> final abandoned step"
    )

    def detect(self, source: SourceFile) -> bool:
        head = source.head
        return bool(_VERSION_MARK.search(head)) or all(k.search(head) for k in _SIGNATURE)

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        _stage(con, sources)


def _results(step: dict[str, Any], where: str, source: SourceFile) -> list[dict[str, Any]]:
    observation = step.get("observation")
    if observation is None:
        return []
    require(source, isinstance(observation, dict), "expected an object", f"{where}.observation")
    results = observation.get("results") or []
    require(source, isinstance(results, list), "expected a list", f"{where}.observation.results")
    return [r for r in results if isinstance(r, dict)]


def _agent_step(
    rows: Collector,
    step: dict[str, Any],
    where: str,
    source: SourceFile,
    model: str,
    given: str | None,
) -> str | None:
    """An agent step: its llm step (input ``given``: the user message or the observation it
    answers), then a tool step per tool call. Returns the text of its observation, what the
    next agent step is given."""
    calls = step.get("tool_calls") or []
    require(source, isinstance(calls, list), "expected a list", f"{where}.tool_calls")
    results = _results(step, where, source)
    by_call: dict[str, dict[str, Any]] = {}
    loose: list[dict[str, Any]] = []
    for result in results:
        call_id = result.get("source_call_id")
        if call_id is not None and str(call_id) not in by_call:
            by_call[str(call_id)] = result
        else:
            loose.append(result)
    answers: list[dict[str, Any] | None] = []
    for position, call in enumerate(calls):
        require(
            source,
            isinstance(call, dict) and isinstance(call.get("function_name"), str),
            "expected a tool call with a function_name",
            f"{where}.tool_calls[{position}]",
        )
        answers.append(by_call.pop(str(call.get("tool_call_id")), None))
    # Results without a call id answer the unanswered calls in order (one call: its result).
    unanswered = [i for i, a in enumerate(answers) if a is None]
    if loose and len(loose) == len(unanswered):
        for i, result in zip(unanswered, loose, strict=True):
            answers[i] = result
        loose = []
    loose += list(by_call.values())
    message = step.get("message")
    said = [(text_of(r.get("content")), r.get("is_error") is True) for r in loose if "content" in r]
    metrics = _obj(step.get("metrics"))
    llm = rows.step(
        "llm",
        str(step.get("model_name") or model),
        _worst([observation_status(text, flagged) for text, flagged in said]),
        input=given,
        output={"message": message, "observation": [text for text, _ in said]}
        if said
        else json_text(message),
        tokens_in=count(metrics.get("prompt_tokens")),
        tokens_out=count(metrics.get("completion_tokens")),
        cost_usd=amount(metrics.get("cost_usd")),
        started_at=step.get("timestamp") if isinstance(step.get("timestamp"), str) else None,
    )
    for call, answer in zip(calls, answers, strict=True):
        content = None if answer is None else answer.get("content")
        rows.step(
            "tool",
            call["function_name"],
            "ok"
            if answer is None
            else observation_status(text_of(content), answer.get("is_error") is True),
            input=json_text(call.get("arguments")),
            output=json_text(content),
            parent=llm,
        )
    texts = [text_of(r.get("content")) for r in results if "content" in r]
    return "\n\n".join(t for t in texts if t) or None


def _cut_off(document: dict[str, Any], steps: list[Any]) -> str | None:
    """Why the trajectory has a final abandoned step (None: it ended normally)."""
    if document.get("continued_trajectory_ref") or not steps:
        return None
    last = steps[-1]
    if not isinstance(last, dict) or last.get("source") != "agent":
        return None
    calls = [c for c in last.get("tool_calls") or [] if isinstance(c, dict)]
    names = {str(c.get("function_name")) for c in calls}
    if not calls or names & _COMPLETION_CALLS:
        return None
    if re.search(r'"task_complete"\s*:\s*true', text_of(last.get("message"))):
        return None
    said = text_of(document.get("notes")) + text_of(last.get("message"))
    return "timeout" if _TIMEOUT.search(said) else "unfinished"


def _header(source: SourceFile) -> dict[str, Any]:
    """The trajectory document of ``source``, its top level checked."""
    document = parse_document(source, WHAT)
    require(source, isinstance(document, dict), f"expected {WHAT}")
    for key in ("schema_version", "session_id", "agent", "steps"):
        require(source, key in document, "required field is missing", key)
    version = document["schema_version"]
    require(
        source,
        isinstance(version, str) and bool(_VERSION.match(version)),
        f"unsupported ATIF schema_version {version!r} (expected ATIF-v1.x)",
        "schema_version",
    )
    require(source, isinstance(document["agent"], dict), "expected an object", "agent")
    require(source, isinstance(document["steps"], list), "expected a list", "steps")
    session = document["session_id"]
    require(source, isinstance(session, str) and bool(session), "expected a string", "session_id")
    checked: dict[str, Any] = document
    return checked


_CONTINUATION = re.compile(r"\.cont-(\d+)\.")


def _continuation_number(source: SourceFile) -> int | None:
    """N of a Harbor continuation file ``trajectory.cont-N.json``; None for other names."""
    found = _CONTINUATION.search(source.path.name)
    return int(found.group(1)) if found else None


Part = tuple[SourceFile, dict[str, Any]]


def chains(parts: list[Part]) -> list[list[Part]]:
    """Trajectories of one load grouped into sessions: a trajectory, then its continuations in
    the same folder with the same session id (the file its ``continued_trajectory_ref`` names,
    and so on; then any other ``*.cont-N.json`` by N). A continuation whose start is not in the
    load is a chain of its own; two unrelated files with one session id are two chains (and
    clash as duplicate run ids, as before)."""
    by_place: dict[tuple[str, Any], list[Part]] = {}
    for part in parts:
        by_place.setdefault((part[1]["session_id"], part[0].path.parent), []).append(part)
    out: list[list[Part]] = []
    for group in by_place.values():
        by_name = {p[0].path.name: p for p in group}
        referenced = {
            ref for p in group if isinstance(ref := p[1].get("continued_trajectory_ref"), str)
        }
        starts = [
            p
            for p in group
            if p[0].path.name not in referenced and _continuation_number(p[0]) is None
        ]
        used: set[str] = set()
        for start in starts:
            chain = [start]
            used.add(start[0].path.name)
            ref = start[1].get("continued_trajectory_ref")
            while isinstance(ref, str) and ref in by_name and ref not in used:
                chain.append(by_name[ref])
                used.add(ref)
                ref = by_name[ref][1].get("continued_trajectory_ref")
            out.append(chain)
        rest = sorted(
            (p for p in group if p[0].path.name not in used),
            key=lambda p: (_continuation_number(p[0]) or 0, p[0].path.name),
        )
        if len(starts) == 1:
            out[-1].extend(rest)
        else:
            out.extend([p] for p in rest)
    return out


def _stage(con: duckdb.DuckDBPyConnection, sources: list[SourceFile]) -> None:
    rows = Collector(AtifTrajectory.name)
    parts: list[Part] = []
    for source in sources:
        with explained(source, WHAT):
            parts.append((source, _header(source)))
    for chain in chains(parts):
        with explained(chain[0][0], WHAT):
            _run(rows, chain)
    rows.flush(con)


def _run(rows: Collector, chain: list[Part]) -> None:
    """One run from a trajectory and its continuations (steps in order, totals summed). A
    continuation loaded without its start is a run of its own, id ``<session>/cont-N``."""
    source, document = chain[0]
    agent = document["agent"]
    model = str(agent.get("model_name") or agent.get("name") or "agent")
    number = _continuation_number(source)
    session = document["session_id"]
    rows.begin(session if number is None else f"{session}/cont-{number}")
    if number is not None:
        notice(source, f"continues session {session!r}, whose start is not in this load")
    stamps: list[float] = []
    output: str | None = None
    given: str | None = None
    goal = _goal(document["steps"])
    for part_source, part in chain:
        given, output = _steps(rows, part_source, part, model, given, output, stamps)
    last = chain[-1][1]
    why = _cut_off(last, last["steps"])
    if why is not None:
        rows.step(
            "stop",
            why,
            "abandoned",
            output="trajectory ends after a tool call with no completion call "
            "(the agent was cut off: timeout or step limit)",
        )
    finals = [_obj(p.get("final_metrics")) for _, p in chain]
    label = str(agent.get("name") or "atif")
    if agent.get("model_name"):
        label += f"/{agent['model_name']}"
    rows.end(
        source,
        task_id=task_of(source, document),
        label=label,
        suite="atif",
        started_at=step_time([s for _, p in chain for s in p["steps"]]),
        output=output,
        success=False if why is not None else None,
        tokens_in=_total(count(f.get("total_prompt_tokens")) for f in finals),
        tokens_out=_total(count(f.get("total_completion_tokens")) for f in finals),
        cost_usd=_total(amount(f.get("total_cost_usd")) for f in finals),
        latency_ms=(max(stamps) - min(stamps)) * 1000.0 if len(stamps) > 1 else None,
        meta={
            "schema_version": document["schema_version"],
            "agent": agent.get("name"),
            "agent_version": agent.get("version"),
            "model": agent.get("model_name"),
            "cached_tokens": _total(count(f.get("total_cached_tokens")) for f in finals),
            "continued_trajectory_ref": last.get("continued_trajectory_ref"),
            "continuation_files": [s.display for s, _ in chain[1:]] or None,
            "continues": session if number is not None else None,
            "notes": document.get("notes") if isinstance(document.get("notes"), str) else None,
            **why_panel(goal=goal),
        },
    )


_TASK = re.compile(r"\bTask Description:\s*\n(.*?)(?:\n\s*Current terminal state:|\Z)", re.S)


def _goal(steps: list[Any]) -> str | None:
    """The task: the first user step's message, or only its ``Task Description:`` section
    (Terminus puts its instructions before it)."""
    first = next((s for s in steps if isinstance(s, dict) and s.get("source") == "user"), None)
    text = text_of(first.get("message")) if first else None
    if not text:
        return None
    found = _TASK.search(text)
    return found.group(1) if found and found.group(1).strip() else text


def _total(values: Any) -> Any:
    """The sum of the values given (None when none is)."""
    given = [v for v in values if v is not None]
    return sum(given) if given else None


def _steps(
    rows: Collector,
    source: SourceFile,
    document: dict[str, Any],
    model: str,
    given: str | None,
    output: str | None,
    stamps: list[float],
) -> tuple[str | None, str | None]:
    """The steps of one trajectory file; returns what the next agent step is given and the
    latest agent message (the run's output so far)."""
    for position, step in enumerate(document["steps"]):
        where = f"steps[{position}]"
        require(source, isinstance(step, dict), "expected an object", where)
        require(source, "source" in step, "required field is missing", f"{where}.source")
        seconds = epoch_from_iso(step.get("timestamp"))
        if seconds is not None:
            stamps.append(seconds)
        kind = step["source"]
        if kind == "agent":
            given = _agent_step(rows, step, where, source, model, given)
            text = text_of(step.get("message"))
            output = text or output
        elif kind == "system" and step.get("observation") is not None:
            results = _results(step, where, source)
            refs = [ref for r in results for ref in r.get("subagent_trajectory_ref") or []]
            rows.step(
                "system",
                "handoff" if refs else "system",
                input=json_text(step.get("message")),
                output=refs or [text_of(r.get("content")) for r in results],
                started_at=step.get("timestamp")
                if isinstance(step.get("timestamp"), str)
                else None,
            )
        else:
            if kind == "user":
                given = text_of(step.get("message")) or given
            require(
                source,
                kind in ("user", "system"),
                f"unknown step source {kind!r} (expected user, agent or system)",
                f"{where}.source",
            )
    return given, output


def step_time(steps: list[Any]) -> str | None:
    """The first step timestamp (ISO text), if any step has one."""
    for step in steps:
        if isinstance(step, dict) and isinstance(step.get("timestamp"), str):
            return str(step["timestamp"])
    return None
