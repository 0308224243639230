"""The simulations of test_simulation.py through the whole label-level pipeline, as
``--fail-on-regression`` runs it: pair records of 40 tasks x 3 trials, every metric of the
registry judged in its family (Bonferroni within the primary and within the secondary
metrics, each verdict read from its interval), the comparison failing on any
``regression``."""

from __future__ import annotations

from typing import Any

import numpy as np

from reportgen.divergence.compare import Comparison
from reportgen.statistics import attach_statistics

COMPARISONS, TASKS, TRIALS = 200, 40, 3


def _pairs(rng: np.random.Generator, drop: float) -> list[dict[str, Any]]:
    """One simulated comparison: task difficulty, cost and steps shared by both sides, each
    run drawn on its own (A/A when ``drop`` is 0)."""
    p_task = rng.uniform(0.5, 0.98, TASKS)
    cost = rng.lognormal(-2, 0.5, TASKS)
    pairs = []
    for task in range(TASKS):
        for trial in range(TRIALS):
            sides = []
            for shift in (0.0, drop):
                ok = bool(rng.random() < max(p_task[task] - shift, 0.0))
                sides.append({
                    "success": ok, "reward": float(ok), "wei": float(rng.uniform(0, 0.2)),
                    "recovery": int(rng.integers(0, 3)), "totals": {
                        "cost_usd": float(cost[task] * rng.uniform(0.7, 1.3)),
                        "tokens": int(cost[task] * 1e5 * rng.uniform(0.7, 1.3)),
                        "latency_ms": float(rng.uniform(1e3, 3e3))},
                })  # fmt: skip
            b, c = sides
            pairs.append({
                "pair_id": f"t{task}#{trial}", "task_id": f"t{task}",
                "baseline_success": b["success"], "candidate_success": c["success"],
                "baseline_reward": b["reward"], "candidate_reward": c["reward"],
                "baseline_wei": b["wei"], "candidate_wei": c["wei"],
                "trajectory_divergence_index": float(rng.uniform(0, 0.3)),
                "baseline_totals": b["totals"], "candidate_totals": c["totals"],
                "baseline_recovery_steps": b["recovery"], "candidate_recovery_steps": c["recovery"],
                "loops_detected": [], "passed": True,
            })  # fmt: skip
    return pairs


def failing_rate(drop: float, seed: int, metric: str | None = None) -> float:
    """Share of comparisons that ``--fail-on-regression`` fails (or, with ``metric``, whose
    verdict of that metric is ``regression``)."""
    rng = np.random.default_rng(seed)
    floors = {f"t{t}": 0.15 for t in range(TASKS)}
    failed = 0
    for _ in range(COMPARISONS):
        comparison = Comparison(pairs=_pairs(rng, drop), repeat_tdi=floors)  # type: ignore[arg-type]
        stats = attach_statistics(comparison, fail_on_regression=True)
        if metric is None:
            failed += not comparison.passed
        else:
            failed += metric in stats["regressions"]
    return failed / COMPARISONS


def test_a_over_a_rarely_fails_the_gate() -> None:
    rate = failing_rate(0.0, seed=3)
    assert rate <= 0.05 + 0.03, rate


def test_a_25_point_drop_fails_the_gate_on_success() -> None:
    rate = failing_rate(0.25, seed=4, metric="success_rate")
    assert rate >= 0.95, rate
