"""Gates on iteration metrics: thresholds compared with ``>`` (a value equal to one passes)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from reportgen.gating.metrics import (
    FAIL_ON_THRASH,
    ITERATION_GATES,
    MAX_SPEND_PER_CERTIFIED_STEP,
    MAX_TOOL_ERROR_RATE,
)
from reportgen.gating.thresholds import Threshold
from reportgen.gating.verdict import Violation, breaks
from reportgen.iterations.model import RunProgress


@dataclass(frozen=True)
class IterationGates:
    """Thresholds; None (or False) leaves a gate off. ``sources``: where each threshold in
    force came from, by gate key (``--max-tool-error-rate``, ``reportgen.toml [cli]
    max_tool_error_rate``)."""

    max_spend_per_certified_step: float | None = None  # USD
    max_tool_error_rate: float | None = None  # errors / calls, 0..1
    fail_on_thrash: bool = False
    sources: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_thresholds(cls, thresholds: Iterable[Threshold]) -> IterationGates:
        """The gates of the iteration thresholds in force (:func:`reportgen.gating.resolve`
        for ``iterations``), with their sources."""
        by_gate = {t.gate: t for t in thresholds}
        spend, errors = (
            by_gate.get(g.name) for g in (MAX_SPEND_PER_CERTIFIED_STEP, MAX_TOOL_ERROR_RATE)
        )
        return cls(
            None if spend is None else spend.value,
            None if errors is None else errors.value,
            FAIL_ON_THRASH.name in by_gate,
            {g.config_key: by_gate[g.name].source for g in ITERATION_GATES if g.name in by_gate},
        )

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
    source: str = ""  # where the threshold came from ("" when not said)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        return asdict(self)

    def violation(self) -> Violation | None:
        """A failed verdict in the one shape of what failed (None when it passed)."""
        if self.passed:
            return None
        return Violation(
            self.gate, self.gate, self.value, self.threshold, self.source, self.run_id, self.message
        )


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
    return [_sourced(v, gates.sources.get(v.gate, "")) for v in verdicts]


def _sourced(verdict: GateVerdict, source: str) -> GateVerdict:
    """The verdict with where its threshold came from; its message says so when that is not
    a flag of the command line (a config file's key)."""
    if not source or source.startswith("--"):
        return replace(verdict, source=source)
    return replace(verdict, source=source, message=f"{verdict.message} (from {source})")


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
