"""What the OpenTelemetry reader does to spans before ``spans.add_trace`` sees them:

- **events**: span events and OTLP log records (``traceId``/``spanId``) of a span are followed.
  ``gen_ai.client.inference.operation.details`` lends the span its ``gen_ai.input.messages`` /
  ``gen_ai.output.messages`` / ``gen_ai.system_instructions`` where it has none; message events
  (``gen_ai.system.message``, ``gen_ai.user.message``, ``gen_ai.assistant.message``,
  ``gen_ai.tool.message``) become its input messages and ``gen_ai.choice`` its output (where the
  span keeps no content itself); an ``exception`` event's message is its error text.
- **MLflow** spans (``mlflow.spanType``; values JSON-encoded): the type from the span type,
  the model from ``mlflow.llm.model``, tokens from ``mlflow.chat.tokenUsage``, cost from
  ``mlflow.llm.cost``, input and output from ``mlflow.spanInputs`` / ``mlflow.spanOutputs``.
- **dual instrumentation**: two sibling model-call spans of one call (the provider SDK's own
  span inside an instrumentation's, e.g. ``anthropic.messages.create`` in ``anthropic.chat``:
  the inner one's time within the outer's, the same response id or none) are one step: the
  outer one, lent the attributes it lacks."""

from __future__ import annotations

import json
from typing import Any

from reportgen.formats.adapters.rows import add, amount, count
from reportgen.formats.adapters.spans import Span, step_type

_DETAILS = "gen_ai.client.inference.operation.details"
_DETAIL_KEYS = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions")
_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
_MLFLOW_TYPES = {
    "CHAT_MODEL": "llm",
    "LLM": "llm",
    "TOOL": "tool",
    "AGENT": "agent",
    "CHAIN": "chain",
    "RETRIEVER": "retriever",
    "EMBEDDING": "embedding",
    "RERANKER": "reranker",
    "PARSER": "parser",
}


def _decoded(value: Any) -> Any:
    """An MLflow attribute value (JSON text) decoded; other values as they are."""
    if isinstance(value, str) and value[:1] in ('"', "{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _event_content(event: dict[str, Any]) -> Any:
    """What a message event says: its body (a log record's), else its content attribute."""
    body = event.get("body")
    if body is None:
        attrs = event.get("attributes") or {}
        body = attrs.get("gen_ai.event.content", attrs.get("content"))
        body = _decoded(body)
    return body


def follow_events(span: Span) -> None:
    """Apply a span's events (span events and the log records joined to it) to the span."""
    given: list[dict[str, Any]] = []
    choices: list[dict[str, Any]] = []
    for event in span.events:
        name = event.get("name")
        attrs = event.get("attributes") or {}
        if name == _DETAILS:
            for key in _DETAIL_KEYS:
                if key in attrs and key not in span.attributes:
                    span.attributes[key] = attrs[key]
        elif name == "exception" and not span.status_message:
            span.status_message = attrs.get("exception.message") or attrs.get("exception.type")
        elif name in _ROLES:
            content = _event_content(event)
            text = content.get("content") if isinstance(content, dict) else content
            given.append({"role": _ROLES[name], "content": text})
        elif name == "gen_ai.choice":
            content = _event_content(event)
            message = content.get("message") if isinstance(content, dict) else None
            text = message.get("content") if isinstance(message, dict) else content
            if text not in (None, {}, ""):
                choices.append({"role": "assistant", "content": text})
    if given and span.input is None and "gen_ai.input.messages" not in span.attributes:
        span.input = given
    if choices and span.output is None and "gen_ai.output.messages" not in span.attributes:
        span.output = choices


def from_mlflow(span: Span) -> None:
    """Read an MLflow span's type, model, tokens, cost, input and output (no-op for others)."""
    attrs = span.attributes
    kind = _decoded(attrs.get("mlflow.spanType"))
    if not isinstance(kind, str):
        return
    span.type_override = _MLFLOW_TYPES.get(kind.upper(), kind.lower() or "span")
    model = _decoded(attrs.get("mlflow.llm.model"))
    if isinstance(model, str) and model:
        span.model_override = model
    usage = _decoded(attrs.get("mlflow.chat.tokenUsage"))
    if isinstance(usage, dict):
        span.tokens_in = count(usage.get("input_tokens", usage.get("prompt_tokens")))
        span.tokens_out = count(usage.get("output_tokens", usage.get("completion_tokens")))
    cost = _decoded(attrs.get("mlflow.llm.cost"))
    if isinstance(cost, dict):
        span.cost_usd = amount(cost.get("total_cost"), "total_cost")
        if span.cost_usd is None:
            span.cost_usd = add(
                amount(cost.get("input_cost"), "input_cost"),
                amount(cost.get("output_cost"), "output_cost"),
            )
    elif amount(cost) is not None:
        span.cost_usd = amount(cost)
    if "mlflow.spanInputs" in attrs:
        span.input = _decoded(attrs["mlflow.spanInputs"])
    if "mlflow.spanOutputs" in attrs:
        span.output = _decoded(attrs["mlflow.spanOutputs"])


def _response_id(span: Span) -> Any:
    return span.attributes.get("gen_ai.response.id")


def _within(inner: Span, outer: Span) -> bool:
    if None in (inner.start, inner.end, outer.start, outer.end):
        return False
    return outer.start <= inner.start and inner.end <= outer.end  # type: ignore[operator]


def _same_call(inner: Span, outer: Span) -> bool:
    if inner.parent_id != outer.parent_id or not _within(inner, outer):
        return False
    ids = (_response_id(inner), _response_id(outer))
    if ids[0] and ids[1]:
        return bool(ids[0] == ids[1])
    model = ("gen_ai.request.model", "gen_ai.provider.name")
    return all(
        inner.attributes.get(k) == outer.attributes.get(k)
        for k in model
        if k in inner.attributes and k in outer.attributes
    )


def merge_duplicate_calls(spans: list[Span]) -> list[Span]:
    """One span per model call where two instrumentations each wrote one (see the module
    doc); the children of a dropped span move to the kept one."""
    llm = [s for s in spans if step_type(s) == "llm"]
    if len(llm) < 2:
        return spans
    dropped: dict[str, Span] = {}
    for inner in llm:
        for outer in llm:
            if (
                outer is inner
                or outer.span_id in dropped
                or not _same_call(inner, outer)
                or (
                    (inner.start, inner.end) == (outer.start, outer.end)
                    and inner.span_id < outer.span_id
                )
            ):
                continue
            for key, value in inner.attributes.items():
                outer.attributes.setdefault(key, value)
            outer.error = outer.error or inner.error
            outer.status_message = outer.status_message or inner.status_message
            dropped[inner.span_id] = outer
            break
    if not dropped:
        return spans
    for span in spans:
        if span.parent_id in dropped:
            span.parent_id = dropped[span.parent_id].span_id
    return [s for s in spans if s.span_id not in dropped]
