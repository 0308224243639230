"""What the iteration metrics say about a run, as plain dataclasses (JSON-able with to_dict)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

MIN_STALLED = 3
"""k: stalled attempts (no new low in the failing set) that make a thrash signal."""


@dataclass(frozen=True)
class Attempt:
    """One attempt of a step, with the derived signals (None = unknown)."""

    iter: int
    attempt: int
    check: str | None
    exit_code: int | None
    certified: bool
    normaliser: str | None
    failing: list[str] | None
    n_failing: int | None
    resolved: list[str] | None
    persisting: list[str] | None
    new: list[str] | None
    patch_lines: int | None
    patch_distance: float | None
    diff_volume: int | None
    tool_calls: int | None
    tool_errors: int | None
    tool_error_rate: float | None
    tokens: int
    usd: float
    secs: float | None


@dataclass(frozen=True)
class ThrashEvidence:
    """The longest stretch of a step's attempts that failed to reach a new low.

    ``anchor_*`` is the attempt the stretch is measured from; ``attempts`` and ``iters`` are the
    stalled attempts it covers. Evidence for a reader, never a decision to stop."""

    flagged: bool
    stalled: int
    anchor_attempt: int | None
    anchor_iter: int | None
    attempts: list[int]
    iters: list[int]
    failing_set: str | None
    core_failing: list[str]
    churn_ids: list[str]
    n_failing_from: int | None
    n_failing_to: int | None
    diff_from: int | None
    diff_to: int | None
    growing_diff: bool
    mean_patch_distance: float | None
    low_patch_distance: bool
    tool_error_rate_from: float | None
    tool_error_rate_to: float | None
    rising_tool_errors: bool
    tokens: int
    usd: float

    def evidence(self) -> list[str]:
        """The evidence as short sentences, primary signal first."""
        lines = [
            f"failing set {self.failing_set} for {self.stalled} attempts "
            f"({_span(self.attempts)}, iterations {_span(self.iters)}): "
            f"{self.n_failing_from} -> {self.n_failing_to} failing, "
            f"{len(self.core_failing)} never resolved, {len(self.churn_ids)} churned in"
        ]
        if self.mean_patch_distance is not None:
            kind = "rewriting" if self.low_patch_distance else "refining"
            lines.append(f"patch distance {self.mean_patch_distance:.2f} on average ({kind})")
        if self.diff_from is not None and self.diff_to is not None:
            trend = "grew" if self.growing_diff else "did not grow"
            lines.append(f"diff {trend}: {self.diff_from} -> {self.diff_to} lines")
        if self.tool_error_rate_from is not None and self.tool_error_rate_to is not None:
            trend = "rose" if self.rising_tool_errors else "did not rise"
            lines.append(
                f"tool error rate {trend}: {self.tool_error_rate_from:.0%} -> "
                f"{self.tool_error_rate_to:.0%}"
            )
        lines.append(f"spent {self.tokens:,} tokens, ${self.usd:.2f} in those attempts")
        return lines


@dataclass(frozen=True)
class StepProgress:
    """One backlog step of a run: its attempts, certification, check kind and thrash evidence."""

    step: str
    n_attempts: int
    first_iter: int
    last_iter: int
    certified: bool
    certified_attempt: int | None
    certified_iter: int | None
    check: str | None
    normaliser: str | None
    check_kind: str
    tokens: int
    usd: float
    tool_calls: int | None
    tool_errors: int | None
    thrash: ThrashEvidence | None
    attempts: list[Attempt]


@dataclass(frozen=True)
class RunProgress:
    """Progress or only activity: one coding-loop run, summarised, with its steps in order."""

    run_id: str
    n_attempts: int
    first_iter: int
    last_iter: int
    n_steps: int
    backlog_steps: int | None
    certified_steps: int
    tokens: int
    usd: float
    tokens_per_certified_step: float | None
    usd_per_certified_step: float | None
    per_certified_reason: str | None
    last_certified_iter: int | None
    marginal_attempts: int
    marginal_tokens: int
    marginal_usd: float
    tool_calls: int | None
    tool_errors: int | None
    tool_error_rate: float | None
    thrash_steps: list[str]
    steps: list[StepProgress]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        return asdict(self)


def _span(values: list[int]) -> str:
    """``3-9`` for a run of consecutive numbers, else a comma list."""
    if not values:
        return "none"
    if values == list(range(values[0], values[-1] + 1)) and len(values) > 1:
        return f"{values[0]}-{values[-1]}"
    return ", ".join(str(v) for v in values)
