"""Spans to runs, shared by the OpenTelemetry and Langfuse readers.

A trace is a run; each span is a step, in start order, with ``parent`` the index of its
enclosing span (so the tree view shows the span tree). What a span *is* comes from the
GenAI semantic conventions (``gen_ai.operation.name``, current and deprecated attribute
names), OpenInference (``openinference.span.kind``, ``tool.name``, ``input.value``,
``llm.token_count.*``) or the Vercel AI SDK (``ai.operationId``), in that order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reportgen.formats.adapters.messages import final_text, first_user_text
from reportgen.formats.adapters.rows import (
    Collector,
    add,
    amount,
    count,
    iso_from_epoch,
    json_text,
    maybe_json,
)

_OPERATION_TYPES = {
    "chat": "llm",
    "text_completion": "llm",
    "generate_content": "llm",
    "call_llm": "llm",
    "completion": "llm",
    "execute_tool": "tool",
    "invoke_agent": "agent",
    "create_agent": "agent",
    "embeddings": "embedding",
}
_VERCEL_TYPES = {
    "ai.toolCall": "tool",
    "ai.embed.doEmbed": "embedding",
    "ai.embedMany.doEmbed": "embedding",
}
_TOOL_NAME = ("gen_ai.tool.name", "tool.name", "ai.toolCall.name")
_MODEL = (
    "gen_ai.request.model",
    "gen_ai.response.model",
    "llm.model_name",
    "ai.model.id",
    "gen_ai.system",
)
_AGENT_NAME = ("gen_ai.agent.name", "agent.name")
_TOOL_INPUT = (
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.args",
    "tool.parameters",
    "tool_arguments",
    "ai.toolCall.args",
    "input.value",
    "input",
)
_LLM_INPUT = (
    "gen_ai.input.messages",
    "gen_ai.prompt",
    "input.value",
    "ai.prompt.messages",
    "input",
)
_OUTPUT = (
    "gen_ai.output.messages",
    "gen_ai.output",
    "gen_ai.completion",
    "gen_ai.tool.call.result",
    "output.value",
    "ai.response.text",
    "ai.toolCall.result",
    "tool_response",
    "output",
)
_TOKENS_IN = (
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.prompt_tokens",
    "llm.token_count.prompt",
    "ai.usage.inputTokens",
    "ai.usage.promptTokens",
)
_TOKENS_OUT = (
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "llm.token_count.completion",
    "ai.usage.outputTokens",
    "ai.usage.completionTokens",
)
#: Of the prompt tokens, read from / written to the prompt cache; of the output, reasoning.
_CACHE_READ = (
    "gen_ai.usage.cache_read.input_tokens",
    "gen_ai.usage.cache_read_input_tokens",
    "llm.token_count.prompt_details.cache_read",
    "ai.usage.cachedInputTokens",
)
_CACHE_WRITE = (
    "gen_ai.usage.cache_creation.input_tokens",
    "gen_ai.usage.cache_write.input_tokens",
    "gen_ai.usage.cache_creation_input_tokens",
    "llm.token_count.prompt_details.cache_write",
)
_REASONING = (
    "gen_ai.usage.reasoning.output_tokens",
    "gen_ai.usage.reasoning_tokens",
    "llm.token_count.completion_details.reasoning",
    "ai.usage.reasoningTokens",
)


@dataclass
class Span:
    """One span (or Langfuse observation), in a reader-neutral form. ``start``/``end`` are
    epoch seconds; the ``*_override`` fields carry values a reader knows directly."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start: float | None
    end: float | None
    attributes: dict[str, Any]
    error: bool = False
    status_message: str | None = None
    type_override: str | None = None
    model_override: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    input: Any = None
    output: Any = None
    events: list[dict[str, Any]] = field(default_factory=list)  # {name, attributes, body}


def _first(attrs: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = attrs.get(key)
        if value is not None and value != "":
            return value
    return None


def step_type(span: Span) -> str:
    """llm, tool, agent, chain, embedding... or span when nothing says."""
    attrs = span.attributes
    kind = attrs.get("openinference.span.kind")
    if isinstance(kind, str) and kind:
        return kind.lower()
    operation = attrs.get("gen_ai.operation.name")
    if isinstance(operation, str) and operation in _OPERATION_TYPES:
        return _OPERATION_TYPES[operation]
    if span.type_override:
        return span.type_override
    op_id = attrs.get("ai.operationId")
    if isinstance(op_id, str):
        if op_id in _VERCEL_TYPES:
            return _VERCEL_TYPES[op_id]
        return "llm" if op_id.endswith((".doGenerate", ".doStream")) else "chain"
    if _first(attrs, _TOOL_NAME):
        return "tool"
    if isinstance(operation, str) and operation:
        return operation
    return "llm" if _first(attrs, ("gen_ai.request.model", "llm.model_name")) else "span"


def _action(span: Span, kind: str) -> str:
    attrs = span.attributes
    if kind == "tool":
        found = _first(attrs, _TOOL_NAME)
        if found:
            return str(found)
        return span.name.removeprefix("running tool: ").removeprefix("execute_tool ")
    if kind in ("llm", "embedding"):
        return str(span.model_override or _first(attrs, _MODEL) or span.name)
    if kind == "agent":
        return str(_first(attrs, _AGENT_NAME) or span.name)
    return span.name or "span"


def _cost(attrs: dict[str, Any]) -> float | None:
    total = amount(_first(attrs, ("gen_ai.usage.cost", "llm.cost.total")))
    if total is not None:
        return total
    return add(
        amount(attrs.get("gen_ai.usage.input_cost"), "gen_ai.usage.input_cost"),
        amount(attrs.get("gen_ai.usage.output_cost"), "gen_ai.usage.output_cost"),
    )


def _ordered(spans: list[Span]) -> list[Span]:
    """Start order, an enclosing span before the spans it encloses."""
    by_id = {s.span_id: s for s in spans}
    depth: dict[str, int] = {}

    def depth_of(span: Span) -> int:
        seen: set[str] = set()
        d, current = 0, span
        while current.parent_id in by_id and current.span_id not in seen:
            seen.add(current.span_id)
            current = by_id[current.parent_id]
            d += 1
        return d

    for s in spans:
        depth[s.span_id] = depth_of(s)
    return sorted(spans, key=lambda s: (s.start is None, s.start or 0.0, depth[s.span_id]))


def _aggregates(spans: list[Span], tokens: dict[str, tuple[int | None, int | None]]) -> set[str]:
    """Spans whose tokens repeat their descendants' (a wrapper summing its model calls): their
    own counts are dropped so run totals are not counted twice."""
    parents = {s.span_id: s.parent_id for s in spans}
    wrappers: set[str] = set()
    for s in spans:
        if tokens[s.span_id] == (None, None):
            continue
        parent = parents.get(s.span_id)
        seen: set[str] = set()
        while parent is not None and parent in parents and parent not in seen:
            seen.add(parent)
            wrappers.add(parent)
            parent = parents[parent]
    return wrappers


def _root_error(root: Span | None) -> str | None:
    """What the root span says went wrong (its ``error.type`` and status text), if it failed."""
    if root is None or not (root.error or root.attributes.get("error.type")):
        return None
    said = [str(root.attributes.get("error.type") or ""), str(root.status_message or "")]
    return ": ".join(dict.fromkeys(t for t in said if t)) or "error"


def add_trace(rows: Collector, spans: list[Span]) -> dict[str, Any]:
    """Append the steps of one trace to the run begun on ``rows``; returns run facts (start,
    latency, root name, agent name) for the caller's run row."""
    ordered = _ordered(spans)
    tokens = {
        s.span_id: (
            s.tokens_in if s.tokens_in is not None else count(_first(s.attributes, _TOKENS_IN)),
            s.tokens_out if s.tokens_out is not None else count(_first(s.attributes, _TOKENS_OUT)),
        )
        for s in ordered
    }
    wrappers = _aggregates(ordered, tokens)
    index: dict[str, int] = {}
    goal: str | None = None
    answer: str | None = None
    for span in ordered:
        attrs = span.attributes
        kind = step_type(span)
        own = span.span_id not in wrappers
        tokens_in, tokens_out = tokens[span.span_id] if own else (None, None)
        cost = span.cost_usd if span.cost_usd is not None else _cost(attrs)
        given_input = (
            span.input
            if span.input is not None
            else _first(attrs, _TOOL_INPUT if kind == "tool" else _LLM_INPUT)
        )
        output = span.output if span.output is not None else _first(attrs, _OUTPUT)
        failed = span.error or bool(attrs.get("error.type"))
        if kind == "llm":
            goal = goal or first_user_text(given_input)
            answer = final_text(output) or answer
        index[span.span_id] = rows.step(
            kind,
            _action(span, kind),
            "error" if failed else "ok",
            input=maybe_json(given_input) if kind == "tool" else json_text(given_input),
            output=json_text(output),
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost_usd=cost if own else None,
            latency_ms=(span.end - span.start) * 1000.0
            if span.start is not None and span.end is not None and span.end >= span.start
            else None,
            started_at=iso_from_epoch(span.start),
            parent=index.get(span.parent_id) if span.parent_id is not None else None,
            error=span.status_message if failed else None,
            cache_read=count(_first(attrs, _CACHE_READ)) if own else None,
            cache_write=count(_first(attrs, _CACHE_WRITE)) if own else None,
            reasoning=count(_first(attrs, _REASONING)) if own else None,
        )
    starts = [s.start for s in ordered if s.start is not None]
    ends = [s.end for s in ordered if s.end is not None]
    roots = [s for s in ordered if s.parent_id not in index]
    root = roots[0] if roots else None
    agent = next(
        (_first(s.attributes, _AGENT_NAME) for s in ordered if _first(s.attributes, _AGENT_NAME)),
        None,
    )
    return {
        "started_at": iso_from_epoch(min(starts)) if starts else None,
        "latency_ms": (max(ends) - min(starts)) * 1000.0 if starts and ends else None,
        "root_name": root.name if root else None,
        "goal": goal or (first_user_text(root.input) if root else None),
        "answer": answer or (final_text(root.output) if root else None),
        "root_error": _root_error(root),
        "agent": agent,
        "model": next(
            (_first(s.attributes, _MODEL) for s in ordered if _first(s.attributes, _MODEL)), None
        ),
    }
