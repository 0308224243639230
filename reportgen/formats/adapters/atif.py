"""ATIF trajectories (Agent Trajectory Interchange Format, Harbor; ``ATIF-v1.x``):
``{schema_version, session_id, agent, steps, final_metrics}``.

One file is one run (run id = ``atif:<session_id>``; optional since ATIF-v1.7: else its
``trajectory_id``, else a hash of the file), or, with its continuation files
(``continued_trajectory_ref``, ``trajectory.cont-N.json``) in the same load, one run of them
all; a continuation loaded alone is run ``atif:<session_id>/cont-N``. An ``agent`` step is an ``llm`` step (action =
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
cost (they include sub-agent calls that have no steps here). An agent step with
``llm_call_count: 0`` made no model call (a deterministic dispatch): a ``system`` step
``dispatch``. Each embedded ``subagent_trajectories[]`` entry (ATIF-v1.7) is a child run
``<run id>/<trajectory_id>``, linked as Claude Code's and Codex's sub-agents are: the child's
``meta.parent_run_id``/``parent_step`` (the step whose result names it in
``subagent_trajectory_ref``), the parent's ``meta.children``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import duckdb

from reportgen.formats.adapters.harbor_layout import in_trial_agent_folder
from reportgen.formats.adapters.rows import (
    Collector,
    amount,
    count,
    epoch_from_iso,
    explained,
    json_text,
    load_document,
    notice,
    require,
    stable_id,
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
# A search of _RETRY (IGNORECASE: ~0.25 us a character over non-ASCII text) or _ERROR runs only
# on a text holding the words each of its matches must hold: plain substring tests, far
# cheaper, so most texts are ok at once. _ERROR is searched alternative by alternative, each
# where its own words are. For _RETRY's words the text is lower-cased after folding the only
# non-ASCII characters IGNORECASE matches to an ASCII letter (a test checks that table).
_RETRY_WORDS = (
    "had parsing errors",
    "invalid json",
    "no valid json",
    "could not parse ",
    "not formatted correctly",
    "exactly one ",
)
_ASCII_FOLD = (("\u0130", "i"), ("\u0131", "i"), ("\u017f", "s"), ("\u212a", "k"))
_ERROR_PARTS = (
    (("Traceback (most recent call last)",), r"^Traceback \(most recent call last\)"),
    ((": command not found",), r": command not found"),
    (("No such file or directory",), r"No such file or directory"),
    (("Error", "ERROR"), r"^(?:Error|ERROR)\b"),
    (("Error: ", "Exception: "), r"^[A-Za-z_.]*(?:Error|Exception): "),
    (("exit",), r"exit(?:ed)?(?: with)?[ _](?:code|status)\W{0,3}[1-9]"),
    (("<returncode>",), r"<returncode>[1-9]\d*</returncode>"),
    (("timed out",), r"\btimed out\b"),
    (("Timeout",), r"^Timeout\b"),
)
_ERROR = re.compile("|".join(pattern for _, pattern in _ERROR_PARTS), re.MULTILINE)
_ERROR_SEARCHES = tuple(
    (words, re.compile(pattern, re.MULTILINE).search) for words, pattern in _ERROR_PARTS
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
    if _retry_text(text):
        return "retry"
    return "error" if _error_text(text) else "ok"


def _retry_text(text: str) -> bool:
    """``_RETRY.search(text)``, searched only when ``text`` holds one of its words."""
    folded = text
    if not text.isascii():  # (str.translate looks every character up: slower)
        for char, letter in _ASCII_FOLD:
            folded = folded.replace(char, letter)
    folded = folded.lower()
    return any(word in folded for word in _RETRY_WORDS) and _RETRY.search(text) is not None


def _error_text(text: str) -> bool:
    """``_ERROR.search(text)``: each alternative searched only where its words are."""
    for words, search in _ERROR_SEARCHES:
        for word in words:
            if word in text:
                if search(text) is not None:
                    return True
                break
    return False


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
        if not (_VERSION_MARK.search(head) or all(k.search(head) for k in _SIGNATURE)):
            return False
        return not in_trial_agent_folder(source.path)  # the harbor adapter reads it

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


@dataclass
class Walk:
    """What walking a trajectory's steps gathers besides the steps: what the next agent step
    is given, the latest agent message (the run's output), the user message the first agent
    step answers (the goal; the last of several, as Codex's first ones are instructions),
    the step time stamps, the step that started each embedded sub-agent (by its trajectory id
    or session id) and the model calls made (``llm_call_count``, else one per agent step)."""

    given: str | None = None
    output: str | None = None
    goal: str | None = None
    stamps: list[float] = field(default_factory=list)
    links: dict[str, int] = field(default_factory=dict)
    llm_calls: int = 0


def _link(walk: Walk, result: dict[str, Any], idx: int) -> None:
    """Note the sub-agent trajectories a result hands off to as started by step ``idx``."""
    for ref in result.get("subagent_trajectory_ref") or []:
        if isinstance(ref, dict):
            for key in ("trajectory_id", "session_id"):
                if isinstance(ref.get(key), str) and ref[key]:
                    walk.links.setdefault(ref[key], idx)


def _agent_step(
    rows: Collector,
    step: dict[str, Any],
    where: str,
    source: SourceFile,
    model: str,
    walk: Walk,
) -> None:
    """An agent step: its llm step (input: the user message or the observation it answers),
    then a tool step per tool call. An agent step that made no model call
    (``llm_call_count: 0``, a deterministic dispatch) is a ``system`` step ``dispatch``. The
    text of its observation is what the next agent step is given."""
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
    calls_made = count(step.get("llm_call_count"))
    walk.llm_calls += 1 if calls_made is None else calls_made
    llm = rows.step(
        "system" if calls_made == 0 else "llm",
        "dispatch" if calls_made == 0 else str(step.get("model_name") or model),
        _worst([observation_status(text, flagged) for text, flagged in said]),
        input=walk.given,
        output={"message": message, "observation": [text for text, _ in said]}
        if said
        else json_text(message),
        tokens_in=count(metrics.get("prompt_tokens")),
        tokens_out=count(metrics.get("completion_tokens")),
        cost_usd=amount(metrics.get("cost_usd")),
        started_at=step.get("timestamp") if isinstance(step.get("timestamp"), str) else None,
        cache_read=count(metrics.get("cached_tokens")),
    )
    for result in loose:
        _link(walk, result, llm)
    for call, answer in zip(calls, answers, strict=True):
        content = None if answer is None else answer.get("content")
        if answer is not None:
            _link(walk, answer, rows.next_index)
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
    walk.given = "\n\n".join(t for t in texts if t) or None


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


def header(source: SourceFile) -> dict[str, Any]:
    """The trajectory document of ``source``, its top level checked."""
    document = load_document(source, WHAT)
    require(source, isinstance(document, dict), f"expected {WHAT}")
    for key in ("schema_version", "agent", "steps"):
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
    session = document.get("session_id")
    require(
        source,
        session is None or (isinstance(session, str) and bool(session)),
        "expected a string",
        "session_id",
    )
    if session is None:  # optional since ATIF-v1.7: the trajectory_id, else the file's hash
        given = document.get("trajectory_id")
        document["session_id"] = (
            given
            if isinstance(given, str) and given
            else stable_id(source, task_of(source, document), 0)
        )
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
            parts.append((source, header(source)))
    for chain in chains(parts):
        with explained(chain[0][0], WHAT):
            _run(rows, chain)
    rows.flush(con)


def _run(rows: Collector, chain: list[Part]) -> None:
    """One run from a trajectory and its continuations (steps in order, totals summed). A
    continuation loaded without its start is a run of its own, id ``<session>/cont-N``. Then
    a run per embedded sub-agent trajectory (ATIF-v1.7 ``subagent_trajectories``)."""
    source, document = chain[0]
    number = _continuation_number(source)
    session = document["session_id"]
    # prefixed: an ATIF file is often a conversion of a session its own adapter also reads
    run_id = f"atif:{session}" if number is None else f"atif:{session}/cont-{number}"
    rows.begin(run_id)
    if number is not None:
        notice(source, f"continues session {session!r}, whose start is not in this load")
    walk = Walk()
    for part_source, part in chain:
        walk_steps(rows, part_source, part, walk)
    last = chain[-1][1]
    why = _cut_off(last, last["steps"])
    if why is not None:
        _stop(rows, why)
    finals = [_obj(p.get("final_metrics")) for _, p in chain]
    task = task_of(source, document)
    embedded = subagents(source, [p for _, p in chain], run_id)
    rows.end(
        source,
        task_id=task,
        label=label_of(document["agent"]),
        suite="atif",
        started_at=step_time([s for _, p in chain for s in p["steps"]]),
        output=walk.output,
        success=False if why is not None else None,
        tokens_in=_total(count(f.get("total_prompt_tokens")) for f in finals),
        tokens_out=_total(count(f.get("total_completion_tokens")) for f in finals),
        cost_usd=_total(amount(f.get("total_cost_usd")) for f in finals),
        latency_ms=latency(walk),
        cache_read=_total(count(f.get("total_cached_tokens")) for f in finals),
        meta=run_meta(document, walk, embedded)
        | {
            "cached_tokens": _total(count(f.get("total_cached_tokens")) for f in finals),
            "continued_trajectory_ref": last.get("continued_trajectory_ref"),
            "continuation_files": [s.display for s, _ in chain[1:]] or None,
            "continues": session if number is not None else None,
        },
    )
    emit_subagents(rows, source, embedded, walk, run_id, task=task, suite="atif")


def _stop(rows: Collector, why: str) -> None:
    rows.step(
        "stop",
        why,
        "abandoned",
        output="trajectory ends after a tool call with no completion call "
        "(the agent was cut off: timeout or step limit)",
    )


def label_of(agent: dict[str, Any]) -> str:
    """``agent.name`` (else ``atif``), plus ``/<model_name>`` when given."""
    label = str(agent.get("name") or "atif")
    if agent.get("model_name"):
        label += f"/{agent['model_name']}"
    return label


def latency(walk: Walk) -> float | None:
    """Last minus first step time stamp, in ms (None without two)."""
    stamps = walk.stamps
    return (max(stamps) - min(stamps)) * 1000.0 if len(stamps) > 1 else None


def run_meta(
    document: dict[str, Any], walk: Walk, embedded: list[Embedded] | None = None
) -> dict[str, Any]:
    """The meta every ATIF run carries: the agent, the model calls, the goal (the user message
    the first agent step answers), notes, and the sub-agent runs it started (``children``: run id and step)."""
    agent = document["agent"]
    notes = document.get("notes")
    return {
        "schema_version": document.get("schema_version"),
        "agent": agent.get("name"),
        "agent_version": agent.get("version"),
        "model": agent.get("model_name"),
        "llm_calls": walk.llm_calls,
        **why_panel(goal=task_description(walk.goal)),
        "notes": notes if isinstance(notes, str) else None,
        "children": [
            {"run_id": e.run_id, "step": walk.links.get(e.key), "trajectory_id": e.key}
            for e in embedded or []
        ]
        or None,
    }


_TASK = re.compile(r"\bTask Description:\s*\n(.*?)(?:\n\s*Current terminal state:|\Z)", re.S)


def task_description(text: str | None) -> str | None:
    """The task in a user message: only its ``Task Description:`` section where it has one
    (Terminus puts its instructions before it), else the whole message."""
    if not text:
        return None
    found = _TASK.search(text)
    return found.group(1) if found and found.group(1).strip() else text


def _total(values: Any) -> Any:
    """The sum of the values given (None when none is)."""
    given = [v for v in values if v is not None]
    return sum(given) if given else None


@dataclass
class Embedded:
    """A sub-agent trajectory embedded in its parent's file: its run id, the key its parent's
    ``subagent_trajectory_ref`` names it by, and where in the file it is."""

    run_id: str
    key: str
    document: dict[str, Any]
    where: str


def subagents(source: SourceFile, parts: list[dict[str, Any]], parent: str) -> list[Embedded]:
    """The embedded sub-agent trajectories of ``parts`` (a trajectory and its continuations),
    checked: run id ``<parent run id>/<trajectory_id>`` (else its ``session_id`` when not the
    parent's, else ``sub-N``)."""
    found: list[Embedded] = []
    for part in parts:
        children = part.get("subagent_trajectories") or []
        require(source, isinstance(children, list), "expected a list", "subagent_trajectories")
        for position, child in enumerate(children):
            where = f"subagent_trajectories[{position}]"
            require(source, isinstance(child, dict), "expected an object", where)
            require(
                source, isinstance(child.get("agent"), dict), "expected an object", f"{where}.agent"
            )
            require(
                source, isinstance(child.get("steps"), list), "expected a list", f"{where}.steps"
            )
            key = next(
                (
                    str(child[k])
                    for k in ("trajectory_id", "session_id")
                    if isinstance(child.get(k), str) and child[k] and child[k] != parent
                ),
                f"sub-{len(found)}",
            )
            found.append(Embedded(f"{parent}/{key}", key, child, where))
    return found


def emit_subagents(
    rows: Collector,
    source: SourceFile,
    embedded: list[Embedded],
    parent_walk: Walk,
    parent: str,
    *,
    task: str,
    suite: str,
    batch: str | None = None,
) -> None:
    """A run per embedded sub-agent (after its parent's), linked both ways: the child's
    ``meta.parent_run_id`` / ``parent_step`` (the tool step whose result names it), the
    parent's ``meta.children``. Task: the parent's plus ``/<agent name>``. Their own
    sub-agents follow, nested the same way."""
    for child in embedded:
        document = child.document
        rows.begin(child.run_id)
        walk = Walk()
        walk_steps(rows, source, document, walk, prefix=f"{child.where}.")
        why = _cut_off(document, document["steps"])
        if why is not None:
            _stop(rows, why)
        final = _obj(document.get("final_metrics"))
        grandchildren = subagents(source, [document], child.run_id)
        name = str(document["agent"].get("name") or child.key)
        rows.end(
            source,
            task_id=f"{task}/{name}",
            label=label_of(document["agent"]),
            suite=suite,
            batch=batch,
            started_at=step_time(document["steps"]),
            output=walk.output,
            success=False if why is not None else None,
            tokens_in=count(final.get("total_prompt_tokens")),
            tokens_out=count(final.get("total_completion_tokens")),
            cost_usd=amount(final.get("total_cost_usd")),
            latency_ms=latency(walk),
            cache_read=count(final.get("total_cached_tokens")),
            meta=run_meta(document, walk, grandchildren)
            | {
                "cached_tokens": count(final.get("total_cached_tokens")),
                "parent_run_id": parent,
                "parent_step": parent_walk.links.get(child.key),
                "trajectory_id": document.get("trajectory_id"),
            },
        )
        emit_subagents(
            rows, source, grandchildren, walk, child.run_id, task=task, suite=suite, batch=batch
        )


def walk_steps(
    rows: Collector,
    source: SourceFile,
    document: dict[str, Any],
    walk: Walk,
    prefix: str = "",
) -> None:
    """Append the steps of one trajectory (file or embedded sub-agent) to the current run."""
    agent = document["agent"]
    model = str(agent.get("model_name") or agent.get("name") or "agent")
    for position, step in enumerate(document["steps"]):
        where = f"{prefix}steps[{position}]"
        require(source, isinstance(step, dict), "expected an object", where)
        require(source, "source" in step, "required field is missing", f"{where}.source")
        seconds = epoch_from_iso(step.get("timestamp"))
        if seconds is not None:
            walk.stamps.append(seconds)
        kind = step["source"]
        if kind == "agent":
            walk.goal = walk.goal or walk.given  # the request the first agent step answers
            _agent_step(rows, step, where, source, model, walk)
            text = text_of(step.get("message"))
            walk.output = text or walk.output
        elif kind == "system" and step.get("observation") is not None:
            results = _results(step, where, source)
            refs = [ref for r in results for ref in r.get("subagent_trajectory_ref") or []]
            for result in results:
                _link(walk, result, rows.next_index)
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
                text = text_of(step.get("message"))
                walk.given = text or walk.given
            require(
                source,
                kind in ("user", "system"),
                f"unknown step source {kind!r} (expected user, agent or system)",
                f"{where}.source",
            )


def step_time(steps: list[Any]) -> str | None:
    """The first step timestamp (ISO text), if any step has one."""
    for step in steps:
        if isinstance(step, dict) and isinstance(step.get("timestamp"), str):
            return str(step["timestamp"])
    return None
