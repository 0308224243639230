"""GitHub Copilot CLI session logs (``~/.copilot/session-state/<session-id>/events.jsonl``): one
``{type, data, id, timestamp, parentId}`` object a line. Unknown event types are skipped.

- A session is a run (run id = ``session.start`` ``data.sessionId``, else the session folder or
  file stem); label = the model most replies used (else the selected model, else
  ``copilot-cli``), suite = ``copilot-cli/<last folder of context.cwd>``, task = a hash of the
  first user message.
- ``assistant.message`` -> an ``llm`` step (action = model): tokens_out = ``outputTokens`` (the
  log keeps no input tokens per reply; ``session.shutdown.tokenDetails`` totals, cache reads
  and writes included, go to the run's ``meta.usage``, and its ``cache_read`` /
  ``cache_write`` counts to the run's cache columns). Each ``toolRequests[]`` entry -> a
  ``tool`` step under it, joined to its ``tool.execution_complete`` by ``toolCallId`` (first
  unanswered request of that id): ``success: false`` -> ``error``; a request never completed
  -> ``abandoned``; a completion with no request -> a ``tool`` step of its own.
- ``session.error`` -> an ``error`` step (``HTTP <statusCode>: <message>``); ``abort`` -> an
  ``interrupt`` step. A session whose last step is an API error naming an infrastructure kind
  is not scored (``ended_on_api_error``).
- Events carrying ``data.parentToolCallId`` belong to a sub-agent: each such id is a child run
  ``<sessionId>:agent-<toolCallId>`` (``subagent.started/completed`` give its name, model and
  totals), linked both ways with the tool step that started it."""

from __future__ import annotations

import hashlib
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import duckdb

from reportgen.formats.adapters.rows import (
    Collector,
    count,
    epoch_from_iso,
    explained,
    json_text,
    parse_objects,
)
from reportgen.formats.adapters.sessions import SessionStep, emit_steps, ended_on_api_error
from reportgen.formats.adapters.why import why
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

WHAT = "Copilot CLI session (JSON Lines of {type, data, id, timestamp})"
_KEYS = (
    Marked(rb'"type"\s*:\s*"session\.start"', b'start"'),
    Marked(rb'"copilotVersion"\s*:'),
)


class CopilotCli:
    name = "copilot-cli"
    description = "GitHub Copilot CLI session logs (~/.copilot/session-state/<id>/events.jsonl)"
    maps = (
        "a session -> a run (sub-agents -> child runs); assistant.message -> llm step "
        "(outputTokens), each toolRequests[] entry -> tool step joined to its "
        "tool.execution_complete (success false -> error); session.error -> error step"
    )
    grows = True  # an append-only session log: a grown file replaces the runs it held

    def detect(self, source: SourceFile) -> bool:
        return source.lines and all(k.search(source.head) for k in _KEYS)

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        rows = Collector(self.name)
        used: set[str] = set()
        for source in sources:
            with explained(source, WHAT):
                runs = _parse(source)
            for run in runs:
                if run.run_id in used:  # the same session id in two files: keep both, apart
                    run.run_id = f"{run.run_id}@{_stem(source)}"
                used.add(run.run_id)
            for run in runs:
                run.emit(rows)
        rows.flush(con)


@dataclass
class _Step(SessionStep):
    call_id: str | None = None


@dataclass
class _Run:
    run_id: str
    source: SourceFile
    steps: list[_Step] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    models: Counter[str] = field(default_factory=Counter)
    pending: dict[str, deque[_Step]] = field(default_factory=dict)
    prompt: str | None = None
    output: str | None = None
    reasoning: list[str] = field(default_factory=list)
    first: float | None = None
    last: float | None = None
    started_at: str | None = None
    line: int | None = None
    parent: _Run | None = None
    parent_step: _Step | None = None
    children: list[_Run] = field(default_factory=list)
    task: str = ""
    suite: str = "copilot-cli/default"
    label: str | None = None

    def seen(self, stamp: str | None, line: int) -> str | None:
        now = epoch_from_iso(stamp)
        if self.line is None:
            self.line = line
        if now is None:
            return None
        self.first = now if self.first is None else min(self.first, now)
        self.last = now if self.last is None else max(self.last, now)
        self.started_at = self.started_at or stamp
        return stamp

    def emit(self, rows: Collector) -> None:
        rows.begin(self.run_id)
        emit_steps(rows, self.steps)
        prompt = self.prompt or ""
        if self.parent is None:
            self.task = (
                "prompt-" + hashlib.sha1(prompt.encode()).hexdigest()[:10]
                if prompt
                else self.run_id
            )
        meta: dict[str, Any] = {
            "tool": "copilot-cli",
            **why(goal=prompt),
            **self.meta,
            "models": sorted(self.models),
            **ended_on_api_error(self.steps),
        }
        if self.parent is not None:
            meta["parent_run_id"] = self.parent.run_id
            meta["parent_step"] = None if self.parent_step is None else self.parent_step.index
        if self.children:
            meta["children"] = [
                {
                    "run_id": c.run_id,
                    "step": None if c.parent_step is None else c.parent_step.index,
                }
                for c in self.children
            ]
            meta["totals_include_children"] = False
        usage = self.meta.get("usage") or {}
        latency = (
            (self.last - self.first) * 1000.0
            if self.first is not None and self.last is not None
            else None
        )
        rows.end(
            self.source,
            task_id=self.task,
            label=self.models.most_common(1)[0][0] if self.models else self.label or "copilot-cli",
            suite=self.suite,
            started_at=self.started_at,
            meta={k: v for k, v in meta.items() if v is not None},
            output=self.output,
            latency_ms=latency,
            source_line=self.line,
            cache_read=usage.get("cache_read"),
            cache_write=usage.get("cache_write"),
        )
        for child in self.children:  # after the parent: its steps have their indices
            child.task = f"{self.task}/{child.meta.get('agent_name') or 'agent'}"
            child.suite = self.suite
            child.emit(rows)


def _stem(source: SourceFile) -> str:
    """The file stem, or the session folder's name for ``<session-id>/events.jsonl``."""
    stem = source.path.name.split(".")[0]
    return source.path.parent.name if stem == "events" else stem


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _parse(source: SourceFile) -> list[_Run]:
    records = list(parse_objects(source, WHAT))
    start = next(
        (
            r.get("data")
            for _, r in records
            if r.get("type") == "session.start" and isinstance(r.get("data"), dict)
        ),
        None,
    )
    start = start or {}
    run = _Run(str(start.get("sessionId") or _stem(source)), source)
    context = _object(start.get("context"))
    cwd = _string(context.get("cwd"))
    run.suite = f"copilot-cli/{PurePosixPath(cwd).name or 'default'}"
    for key, value in (
        ("copilot_version", start.get("copilotVersion")),
        ("cwd", cwd),
        ("repository", context.get("repository")),
        ("git_branch", context.get("branch")),
    ):
        if isinstance(value, str) and value:
            run.meta[key] = value
    selected = start.get("selectedModel")
    model: str | None = selected if isinstance(selected, str) and selected else None
    run.label = model
    if epoch_from_iso(start.get("startTime")) is not None:
        run.started_at = start["startTime"]
    children: dict[str, _Run] = {}
    for line, record in records:
        data = record.get("data")
        if not isinstance(data, dict):
            continue
        kind = record.get("type")
        stamp = record.get("timestamp")
        parent_call = data.get("parentToolCallId")
        current = run
        if isinstance(parent_call, str) and parent_call:
            current = _child(run, children, parent_call)
        elif kind in ("subagent.started", "subagent.completed") and data.get("toolCallId"):
            current = _child(run, children, str(data["toolCallId"]))
        started = current.seen(stamp if isinstance(stamp, str) else None, line)
        if kind == "session.model_change" and isinstance(data.get("newModel"), str):
            model = data["newModel"] or model
        elif kind == "user.message":
            text = _text(data.get("content")).strip()
            if text and current.prompt is None:
                current.prompt = text
        elif kind == "assistant.reasoning":
            if _text(data.get("content")):
                current.reasoning.append(data["content"])
        elif kind == "assistant.message":
            _reply(current, data, started, model if current is run else None)
        elif kind == "tool.execution_start":
            call_id = str(data.get("toolCallId") or "")
            queue = current.pending.get(call_id)
            if queue and isinstance(data.get("arguments"), dict) and queue[0].input in (None, {}):
                queue[0].input = data["arguments"] or queue[0].input
        elif kind == "tool.execution_complete":
            _complete(current, data, started)
            if current is not run and current.label is None and isinstance(data.get("model"), str):
                current.label = data["model"] or None  # the sub-agent's model
        elif kind == "session.error":
            message = _text(data.get("message")) or _text(data.get("errorType")) or "error"
            code = data.get("statusCode")
            shown = {
                "text": f"HTTP {code}: {message}" if isinstance(code, int) else message,
                "errorType": data.get("errorType"),
                "statusCode": code,
            }
            current.steps.append(
                _Step("error", "session.error", "error", output=shown, started_at=started)
            )
        elif kind == "abort":
            current.steps.append(
                _Step("interrupt", "abort", "error", output=data.get("reason"), started_at=started)
            )
        elif kind == "subagent.started":
            for key, name in (("agentName", "agent_name"), ("agentDescription", "description")):
                if isinstance(data.get(key), str) and data[key]:
                    current.meta[name] = data[key]
        elif kind == "subagent.completed":
            if isinstance(data.get("model"), str) and data["model"]:
                current.label = data["model"]  # the sub-agent's model

            totals = {k: count(data.get(k), k) for k in ("totalToolCalls", "totalTokens")}
            current.meta["reported"] = {k: v for k, v in totals.items() if v is not None}
        elif kind == "session.shutdown":
            _shutdown(run, data)
    for each in (run, *children.values()):
        for queue in each.pending.values():
            for step in queue:
                step.status = "abandoned"  # requested, never completed
    return [run]


def _child(run: _Run, children: dict[str, _Run], call_id: str) -> _Run:
    """The sub-agent run started by tool call ``call_id`` (made on first sight)."""
    child = children.get(call_id)
    if child is None:
        child = _Run(f"{run.run_id}:agent-{call_id}", run.source, parent=run)
        for step in reversed(run.steps):
            if step.type == "tool" and step.call_id == call_id:
                child.parent_step = step
                break
        children[call_id] = child
        run.children.append(child)
    return child


def _reply(run: _Run, data: dict[str, Any], started: str | None, model: str | None) -> None:
    used = data.get("model") if isinstance(data.get("model"), str) and data["model"] else model
    text = _text(data.get("content"))
    shown: dict[str, Any] = {}
    if text:
        shown["text"] = text
        run.output = text
    reasoning = _text(data.get("reasoningText")) or "\n".join(run.reasoning)
    if reasoning:
        shown["reasoning"] = reasoning
    run.reasoning = []
    turn = _Step(
        "llm",
        used or "model",
        output=shown or None,
        tokens_out=count(data.get("outputTokens"), "outputTokens"),
        started_at=started,
    )
    if used:
        run.models[used] += 1
    run.steps.append(turn)
    requests = data.get("toolRequests")
    for request in requests if isinstance(requests, list) else []:
        if not isinstance(request, dict):
            continue
        call_id = str(request.get("toolCallId") or "")
        step = _Step(
            "tool",
            str(request.get("name") or "(unnamed)"),
            input=json_text(request.get("arguments")),
            started_at=started,
            parent=turn,
            call_id=call_id,
        )
        run.pending.setdefault(call_id, deque()).append(step)
        run.steps.append(step)


def _complete(run: _Run, data: dict[str, Any], started: str | None) -> None:
    call_id = str(data.get("toolCallId") or "")
    queue = run.pending.get(call_id)
    if queue:
        step = queue.popleft()
    else:  # a completion whose request the log does not hold
        parent = next((s for s in reversed(run.steps) if s.type == "llm"), None)
        step = _Step("tool", "(unnamed)", started_at=started, parent=parent, call_id=call_id)
        run.steps.append(step)
    result = data.get("result")
    step.output = result.get("content") if isinstance(result, dict) else result
    if data.get("success") is False:
        step.status = "error"
        if isinstance(data.get("error"), (dict, str)):
            step.output = {"error": data["error"], "output": step.output}
    telemetry = data.get("toolTelemetry")
    metrics = telemetry.get("metrics") if isinstance(telemetry, dict) else None
    took = metrics.get("durationMs") if isinstance(metrics, dict) else None
    begun, now = epoch_from_iso(step.started_at), epoch_from_iso(started)
    if isinstance(took, (int, float)) and not isinstance(took, bool):
        step.latency_ms = float(took)
    elif begun is not None and now is not None and now >= begun:
        step.latency_ms = (now - begun) * 1000.0


def _shutdown(run: _Run, data: dict[str, Any]) -> None:
    """The session's totals: tokens by kind (cache included), premium requests."""
    details = data.get("tokenDetails")
    if isinstance(details, dict):
        run.meta["usage"] = {
            key: count(value.get("tokenCount"), "tokenCount")
            for key, value in details.items()
            if isinstance(value, dict)
        }
    for key, name in (
        ("totalPremiumRequests", "premium_requests"),
        ("shutdownType", "shutdown"),
        ("totalApiDurationMs", "api_duration_ms"),
    ):
        if data.get(key) is not None:
            run.meta[name] = data[key]


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""
