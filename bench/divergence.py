"""Benchmark: divergence metrics for many pairs, SQL + UDFs vs a naive pure-Python DP per pair.

Seeded. Builds N pairs of ~S-step runs (a shared plan per task; runs insert detours, repeat
steps and fail at random), loads them into an in-memory archive, then times
``pair_metrics`` over all pairs and a naive per-pair implementation (full LCS table and
traceback, loop scan over every block length). Prints both figures and their ratio.

    PYTHONPATH=. /work/venv/bin/python bench/divergence.py [--pairs 10000] [--steps 100]
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from typing import Any

import duckdb

from reportgen.archive.connection import connect
from reportgen.divergence.metrics import Pair, insert_runs, pair_metrics
from reportgen.divergence.reference import Run, Step

ACTIONS = [f"tool_{i}" for i in range(30)]
WASTED = {"error", "retry", "abandoned"}


def make_run(rng: random.Random, plan: list[tuple[str, tuple[str, ...]]]) -> Run:
    """One run following ``plan`` with detours, repeats and failures."""
    steps: list[Step] = []
    for action, keys in plan:
        if rng.random() < 0.05:  # a detour
            steps.append(Step("tool_call", rng.choice(ACTIONS), {"q": rng.randrange(3)}))
        repeats = 1 + (rng.random() < 0.05) * rng.randrange(1, 4)
        for _ in range(repeats):
            status = rng.choice(["ok"] * 17 + ["error", "retry", "abandoned"])
            steps.append(
                Step(
                    "llm_call" if action.endswith("0") else "tool_call",
                    action,
                    {k: rng.randrange(2) for k in keys},
                    rng.choice(["done", "same", None]),
                    status,
                    tokens_in=rng.randrange(50, 500),
                    tokens_out=rng.randrange(10, 200),
                    cost_usd=rng.random() / 1000,
                    latency_ms=float(rng.randrange(50, 2000)),
                )
            )
    return Run(tuple(steps))


def make_pairs(n_pairs: int, n_steps: int, seed: int) -> tuple[dict[str, Run], list[Pair]]:
    """Seeded runs and pairs (baseline and candidate of one task each)."""
    rng = random.Random(seed)
    runs: dict[str, Run] = {}
    pairs: list[Pair] = []
    for p in range(n_pairs):
        length = max(1, int(n_steps * 0.85))
        plan = [
            (rng.choice(ACTIONS), tuple(sorted(rng.sample(["a", "b", "c"], rng.randrange(3)))))
            for _ in range(length)
        ]
        runs[f"b{p}"], runs[f"c{p}"] = make_run(rng, plan), make_run(rng, plan)
        pairs.append(Pair(f"p{p}", f"task{p}", f"b{p}", f"c{p}"))
    return runs, pairs


# ------------------------------------------------------------------ naive per-pair version


def naive_compare(base: Run, cand: Run) -> dict[str, Any]:
    """The textbook implementation: full DP table, traceback, loop scan, window walk."""
    a = [(s.type, s.action, tuple(sorted(s.input or {}))) for s in base.steps]
    b = [(s.type, s.action, tuple(sorted(s.input or {}))) for s in cand.steps]
    n, m = len(a), len(b)
    dp = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            dp[i][j] = (
                dp[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(dp[i - 1][j], dp[i][j - 1])
            )
    rows: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and a[i - 1] == b[j - 1]:
            rows.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif j > 0 and (i == 0 or dp[i][j - 1] >= dp[i - 1][j]):
            rows.append((None, j - 1))
            j -= 1
        else:
            rows.append((i - 1, None))
            i -= 1
    rows.reverse()
    rec = []
    for side, steps in ((0, base.steps), (1, cand.steps)):
        total, open_ = 0, False
        for row in rows:
            idx = row[side]
            if idx is None:
                continue
            if steps[idx].status in WASTED:
                open_ = True
            elif open_:
                total += 1
                open_ = not (row[0] is not None and row[1] is not None)
        rec.append(total)
    loops = []
    for sigs in (a, b):
        k_loops, i = [], 0
        while i < len(sigs):
            for k in range(1, (len(sigs) - i) // 2 + 1):
                count = 1
                while (
                    i + (count + 1) * k <= len(sigs)
                    and sigs[i + count * k : i + (count + 1) * k] == sigs[i : i + k]
                ):
                    count += 1
                if count >= 2:
                    k_loops.append((i, k, count))
                    i += count * k
                    break
            else:
                i += 1
        loops.append(k_loops)
    return {
        "tdi": 1.0 - 2.0 * dp[n][m] / (n + m) if n + m else 0.0,
        "recovery": rec,
        "loops": loops,
    }


def main() -> None:
    """Build the data, time both implementations, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--naive-sample",
        type=int,
        default=0,
        help="time the naive version on this many pairs and scale (0: all)",
    )
    args = parser.parse_args()

    t0 = time.perf_counter()
    runs, pairs = make_pairs(args.pairs, args.steps, args.seed)
    n_steps = sum(len(r.steps) for r in runs.values())
    con: duckdb.DuckDBPyConnection = connect(None)
    insert_runs(con, runs)
    # The bench holds ~2M Step objects only to build the archive and feed the naive version;
    # freeze them so the cyclic GC does not rescan them during both timings (the CLI reads
    # from DuckDB and holds no such objects).
    gc.collect()
    gc.freeze()
    print(
        f"data: {len(pairs):,} pairs, {len(runs):,} runs, {n_steps:,} steps "
        f"(mean {n_steps / len(runs):.1f}/run), built and loaded in {time.perf_counter() - t0:.1f} s"
    )

    t0, c0 = time.perf_counter(), time.process_time()
    results = pair_metrics(con, pairs)
    fast, fast_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(
        f"pair_metrics (SQL + UDFs, full JSON contract incl. step_diffs): {fast:.2f} s wall, "
        f"{fast_cpu:.2f} s CPU = {fast / len(pairs) * 1e6:.0f} us/pair"
    )

    sample = pairs if args.naive_sample <= 0 else pairs[: args.naive_sample]
    t0, c0 = time.perf_counter(), time.process_time()
    naive = [naive_compare(runs[p.baseline_run_id], runs[p.candidate_run_id]) for p in sample]
    scale = len(pairs) / len(sample)
    slow, slow_cpu = (time.perf_counter() - t0) * scale, (time.process_time() - c0) * scale
    label = "" if len(sample) == len(pairs) else f" (scaled from {len(sample):,} pairs)"
    print(
        f"naive pure-Python DP per pair (TDI, recovery, loops only): {slow:.2f} s wall, "
        f"{slow_cpu:.2f} s CPU{label} = {slow / len(pairs) * 1e6:.0f} us/pair"
    )
    print(f"speed-up: {slow / fast:.1f}x wall, {slow_cpu / fast_cpu:.1f}x CPU")

    for got, exp in zip(results, naive, strict=False):
        assert got["trajectory_divergence_index"] == exp["tdi"]
        assert [got["baseline_recovery_steps"], got["candidate_recovery_steps"]] == exp["recovery"]
        loops = [
            (lp["start_index"], lp["length"], lp["iterations"]) for lp in got["loops_detected"]
        ]
        assert loops == exp["loops"][0] + exp["loops"][1]
    print(f"checked: both agree on TDI, recovery and loops for {len(naive):,} pairs")


if __name__ == "__main__":
    main()
