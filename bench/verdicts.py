"""Bench: label-level statistics of one comparison of 10,000 tasks x 5 trials.

    PYTHONPATH=. python bench/verdicts.py [--tasks 10000] [--trials 5] [--rounds 3] [--naive]

Times ``attach_statistics`` (every label-level metric of the registry: per-task means,
intervals at their families' levels, the seeded paired bootstrap of the totals, verdicts,
variance shares, pass^k) and the task classes on seeded pair records, as ``compare`` and
``gate`` call them once the pairs' metrics are known (making the records is not timed), and
prints the whole process's seconds too (imports, records, statistics). ``--naive`` also times
the naive way over the same records: per-task sums in a dict, pair by pair, and the bootstrap
as a Python loop over resamples (one numpy gather per resample and metric), and prints the
ratio."""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import argparse  # noqa: E402  (the whole process is timed from the first line)
import math  # noqa: E402
import os  # noqa: E402
from collections import defaultdict  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from reportgen.divergence.compare import Comparison  # noqa: E402
from reportgen.gating.metrics import LABEL_METRICS  # noqa: E402
from reportgen.statistics import attach_statistics  # noqa: E402


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


def naive(pairs: list[dict[str, Any]], keys: dict[str, str], resamples: int = 2000) -> None:
    """The naive way: per metric, per-task sums in a dict pair by pair, then for a total a
    bootstrap that draws and sums one resample at a time."""
    for metric in LABEL_METRICS:
        sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        for pair in pairs:
            c = metric.candidate(pair)
            b = 0.0 if metric.baseline is None else metric.baseline(pair)
            if b is None or c is None or not (math.isfinite(b) and math.isfinite(c)):
                continue
            acc = sums[keys[pair["pair_id"]]]
            acc[0] += b
            acc[1] += c
            acc[2] += 1
        tasks = sorted(sums)
        base = np.array([sums[t][0] / sums[t][2] for t in tasks])
        cand = np.array([sums[t][1] / sums[t][2] for t in tasks])
        if metric.kind != "total":
            continue
        rng = np.random.default_rng(0)
        ratios = []
        for _ in range(resamples):
            row = rng.integers(0, base.size, size=base.size)
            sb, sc = base[row].sum(), cand[row].sum()
            ratios.append((sc - sb) / sb)
        np.quantile(ratios, [0.025, 0.975])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--naive", action="store_true", help="also time the naive way")
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
    if args.naive:
        started = time.perf_counter()
        naive(pairs, keys)
        slow = time.perf_counter() - started
        print(f"naive (dict per task, a loop per resample): {slow:.3f} s, {slow / best:.1f}x")
    print(f"whole process: {time.perf_counter() - STARTED:.2f} s")


if __name__ == "__main__":
    main()
