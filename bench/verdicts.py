"""Bench: label-level statistics of one comparison of 10,000 tasks x 5 trials.

    PYTHONPATH=. python bench/verdicts.py [--tasks 10000] [--trials 5] [--resamples 2000]

Times ``attach_statistics`` (every label-level metric of the registry: per-task means,
intervals, the seeded paired bootstrap of the totals, Holm, verdicts, variance shares) and
``task_classes`` on seeded pair records, as ``compare`` and ``gate`` call them once the pairs'
metrics are known (making the records is not timed). Prints the whole figure, the time per
metric, and the same numbers with the per-task Python loop (the way before vectorising:
``--naive`` times it; slow)."""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np

from reportgen.divergence.compare import Comparison
from reportgen.gating.metrics import LABEL_METRICS
from reportgen.statistics import attach_statistics


def make_pairs(tasks: int, trials: int, seed: int) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Seeded pair records with every field a label-level metric reads."""
    rng = np.random.default_rng(seed)
    n = tasks * trials
    p_task = rng.uniform(0.3, 0.95, tasks).repeat(trials)
    base_ok = rng.random(n) < p_task
    cand_ok = rng.random(n) < p_task - 0.02
    cost = rng.lognormal(-2, 0.5, tasks).repeat(trials)
    pairs = []
    for i in range(n):
        task = f"t{i // trials:05d}"
        totals = [
            {
                "steps": 10,
                "wasted_steps": 1,
                "tokens": int(cost[i] * 1e5 * rng.uniform(0.8, 1.2)),
                "cost_usd": float(cost[i] * rng.uniform(0.8, 1.25)),
                "latency_ms": float(rng.uniform(1e3, 5e3)),
            }
            for _ in range(2)
        ]
        pairs.append({
            "pair_id": f"s/{task}/n#{i % trials}", "task_id": task,
            "trajectory_divergence_index": float(rng.uniform(0, 0.5)),
            "baseline_wei": float(rng.uniform(0, 0.3)), "candidate_wei": float(rng.uniform(0, 0.3)),
            "baseline_totals": totals[0], "candidate_totals": totals[1],
            "baseline_success": bool(base_ok[i]), "candidate_success": bool(cand_ok[i]),
            "baseline_reward": float(base_ok[i]), "candidate_reward": float(cand_ok[i]),
            "baseline_recovery_steps": int(rng.integers(0, 4)),
            "candidate_recovery_steps": int(rng.integers(0, 4)),
            "recovery_step_ratio": 1.0,
            "loops_detected": [],
        })  # fmt: skip
    keys = {p["pair_id"]: "s/" + p["task_id"] for p in pairs}
    return pairs, keys


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    pairs, keys = make_pairs(args.tasks, args.trials, args.seed)
    floors = {f"s/t{t:05d}": 0.2 for t in range(args.tasks)}
    best = float("inf")
    result: dict[str, Any] = {}
    for _ in range(args.rounds):
        comparison = Comparison(pairs=pairs, task_keys=keys, repeat_tdi=floors)  # type: ignore[arg-type]
        started = time.perf_counter()
        result = attach_statistics(comparison)
        best = min(best, time.perf_counter() - started)
    print(
        f"{args.tasks} tasks x {args.trials} trials ({len(pairs)} pairs), "
        f"{len(LABEL_METRICS)} label-level metrics + task classes: "
        f"best of {args.rounds} {best:.3f} s (load {os.getloadavg()[0]:.1f})"
    )
    for m in result["metrics"]:
        print(f"  {m['metric']:28} {m['verdict']:18} n_tasks {m['n_tasks']:6} {m['method']}")
    tasks = result["tasks"]
    print("  tasks: " + ", ".join(f"{k} {tasks[k]}" for k in ("newly_broken", "fixed", "flaky")))


if __name__ == "__main__":
    main()
