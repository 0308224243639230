"""AgentDiff (PyPI ``agent-trajectory-diff``) canonical trace JSON: one ``AgentTrace`` per file
(or a list of them, or one per line of a .jsonl file).

A trace has ``trace_id``, ``agent_name``, ``task_input`` and ``steps`` of ``step_id``,
``step_index``, ``step_type`` (tool_call, llm_call, routing, thought), ``name``,
``input_payload``, ``output_payload``, ``status`` (success, error, retry, abandoned),
``latency_ms``, ``tokens``, an optional ``parent_id`` and ``error_message`` (kept apart from
the output, in the step's ``error``)."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import duckdb

from reportgen.formats.adapters.rows import (
    Collector,
    amount,
    count,
    parse_document,
    parse_lines,
    require,
    stage_each,
)
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

WHAT = "AgentDiff trace (an object with trace_id, agent_name, task_input and steps)"
_SIGNATURE = (Marked(rb'"trace_id"\s*:'), Marked(rb'"agent_name"\s*:'))
_STEP_SIGNATURE = re.compile(rb'"step_type"\s*:|"task_input"\s*:')
_TYPES = {"tool_call": "tool", "llm_call": "llm", "routing": "routing", "thought": "thought"}
_STATUS = {
    "success": "ok",
    "ok": "ok",
    "error": "error",
    "retry": "retry",
    "abandoned": "abandoned",
}


class AgentDiffTrace:
    name = "agentdiff"
    description = "AgentDiff trace JSON (agent-trajectory-diff 0.3 AgentTrace)"
    maps = (
        "a trace -> a run (trace_id; task from metadata.task_id or task_input); "
        "a step -> a step (tool_call->tool, llm_call->llm); status success->ok, others kept"
    )

    def detect(self, source: SourceFile) -> bool:
        head = source.head
        return all(p.search(head) for p in _SIGNATURE) and bool(_STEP_SIGNATURE.search(head))

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        stage_each(con, sources, self.name, WHAT, _parse)


def _parse(rows: Collector, source: SourceFile) -> None:
    if source.lines:
        for line, trace in parse_lines(source, WHAT):
            _trace(rows, source, trace, line)
        return
    document = parse_document(source, WHAT)
    traces = document if isinstance(document, list) else [document]
    for trace in traces:
        _trace(rows, source, trace, None)


def _task_id(trace: dict[str, Any]) -> str:
    """metadata.task_id, else task_input.task_id/id, else a hash of task_input (so the
    baseline and candidate traces of one task pair up whatever their file names)."""
    meta = trace.get("metadata") or {}
    task_input = trace.get("task_input")
    for holder in (meta, task_input if isinstance(task_input, dict) else {}):
        for key in ("task_id", "id"):
            if isinstance(holder.get(key), (str, int)) and str(holder[key]):
                return str(holder[key])
    text = json.dumps(task_input, sort_keys=True, default=str)
    return "task-" + hashlib.sha1(text.encode()).hexdigest()[:10]


def _tokens(tokens: dict[str, Any]) -> tuple[int | None, int | None]:
    """Prompt and completion tokens. A ``total_tokens`` given without the parts (as
    AgentDiff's own export writes run totals) stands for the whole: booked as prompt tokens
    with 0 completion tokens, so the token total is ``total_tokens``, as AgentDiff reads it."""
    prompt, completion = (
        count(tokens.get("prompt_tokens"), "prompt_tokens"),
        count(tokens.get("completion_tokens"), "completion_tokens"),
    )
    total = count(tokens.get("total_tokens"), "total_tokens")
    if not prompt and not completion and total:
        return total, 0
    return prompt, completion


def _trace(rows: Collector, source: SourceFile, trace: Any, line: int | None) -> None:
    require(source, isinstance(trace, dict), f"expected {WHAT}", line=line)
    for key in ("trace_id", "agent_name"):
        require(
            source,
            isinstance(trace.get(key), str) and bool(trace[key]),
            "required field is missing or not a string",
            field=key,
            line=line,
        )
    require(
        source, isinstance(trace.get("task_input"), dict), "expected an object", "task_input", line
    )
    version = str(trace.get("schema_version", "1.0.0"))
    require(
        source,
        version.split(".")[0] == "1",
        f"unsupported AgentDiff schema_version {version!r} (expected 1.x)",
        "schema_version",
        line,
    )
    steps = trace.get("steps") or []
    require(source, isinstance(steps, list), "expected a list", "steps", line)
    meta = trace.get("metadata") if isinstance(trace.get("metadata"), dict) else {}
    rows.begin(trace["trace_id"])
    ordered = sorted(
        enumerate(steps),
        key=lambda p: (p[1].get("step_index", p[0]) if isinstance(p[1], dict) else p[0], p[0]),
    )
    # step ids must be unique (AgentDiff rejects the trace); a parent may come later in the
    # file and the parent links may form a cycle: the metrics then align in step order
    index_of: dict[str, int] = {}
    for k, (position, step) in enumerate(ordered):
        sid = step.get("step_id") if isinstance(step, dict) else None
        if isinstance(sid, str):
            require(
                source,
                sid not in index_of,
                f"duplicate step_id {sid!r} (step ids must be unique in a trace)",
                f"steps[{position}].step_id",
                line,
            )
            index_of[sid] = k
    for position, step in ordered:
        if not isinstance(step, dict):
            require(source, False, "expected an object", f"steps[{position}]", line)
        kind, name = step.get("step_type"), step.get("name")
        if not (kind and name and isinstance(kind, str) and isinstance(name, str)):
            missing = "step_type" if not (kind and isinstance(kind, str)) else "name"
            require(
                source, False, "required field is missing", f"steps[{position}].{missing}", line
            )
        status = _STATUS.get(step.get("status", "success"))
        if status is None:
            require(
                source,
                False,
                f"unknown status {step.get('status')!r} (expected success, error, retry, abandoned)",
                f"steps[{position}].status",
                line,
            )
        tokens = step.get("tokens") if isinstance(step.get("tokens"), dict) else {}
        step_in, step_out = _tokens(tokens)
        error = step.get("error_message")
        if error is not None and not isinstance(error, str):
            require(source, False, "must be a string", f"steps[{position}].error_message", line)
        rows.step(
            _TYPES.get(kind, kind),
            name,
            status or "ok",
            input=step.get("input_payload"),
            output=step.get("output_payload"),
            tokens_in=step_in,
            tokens_out=step_out,
            cost_usd=amount(tokens.get("estimated_cost_usd"), "estimated_cost_usd"),
            latency_ms=amount(step.get("latency_ms"), "latency_ms"),
            parent=index_of.get(str(step.get("parent_id"))),
            error=error,
        )
    totals = trace.get("total_tokens") if isinstance(trace.get("total_tokens"), dict) else {}
    run_in, run_out = _tokens(totals)
    final = trace.get("final_output")
    rows.end(
        source,
        task_id=_task_id(trace),
        label=str(meta.get("label") or trace.get("agent_version") or "") or None,
        suite=str(meta["suite"]) if meta.get("suite") else None,
        batch=str(meta["batch"]) if meta.get("batch") else None,
        trial=count(meta.get("trial"), "trial") or 0,
        started_at=meta.get("started_at") if isinstance(meta.get("started_at"), str) else None,
        meta={
            "agent_name": trace["agent_name"],
            "agent_version": trace.get("agent_version"),
            **meta,
        },
        output=json.dumps(final, sort_keys=True) if final else None,
        # AgentDiff writes 0 for totals it was not given: a zero total is "not given" here,
        # so metrics fall back to the sums of the steps.
        tokens_in=run_in or None,
        tokens_out=None if not run_in and not run_out else run_out,
        cost_usd=amount(totals.get("estimated_cost_usd"), "estimated_cost_usd") or None,
        latency_ms=amount(trace.get("total_latency_ms"), "total_latency_ms") or None,
        source_line=line,
    )
