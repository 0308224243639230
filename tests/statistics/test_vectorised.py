"""The vectorised label-level statistics against slow references written one task (and one
resample) at a time: the per-task means and task classes against dict loops, the shared
bootstrap against one bootstrap per metric, and the variance shares by hand."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.gating.metrics import LABEL_METRICS
from reportgen.gating.thresholds import Threshold
from reportgen.statistics import methods
from reportgen.statistics.summary import (
    Grouping,
    label_statistics,
    min_effects,
    task_classes,
    task_sides,
)

OUTCOME = st.sampled_from([None, True, False])


def _pairs(rows: list[tuple[int, Any, Any, float, float]]) -> list[dict[str, Any]]:
    pairs = []
    for n, (task, bs, cs, bc, cc) in enumerate(rows):
        pairs.append({
            "pair_id": f"p{n}", "task_id": f"t{task}",
            "baseline_success": bs, "candidate_success": cs,
            "baseline_reward": None if bs is None else float(bs) * 0.5,
            "candidate_reward": None if cs is None else float(cs) * 0.5,
            "trajectory_divergence_index": bc / 10, "baseline_wei": 0.0, "candidate_wei": cc / 10,
            "baseline_totals": {"cost_usd": bc, "tokens": 1, "latency_ms": 1.0},
            "candidate_totals": {"cost_usd": cc, "tokens": 2, "latency_ms": None},
            "baseline_recovery_steps": 1, "candidate_recovery_steps": task % 3,
            "loops_detected": [],
        })  # fmt: skip
    return pairs


ROWS = st.lists(
    st.tuples(st.integers(0, 6), OUTCOME, OUTCOME, st.floats(0, 5), st.floats(0, 5)),
    max_size=40,
)


def _slow_sides(pairs: list[dict[str, Any]], metric: Any, floors: dict[str, float]) -> Any:
    """The per-task means the way they were first written: a dict of sums, task by task."""
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for pair in pairs:
        c = metric.candidate(pair)
        b = 0.0 if metric.baseline is None else metric.baseline(pair)
        if b is None or c is None or not (math.isfinite(b) and math.isfinite(c)):
            continue
        acc = sums[pair["task_id"]]
        acc[0] += b
        acc[1] += c
        acc[2] += 1
    if metric.kind == "floor":
        sums = {t: [floors[t] * a[2], a[1], a[2]] for t, a in sums.items() if t in floors}
    tasks = sorted(sums)
    return tasks, [sums[t][0] / sums[t][2] for t in tasks], [sums[t][1] / sums[t][2] for t in tasks]


@settings(max_examples=60, deadline=None)
@given(ROWS)
def test_task_sides_match_a_loop_per_task(rows: list[tuple[int, Any, Any, float, float]]) -> None:
    pairs = _pairs(rows)
    floors = {"t1": 0.1, "t2": 0.3}
    grouping = Grouping.of(pairs, {})  # type: ignore[arg-type]
    for metric in LABEL_METRICS:
        sides = task_sides(pairs, grouping, metric, floors)  # type: ignore[arg-type]
        tasks, base, cand = _slow_sides(pairs, metric, floors)
        assert [grouping.tasks[i] for i in sides.tasks] == tasks, metric.name
        assert sides.base == pytest.approx(base) and sides.cand == pytest.approx(cand)


def _slow_classes(pairs: list[dict[str, Any]]) -> dict[str, list[str]]:
    sides: dict[str, tuple[set[bool], set[bool]]] = defaultdict(lambda: (set(), set()))
    for pair in pairs:
        b, c = sides[pair["task_id"]]
        if pair["baseline_success"] is not None:
            b.add(pair["baseline_success"])
        if pair["candidate_success"] is not None:
            c.add(pair["candidate_success"])
    out: dict[str, list[str]] = defaultdict(list)
    for task in sorted(sides):
        b, c = sides[task]
        if not b or not c:
            out["unknown"].append(task)
        elif len(b) > 1 or len(c) > 1:
            out["flaky"].append(task)
        else:
            kind = {(True, False): "newly_broken", (False, True): "fixed",
                    (False, False): "still_failing", (True, True): "still_passing"}  # fmt: skip
            out[kind[(next(iter(b)), next(iter(c)))]].append(task)
    return out


@settings(max_examples=60, deadline=None)
@given(ROWS)
def test_task_classes_match_a_loop_per_task(rows: list[tuple[int, Any, Any, float, float]]) -> None:
    pairs = _pairs(rows)
    got = task_classes(pairs, {})  # type: ignore[arg-type]
    slow = _slow_classes(pairs)
    for name in ("newly_broken", "fixed", "flaky", "still_failing", "still_passing", "unknown"):
        assert got[name] == len(slow[name]), name
    for name in ("newly_broken", "fixed", "flaky"):
        assert got[f"{name}_tasks"] == slow[name]


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0.01, 50), st.floats(0, 50), st.floats(0.01, 9)), min_size=2,
             max_size=15),
    st.integers(0, 2**16),
)  # fmt: skip
def test_shared_bootstrap_is_each_metrics_own(
    rows: list[tuple[float, float, float]], seed: int
) -> None:
    b = np.array([[r[0] for r in rows], [r[2] for r in rows]])
    c = np.array([[r[1] for r in rows], [r[0] + r[2] for r in rows]])
    together = methods.total_changes(b, c, resamples=300, seed=seed)
    for row in range(2):
        alone = methods.total_change(b[row], c[row], resamples=300, seed=seed)
        assert float(alone.low) == pytest.approx(together.low[row], rel=1e-12)
        assert float(alone.high) == pytest.approx(together.high[row], rel=1e-12)
        assert float(alone.p_value) == float(together.p_value[row])


def test_bootstrap_counts_are_the_index_draws() -> None:
    rng = np.random.default_rng(5)
    idx = methods.bootstrap_indices(rng, 4, 3)
    counts = np.concatenate(list(methods.bootstrap_counts(np.random.default_rng(5), 4, 3)))
    assert (counts == np.stack([np.bincount(r, minlength=4) for r in idx])).all()


def test_variance_shares_by_hand() -> None:
    # task a: 1, 3 (mean 2); task b: 5, 7 (mean 6); grand mean 4. Within: 4 / (4 - 2) = 2.
    # Between mean square: 2·4 + 2·4 = 16 over 1; k0 = (4 - 8/4) / 1 = 2; sigma_b² = 7.
    between, within = methods.variance_shares([1, 3, 5, 7], [0, 0, 1, 1])
    assert between == pytest.approx(7 / 9) and within == pytest.approx(2 / 9)
    assert methods.variance_shares([1, 2], [0, 1]) == (None, None)  # one trial a task
    assert methods.variance_shares([1, 1, 1, 1], [0, 0, 1, 1]) == (None, None)  # no spread


def test_min_detectable_effect_is_the_textbook_one() -> None:
    from scipy import stats

    # 10 tasks, half-width h: MDE = (t(0.975, 9) + t(0.8, 9)) · se, and h = t(0.975, 9) · se
    se = 0.02
    half = stats.t.ppf(0.975, 9) * se
    assert methods.min_detectable_effect(half, 10, 0.05) == pytest.approx(
        (stats.t.ppf(0.975, 9) + stats.t.ppf(0.8, 9)) * se
    )
    assert math.isnan(methods.min_detectable_effect(half, 1, 0.05))


def test_min_effect_from_threshold_then_override() -> None:
    effects = min_effects([Threshold("success_drop", 10.0, "--max-success-drop")])
    assert effects["success_rate"] == (pytest.approx(0.10), "--max-success-drop")
    assert effects["cost_usd"] == (0.10, "default")
    effects = min_effects([Threshold("success_drop", 10.0, "x")], {"success_rate": 0.2})
    assert effects["success_rate"] == (0.2, "--min-effect")


def test_inconclusive_says_how_many_tasks() -> None:
    pairs = _pairs([(t, True, t % 2 == 0, 1.0, 1.0) for t in range(6)])
    found = {m["metric"]: m for m in label_statistics(pairs, {})}  # type: ignore[arg-type]
    success = found["success_rate"]
    assert success["verdict"] == "inconclusive"
    mde = success["min_detectable_effect"]
    assert success["tasks_needed"] == math.ceil(6 * (mde / 0.05) ** 2)


def test_pass_at_k_and_pass_hat_k_over_the_suite_by_hand() -> None:
    # task 0: baseline 2 of 3 pass, candidate 1 of 3; task 1: 3 of 3 and 3 of 3. k = 3.
    # pass^3: baseline (0 + 1) / 2 = 0.5, candidate (0 + 1) / 2 = 0.5; pass@3: 1 and 1.
    # With k = 3 of 3 runs, pass@3 is "any passed", pass^3 "all passed".
    rows = [(0, True, True, 1.0, 1.0), (0, True, False, 1.0, 1.0), (0, False, False, 1.0, 1.0)]
    rows += [(1, True, True, 1.0, 1.0)] * 3
    success = {m["metric"]: m for m in label_statistics(_pairs(rows), {})}["success_rate"]  # type: ignore[arg-type]
    assert success["k"] == 3
    assert (success["baseline_pass_hat_k"], success["candidate_pass_hat_k"]) == (0.5, 0.5)
    assert (success["baseline_pass_at_k"], success["candidate_pass_at_k"]) == (1.0, 1.0)
    # against convergence.outcomes, one task at a time (n = 4, c = 2, k = 2)
    from reportgen.convergence.outcomes import pass_at_k, pass_hat_k

    at, hat = methods.pass_k([2, 0, 4], [4, 4, 4], 2)
    assert list(at) == pytest.approx([pass_at_k(4, c, 2) for c in (2, 0, 4)])
    assert list(hat) == pytest.approx([pass_hat_k(4, c, 2) for c in (2, 0, 4)])


def test_benjamini_hochberg_by_hand() -> None:
    # sorted p 0.01, 0.03, 0.04, 0.2 (m = 4): 0.01·4/1 = 0.04, 0.03·4/2 = 0.06, 0.04·4/3 =
    # 0.0533, 0.2·4/4 = 0.2; then the running minimum from the top: 0.04, 0.0533, 0.0533, 0.2
    q = methods.benjamini_hochberg([0.04, 0.01, math.nan, 0.2, 0.03])
    assert list(q[[1, 4, 0, 3]]) == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.2])
    assert math.isnan(q[2])
    assert math.isnan(methods.benjamini_hochberg([math.nan])[0])
