"""Write a run as an AgentDiff (agent-trajectory-diff 0.3.0) trace: the parity tests and the
compare benchmark feed the same runs to AgentDiff this way."""

from __future__ import annotations

from typing import Any

from reportgen.divergence.reference import Run, normalise_status, run_totals


def to_agentdiff_trace(run: Run, trace_id: str, *, wrap_outputs: bool = False) -> dict[str, Any]:
    """AgentDiff's canonical trace of ``run``; run totals are reportgen's resolved totals.

    ``wrap_outputs`` puts an output that is not a JSON object under ``{"value": ...}``, as
    AgentDiff's validator wants for arbitrary data; the parity tests keep outputs as they are."""
    totals = run_totals(run)
    steps = []
    for i, s in enumerate(run.steps):
        t_in, t_out = s.tokens_in or 0, s.tokens_out or 0
        output = s.output
        if wrap_outputs and not isinstance(output, dict):
            output = {"value": output}
        step: dict[str, Any] = {
            "step_id": f"s{i}",
            "step_index": i,
            "step_type": s.type,
            "name": s.action,
            "input_payload": s.input if isinstance(s.input, dict) else {},
            "output_payload": output,
            "status": "success" if normalise_status(s.status) == "ok" else s.status,
            "latency_ms": s.latency_ms or 0.0,
            "tokens": {
                "prompt_tokens": t_in,
                "completion_tokens": t_out,
                "total_tokens": t_in + t_out,
                "estimated_cost_usd": s.cost_usd or 0.0,
            },
        }
        if s.parent is not None:
            step["parent_id"] = f"s{s.parent}"
        if s.error is not None:
            step["error_message"] = s.error
        steps.append(step)
    return {
        "trace_id": trace_id,
        "agent_name": "agent",
        "task_input": {},
        "steps": steps,
        "total_latency_ms": totals.latency_ms or 0.0,
        "total_tokens": {
            "total_tokens": totals.tokens or 0,
            "estimated_cost_usd": totals.cost_usd or 0.0,
        },
    }
