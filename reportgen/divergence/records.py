"""The records a comparison hands around: one pair's metrics (the JSON contract of
``compare --json``) and one run's totals. TypedDicts, so they stay plain dicts for JSON while
mypy checks every key read by name."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple, NotRequired, TypedDict


class RunTotals(TypedDict):
    """What one run cost: its own totals where it gives them, else the sums of its steps
    (None: unknown, never 0)."""

    steps: int
    wasted_steps: int
    tokens: int | None
    cost_usd: float | None
    latency_ms: float | None


class RunOutcome(NamedTuple):
    """What one run achieved (None: the run does not say) and where it sits."""

    success: bool | None
    reward: float | None
    suite: str
    task_id: str
    batch: str
    trial: int


class LoopRecord(TypedDict):
    """A block of steps repeated back to back in one run of the pair."""

    side: Literal["baseline", "candidate"]
    start_index: int
    length: int
    iterations: int
    steps: list[str]
    stagnant: bool


class StepDiff(TypedDict):
    """One row of the aligned trajectories; the steps themselves are attached for --json,
    --explain and --tree."""

    status: Literal["matched", "added", "removed", "modified"]
    baseline_index: int | None
    candidate_index: int | None
    action: str
    argument_diff: NotRequired[dict[str, Any] | None]  # modified rows: added/removed/changed keys
    baseline_step: NotRequired[dict[str, Any] | None]
    candidate_step: NotRequired[dict[str, Any] | None]


class FirstDivergence(TypedDict):
    """Where the two aligned step sequences first differ (the end of their common prefix):
    its position in alignment order and the step index on each side (None: that run ended)."""

    position: int
    baseline_index: int | None
    candidate_index: int | None


class PairRecord(TypedDict):
    """Every metric of one baseline/candidate pair, then its verdict once judged."""

    pair_id: str
    task_id: str
    baseline_run_id: str
    candidate_run_id: str
    trajectory_divergence_index: float
    baseline_wei: float
    candidate_wei: float
    loops_detected: list[LoopRecord]
    baseline_recovery_steps: int
    candidate_recovery_steps: int
    baseline_unrecovered_steps: int
    candidate_unrecovered_steps: int
    recovery_step_ratio: float
    baseline_identical_calls: int
    candidate_identical_calls: int
    first_divergence: FirstDivergence | None
    baseline_parent_cycle: bool  # the parent graph has a cycle: aligned in step order
    candidate_parent_cycle: bool
    cost_delta_percentage: float | None
    token_delta_percentage: float | None
    latency_delta_percentage: float | None
    cost_delta_note: NotRequired[str]
    token_delta_note: NotRequired[str]
    latency_delta_note: NotRequired[str]
    step_diffs: list[StepDiff]
    baseline_totals: RunTotals
    candidate_totals: RunTotals
    baseline_success: NotRequired[bool | None]  # outcomes: set by compare.complete_records
    candidate_success: NotRequired[bool | None]
    baseline_reward: NotRequired[float | None]
    candidate_reward: NotRequired[float | None]
    passed: NotRequired[bool]
    violations: NotRequired[list[dict[str, Any]]]
    gates_not_evaluated: NotRequired[list[dict[str, Any]]]
