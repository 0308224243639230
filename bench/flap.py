"""Benchmark: flap rates of trajectory findings and the reliability profile of 10,000 tasks
x 5 trials, on the same archive, one after the other (P22's acceptance: both within 5 s).
The library calls: reportgen.divergence.findings.pair_findings (the CLI's compare adds flap
rates to every pair with the other metrics) and
reportgen.statistics.reliability.reliability_profiles (the suite and comparison pages).

Seeded. Each task has 5 baseline trials and 5 candidate trials of ~10 steps (a plan of 8
calls over 12 tools, each run repeating, dropping, swapping calls and changing an argument
or a status at random), written as Arrow columns into the ``steps`` table of an in-memory
archive, with their ``runs`` rows (a pass, cost, tokens and latency per run; one perturbed
run per side for every fifth task, for robustness). Each candidate trial k is judged against
baseline trial k, its findings' flap rates over the 20 ordered repeat pairs of the task's
baseline: 50,000 judged pairs and 200,000 repeat pairs (counted from the runs of each task,
not listed) in one query. Then the profile of both labels (every measure family with its
interval). Each round times both; the first pays the one-off costs (imports, SQL macros).
CPU seconds count every thread of the process (DuckDB runs queries in parallel).

    PYTHONPATH=. python bench/flap.py [--tasks 10000] [--trials 5] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TypeVar

import duckdb
import numpy as np
import pyarrow as pa

from reportgen.archive.connection import connect
from reportgen.divergence.findings import FlapPair, pair_findings
from reportgen.statistics.reliability import reliability_profiles

T = TypeVar("T")


def steps_table(tasks: int, trials: int, seed: int = 1) -> pa.Table:
    """The steps of ``tasks`` x ``trials`` x 2 runs (baseline ``b``, candidate ``c``)."""
    rng = np.random.default_rng(seed)
    runs = tasks * trials * 2
    plan = rng.integers(0, 12, size=(tasks, 8))
    base = np.repeat(plan, trials * 2, axis=0)  # runs x 8
    extra = rng.integers(0, 12, size=(runs, 2))
    calls = np.concatenate([base, extra], axis=1)  # runs x 10
    keep = rng.random((runs, 10)) > 0.1
    keep[:, 8:] = rng.random((runs, 2)) < 0.2
    swap = rng.random(runs) < 0.3
    calls[swap, 2], calls[swap, 3] = calls[swap, 3], calls[swap, 2].copy()
    run_no, pos = np.nonzero(keep)
    action = calls[run_no, pos]
    idx = np.concatenate([np.arange(k) for k in keep.sum(axis=1)]).astype(np.int32)
    task, rest = np.divmod(run_no, trials * 2)
    side, trial = np.divmod(rest, trials)
    names = np.array([f"{t}/{'bc'[s]}{k}" for t in range(tasks) for s in (0, 1)
                      for k in range(trials)])  # fmt: skip
    value = rng.integers(0, 3, size=len(action))
    status = np.where(rng.random(len(action)) < 0.05, "error", "ok")
    tools = np.array([f"tool_{k}" for k in range(12)])
    return pa.table(
        {
            "run_id": pa.array(names[task * trials * 2 + side * trials + trial]),
            "idx": pa.array(idx),
            "action": pa.array(tools[action]),
            "input": pa.array(np.char.add(np.char.add('{"id":', value.astype(str)), "}")),
            "input_keys": pa.array([["id"]] * len(action), pa.list_(pa.string())),
            "status": pa.array(status),
        }
    )


#: The runs of every (task, side, trial) named as :func:`steps_table` names them, with the
#: numbers the reliability profile reads (each task its own pass chance; cost, tokens and
#: latency drawn per run), plus, for every fifth task, one perturbed run per side (robustness).
RUNS = """
INSERT INTO runs (run_id, suite, label, task_id, batch, trial, meta, success, tokens_in,
                  tokens_out, cost_usd, latency_ms, n_steps, format, source_file, content_hash)
SELECT
    run_id, 'bench', label, task_id, '2026-01-01', trial, meta,
    hash(run_id, $seed) % 100 < hash(task_id, $seed) % 100,
    1000 + hash(run_id, $seed, 1) % 500, 200 + hash(run_id, $seed, 2) % 100,
    0.01 + (hash(run_id, $seed, 3) % 100) / 10000.0, 5000.0 + hash(run_id, $seed, 4) % 3000,
    coalesce(n, 0), 'native', 'bench', 'h' || run_id
FROM (
    SELECT t || '/' || s || k AS run_id, CAST(t AS VARCHAR) AS task_id, CAST(k AS INTEGER) AS trial,
           CASE s WHEN 'b' THEN 'baseline' ELSE 'candidate' END AS label,
           CASE WHEN k = $trials THEN '{"perturbation": "typo"}' ELSE '{}' END AS meta
    FROM range($tasks) AS a(t), (VALUES ('b'), ('c')) AS b(s), range($trials + 1) AS c(k)
    WHERE k < $trials OR t % 5 = 0
) LEFT JOIN (SELECT run_id, count(*) AS n FROM steps GROUP BY run_id) USING (run_id)
"""


def archive(tasks: int, trials: int, seed: int = 1) -> duckdb.DuckDBPyConnection:
    """An in-memory archive holding :func:`steps_table`'s steps and their runs (:data:`RUNS`)."""
    con = connect(None)
    con.register("given", steps_table(tasks, trials, seed))
    con.execute(
        "INSERT INTO steps (run_id, idx, type, action, input, input_keys, status)"
        " SELECT run_id, idx, 'tool', action, CAST(input AS JSON), input_keys, status FROM given"
    )
    con.unregister("given")
    con.execute(RUNS, {"tasks": tasks, "trials": trials, "seed": seed})
    return con


def _timed(work: Callable[[], T]) -> tuple[T, float, float]:
    """``work()``, its wall and CPU seconds (CPU of every thread of the process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    started = time.perf_counter()
    con = archive(args.tasks, args.trials)
    pairs = [FlapPair(f"{t}/b{k}", f"{t}/c{k}", str(t))
             for t in range(args.tasks) for k in range(args.trials)]  # fmt: skip
    baseline = [(f"{t}/b{k}", str(t)) for t in range(args.tasks) for k in range(args.trials)]
    counts = con.execute("SELECT (SELECT count(*) FROM steps), (SELECT count(*) FROM runs)")
    n_steps, n_runs = counts.fetchone() or (0, 0)
    print(f"{args.tasks:,} tasks x {args.trials} trials x 2 labels: {n_runs:,} runs (of them"
          f" {n_runs - 2 * args.tasks * args.trials:,} perturbed), {n_steps:,} steps, built in"
          f" {time.perf_counter() - started:.1f} s")  # fmt: skip

    rounds = []
    for _ in range(max(args.repeat, 1)):  # the first round pays the one-off costs (imports, macros)
        found, flap_wall, flap_cpu = _timed(lambda: pair_findings(con, pairs, baseline))
        profiles, profile_wall, profile_cpu = _timed(lambda: reliability_profiles(con))
        rounds.append((flap_wall, flap_cpu, profile_wall, profile_cpu))
    n = sum(len(items) for items in found)
    stable = sum(f.stable is True for items in found for f in items)
    print(f"flap rates of {len(pairs):,} pairs ({n:,} findings, {stable:,} stable) over"
          f" {args.tasks * args.trials * (args.trials - 1):,} repeat pairs, and the reliability"
          f" profile of both labels ({len(profiles)} profiles,"
          f" {sum(len(p.measures) for p in profiles)} measures), one after the other:")  # fmt: skip
    for k, (fw, fc, pw, pc) in enumerate(rounds, 1):
        print(f"  round {k}: {fw + pw:.2f} s wall, {fc + pc:.2f} s CPU"
              f" (flap rates {fw:.2f} s wall, {fc:.2f} s CPU;"
              f" profile {pw:.2f} s wall, {pc:.2f} s CPU)")  # fmt: skip
    for p in profiles:
        print("  " + p.label + ": " + ", ".join(f"{m.name} {m.estimate:.3f}" for m in p.measures))


if __name__ == "__main__":
    main()
