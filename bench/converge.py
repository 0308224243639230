"""Bench: convergence of 10,000 groups x 5 outputs, archive SQL vs the reference package.

The reference (PyPI agent-convergence-scorer 0.3.0) runs in its own interpreter
(env REPORTGEN_REF_CONVERGENCE_PYTHON, default /work/refvenv-conv/bin/python), calling
score_runs once per group and timing only that loop.
reportgen's path is ``group_convergence(con)``: one DuckDB query over an in-memory
``outputs`` table (loading the table is not timed), the vectorised numpy scorer, and the
result dicts. Numbers must agree on every group; --sql also times the pure-SQL variant.
The two are timed in interleaved rounds (the machine's load swings a lot on a shared box):
best of each, and the median of the per-round ratios, are reported with the load average.

    PYTHONPATH=. python bench/converge.py [--groups 10000] [--runs 5] [--words 50] [--sql]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from reportgen.convergence.archive import group_convergence, group_convergence_sql

REFERENCE = r"""
import json, sys, time
from agent_convergence_scorer import score_runs
groups = json.load(open(sys.argv[1]))
best = float("inf")
for _ in range(int(sys.argv[3])):
    start = time.perf_counter()
    results = [score_runs(runs) for runs in groups]
    best = min(best, time.perf_counter() - start)
json.dump({"seconds": best, "results": results}, open(sys.argv[2], "w"))
"""


def make_groups(groups: int, runs: int, words: int, seed: int) -> list[list[str]]:
    """Seeded outputs: each group rewrites a base answer a little per run (case, words, ends)."""
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(2000)] + ["The", "the", "answer", "is", "Paris.", "paris"]
    data: list[list[str]] = []
    for _ in range(groups):
        base = [rng.choice(vocab) for _ in range(words + rng.randint(-5, 5))]
        outs: list[str] = []
        for _ in range(runs):
            text = list(base)
            for _ in range(rng.randint(0, 8)):
                text[rng.randrange(len(text))] = rng.choice(vocab)
            if rng.random() < 0.2:
                text = text[: rng.randint(1, len(text))]
            outs.append(" ".join(text) if rng.random() < 0.9 else " ".join(base))
        data.append(outs)
    return data


def archive(data: list[list[str]]) -> duckdb.DuckDBPyConnection:
    """An in-memory ``outputs`` table with one group per list of outputs."""
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    width = len(str(len(data)))
    total = sum(map(len, data))
    table = pa.table(
        {
            "run_id": [f"r{g}-{t}" for g, outs in enumerate(data) for t in range(len(outs))],
            "suite": ["bench"] * total,
            "label": ["L"] * total,
            "task_id": [f"task-{g:0{width}d}" for g, outs in enumerate(data) for _ in outs],
            "batch": ["b1"] * total,
            "trial": [t for outs in data for t in range(len(outs))],
            "output": [o for outs in data for o in outs],
            "source_file": [None] * total,
        }
    )
    con.register("bench_rows", table)
    con.execute(
        "CREATE TABLE outputs AS SELECT run_id, suite, label, task_id, batch, "
        "CAST(trial AS INTEGER) AS trial, output, CAST(source_file AS VARCHAR) AS source_file "
        "FROM bench_rows"
    )
    return con


def reference(ref_python: str, src: Path, dst: Path) -> tuple[float, list[Any]]:
    """One timed run of the reference loop in its own interpreter: (seconds, results)."""
    subprocess.run([ref_python, "-c", REFERENCE, str(src), str(dst), "1"], check=True)
    ref = json.loads(dst.read_text(encoding="utf-8"))
    return float(ref["seconds"]), list(ref["results"])


def ours(con: duckdb.DuckDBPyConnection) -> tuple[float, list[dict[str, Any]]]:
    """One timed run of reportgen's archive path: (seconds, rows)."""
    start = time.perf_counter()
    rows = group_convergence(con)
    return time.perf_counter() - start, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--words", type=int, default=50)
    parser.add_argument("--seed", type=int, default=20240501)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds of both")
    parser.add_argument("--sql", action="store_true", help="also time group_convergence_sql")
    args = parser.parse_args()
    ref_python = os.environ.get("REPORTGEN_REF_CONVERGENCE_PYTHON", "/work/refvenv-conv/bin/python")
    if not Path(ref_python).exists():
        print(f"reference interpreter not found: {ref_python}", file=sys.stderr)
        return 2

    data = make_groups(args.groups, args.runs, args.words, args.seed)
    con = archive(data)
    ours(con)  # warm up imports and caches
    ref_times: list[float] = []
    our_times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp, "groups.json"), Path(tmp, "ref.json")
        src.write_text(json.dumps(data), encoding="utf-8")
        for _ in range(args.rounds):  # interleaved, so both see the same machine load
            ref_s, ref_rows = reference(ref_python, src, dst)
            our_s, rows = ours(con)
            ref_times.append(ref_s)
            our_times.append(our_s)

    keys = ("suite", "label", "task_id", "batch")
    stripped = [{k: v for k, v in row.items() if k not in keys} for row in rows]
    agree = stripped == ref_rows
    ratios = sorted(r / o for r, o in zip(ref_times, our_times, strict=True))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"groups={args.groups} runs/group={args.runs} words~{args.words} cpus={os.cpu_count()}")
    print(f"load average               : {load}")
    print(f"reference score_runs loop  : {min(ref_times):8.3f} s (best of {args.rounds})")
    print(
        f"reportgen group_convergence: {min(our_times):8.3f} s (best of {args.rounds}, incl. dicts)"
    )
    print(f"speed-up, best vs best     : {min(ref_times) / min(our_times):8.2f}x")
    print(
        f"speed-up, median of rounds : {statistics.median(ratios):8.2f}x (range {ratios[0]:.2f}-{ratios[-1]:.2f})"
    )
    print(f"numbers agree              : {agree} ({len(rows)} groups)")
    if args.sql:
        start = time.perf_counter()
        sql_rows = group_convergence_sql(con)
        sql_s = time.perf_counter() - start
        print(
            f"pure-SQL variant           : {sql_s:8.3f} s ({min(ref_times) / sql_s:.2f}x), "
            f"agrees: {sql_rows == rows}"
        )
    if not agree:
        bad = next(k for k, (a, b) in enumerate(zip(stripped, ref_rows, strict=True)) if a != b)
        print(f"first difference at group {bad}: {stripped[bad]} vs {ref_rows[bad]}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
