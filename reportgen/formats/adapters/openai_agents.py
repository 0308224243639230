"""OpenAI Agents SDK trace exports: the body the SDK posts to ``/v1/traces/ingest``
(``{"data": [trace, span, ...]}``) and one item per line (what a ``TracingProcessor`` writing
``Trace.export()`` / ``Span.export()`` to disk sees). Items are ``{"object": "trace", id,
workflow_name, group_id, metadata}`` and ``{"object": "trace.span", id, trace_id, parent_id,
started_at, ended_at, span_data, error}``; spans arrive in end order, children first.

- A trace is a run (run id = trace id, task = ``workflow_name``). ``group_id`` groups
  repeated trials: it is the label, and traces of one group and workflow are numbered as
  trials by start time (label = the folder when there is no group). One trace's items may
  come in several files (the SDK exports in batches): within a load they are merged, each
  span counted once by its id.
- Spans become steps in start order (a parent before its children), ``parent_id`` the step
  tree: ``function`` -> ``tool`` (name; JSON-decoded input), ``generation`` / ``response`` ->
  ``llm`` (model, or ``response``; usage ``input_tokens`` / ``output_tokens``, of which
  ``input_tokens_details.cached_tokens`` / ``cache_write_tokens`` are the cache columns and
  ``output_tokens_details.reasoning_tokens`` the reasoning column), ``agent`` ->
  ``agent``, ``handoff`` -> ``handoff`` (action ``handoff:<to_agent>``), ``guardrail`` ->
  ``guardrail`` (``triggered: true`` -> ``error``), other ``custom`` spans -> ``custom``. The
  SDK's own ``task`` and ``turn`` wrappers (``custom`` with ``data.sdk_span_type``) are not
  steps (their usage repeats the model calls'); their children hang from the nearest
  ancestor kept, and an error on one is kept as an ``error`` step.
- Status: a span ``error`` -> ``error``; an agent's ``Max turns exceeded`` -> ``abandoned``.
  success = false when the run ended on such an error or a tripped guardrail, else unknown.
- latency = ended_at - started_at; cost from the generation model's price (response spans
  name no model: unknown cost). The ingest body drops a response span's usage: the turn span
  around it (one model call per turn) gives it instead, so a file loads the same tokens
  either way, and a span seen in both shapes is merged (what one lacks the other fills). A
  trace whose turns ran sub-agents as tools (turns inside turns) folds their usage into the
  turns' in no stated way (parallel sub-agents even into each other's): its model calls'
  usage is then unknown (NULL) in the ingest body."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import duckdb

from reportgen.errors import InputError
from reportgen.formats.adapters.messages import final_text, first_user_text
from reportgen.formats.adapters.rows import (
    Collector,
    count,
    default_label,
    epoch_from_iso,
    explained,
    json_text,
    parse_document,
    parse_lines,
)
from reportgen.formats.adapters.why import why
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.pricing import PriceTable, load_table
from reportgen.formats.source import SourceFile

WHAT = 'OpenAI Agents SDK trace export ({"data": [...]} or one trace/span item per line)'
_OBJECT = Marked(rb'"object"\s*:\s*"trace(?:\.span)?"', b'"object"')
_SPAN_KEYS = (Marked(rb'"span_data"\s*:'), Marked(rb'"trace_id"\s*:'))
_TRACE_KEY = Marked(rb'"workflow_name"\s*:')
_WRAPPERS = frozenset({"task", "turn"})


class OpenAIAgents:
    name = "openai-agents"
    description = "OpenAI Agents SDK trace exports (/v1/traces/ingest body or JSONL)"
    maps = (
        "a trace -> a run (group_id -> label, repeated traces -> trials); spans -> steps by "
        "parent_id: function -> tool, generation/response -> llm, agent, handoff, guardrail"
    )

    def detect(self, source: SourceFile) -> bool:
        head = source.head
        if not _OBJECT.search(head):
            return False
        return all(k.search(head) for k in _SPAN_KEYS) or bool(_TRACE_KEY.search(head))

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        prices = load_table()
        traces: dict[str, _Trace] = {}
        for source in sources:
            with explained(source, WHAT):
                for line, item in _items(source):
                    _add(traces, source, line, item)
        rows = Collector(self.name)
        ordered = sorted(traces.values(), key=lambda t: (t.group or "", t.task, t.start_key()))
        trials: Counter[tuple[str | None, str, str]] = Counter()
        for trace in ordered:
            label = trace.group or default_label(trace.source)
            key = (trace.group, trace.task, label)
            trace.trial = trials[key]
            trials[key] += 1
            with explained(trace.source, WHAT):
                trace.emit(rows, prices, label)
        rows.flush(con)


def _items(source: SourceFile) -> list[tuple[int | None, Any]]:
    if source.lines:
        return [(number, item) for number, item in parse_lines(source, WHAT)]
    document = parse_document(source, WHAT)
    wrapped = isinstance(document, dict) and "data" in document
    data = document["data"] if wrapped else document
    if not isinstance(data, list):
        raise InputError(source.display, "expected a list", field="data")
    return [(None, item) for item in data]


@dataclass
class _Trace:
    trace_id: str
    source: SourceFile
    line: int | None
    task: str = "workflow"
    group: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    spans: dict[str, dict[str, Any]] = field(default_factory=dict)
    trial: int = 0

    def start_key(self) -> str:
        starts = [s.get("started_at") for s in self.spans.values()]
        return min((s for s in starts if isinstance(s, str)), default="")

    def emit(self, rows: Collector, prices: PriceTable, label: str) -> None:
        spans = self.spans
        kept: dict[str, int] = {}
        depth: dict[str, int] = {}

        def level(span_id: str, seen: int = 0) -> int:
            if span_id in depth:
                return depth[span_id]
            parent = spans.get(span_id, {}).get("parent_id")
            found = 0 if parent not in spans or seen > len(spans) else 1 + level(parent, seen + 1)
            depth[span_id] = found
            return found

        order = sorted(spans, key=lambda s: (str(spans[s].get("started_at") or ""), level(s), s))
        rows.begin(self.trace_id)
        from_turns = _turn_usage(spans)
        models: Counter[str] = Counter()
        starts: list[float] = []
        ends: list[float] = []
        failed = False
        goal: str | None = None
        answer: str | None = None
        for span_id in order:
            span = spans[span_id]
            data = span.get("span_data")
            where = f"span {span_id}.span_data"
            if not isinstance(data, dict):
                raise InputError(self.source.display, "expected an object", field=where)
            kind = str(data.get("type") or "span")
            if kind == "generation":  # Chat Completions keep what was sent and said
                goal = goal or first_user_text(data.get("input"))
                answer = final_text(data.get("output")) or answer
            begun, ended = (
                epoch_from_iso(span.get("started_at")),
                epoch_from_iso(span.get("ended_at")),
            )
            if begun is not None:
                starts.append(begun)
            if ended is not None:
                ends.append(ended)
            error = span.get("error")
            inner: dict[str, Any] = data["data"] if isinstance(data.get("data"), dict) else {}
            wrapper = kind == "custom" and inner.get("sdk_span_type") in _WRAPPERS
            parent = _kept_ancestor(spans, span.get("parent_id"), kept)
            if wrapper and error is None:
                continue
            if span_id in from_turns:
                data = {**data, "usage": from_turns[span_id]}
            step = _step(kind, data, error, prices, models)
            if wrapper:
                step = {
                    "type": "error",
                    "action": str(inner.get("sdk_span_type")),
                    "status": "error",
                    "output": error,
                }
            if step["status"] in ("error", "abandoned") and kind in ("agent", "custom"):
                failed = True
            if kind == "guardrail" and data.get("triggered") is True:
                failed = True
            latency = (ended - begun) * 1000.0 if begun is not None and ended is not None else None
            kept[span_id] = rows.step(
                step["type"],
                step["action"],
                step["status"],
                input=step.get("input"),
                output=step.get("output"),
                tokens_in=step.get("tokens_in"),
                tokens_out=step.get("tokens_out"),
                cost_usd=step.get("cost_usd"),
                latency_ms=latency if latency is None or latency >= 0 else None,
                started_at=span.get("started_at") if begun is not None else None,
                parent=parent,
                cache_read=step.get("cache_read"),
                cache_write=step.get("cache_write"),
                reasoning=step.get("reasoning"),
            )
        first = min(starts) if starts else None
        rows.end(
            self.source,
            task_id=self.task,
            label=label,
            suite="openai-agents",
            trial=self.trial,
            started_at=min(
                (
                    str(s.get("started_at"))
                    for s in spans.values()
                    if epoch_from_iso(s.get("started_at"))
                ),
                default=None,
            ),
            meta={
                "tool": "openai-agents",
                "group_id": self.group,
                "models": sorted(models),
                **self.meta,
                **why(goal=goal),
            },
            output=answer,
            success=False if failed else None,
            latency_ms=(max(ends) - first) * 1000.0
            if first is not None and ends and max(ends) >= first
            else None,  # spans that end before they start give no latency
            source_line=self.line,
        )


def _kept_ancestor(
    spans: dict[str, dict[str, Any]], parent: Any, kept: dict[str, int]
) -> int | None:
    hops = 0
    while isinstance(parent, str) and parent in spans and hops <= len(spans):
        if parent in kept:
            return kept[parent]
        parent = spans[parent].get("parent_id")
        hops += 1
    return None


def _step(
    kind: str, data: dict[str, Any], error: Any, prices: PriceTable, models: Counter[str]
) -> dict[str, Any]:
    status = "ok" if error is None else "error"
    step: dict[str, Any] = {"status": status}
    if kind == "function":
        step |= {
            "type": "tool",
            "action": str(data.get("name") or "(unnamed)"),
            "input": json_text(data.get("input")),
            "output": data.get("output")
            if error is None
            else {"error": error, "output": data.get("output")},
        }
    elif kind in ("generation", "response"):
        usage: dict[str, Any] = data["usage"] if isinstance(data.get("usage"), dict) else {}
        model = data.get("model") if isinstance(data.get("model"), str) else None
        step |= {
            "type": "llm",
            "action": model or kind,
            "tokens_in": count(usage.get("input_tokens"), "input_tokens"),
            "tokens_out": count(usage.get("output_tokens"), "output_tokens"),
            "output": data.get("output") if kind == "generation" else {"usage": usage},
        }
        details = usage.get("input_tokens_details") or (usage.get("details") or {}).get(
            "input_tokens_details"
        )
        details = details if isinstance(details, dict) else {}
        out_details = usage.get("output_tokens_details")
        out_details = out_details if isinstance(out_details, dict) else {}
        step["cache_read"] = count(details.get("cached_tokens"), "cached_tokens")
        step["cache_write"] = count(details.get("cache_write_tokens"), "cache_write_tokens")
        step["reasoning"] = count(out_details.get("reasoning_tokens"), "reasoning_tokens")
        if model:
            models[model] += 1
            price = prices.price(model)
            cached = step["cache_read"] or 0
            if price is not None and step["tokens_in"] is not None:
                fresh = max(step["tokens_in"] - cached, 0)
                step["cost_usd"] = price.cost(fresh, step["tokens_out"], 0, cached)
    elif kind == "handoff":
        step |= {
            "type": "handoff",
            "action": f"handoff:{data.get('to_agent')}",
            "input": {"from_agent": data.get("from_agent"), "to_agent": data.get("to_agent")},
        }
    elif kind == "guardrail":
        step |= {
            "type": "guardrail",
            "action": str(data.get("name") or "guardrail"),
            "output": {"triggered": data.get("triggered")},
        }
        if data.get("triggered") is True:
            step["status"] = "error"
    elif kind == "agent":
        step |= {
            "type": "agent",
            "action": str(data.get("name") or "agent"),
            "input": {k: data.get(k) for k in ("tools", "handoffs", "output_type") if k in data},
        }
        message = error.get("message") if isinstance(error, dict) else None
        if isinstance(message, str) and "max turns" in message.lower():
            step["status"] = "abandoned"
    else:
        step |= {
            "type": kind,
            "action": str(data.get("name") or kind),
            "input": data.get("data") if kind == "custom" else None,
        }
    if error is not None and "output" not in step:
        step["output"] = {"error": error}
    return step


def _fill(known: dict[str, Any], other: dict[str, Any]) -> None:
    """Add to ``known`` what ``other`` (the same span) has and it lacks, one level into
    ``span_data``."""
    for key, value in other.items():
        if known.get(key) is None:
            known[key] = value
    data, more = known.get("span_data"), other.get("span_data")
    if isinstance(data, dict) and isinstance(more, dict):
        for key, value in more.items():
            if data.get(key) is None:
                data[key] = value


def _turn_usage(spans: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Usage for model-call spans that carry none (the ingest body strips it from response
    spans) from their turn span, which states the usage of its one model call: given to the
    first model-call span of a turn when none of that turn's model calls has usage."""
    calls: dict[str, list[str]] = {}
    for span_id, span in spans.items():
        data = span.get("span_data") or {}
        if not isinstance(data, dict) or data.get("type") not in ("generation", "response"):
            continue
        parent, hops = span.get("parent_id"), 0
        while isinstance(parent, str) and parent in spans and hops <= len(spans):
            pdata = spans[parent].get("span_data") or {}
            inner = pdata.get("data") if isinstance(pdata, dict) else None
            if isinstance(inner, dict) and inner.get("sdk_span_type") == "turn":
                calls.setdefault(parent, []).append(span_id)
                break
            parent, hops = spans[parent].get("parent_id"), hops + 1
    turns = {
        span_id
        for span_id, span in spans.items()
        if isinstance(span.get("span_data"), dict)
        and isinstance(span["span_data"].get("data"), dict)
        and span["span_data"]["data"].get("sdk_span_type") == "turn"
    }
    nested: dict[str, list[str]] = {}  # turn -> turns of sub-agents run inside it
    for turn in turns:
        parent, hops = spans[turn].get("parent_id"), 0
        while isinstance(parent, str) and parent in spans and hops <= len(spans):
            if parent in turns:
                nested.setdefault(parent, []).append(turn)
                break
            parent, hops = spans[parent].get("parent_id"), hops + 1
    if nested:  # sub-agents run as tools: turns fold in each other's usage, so none is sure
        return {}
    given: dict[str, dict[str, Any]] = {}
    for turn, members in calls.items():
        usage = _usage_of(spans[turn])
        if usage is None:
            continue
        if any(isinstance(spans[m]["span_data"].get("usage"), dict) for m in members):
            continue
        first = min(members, key=lambda m: str(spans[m].get("started_at") or ""))
        given[first] = usage
    return given


def _usage_of(turn: dict[str, Any]) -> dict[str, int] | None:
    usage = turn["span_data"]["data"].get("usage")
    if not isinstance(usage, dict):
        return None
    return {k: count(usage.get(k), k) or 0 for k in ("input_tokens", "output_tokens")}


def _add(traces: dict[str, _Trace], source: SourceFile, line: int | None, item: Any) -> None:
    if not isinstance(item, dict):
        raise InputError(source.display, "expected an object (a trace or a span)", line=line)
    kind = item.get("object")
    if kind == "trace":
        trace_id = item.get("id")
        if not isinstance(trace_id, str) or not trace_id:
            raise InputError(source.display, "required field is missing", line=line, field="id")
        trace = traces.setdefault(trace_id, _Trace(trace_id, source, line))
        if item.get("workflow_name"):
            trace.task = str(item["workflow_name"])
        group = item.get("group_id")
        trace.group = str(group) if group else None
        metadata = item.get("metadata")
        if isinstance(metadata, dict):
            trace.meta["metadata"] = metadata
    elif kind == "trace.span":
        trace_id = item.get("trace_id")
        span_id = item.get("id")
        for key, value in (("trace_id", trace_id), ("id", span_id)):
            if not isinstance(value, str) or not value:
                raise InputError(source.display, "required field is missing", line=line, field=key)
        trace = traces.setdefault(str(trace_id), _Trace(str(trace_id), source, line))
        known = trace.spans.get(str(span_id))
        if known is None:
            trace.spans[str(span_id)] = item
        else:  # the same span from another export (the ingest body drops some fields)
            _fill(known, item)
    else:
        raise InputError(
            source.display, f"unknown object {str(kind)[:40]!r}", line=line, field="object"
        )
