"""OpenTelemetry spans with GenAI or OpenInference attributes, in the shapes exporters write:

- OTLP/JSON (``{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}``, one request per
  document, or one per line in .jsonl as the collector's file exporter writes), attributes as
  ``[{"key", "value": {"stringValue"|"intValue"|...}}]``, times in ``*UnixNano``;
- OpenTelemetry SDK dumps: ``{"spans": [...]}`` (Python ``ReadableSpan`` dicts, ``context`` /
  ``parent`` ids, epoch-nanosecond or ISO times) or a list of spans (also the JS
  ``ReadableSpan`` form with ``spanContext`` and ``[seconds, nanos]`` times);
- a single span's attribute dictionary (one run of one step).

- OTLP/JSON log records (``{"resourceLogs": [...]}``), the GenAI events instrumentations
  emit as logs (``eventName`` ``gen_ai.user.message``, ``gen_ai.choice``, ...): they hold no
  spans (no run of their own) and join the span their ``traceId``/``spanId`` name, in any file
  of the same load (see ``otel_dialects.py`` for events, MLflow spans and dual
  instrumentation).

Spans are grouped into runs by trace id, except that the traces of one session are one run:
traces whose root (else any span) carries the same ``session.id`` (else
``gen_ai.conversation.id``), as Claude Code and agent loops write one trace per user turn,
become one run (id = the session id), the turns' steps in start order. A run whose last
trace's root failed with an ``error.type`` / status naming an infrastructure error (rate
limit, overloaded API, auth, network...) gets ``meta.error_kind`` / ``error_reason``. See
``spans.py`` for the span -> step mapping."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from datetime import datetime
from typing import Any

import duckdb

from reportgen.formats.adapters.infra import api_error_meta
from reportgen.formats.adapters.otel_dialects import (
    follow_events,
    from_mlflow,
    merge_duplicate_calls,
)
from reportgen.formats.adapters.rows import (
    Collector,
    explained,
    parse_document,
    parse_lines,
    require,
    stable_id,
)
from reportgen.formats.adapters.spans import Span, add_trace
from reportgen.formats.adapters.why import why
from reportgen.formats.base import Marked, StageOptions, first_record
from reportgen.formats.source import SourceFile

WHAT = "OpenTelemetry spans (OTLP/JSON resourceSpans, an SDK span dump, or span attributes)"
_OTLP = Marked(rb'"resourceSpans"\s*:', b'"resourceSpans"')
_LOGS = Marked(rb'"resourceLogs"\s*:', b'"resourceLogs"')
_SESSION_KEYS = ("session.id", "gen_ai.conversation.id")
_DUMP = Marked(rb'"spans"\s*:\s*\[')
_SPAN_LIST = re.compile(rb"^\s*\[\s*\{")
_SPAN_KEYS = re.compile(rb'"spanContext"\s*:|"context"\s*:\s*\{\s*"trace_id"|"span_id"\s*:')
_GENAI = re.compile(rb'"(?:gen_ai\.|openinference\.span\.kind|llm\.|ai\.operationId)')
_ATTR_START = re.compile(rb'^\s*\{\s*"(?:gen_ai\.|openinference\.|llm\.|input"|output")')
_ATTR_PREFIXES = ("gen_ai.", "openinference.", "llm.", "tool.", "ai.")
_ERROR_CODES = {2, "2", "STATUS_CODE_ERROR", "ERROR", "error"}


class OtelSpans:
    name = "otel"
    description = "OpenTelemetry GenAI / OpenInference spans (OTLP/JSON or SDK dumps)"
    maps = (
        "a trace id (or the traces of one session.id / gen_ai.conversation.id) -> a run; "
        "a span -> a step (gen_ai.operation.name / openinference.span.kind "
        "-> llm|tool|agent|chain, parent span -> parent); span status ERROR -> error"
    )

    def detect(self, source: SourceFile) -> bool:
        head = source.head
        if _OTLP.search(head) or _LOGS.search(head):
            return True
        if _DUMP.search(head) and (_GENAI.search(head) or _SPAN_KEYS.search(head)):
            return True
        if _SPAN_LIST.match(head) and _SPAN_KEYS.search(head):
            return True
        record = first_record(source)
        if isinstance(record, dict):
            return _is_attribute_map(record)
        return record is None and bool(_ATTR_START.match(head))

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        rows = Collector(self.name)
        parsed: list[tuple[SourceFile, list[Span], Any]] = []
        logged: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for source in sources:
            with explained(source, WHAT):
                spans, final = _read(source, logged)
                parsed.append((source, spans, final))
        for source, spans, final in parsed:
            with explained(source, WHAT):
                _runs(rows, source, spans, final, logged)
        rows.flush(con)


def _is_attribute_map(record: dict[str, Any]) -> bool:
    keys = list(record)
    if not keys or {"spans", "resourceSpans", "observations", "steps"} & set(keys):
        return False
    return any(k.startswith(_ATTR_PREFIXES) for k in keys) and all(
        not isinstance(v, dict) for v in record.values()
    )


def any_value(value: Any) -> Any:
    """An OTLP/JSON ``AnyValue`` as a plain value (intValue arrives as a string)."""
    if not isinstance(value, dict):
        return value
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [any_value(v) for v in (value["arrayValue"] or {}).get("values") or []]
    if "kvlistValue" in value:
        return attributes((value["kvlistValue"] or {}).get("values") or [])
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def attributes(raw: Any) -> dict[str, Any]:
    """Attributes as a dict, from the OTLP key/value list or an already-flat dict."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, list):
        return {str(a["key"]): any_value(a.get("value")) for a in raw if isinstance(a, dict)}
    return {}


def _seconds(value: Any) -> float | None:
    """Epoch seconds from nanoseconds (int or numeric string), [s, ns] or ISO text."""
    if isinstance(value, list) and len(value) == 2:
        return float(value[0]) + float(value[1]) / 1e9
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value) / 1e9 if value > 1e12 else float(value)
    if isinstance(value, str):
        if value.isdigit():
            return int(value) / 1e9
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def _id(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return str(value)


def _events(raw: Any) -> list[dict[str, Any]]:
    """A span's events as ``{name, attributes}``."""
    if not isinstance(raw, list):
        return []
    return [
        {"name": e.get("name"), "attributes": attributes(e.get("attributes"))}
        for e in raw
        if isinstance(e, dict)
    ]


def _otlp_logs(
    document: dict[str, Any], logged: dict[tuple[str, str], list[dict[str, Any]]]
) -> None:
    """The log records of an OTLP/JSON logs request, as events of the span each names."""
    for resource in document.get("resourceLogs") or []:
        for scope in (resource or {}).get("scopeLogs") or []:
            for record in (scope or {}).get("logRecords") or []:
                if not isinstance(record, dict) or not record.get("spanId"):
                    continue
                attrs = attributes(record.get("attributes"))
                name = record.get("eventName") or attrs.get("event.name")
                key = (str(record.get("traceId") or ""), str(record["spanId"]))
                logged[key].append(
                    {"name": name, "attributes": attrs, "body": any_value(record.get("body"))}
                )


def _otlp_span(raw: dict[str, Any]) -> Span:
    status = raw.get("status") or {}
    return Span(
        trace_id=str(raw.get("traceId") or ""),
        span_id=str(raw.get("spanId") or ""),
        parent_id=_id(raw.get("parentSpanId")),
        name=str(raw.get("name") or ""),
        start=_seconds(raw.get("startTimeUnixNano")),
        end=_seconds(raw.get("endTimeUnixNano")),
        attributes=attributes(raw.get("attributes")),
        error=status.get("code") in _ERROR_CODES,
        status_message=status.get("message"),
        events=_events(raw.get("events")),
    )


def _sdk_span(raw: dict[str, Any]) -> Span:
    """A Python (``context``/``parent``/``parent_id``) or JS (``spanContext``/``parentSpanId``)
    SDK span dict."""
    context = raw.get("context") or raw.get("spanContext") or {}
    parent = raw.get("parent")
    parent_id = (
        (parent.get("span_id") if isinstance(parent, dict) else None)
        or raw.get("parent_id")
        or raw.get("parentSpanId")
        or ((raw.get("parentSpanContext") or {}).get("spanId"))
    )
    status = raw.get("status") or {}
    code = status.get("status_code", status.get("code"))
    return Span(
        trace_id=str(context.get("trace_id") or context.get("traceId") or ""),
        span_id=str(context.get("span_id") or context.get("spanId") or ""),
        parent_id=_id(parent_id),
        name=str(raw.get("name") or ""),
        start=_seconds(raw.get("start_time", raw.get("startTime"))),
        end=_seconds(raw.get("end_time", raw.get("endTime"))),
        attributes=attributes(raw.get("attributes")),
        error=code in _ERROR_CODES or str(code).upper().endswith("ERROR"),
        status_message=status.get("description") or status.get("message"),
        events=_events(raw.get("events")),
    )


def _otlp_spans(document: dict[str, Any], source: SourceFile) -> list[Span]:
    resource_spans = document["resourceSpans"]
    require(source, isinstance(resource_spans, list), "expected a list", "resourceSpans")
    spans: list[Span] = []
    for r, resource in enumerate(resource_spans):
        scopes = resource.get("scopeSpans") or resource.get("instrumentationLibrarySpans") or []
        require(
            source, isinstance(scopes, list), "expected a list", f"resourceSpans[{r}].scopeSpans"
        )
        for scope in scopes:
            for raw in scope.get("spans") or []:
                require(source, isinstance(raw, dict), "expected a span object", "spans")
                require(
                    source,
                    bool(raw.get("spanId")) and bool(raw.get("traceId")),
                    "span without traceId/spanId",
                    f"resourceSpans[{r}].scopeSpans.spans",
                )
                spans.append(_otlp_span(raw))
    return spans


def _spans(document: Any, source: SourceFile) -> tuple[list[Span], Any]:
    """The spans of a document in any accepted shape, and its final output if it gives one."""
    if isinstance(document, dict) and "resourceSpans" in document:
        return _otlp_spans(document, source), None
    if isinstance(document, dict) and "spans" in document:
        raw = document["spans"]
        require(source, isinstance(raw, list), "expected a list of spans", "spans")
        require(source, all(isinstance(s, dict) for s in raw), "expected span objects", "spans")
        return [_sdk_span(s) for s in raw], document.get("final_output")
    if isinstance(document, list):
        require(source, all(isinstance(s, dict) for s in document), f"expected {WHAT}")
        return [_sdk_span(s) for s in document], None
    if isinstance(document, dict) and _is_attribute_map(document):
        return [Span("", "span-0", None, "span", None, None, document)], None
    raise_what = f"expected {WHAT}"
    require(source, False, raise_what)
    return [], None


def _final(final: Any) -> str | None:
    """A span dump's ``final_output``: text, or structured output as its JSON text."""
    if isinstance(final, str):
        return final or None
    return json.dumps(final, ensure_ascii=False) if isinstance(final, (dict, list)) else None


def _read(
    source: SourceFile, logged: dict[tuple[str, str], list[dict[str, Any]]]
) -> tuple[list[Span], Any]:
    """A file's spans and final output; its log records go to ``logged``."""
    documents = (
        [d for _, d in parse_lines(source, WHAT)]
        if source.lines
        else [parse_document(source, WHAT)]
    )
    spans: list[Span] = []
    final = None
    for document in documents:
        if (
            isinstance(document, dict)
            and "resourceLogs" in document
            and "resourceSpans" not in document
        ):
            _otlp_logs(document, logged)
            continue
        found, final = _spans(document, source)
        spans.extend(found)
    return spans, (final if len(documents) == 1 else None)


def _session(members: list[Span]) -> str | None:
    """The session a trace belongs to: its root's session attribute, else any span's."""
    ids = {s.span_id for s in members}
    roots = [s for s in members if s.parent_id not in ids]
    for group in (roots, members):
        for key in _SESSION_KEYS:
            for span in group:
                value = span.attributes.get(key)
                if isinstance(value, (str, int)) and str(value):
                    return str(value)
    return None


def _runs(
    rows: Collector,
    source: SourceFile,
    spans: list[Span],
    final: Any,
    logged: dict[tuple[str, str], list[dict[str, Any]]],
) -> None:
    traces: dict[str, list[Span]] = defaultdict(list)
    for span in spans:
        span.events.extend(logged.get((span.trace_id, span.span_id), ()))
        follow_events(span)
        from_mlflow(span)
        traces[span.trace_id].append(span)
    runs: dict[str, list[list[Span]]] = {}
    for trace_id, members in traces.items():
        session = _session(members)
        runs.setdefault(f"session:{session}" if session else f"trace:{trace_id}", []).append(
            merge_duplicate_calls(members)
        )
    for position, (key, turns) in enumerate(runs.items()):
        turns.sort(key=lambda t: min((s.start for s in t if s.start is not None), default=0.0))
        trace_id = turns[0][0].trace_id if turns[0] else ""
        session = key.removeprefix("session:") if key.startswith("session:") else None
        rows.begin(
            session or trace_id or stable_id(source, source.path.name.split(".")[0], position)
        )
        facts = [add_trace(rows, members) for members in turns]
        first, last = facts[0], facts[-1]
        task = first["agent"] or first["root_name"] or source.path.name.split(".")[0]
        starts = [f["started_at"] for f in facts if f["started_at"]]
        spans_of = [s for t in turns for s in t]
        begun = [s.start for s in spans_of if s.start is not None]
        ended = [s.end for s in spans_of if s.end is not None]
        answer = next((f["answer"] for f in reversed(facts) if f["answer"]), None)
        rows.end(
            source,
            task_id=str(task),
            suite="otel",
            started_at=min(starts) if starts else None,
            latency_ms=(max(ended) - min(begun)) * 1000.0 if begun and ended else None,
            output=(_final(final) if len(runs) == 1 else None) or answer,
            meta={
                "trace_id": trace_id or None,
                **({"session_id": session} if session else {}),
                **({"trace_ids": [t[0].trace_id for t in turns]} if len(turns) > 1 else {}),
                "model": next((f["model"] for f in facts if f["model"]), None),
                **why(goal=next((f["goal"] for f in facts if f["goal"]), None)),
                **(api_error_meta(last["root_error"]) if last["root_error"] else {}),
            },
        )
