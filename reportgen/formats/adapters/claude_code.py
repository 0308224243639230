"""Claude Code session logs (``~/.claude/projects/<project>/<sessionId>.jsonl``): one JSON
record per line, ``user`` / ``assistant`` / ``system`` conversation records (``uuid``,
``parentUuid``, ``sessionId``, ``timestamp``, ``message`` in the Anthropic Messages shape) and
bookkeeping kinds (``summary``, ``file-history-snapshot``, ``attachment``, ``progress``, ...)
that are skipped.

- A session file is a run (run id = ``sessionId``); each sub-agent is a child run: inline
  ``isSidechain`` threads (older logs), ``agent-<id>.jsonl`` files beside the session (2.0.x)
  and ``<sessionId>/subagents/agent-<id>.jsonl`` (newer). A child's run id is
  ``<sessionId>:agent-<agentId>`` (``<sessionId>:side-<root uuid>`` for an inline thread), so
  parent and child name each other whichever files a load holds.
- An API response (one ``message.id``) is one ``llm`` step, however many records it is split
  over; its usage is counted once, from its last record. Each ``tool_use`` block is a ``tool``
  step under that turn, joined to its ``tool_result`` by ``tool_use_id``.
- tokens_in = input + cache-creation + cache-read tokens (the whole prompt), tokens_out =
  output tokens; the cache parts are the step's cache_read_tokens / cache_write_tokens (and
  kept in the step output and the run meta). Cost
  from the model's price (``reportgen.formats.pricing``); unknown model = unknown cost.
- Errors: ``tool_result.is_error`` (and an interrupted Bash) -> the tool step is ``error``;
  ``[Request interrupted by user...]`` -> an ``interrupt`` step (``error``); ``system``
  ``api_error`` / ``error`` records and API-error assistant messages -> ``error`` steps. A
  tool call never answered is ``abandoned``.
- Resumed or forked sessions repeat earlier records (same ``uuid``, same ``message.id``):
  within one load every record and every message is counted once, by the session that
  started first."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import orjson

from reportgen.errors import InputError
from reportgen.formats.adapters.claude_seen import archived_keys, event_key
from reportgen.formats.adapters.rows import (
    Collector,
    count,
    epoch_from_iso,
    explained,
    notice,
    parse_objects,
)
from reportgen.formats.adapters.sessions import SessionStep, emit_steps, ended_on_api_error
from reportgen.formats.adapters.why import why
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.pricing import PriceTable, load_table
from reportgen.formats.source import SourceFile

WHAT = "Claude Code session log (JSON Lines of user/assistant/system records)"
_KEYS = (Marked(rb'"sessionId"\s*:'), Marked(rb'"parentUuid"\s*:'))
# A session may open with bookkeeping records longer than the head (file snapshots, summaries).
_OPENERS = (
    Marked(rb'"type"\s*:\s*"file-history-snapshot"', b'"file-history-snapshot"'),
    Marked(rb'"leafUuid"\s*:'),
)
_CONVERSATION = frozenset({"user", "assistant", "system"})
_ERROR_SUBTYPES = frozenset({"api_error", "error"})
_INTERRUPT = "[Request interrupted by user"
_SPAWNERS = frozenset({"Task", "Agent"})


class ClaudeCode:
    name = "claude-code"
    description = "Claude Code session logs (~/.claude/projects/<project>/<session>.jsonl)"
    maps = (
        "a session -> a run (sub-agents -> child runs); an API response (message.id) -> llm "
        "step, tool_use -> tool step joined to its tool_result (is_error -> error); "
        "interrupts, api_error -> error steps"
    )
    grows = True  # an append-only session log: a grown file replaces the runs it held

    def detect(self, source: SourceFile) -> bool:
        if source.lines:
            head = source.head
            return all(k.search(head) for k in _KEYS) or any(k.search(head) for k in _OPENERS)
        return _is_companion(source.path)

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        rows = Collector(self.name)
        prices = load_table()
        files = []
        for source in sources:
            if _is_companion(source.path):
                continue  # read with its sub-agent log
            with explained(source, WHAT):
                files.append(_read(source))
        # Sessions that started first keep the records a resumed or forked copy repeats.
        files.sort(key=lambda f: (f.agent_file, f.first_stamp or "~", f.source.display))
        seen = _Seen()
        seen.messages, seen.events = archived_keys(
            con,
            (k for f in files for k in _message_ids(f)),
            [f.source.display for f in files],
            (t for f in files for t in _event_times(f)),
        )
        runs: list[_Run] = []
        for session in files:
            with explained(session.source, WHAT):
                runs.extend(_runs_of(session, seen, prices))
        _link(runs)
        used: set[str] = set()
        for run in runs:
            if run.run_id in used:  # the same session id in two files: keep both, apart
                run.run_id = f"{run.run_id}@{run.source.path.stem}"
            used.add(run.run_id)
            run.emit(rows, prices)
        rows.flush(con)


def _is_companion(path: Path) -> bool:
    """A sub-agent's ``agent-<id>.meta.json`` beside its ``agent-<id>.jsonl``."""
    name = path.name
    return (
        name.startswith("agent-")
        and name.endswith(".meta.json")
        and path.with_name(name.removesuffix(".meta.json") + ".jsonl").is_file()
    )


@dataclass
class _File:
    source: SourceFile
    records: list[tuple[int, dict[str, Any]]]
    agent_file: bool
    first_stamp: str | None
    title: str | None = None


def _read(source: SourceFile) -> _File:
    records: list[tuple[int, dict[str, Any]]] = []
    titles: list[dict[str, Any]] = []
    for number, record in parse_objects(source, WHAT):
        if record.get("type") in _CONVERSATION:
            records.append((number, record))
        elif record.get("type") in _TITLES:
            titles.append(record)
    name = source.path.name
    conversation = [r for _, r in records if r.get("type") != "system"]
    agent_file = name.startswith("agent-") or (
        bool(conversation)
        and all(r.get("isSidechain") is True and r.get("agentId") for r in conversation)
    )
    stamps = [r["timestamp"] for _, r in records if epoch_from_iso(r.get("timestamp")) is not None]
    first = min(stamps) if stamps else None
    return _File(source, records, agent_file, first, _title(titles, records))


class _Seen:
    """Record uuids and message ids already counted in this load, or by archived runs of
    other files (message ids and error/interrupt event keys: claude_seen.py)."""

    def __init__(self) -> None:
        self.uuids: set[str] = set()
        self.messages: set[str] = set()
        self.events: set[str] = set()

    def repeats_event(self, kind: str, seconds: float | None) -> bool:
        """True when an archived run of another file already has this error/interrupt."""
        key = event_key(kind, seconds)
        return key is not None and key in self.events


def _message_ids(session: _File) -> Iterable[str]:
    """The message ids of a file's assistant records."""
    for _, record in session.records:
        message = record.get("message")
        if record.get("type") == "assistant" and isinstance(message, dict) and message.get("id"):
            yield str(message["id"])


def _event_times(session: _File) -> Iterable[float]:
    """The times of a file's records that may become error or interrupt steps."""
    for _, record in session.records:
        if record.get("type") in ("user", "system"):
            seconds = epoch_from_iso(record.get("timestamp"))
            if seconds is not None:
                yield seconds


@dataclass
class _Step(SessionStep):
    text: list[str] = field(default_factory=list)
    usage: dict[str, int | None] | None = None
    model: str | None = None
    agent_id: str | None = None
    prompt: str | None = None
    answered: bool = False
    message_id: bool = False  # keyed by the API response's message.id (kept in the output)


@dataclass
class _Run:
    run_id: str
    source: SourceFile
    session_id: str
    records: list[tuple[int, dict[str, Any]]]
    agent_id: str | None = None
    parent_run: str | None = None
    parent_step: int | None = None
    inline: bool = False
    steps: list[_Step] = field(default_factory=list)
    prompt: str | None = None
    title: str | None = None
    output: str | None = None
    children: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    first_stamp: str | None = None
    last_seconds: float | None = None
    first_seconds: float | None = None
    repeated: int = 0
    models: Counter[str] = field(default_factory=Counter)
    unpriced: set[str] = field(default_factory=set)
    project: str = "default"

    def emit(self, rows: Collector, prices: PriceTable) -> None:
        rows.begin(self.run_id)
        emit_steps(rows, self.steps)
        label = self.models.most_common(1)[0][0] if self.models else "claude-code"
        latency = (
            (self.last_seconds - self.first_seconds) * 1000.0
            if self.first_seconds is not None and self.last_seconds is not None
            else None
        )
        prompt = self.prompt or ""
        task = (
            "prompt-" + hashlib.sha1(prompt.encode()).hexdigest()[:10]
            if prompt
            else self.session_id
        )
        usage = _usage_totals(self.steps)
        meta = {
            "tool": "claude-code",
            "session_id": self.session_id,
            **why(goal=prompt, title=self.title),
            **self.meta,
            "models": sorted(self.models),
            "usage": usage,
            "prices": {"as_of": prices.as_of, "source": prices.source},
            "unpriced_models": sorted(self.unpriced) or None,
            "repeated_records_skipped": self.repeated or None,
            **ended_on_api_error(self.steps),
        }
        if self.parent_run is not None:
            meta["parent_run_id"] = self.parent_run
            meta["parent_step"] = self.parent_step
            meta["agent_id"] = self.agent_id
        meta["children"] = self.children or None
        meta["totals_include_children"] = False
        rows.end(
            self.source,
            task_id=task,
            label=label,
            suite=f"claude-code/{self.project}",
            started_at=self.first_stamp,
            meta={k: v for k, v in meta.items() if v is not None},
            output=self.output,
            latency_ms=latency,
            source_line=self.records[0][0] if self.records else None,
        )


def _usage_totals(steps: list[_Step]) -> dict[str, int]:
    totals = {"input": 0, "output": 0, "cache_write": 0, "cache_read": 0}
    for step in steps:
        if step.usage:
            for key in totals:
                totals[key] += step.usage.get(key) or 0
    return totals


def _project(source: SourceFile, agent_file: bool) -> str:
    folder = source.path.parent
    if agent_file and folder.name == "subagents":
        folder = folder.parent.parent
    return folder.name or "default"


def _runs_of(session: _File, seen: _Seen, prices: PriceTable) -> list[_Run]:
    source = session.source
    fresh: list[tuple[int, dict[str, Any]]] = []
    repeated = 0
    mine: set[str] = set()
    for number, record in session.records:
        uuid = record.get("uuid")
        if isinstance(uuid, str) and uuid:
            if uuid in seen.uuids:  # an earlier session's record, repeated by a resume
                repeated += 1
                continue
            mine.add(uuid)
        fresh.append((number, record))
    seen.uuids |= mine
    if not fresh:
        if session.records:
            notice(source, "every record repeats a session loaded before it; no run loaded")
        return []
    session_id = next(
        (str(r["sessionId"]) for _, r in fresh if isinstance(r.get("sessionId"), str)),
        source.path.stem,
    )
    project = _project(source, session.agent_file)
    if session.agent_file:
        agent_id = next(
            (str(r["agentId"]) for _, r in fresh if r.get("agentId")),
            source.path.stem.removeprefix("agent-"),
        )
        parent = session_id
        if parent.startswith("agent-") and source.path.parent.name == "subagents":
            parent = source.path.parent.parent.name
        run = _Run(f"{parent}:agent-{agent_id}", source, parent, fresh, agent_id, parent)
        run.project = project
        run.repeated = repeated
        meta_file = source.path.with_name(source.path.name.removesuffix(".jsonl") + ".meta.json")
        if meta_file.is_file():
            try:
                extra = orjson.loads(meta_file.read_bytes())
            except (OSError, orjson.JSONDecodeError):
                extra = None
            if isinstance(extra, dict):
                run.meta["agent_meta"] = extra
        _build(run, seen, prices)
        return [run]
    main: list[tuple[int, dict[str, Any]]] = []
    threads: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    thread_of: dict[str, str] = {}
    for number, record in fresh:
        if record.get("isSidechain") is True:
            uuid = str(record.get("uuid") or f"line-{number}")
            root = thread_of.get(str(record.get("parentUuid")), uuid)
            thread_of[uuid] = root
            threads.setdefault(root, []).append((number, record))
        else:
            main.append((number, record))
    runs: list[_Run] = []
    top = _Run(session_id, source, session_id, main or fresh[:0])
    top.project = project
    top.repeated = repeated
    for key in ("cwd", "gitBranch", "version"):
        value = next((r[key] for _, r in fresh if isinstance(r.get(key), str) and r[key]), None)
        if value:
            top.meta[key] = value
    top.title = session.title
    _build(top, seen, prices)
    runs.append(top)
    for root, records in threads.items():
        child = _Run(
            f"{session_id}:side-{root[:12]}", source, session_id, records, None, session_id
        )
        child.project = project
        child.inline = True
        _build(child, seen, prices)
        runs.append(child)
    return runs


_TITLES = frozenset({"custom-title", "ai-title", "summary"})


def _title(titles: list[dict[str, Any]], records: list[tuple[int, dict[str, Any]]]) -> str | None:
    """The session's short name: the last title the user gave it (``custom-title``), else
    the last one Claude Code made (``ai-title``), else the last ``summary`` record of a
    conversation in this file (its ``leafUuid`` one of these records: a resumed session's
    file also holds the summaries of the sessions it continued)."""
    uuids = {r.get("uuid") for _, r in records}
    found: dict[str, str] = {}
    for record in titles:
        kind = record.get("type")
        value = {
            "custom-title": record.get("customTitle"),
            "ai-title": record.get("aiTitle"),
            "summary": record.get("summary") if record.get("leafUuid") in uuids else None,
        }.get(str(kind))
        if isinstance(value, str) and value.strip():
            found[str(kind)] = value
    return found.get("custom-title") or found.get("ai-title") or found.get("summary")


def _text(content: Any) -> str:
    """The text of a message content or tool_result content (a string or blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            str(b.get("text") or "")
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        ]
        return "\n".join(p for p in parts if p)
    return ""


def _prompt(record: dict[str, Any], content: Any) -> str | None:
    """The user's request a record holds: its text, or ``/command args`` for a slash command;
    None for meta records, tool results, local-command echoes and interrupts."""
    if record.get("isMeta") is True or record.get("isCompactSummary") is True:
        return None
    if isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    ):
        return None
    text = _text(content).strip()
    command = _COMMAND.search(text)
    if command:
        args = _ARGS.search(text)
        return f"{command.group(1).strip()} {args.group(1).strip() if args else ''}".strip()
    if not text or text.startswith(("<local-command", "<command-", "Caveat:", "[")):
        return None
    return text


_COMMAND = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def _build(run: _Run, seen: _Seen, prices: PriceTable) -> None:
    turns: dict[str, _Step] = {}
    pending: dict[str, _Step] = {}
    by_record: dict[str, list[_Step]] = {}
    previous: float | None = None
    for number, record in run.records:
        kind = record.get("type")
        stamp = record.get("timestamp")
        now = epoch_from_iso(stamp)
        started = stamp if now is not None else None
        if now is not None:
            if run.first_seconds is None or now < run.first_seconds:
                run.first_seconds, run.first_stamp = now, stamp
            if run.last_seconds is None or now > run.last_seconds:
                run.last_seconds = now
        message = record.get("message")
        if kind == "assistant":
            if not isinstance(message, dict):
                raise InputError(
                    run.source.display, "expected an object", line=number, field="message"
                )
            _assistant(run, record, message, number, turns, pending, by_record, seen, prices)
            step = turns.get(_message_key(record, message, number))
            first = step is not None and step.latency_ms is None and step.started_at == started
            if step is not None and first and now is not None and previous is not None:
                step.latency_ms = (now - previous) * 1000.0 if now >= previous else None
        elif kind == "user":
            if not isinstance(message, dict):
                raise InputError(
                    run.source.display, "expected an object", line=number, field="message"
                )
            _user(run, record, message, number, pending, by_record, now, started, seen)
        elif kind == "system" and record.get("subtype") in _ERROR_SUBTYPES:
            if seen.repeats_event("error", now):
                run.repeated += 1
            else:
                error = record.get("error")
                detail = error.get("message") if isinstance(error, dict) else record.get("content")
                run.steps.append(
                    _Step(
                        "error", str(record["subtype"]), "error", output=detail, started_at=started
                    )
                )
        if now is not None:
            previous = now
    for step in pending.values():
        if not step.answered:
            step.status = "abandoned"
    for key, step in turns.items():
        step.output = {"text": "\n".join(step.text)} if step.text else None
        if step.usage is not None:
            step.output = {**(step.output or {}), "usage": step.usage}
        if step.message_id:
            step.output = {**(step.output or {}), "message_id": key}


def _message_key(record: dict[str, Any], message: dict[str, Any], number: int) -> str:
    key = message.get("id") or record.get("requestId") or record.get("uuid")
    return str(key) if key else f"line-{number}"


def _assistant(
    run: _Run,
    record: dict[str, Any],
    message: dict[str, Any],
    number: int,
    turns: dict[str, _Step],
    pending: dict[str, _Step],
    by_record: dict[str, list[_Step]],
    seen: _Seen,
    prices: PriceTable,
) -> None:
    key = _message_key(record, message, number)
    step = turns.get(key)
    if step is None:
        if key in seen.messages:  # a message a resumed session repeats under a new uuid
            run.repeated += 1
            return
        seen.messages.add(key)
        model = message.get("model") if isinstance(message.get("model"), str) else None
        stamp = record.get("timestamp")
        step = _Step(
            "llm",
            model or "assistant",
            started_at=stamp if epoch_from_iso(stamp) is not None else None,
            model=model,
            message_id=bool(message.get("id")),
        )
        turns[key] = step
        run.steps.append(step)
        if model and model != "<synthetic>":
            run.models[model] += 1
    if record.get("isApiErrorMessage") is True or record.get("error"):
        step.status = "error"
    usage = message.get("usage")
    if isinstance(usage, dict):  # the last record of a message holds its final usage
        step.usage = {
            "input": count(usage.get("input_tokens"), "input_tokens"),
            "output": count(usage.get("output_tokens"), "output_tokens"),
            "cache_write": count(
                usage.get("cache_creation_input_tokens"), "cache_creation_input_tokens"
            ),
            "cache_read": count(usage.get("cache_read_input_tokens"), "cache_read_input_tokens"),
        }
        u = step.usage
        parts = [u["input"], u["cache_write"], u["cache_read"]]
        step.tokens_in = sum(p or 0 for p in parts) if any(p is not None for p in parts) else None
        step.tokens_out = u["output"]
        step.cache_read, step.cache_write = u["cache_read"], u["cache_write"]
        price = prices.price(step.model)
        if price is not None:
            step.cost_usd = price.cost(u["input"], u["output"], u["cache_write"], u["cache_read"])
        elif step.model and step.model != "<synthetic>":
            run.unpriced.add(step.model)
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    if isinstance(content, str) and content:
        step.text.append(content)
    made = by_record.setdefault(str(record.get("uuid") or f"line-{number}"), [])
    for position, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and block.get("text"):
            step.text.append(str(block["text"]))
            run.output = str(block["text"])
        elif block.get("type") == "tool_use":
            name = str(block.get("name") or "(unnamed)")
            given = block.get("input")
            tool = _Step("tool", name, input=given, started_at=step.started_at, parent=step)
            if record.get("timestamp") and epoch_from_iso(record.get("timestamp")) is not None:
                tool.started_at = record["timestamp"]
            if name in _SPAWNERS and isinstance(given, dict):
                prompt = given.get("prompt")
                tool.prompt = prompt if isinstance(prompt, str) else None
            call_id = block.get("id")
            ident = str(call_id) if call_id else f"{record.get('uuid')}#{position}"
            pending[ident] = tool
            made.append(tool)
            run.steps.append(tool)


def _user(
    run: _Run,
    record: dict[str, Any],
    message: dict[str, Any],
    number: int,
    pending: dict[str, _Step],
    by_record: dict[str, list[_Step]],
    now: float | None,
    started: str | None,
    seen: _Seen,
) -> None:
    content = message.get("content")
    if run.prompt is None:
        run.prompt = _prompt(record, content)
    if _text(content).lstrip().startswith(_INTERRUPT):
        if seen.repeats_event("interrupt", now):
            run.repeated += 1
            return
        run.steps.append(
            _Step("interrupt", "user_interrupt", "error", output=_text(content), started_at=started)
        )
    if not isinstance(content, list):
        return
    summary = record.get("toolUseResult")
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        tool = _answered(record, block, pending, by_record)
        if tool is None:
            continue
        tool.answered = True
        result = block.get("content")
        tool.output = _text(result) if isinstance(result, list) else result
        interrupted = isinstance(summary, dict) and summary.get("interrupted") is True
        if block.get("is_error") is True or interrupted:
            tool.status = "error"
        if isinstance(summary, dict) and summary.get("agentId"):
            tool.agent_id = str(summary["agentId"])
        begun = epoch_from_iso(tool.started_at)
        if begun is not None and now is not None and now >= begun and tool.latency_ms is None:
            tool.latency_ms = (now - begun) * 1000.0


def _answered(
    record: dict[str, Any],
    block: dict[str, Any],
    pending: dict[str, _Step],
    by_record: dict[str, list[_Step]],
) -> _Step | None:
    """The tool call a tool_result answers: by ``tool_use_id``, else (logs without ids) the
    first unanswered call of the record it replies to, else that record's last call."""
    call_id = block.get("tool_use_id")
    if call_id:
        return pending.get(str(call_id))
    calls = by_record.get(str(record.get("parentUuid")), [])
    waiting = [c for c in calls if not c.answered]
    if waiting:
        return waiting[0]
    return calls[-1] if calls else None


def _link_by_time(run: _Run, runs: list[_Run]) -> None:
    """Sub-agent files of ``run``'s session that no result names (a Task result without
    ``agentId``): each goes under the last unlinked Task/Agent step started before it."""
    linked = {c["run_id"] for c in run.children}
    taken = {c["step"] for c in run.children}
    free = [
        s
        for i, s in enumerate(run.steps)
        if s.type == "tool" and s.action in _SPAWNERS and not s.agent_id and i not in taken
    ]
    orphans = sorted(
        (
            c
            for c in runs
            if c.parent_run == run.session_id
            and not c.inline
            and c.run_id not in linked
            and c.first_seconds is not None
        ),
        key=lambda c: c.first_seconds or 0.0,
    )
    for child in orphans:
        before = [
            s
            for s in free
            if (epoch_from_iso(s.started_at) or float("inf")) <= (child.first_seconds or 0)
        ]
        if not before:
            continue
        step = before[-1]
        free.remove(step)
        child.parent_step = run.steps.index(step)
        run.children.append(
            {
                "run_id": child.run_id,
                "step": child.parent_step,
                "linked_by": "time",
                "tokens": _usage_totals(child.steps),
                "cost_usd": sum(s.cost_usd or 0.0 for s in child.steps),
            }
        )


def _link(runs: list[_Run]) -> None:
    """Tie each child run to the Task/Agent step that started it: by the ``agentId`` its
    result names, else (inline sidechains) by the prompt given to the Task."""
    by_id = {run.run_id: run for run in runs}
    for run in runs:
        if run.parent_run is not None:
            continue
        for step in run.steps:
            if step.type != "tool" or step.action not in _SPAWNERS:
                continue
            if step.agent_id:
                child_id = f"{run.session_id}:agent-{step.agent_id}"
            else:
                child_id = next(
                    (
                        c.run_id
                        for c in runs
                        if c.inline
                        and c.parent_run == run.session_id
                        and c.parent_step is None
                        and step.prompt
                        and c.prompt == step.prompt.strip()
                    ),
                    "",
                )
                if not child_id:
                    continue
            child = by_id.get(child_id)
            entry: dict[str, Any] = {"run_id": child_id, "step": run.steps.index(step)}
            if step.agent_id:
                entry["agent_id"] = step.agent_id
            if child is None:
                entry["in_load"] = (
                    False  # its file is not in this load (dangling, or loaded before)
                )
            else:
                child.parent_step = entry["step"]
                totals = _usage_totals(child.steps)
                entry["tokens"] = totals
                entry["cost_usd"] = sum(s.cost_usd or 0.0 for s in child.steps)
            run.children.append(entry)
        _link_by_time(run, runs)
    for run in runs:
        loaded = [by_id[c["run_id"]] for c in run.children if c["run_id"] in by_id]
        if loaded:
            family = [run, *loaded]
            run.meta["totals_with_children"] = {
                "runs": len(family),
                "tokens_in": sum(s.tokens_in or 0 for r in family for s in r.steps),
                "tokens_out": sum(s.tokens_out or 0 for r in family for s in r.steps),
                "cost_usd": sum(s.cost_usd or 0.0 for r in family for s in r.steps),
            }
