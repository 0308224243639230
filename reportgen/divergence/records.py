"""The records a comparison hands around: one pair's metrics (the JSON contract of
``compare --json``) and one run's totals. TypedDicts, so they stay plain dicts for JSON while
mypy checks every key read by name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple, NotRequired, TypedDict

import numpy as np
import numpy.typing as npt


class RunTotals(TypedDict):
    """What one run cost: its own totals where it gives them, else the sums of its steps
    (None: unknown, never 0)."""

    steps: int
    wasted_steps: int
    tokens: int | None
    cost_usd: float | None
    latency_ms: float | None


class RunOutcome(NamedTuple):
    """What one run achieved (None: the run does not say) and where it sits; ``error_kind``
    and ``error_reason`` when the infrastructure ended it (then it is not scored)."""

    success: bool | None
    reward: float | None
    suite: str
    task_id: str
    batch: str
    trial: int
    error_kind: str | None = None
    error_reason: str | None = None


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


class FindingRecord(TypedDict):
    """One trajectory finding of a pair with its flap rate, as ``--json`` writes it
    (reportgen.divergence.findings.Finding): the share of the baseline's ``repeat_pairs``
    ordered repeat pairs that show the same finding (None: none to look at); ``stable`` None
    when too few repeats to tell."""

    kind: str
    key: str
    flap_rate: float | None
    repeat_pairs: int
    stable: bool | None


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
    # set when the infrastructure ended that run (runs.error_kind): the pair is not scored
    baseline_error_kind: NotRequired[str | None]
    candidate_error_kind: NotRequired[str | None]
    baseline_error_reason: NotRequired[str | None]
    candidate_error_reason: NotRequired[str | None]
    passed: NotRequired[bool]
    violations: NotRequired[list[dict[str, Any]]]
    gates_not_evaluated: NotRequired[list[dict[str, Any]]]
    # trajectory findings, stable first, each with its flap rate (compare.compare_pairing)
    findings: NotRequired[list[FindingRecord]]


#: The status of a step_diffs row by its kind code (DiffRows.kind).
DIFF_STATUSES: Final = ("matched", "modified", "added", "removed")


class LabelStatistics(TypedDict):
    """The label-level judgement of a comparison (``summary`` of ``--json``), as
    :func:`reportgen.statistics.attach_statistics` stores it on the comparison: each metric's
    estimate, interval at its level, p-value and verdict (``metrics``), the task classes
    (``tasks``), the label-level gates broken and not judged, the regressions and whether they
    fail (``fail_on_regression``)."""

    metrics: list[dict[str, Any]]
    tasks: dict[str, Any]
    alpha: float
    label_violations: list[dict[str, Any]]
    label_gates_not_evaluated: list[dict[str, Any]]
    regressions: list[str]
    fail_on_regression: bool


class ConvergenceGate(TypedDict):
    """The ``--min-convergence`` gate applied to a comparison's candidate: its label, the
    threshold and where it came from, how many groups of repeated runs were judged, and the
    violations (:class:`reportgen.gating.verdict.Violation` as dicts)."""

    label: str
    threshold: float
    source: str
    groups: int
    violations: list[dict[str, Any]]


class ReliabilityGate(TypedDict):
    """The reliability profiles of a comparison's two labels over the compared nights
    (:mod:`reportgen.statistics.reliability`, each profile's ``to_dict``), the ``--min-*``
    reliability gates judged on the candidate's (violations as
    :class:`reportgen.gating.verdict.Violation` dicts) and those it had no data for."""

    baseline: list[dict[str, Any]]
    candidate: list[dict[str, Any]]
    violations: list[dict[str, Any]]
    not_evaluated: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class DiffRows:
    """The step_diffs rows of many pairs as arrays, not dicts (``compare --json`` writes them
    as JSON text): pair p owns rows ``off[p]:off[p + 1]``; per row its kind (index into
    DIFF_STATUSES), the baseline and candidate step index (-1: none) and its action
    (``actions[action]``)."""

    off: npt.NDArray[np.int64]
    kind: npt.NDArray[np.int8]
    b: npt.NDArray[np.int64]
    c: npt.NDArray[np.int64]
    action: npt.NDArray[np.int64]
    actions: list[str]

    @staticmethod
    def concat(parts: Sequence[DiffRows]) -> DiffRows:
        """The rows of ``parts``, pairs in order (action codes renumbered)."""
        shifts = np.cumsum([0, *(int(p.off[-1]) for p in parts)])
        codes = np.cumsum([0, *(len(p.actions) for p in parts)])
        return DiffRows(
            off=np.concatenate(
                [
                    np.zeros(1, np.int64),
                    *(p.off[1:] + s for p, s in zip(parts, shifts, strict=False)),
                ]
            ),
            kind=np.concatenate([np.zeros(0, np.int8), *(p.kind for p in parts)]),
            b=np.concatenate([np.zeros(0, np.int64), *(p.b for p in parts)]),
            c=np.concatenate([np.zeros(0, np.int64), *(p.c for p in parts)]),
            action=np.concatenate(
                [np.zeros(0, np.int64), *(p.action + k for p, k in zip(parts, codes, strict=False))]
            ),
            actions=[a for p in parts for a in p.actions],
        )

    def head(self, pairs: int) -> DiffRows:
        """The rows of the first ``pairs`` pairs."""
        end = int(self.off[pairs])
        return DiffRows(
            self.off[: pairs + 1], self.kind[:end], self.b[:end], self.c[:end],
            self.action[:end], self.actions,
        )  # fmt: skip

    @staticmethod
    def of_records(records: Sequence[PairRecord]) -> DiffRows:
        """The rows of records that hold their step_diffs as dicts (another engine's)."""
        rows = [row for r in records for row in r["step_diffs"]]
        names = sorted({row["action"] for row in rows})
        code = {name: n for n, name in enumerate(names)}
        kinds = {name: n for n, name in enumerate(DIFF_STATUSES)}

        def index(value: int | None) -> int:
            return -1 if value is None else value

        return DiffRows(
            off=np.cumsum([0, *(len(r["step_diffs"]) for r in records)], dtype=np.int64),
            kind=np.array([kinds[row["status"]] for row in rows], dtype=np.int8),
            b=np.array([index(row["baseline_index"]) for row in rows], dtype=np.int64),
            c=np.array([index(row["candidate_index"]) for row in rows], dtype=np.int64),
            action=np.array([code[row["action"]] for row in rows], dtype=np.int64),
            actions=names,
        )
