"""Langfuse trace exports: ``{"trace": {...}, "observations": [...]}`` (also a list of them).

The trace is a run (id, name as task, timestamp, tags); each observation is a step in start
order with ``parentObservationId`` as its parent. Its type (GENERATION -> llm, TOOL -> tool,
AGENT -> agent, CHAIN -> chain; SPAN decided by its attributes), usage, cost, latency, input
and output come from the observation itself; the original OpenInference / GenAI span attributes
that Langfuse keeps in ``metadata.attributes`` (an object, or a JSON string) name tools and
models as for OpenTelemetry spans. ``level: ERROR`` is an error."""

from __future__ import annotations

import json
from typing import Any

import duckdb

from reportgen.formats.adapters.messages import first_user_text
from reportgen.formats.adapters.rows import (
    Collector,
    amount,
    count,
    epoch_from_iso,
    parse_document,
    require,
    stage_each,
)
from reportgen.formats.adapters.spans import Span, add_trace
from reportgen.formats.adapters.why import why
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

WHAT = "Langfuse trace export (an object with trace and observations)"
_KEYS = (Marked(rb'"observations"\s*:\s*\['), Marked(rb'"trace"\s*:\s*\{'))
_TYPES = {
    "GENERATION": "llm",
    "TOOL": "tool",
    "AGENT": "agent",
    "CHAIN": "chain",
    "RETRIEVER": "retriever",
    "EMBEDDING": "embedding",
    "EVALUATOR": "evaluator",
    "GUARDRAIL": "guardrail",
    "EVENT": "event",
}


class LangfuseExport:
    name = "langfuse"
    description = "Langfuse trace export (trace + observations)"
    maps = (
        "a trace -> a run (task: trace name); an observation -> a step (GENERATION->llm, "
        "TOOL->tool, SPAN by its OTel attributes; parent observation -> parent); level ERROR->error"
    )

    def detect(self, source: SourceFile) -> bool:
        return all(k.search(source.head) for k in _KEYS)

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        stage_each(con, sources, self.name, WHAT, _parse)


def _metadata(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def _attributes(observation: dict[str, Any]) -> dict[str, Any]:
    meta = _metadata(observation.get("metadata"))
    attrs = meta.get("attributes")
    attrs = _metadata(attrs) if attrs is not None else meta
    return attrs


def _usage(observation: dict[str, Any], key: str, flat: str) -> int | None:
    details = observation.get("usageDetails") or {}
    value = count(details.get(key), key)
    return value if value is not None else (count(observation.get(flat), flat) or None)


def _span(observation: dict[str, Any], trace_id: str) -> Span:
    obs_type = str(observation.get("type") or "SPAN")
    start = epoch_from_iso(observation.get("startTime"))
    end = epoch_from_iso(observation.get("endTime"))
    latency = amount(observation.get("latency"), "latency")
    if end is None and start is not None and latency is not None:
        end = start + latency / 1000.0
    cost = amount(observation.get("totalCost"), "totalCost")
    return Span(
        trace_id=trace_id,
        span_id=str(observation["id"]),
        parent_id=observation.get("parentObservationId") or None,
        name=str(observation.get("name") or obs_type.lower()),
        start=start,
        end=end,
        attributes=_attributes(observation),
        error=observation.get("level") == "ERROR",
        status_message=observation.get("statusMessage"),
        type_override=_TYPES.get(obs_type),
        model_override=observation.get("model") or None,
        tokens_in=_usage(observation, "input", "inputUsage"),
        tokens_out=_usage(observation, "output", "outputUsage"),
        cost_usd=cost if cost else None,
        input=observation.get("input"),
        output=observation.get("output"),
    )


def _parse(rows: Collector, source: SourceFile) -> None:
    document = parse_document(source, WHAT)
    exports = document if isinstance(document, list) else [document]
    for position, export in enumerate(exports):
        where = f"[{position}]" if isinstance(document, list) else "(document)"
        require(source, isinstance(export, dict), f"expected {WHAT}", where)
        for key in ("trace", "observations"):
            require(source, key in export, "required field is missing", key)
        trace = export["trace"]
        observations = export["observations"]
        require(
            source,
            isinstance(trace, dict) and bool(trace.get("id")),
            "expected an object with an id",
            "trace",
        )
        require(source, isinstance(observations, list), "expected a list", "observations")
        for i, obs in enumerate(observations):
            require(
                source,
                isinstance(obs, dict) and "id" in obs,
                "expected an object with an id",
                f"observations[{i}]",
            )
        trace_id = str(trace["id"])
        rows.begin(trace_id)
        facts = add_trace(rows, [_span(o, trace_id) for o in observations])
        output = trace.get("output")
        tags = trace.get("tags") if isinstance(trace.get("tags"), list) else None
        rows.end(
            source,
            task_id=str(trace.get("name") or facts["root_name"] or source.path.name.split(".")[0]),
            suite="langfuse",
            started_at=trace.get("timestamp")
            if isinstance(trace.get("timestamp"), str)
            else facts["started_at"],
            latency_ms=facts["latency_ms"],
            output=output if isinstance(output, str) else (json.dumps(output) if output else None),
            meta={
                "trace_id": trace_id,
                "tags": tags,
                "environment": trace.get("environment"),
                "session_id": trace.get("sessionId"),
                "model": facts["model"],
                **why(goal=first_user_text(trace.get("input")) or facts["goal"]),
            },
        )
