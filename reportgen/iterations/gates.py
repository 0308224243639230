"""Gates on iteration metrics: thresholds compared with ``>`` (a value equal to one passes)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from reportgen.gating.metrics import MAX_SPEND_PER_CERTIFIED_STEP, MAX_TOOL_ERROR_RATE
from reportgen.gating.verdict import breaks
from reportgen.iterations.model import RunProgress


@dataclass(frozen=True)
class IterationGates:
    """Thresholds; None (or False) leaves a gate off."""

    max_spend_per_certified_step: float | None = None  # USD
    max_tool_error_rate: float | None = None  # errors / calls, 0..1
    fail_on_thrash: bool = False

    def active(self) -> bool:
        """True when at least one gate is on."""
        return (
            self.max_spend_per_certified_step is not None
            or self.max_tool_error_rate is not None
            or self.fail_on_thrash
        )


@dataclass(frozen=True)
class GateVerdict:
    """One gate on one run; the message names the field, the value and the threshold."""

    run_id: str
    gate: str
    passed: bool
    value: float | list[str] | None
    threshold: float | bool
    message: str

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        return asdict(self)


def check_gates(runs: list[RunProgress], gates: IterationGates) -> list[GateVerdict]:
    """A verdict for every active gate on every run, in run order."""
    verdicts: list[GateVerdict] = []
    for run in runs:
        if gates.max_spend_per_certified_step is not None:
            verdicts.append(_spend(run, gates.max_spend_per_certified_step))
        if gates.max_tool_error_rate is not None:
            verdicts.append(_tool_errors(run, gates.max_tool_error_rate))
        if gates.fail_on_thrash:
            verdicts.append(_thrash(run))
    return verdicts


def _spend(run: RunProgress, limit: float) -> GateVerdict:
    """USD per certified step; a run that spent money and certified nothing fails."""
    value = run.usd_per_certified_step
    if value is None:
        passed = run.usd <= 0
        message = (
            f"usd_per_certified_step: no step certified, ${run.usd:.4f} spent "
            f"(threshold ${limit:g})"
        )
    else:
        passed = not breaks(MAX_SPEND_PER_CERTIFIED_STEP, value, limit)
        message = f"usd_per_certified_step: ${value:.4f} {'<=' if passed else '>'} ${limit:g}"
    return GateVerdict(
        run.run_id, "max_spend_per_certified_step", passed, value, limit, f"{run.run_id}: {message}"
    )


def _tool_errors(run: RunProgress, limit: float) -> GateVerdict:
    """Tool errors / tool calls over the whole run; no calls recorded passes."""
    value = run.tool_error_rate
    passed = value is None or not breaks(MAX_TOOL_ERROR_RATE, value, limit)
    shown = "unknown (no tool calls)" if value is None else f"{value:.4f}"
    relation = "" if value is None else (" <= " if passed else " > ")
    message = (
        f"{run.run_id}: tool_error_rate: {shown}{relation}{limit:g}"
        if relation
        else (f"{run.run_id}: tool_error_rate: {shown}, threshold {limit:g}")
    )
    return GateVerdict(run.run_id, "max_tool_error_rate", passed, value, limit, message)


def _thrash(run: RunProgress) -> GateVerdict:
    """Fails when any step carries a thrash signal."""
    passed = not run.thrash_steps
    listed = ", ".join(run.thrash_steps) if run.thrash_steps else "none"
    return GateVerdict(
        run.run_id,
        "fail_on_thrash",
        passed,
        list(run.thrash_steps),
        True,
        f"{run.run_id}: thrash_steps: {listed}",
    )
