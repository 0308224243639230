"""Benchmark: flap rates of trajectory findings for 10,000 tasks x 5 trials (the library
call, reportgen.divergence.findings.pair_findings; the CLI's compare adds them to every
pair with the other metrics).

Seeded. Each task has 5 baseline trials and 5 candidate trials of ~10 steps (a plan of 8
calls over 12 tools, each run repeating, dropping, swapping calls and changing an argument
or a status at random), written as Arrow columns into an in-memory ``steps`` table. Each
candidate trial k is judged against baseline trial k, its findings' flap rates over the 20
ordered repeat pairs of the task's baseline: 50,000 judged pairs and 200,000 repeat pairs (counted
from the runs of each task, not listed) in one query.

    PYTHONPATH=. python bench/flap.py [--tasks 10000] [--trials 5]
"""

from __future__ import annotations

import argparse
import time

import duckdb
import numpy as np
import pyarrow as pa

from reportgen.divergence.findings import FlapPair, pair_findings


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--trials", type=int, default=5)
    args = parser.parse_args()
    started = time.perf_counter()
    table = steps_table(args.tasks, args.trials)
    con = duckdb.connect()
    con.register("given", table)
    con.execute("CREATE TABLE steps AS SELECT * REPLACE (CAST(input AS JSON) AS input) FROM given")
    pairs = [FlapPair(f"{t}/b{k}", f"{t}/c{k}", str(t))
             for t in range(args.tasks) for k in range(args.trials)]  # fmt: skip
    baseline = [(f"{t}/b{k}", str(t)) for t in range(args.tasks) for k in range(args.trials)]
    built = time.perf_counter()
    wall, cpu = time.perf_counter(), time.process_time()
    found = pair_findings(con, pairs, baseline)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n = sum(len(items) for items in found)
    stable = sum(f.stable is True for items in found for f in items)
    print(f"{args.tasks:,} tasks x {args.trials} trials: {len(table):,} steps, built in"
          f" {built - started:.1f} s")  # fmt: skip
    print(f"flap rates of {len(pairs):,} pairs ({n:,} findings, {stable:,} stable) over"
          f" {args.tasks * args.trials * (args.trials - 1):,} repeat pairs:"
          f" {wall:.2f} s wall, {cpu:.2f} s CPU")  # fmt: skip


if __name__ == "__main__":
    main()
