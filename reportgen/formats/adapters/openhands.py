"""OpenHands SDK conversations: a ``persistence_dir`` folder holding ``base_state.json`` and
``events/event-<nnnnn>-<id>.json`` (one event a file), or the events as JSON Lines
(``events.jsonl``). Every event is ``{id, timestamp, source, kind, ...}``; unknown kinds are
skipped.

- A conversation is a run: run id = ``base_state.id``, else the folder name; label = the
  agent's model (``agent.llm.model``, else the stats' ``model_name``), suite =
  ``openhands-sdk/<last folder of workspace.working_dir>``, task = a hash of the first user
  message. Any file of the folder given to ingest loads the whole conversation once.
- An ``ActionEvent`` -> a ``tool`` step (action = ``tool_name``, input = the ``action``, else
  the call's JSON ``arguments``) under an ``llm`` step, one per ``llm_response_id`` (its
  thought and reasoning as output). The ``ObservationEvent`` of the same ``tool_call_id``
  gives its output (``is_error`` -> ``error``; ``UserRejectObservation`` -> abandoned), an
  ``AgentErrorEvent`` makes it ``error``. An agent ``MessageEvent`` -> an ``llm`` step.
  A ``ConversationErrorEvent`` -> an ``error`` step.
- Tokens per model call from ``base_state.stats`` ``token_usages`` (by ``response_id``); a file
  without them (JSON Lines) has the growth of the cumulative ``stats`` updates, each given to
  the next model step. tokens_in = ``prompt_tokens``, tokens_out = ``completion_tokens``; the
  cache and reasoning counts are the step's cache/reasoning token columns (and stay in the step
  output and ``meta.usage``).
- Outcome: a conversation that ends in ``error`` on a ``ConversationErrorEvent`` classified
  ``auth`` / ``quota`` / ``rate_limit`` / ``transient`` (or another infrastructure kind) is
  not scored (``error_kind``); classified ``agent_action`` (or unclassified, naming no
  infrastructure) it is the agent's failure, as is ``execution_status: stuck``. Otherwise
  nothing scores it (success NULL)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import duckdb

from reportgen.errors import InputError
from reportgen.formats.adapters.infra import api_error_meta
from reportgen.formats.adapters.rows import (
    Collector,
    count,
    epoch_from_iso,
    explained,
    maybe_json,
    parse_objects,
)
from reportgen.formats.adapters.sessions import SessionStep, emit_steps
from reportgen.formats.adapters.why import why
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

WHAT = "OpenHands SDK conversation (base_state.json and events/event-*.json, or events JSONL)"
_EVENT = (
    Marked(rb'"kind"\s*:\s*"[A-Za-z]+Event"', b'Event"'),
    Marked(rb'"source"\s*:\s*"(?:agent|user|environment)"', b'"source"'),
)
_STATE = Marked(rb'"execution_status"\s*:')
#: OpenHands' error classes that are not the agent's failure, as error kinds.
INFRA_KINDS = {
    "auth": "auth",
    "quota": "quota",
    "rate_limit": "rate_limit",
    "transient": "network",
    "network": "network",
    "timeout": "timeout",
    "sandbox": "sandbox",
    "environment": "environment",
}
_USAGE = ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens")
_USAGE_KEYS = (*_USAGE, "reasoning_tokens")


class OpenHands:
    name = "openhands-sdk"
    description = "OpenHands SDK conversations (base_state.json + events/event-*.json)"
    maps = (
        "a conversation -> a run; ActionEvent -> tool step under an llm step per "
        "llm_response_id, joined to its ObservationEvent (is_error, AgentErrorEvent -> error); "
        "ConversationErrorEvent -> error step (auth/quota/rate_limit/transient: not scored)"
    )
    grows = True  # events are added as the conversation goes on

    def detect(self, source: SourceFile) -> bool:
        if source.lines:
            return all(k.search(source.head) for k in _EVENT)
        if source.path.name == "base_state.json":
            return _STATE.search(source.head) is not None
        return _event_file(source.path) and (
            source.path.parent.parent.joinpath("base_state.json").is_file()
            or all(k.search(source.head) for k in _EVENT)
        )

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        rows = Collector(self.name)
        used: set[str] = set()
        given: dict[Path, SourceFile] = {}
        for source in sources:
            if source.lines:
                with explained(source, WHAT):
                    events = [r for _, r in parse_objects(source, WHAT)]
                    _Conversation(source, None, events, source.path.parent.name).emit(rows, used)
                continue
            folder = source.path.parent
            if folder.name == "events" and _event_file(source.path):
                folder = folder.parent
            if folder not in given or source.path.name == "base_state.json":
                given[folder] = source
        for folder, source in given.items():
            with explained(source, WHAT):
                state = _read(folder / "base_state.json", source)
                events = [
                    _read(path, source) for path in sorted((folder / "events").glob("event-*.json"))
                ]
                if not events and source.path.name != "base_state.json":
                    events = [_read(source.path, source)]
                _Conversation(source, state, events, folder.name).emit(rows, used)
        rows.flush(con)


def _event_file(path: Path) -> bool:
    return path.name.startswith("event-") and path.parent.name == "events"


def _read(path: Path, source: SourceFile) -> Any:
    """A JSON file of the conversation (None when absent)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(source.display, f"cannot read {path.name}: {exc}") from None
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise InputError(
            source.display, f"{path.name}: invalid JSON: {exc}; expected {WHAT}"
        ) from None
    if not isinstance(value, dict):
        raise InputError(source.display, f"{path.name}: expected a JSON object; {WHAT}")
    return value


@dataclass
class _Step(SessionStep):
    usage: dict[str, int] | None = None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return _text(content.get("text") if "text" in content else content.get("content"))
    if isinstance(content, list):
        return "\n".join(t for t in (_text(c) for c in content) if t)
    return ""


def _usage(block: Any) -> dict[str, int] | None:
    if not isinstance(block, dict):
        return None
    return {k: count(block.get(k), k) or 0 for k in _USAGE_KEYS}


def _accumulated(stats: Any) -> dict[str, int] | None:
    """The summed ``accumulated_token_usage`` of every usage id of a stats object."""
    metrics = stats.get("usage_to_metrics") if isinstance(stats, dict) else None
    if not isinstance(metrics, dict):
        return None
    total = dict.fromkeys(_USAGE_KEYS, 0)
    for entry in metrics.values():
        usage = _usage(entry.get("accumulated_token_usage") if isinstance(entry, dict) else None)
        for key in total:
            total[key] += (usage or {}).get(key, 0)
    return total


@dataclass
class _Conversation:
    source: SourceFile
    state: dict[str, Any] | None
    events: list[Any]
    folder: str
    steps: list[_Step] = field(default_factory=list)
    models: Counter[str] = field(default_factory=Counter)

    def emit(self, rows: Collector, used: set[str]) -> None:
        """Write the conversation's run; ``used``: the run ids of this load so far."""
        state = self.state or {}
        agent = _object(state.get("agent"))
        llm = _object(agent.get("llm"))
        model = llm.get("model") if isinstance(llm.get("model"), str) else None
        per_response = self._responses(state.get("stats"))
        status = state.get("execution_status")
        prompt: str | None = None
        output: str | None = None
        calls: dict[str, _Step] = {}
        turns: dict[str, _Step] = {}
        waiting: dict[str, int] | None = None  # stats growth not yet given to a model step
        previous: dict[str, int] | None = None
        last_error: dict[str, Any] | None = None
        stamps: list[float] = []
        first_stamp: str | None = None
        for event in self.events:
            if not isinstance(event, dict):
                raise InputError(self.source.display, f"expected an event object; {WHAT}")
            kind = event.get("kind")
            stamp = event.get("timestamp")
            now = epoch_from_iso(stamp)
            started = stamp if now is not None else None
            if now is not None:
                stamps.append(now)
                first_stamp = first_stamp or stamp
            if kind == "ConversationStateUpdateEvent":
                if event.get("key") == "execution_status" and isinstance(event.get("value"), str):
                    status = event["value"]
                elif event.get("key") == "stats":
                    model = model or _model_of(event.get("value"))
                    now_total = _accumulated(event.get("value"))
                    if now_total is not None and not per_response:
                        grown = {
                            k: max(now_total[k] - (previous or {}).get(k, 0), 0) for k in now_total
                        }
                        if any(grown.values()):
                            waiting = {k: grown[k] + (waiting or {}).get(k, 0) for k in grown}
                        previous = now_total
            elif kind == "MessageEvent":
                message = event.get("llm_message")
                text = _text(message.get("content") if isinstance(message, dict) else None)
                if event.get("source") == "user":
                    if prompt is None and text.strip():
                        prompt = text.strip()
                elif event.get("source") == "agent":
                    turn = self._turn(turns, event, model, started, per_response, waiting)
                    waiting = None
                    if text:
                        output = text
                        turn.output = {**(turn.output or {}), "text": text}
            elif kind == "ActionEvent":
                fresh = str(event.get("llm_response_id") or "") not in turns
                turn = self._turn(turns, event, model, started, per_response, waiting)
                if fresh:
                    waiting = None
                step = _Step(
                    "tool",
                    str(event.get("tool_name") or "(unnamed)"),
                    input=_action_input(event),
                    started_at=started,
                    parent=turn,
                )
                self.steps.append(step)
                call_id = str(event.get("tool_call_id") or event.get("id") or "")
                calls[call_id] = step
                action = event.get("action")
                if isinstance(action, dict) and action.get("kind") == "FinishAction":
                    said = action.get("message")
                    output = said if isinstance(said, str) and said else output
            elif kind in ("ObservationEvent", "UserRejectObservation", "AgentErrorEvent"):
                call_id = str(event.get("tool_call_id") or "")
                found = calls.pop(call_id) if call_id in calls else None
                if found is not None:
                    step = found
                else:  # its action is not in the file
                    step = _Step("tool", str(event.get("tool_name") or "(unnamed)"))
                    step.started_at = started
                    self.steps.append(step)
                _observe(step, kind, event, now)
            elif kind == "ConversationErrorEvent":
                code, detail = str(event.get("code") or "error"), _text(event.get("detail"))
                last_error = event
                shown = {
                    "text": f"{code}: {detail}" if detail else code,
                    "classification": event.get("classification"),
                }
                self.steps.append(_Step("error", code, "error", output=shown, started_at=started))
        if waiting is not None:  # usage after the last model step: the last one's
            last = next((s for s in reversed(self.steps) if s.type == "llm"), None)
            if last is not None:
                _give(last, waiting)
        for step in calls.values():
            step.status = "abandoned"  # an action never observed
        run_id = str(state.get("id") or self.folder)
        if run_id in used:  # two conversations of one id (copies): keep both, apart
            run_id = f"{run_id}@{hashlib.sha1(self.source.display.encode()).hexdigest()[:8]}"
        used.add(run_id)
        self._end(
            rows, run_id, state, model, prompt, output, status, last_error, stamps, first_stamp
        )

    def _responses(self, stats: Any) -> dict[str, dict[str, int]]:
        """Usage per ``response_id`` from base_state's stats (empty when it keeps none)."""
        found: dict[str, dict[str, int]] = {}
        metrics = stats.get("usage_to_metrics") if isinstance(stats, dict) else None
        for entry in metrics.values() if isinstance(metrics, dict) else []:
            usages = entry.get("token_usages") if isinstance(entry, dict) else None
            for usage in usages if isinstance(usages, list) else []:
                if isinstance(usage, dict) and usage.get("response_id"):
                    found[str(usage["response_id"])] = _usage(usage) or {}
        return found

    def _turn(
        self,
        turns: dict[str, _Step],
        event: dict[str, Any],
        model: str | None,
        started: str | None,
        per_response: dict[str, dict[str, int]],
        waiting: dict[str, int] | None,
    ) -> _Step:
        """The llm step of the model response ``event`` came from (made on first sight)."""
        response = str(event.get("llm_response_id") or "")
        turn = turns.get(response) if response else None
        if turn is not None:
            return turn
        turn = _Step("llm", model or "model", started_at=started)
        thought = _text(event.get("thought"))
        reasoning = _text(event.get("reasoning_content"))
        shown = {k: v for k, v in (("text", thought), ("reasoning", reasoning)) if v}
        turn.output = shown or None
        usage = per_response.get(response) if response else None
        if usage is not None or waiting is not None:
            _give(turn, usage if usage is not None else waiting or {})
        if model:
            self.models[model] += 1
        self.steps.append(turn)
        if response:
            turns[response] = turn
        return turn

    def _end(
        self,
        rows: Collector,
        run_id: str,
        state: dict[str, Any],
        model: str | None,
        prompt: str | None,
        output: str | None,
        status: Any,
        last_error: dict[str, Any] | None,
        stamps: list[float],
        first_stamp: str | None,
    ) -> None:
        rows.begin(run_id)
        emit_steps(rows, self.steps)
        workspace = _object(state.get("workspace"))
        where = _string(workspace.get("working_dir"))
        task = "prompt-" + hashlib.sha1(prompt.encode()).hexdigest()[:10] if prompt else run_id
        usage: dict[str, int] | None = None
        if any(s.usage for s in self.steps):
            usage = dict.fromkeys(_USAGE_KEYS, 0)
            for step in self.steps:
                for key in usage:
                    usage[key] += (step.usage or {}).get(key, 0)
        outcome, success = _outcome(status, last_error, self.steps)
        meta = {
            "tool": "openhands-sdk",
            **why(goal=prompt, title=state.get("title")),
            "execution_status": status if isinstance(status, str) else None,
            "working_dir": where or None,
            "models": sorted(self.models) or None,
            "usage": usage,
            "max_iterations": state.get("max_iterations"),
            **outcome,
        }
        rows.end(
            self.source,
            task_id=task,
            label=model or "openhands-sdk",
            suite=f"openhands-sdk/{PurePosixPath(where).name or 'default'}",
            started_at=first_stamp,
            meta={k: v for k, v in meta.items() if v is not None},
            output=output,
            success=success,
            latency_ms=(max(stamps) - min(stamps)) * 1000.0 if stamps else None,
        )


def _model_of(stats: Any) -> str | None:
    metrics = stats.get("usage_to_metrics") if isinstance(stats, dict) else None
    for entry in metrics.values() if isinstance(metrics, dict) else []:
        name = entry.get("model_name") if isinstance(entry, dict) else None
        if isinstance(name, str) and name:
            return name
    return None


def _give(turn: _Step, usage: dict[str, int]) -> None:
    turn.usage = usage
    turn.tokens_in = usage.get("prompt_tokens", 0)
    turn.tokens_out = usage.get("completion_tokens", 0)
    turn.cache_read = usage.get("cache_read_tokens")
    turn.cache_write = usage.get("cache_write_tokens")
    turn.reasoning = usage.get("reasoning_tokens")
    turn.output = {**(turn.output or {}), "usage": usage}


def _action_input(event: dict[str, Any]) -> Any:
    action = event.get("action")
    if isinstance(action, dict):
        return {k: v for k, v in action.items() if k != "kind"}
    call = event.get("tool_call")
    return maybe_json(call.get("arguments")) if isinstance(call, dict) else None


def _observe(step: _Step, kind: Any, event: dict[str, Any], now: float | None) -> None:
    """Give ``step`` the outcome of its observation, rejection or agent error."""
    if kind == "AgentErrorEvent":
        step.status = "error"
        step.output = {"error": event.get("error"), "classification": event.get("classification")}
    elif kind == "UserRejectObservation":
        step.status = "abandoned"
        step.output = event.get("rejection_reason")
    else:
        observation = event.get("observation")
        observation = observation if isinstance(observation, dict) else {}
        step.output = _text(observation.get("content")) or None
        if observation.get("is_error") is True:
            step.status = "error"
    begun = epoch_from_iso(step.started_at)
    if begun is not None and now is not None and now >= begun and step.latency_ms is None:
        step.latency_ms = (now - begun) * 1000.0


def _outcome(
    status: Any, last_error: dict[str, Any] | None, steps: list[_Step]
) -> tuple[dict[str, str], bool | None]:
    """(error keys, success) of a conversation: see the module's outcome rule."""
    if status == "stuck":
        return {}, False
    ended_on_error = last_error is not None and (
        status == "error" or (status is None and steps and steps[-1].type == "error")
    )
    if not ended_on_error or last_error is None:
        return {}, None
    code, detail = str(last_error.get("code") or "error"), _text(last_error.get("detail"))
    reason = f"{code}: {detail}" if detail else code
    classification = last_error.get("classification")
    cls = classification.get("kind") if isinstance(classification, dict) else None
    if cls in INFRA_KINDS:
        return {"error_kind": INFRA_KINDS[cls], "error_reason": reason}, None
    if cls == "agent_action":
        return {}, False
    found = api_error_meta(reason)
    return (found, None) if found else ({}, False)


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""
