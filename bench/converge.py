"""Bench: convergence of 10,000 groups x 5 outputs, archive SQL vs the reference package.

The reference (PyPI agent-convergence-scorer 0.3.0) runs in its own interpreter
(env REPORTGEN_REF_CONVERGENCE_PYTHON, default /work/refvenv-conv/bin/python), calling
score_runs once per group and timing only that loop. reportgen's path is one DuckDB query
over an in-memory ``outputs`` table (loading the table is not timed). Numbers must agree.

    PYTHONPATH=. python bench/converge.py [--groups 10000] [--runs 5] [--words 50]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import pyarrow as pa

from reportgen.metrics.convergence import group_convergence

REFERENCE = r"""
import json, sys, time
from agent_convergence_scorer import score_runs
groups = json.load(open(sys.argv[1]))
start = time.perf_counter()
results = [score_runs(runs) for runs in groups]
elapsed = time.perf_counter() - start
json.dump({"seconds": elapsed, "results": results}, open(sys.argv[2], "w"))
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--words", type=int, default=50)
    parser.add_argument("--seed", type=int, default=20240501)
    parser.add_argument("--repeat", type=int, default=3, help="best of N for the SQL path")
    args = parser.parse_args()
    ref_python = os.environ.get("REPORTGEN_REF_CONVERGENCE_PYTHON", "/work/refvenv-conv/bin/python")
    if not Path(ref_python).exists():
        print(f"reference interpreter not found: {ref_python}", file=sys.stderr)
        return 2

    data = make_groups(args.groups, args.runs, args.words, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp, "groups.json"), Path(tmp, "ref.json")
        src.write_text(json.dumps(data), encoding="utf-8")
        subprocess.run([ref_python, "-c", REFERENCE, str(src), str(dst)], check=True)
        ref = json.loads(dst.read_text(encoding="utf-8"))

    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    width = len(str(args.groups))
    table = pa.table(
        {
            "run_id": [f"r{g}-{t}" for g, outs in enumerate(data) for t in range(len(outs))],
            "suite": ["bench"] * sum(map(len, data)),
            "label": ["L"] * sum(map(len, data)),
            "task_id": [f"task-{g:0{width}d}" for g, outs in enumerate(data) for _ in outs],
            "batch": ["b1"] * sum(map(len, data)),
            "trial": [t for outs in data for t in range(len(outs))],
            "output": [o for outs in data for o in outs],
            "source_file": [None] * sum(map(len, data)),
        }
    )
    con.register("bench_rows", table)
    con.execute(
        "CREATE TABLE outputs AS SELECT run_id, suite, label, task_id, batch, "
        "CAST(trial AS INTEGER) AS trial, output, CAST(source_file AS VARCHAR) AS source_file "
        "FROM bench_rows"
    )
    best = float("inf")
    ours: list[dict[str, object]] = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        ours = group_convergence(con)
        best = min(best, time.perf_counter() - start)

    keys = ("suite", "label", "task_id", "batch")
    stripped = [{k: v for k, v in row.items() if k not in keys} for row in ours]
    agree = stripped == ref["results"]
    ref_s = ref["seconds"]
    print(
        f"groups={args.groups} runs/group={args.runs} words~{args.words} threads={os.cpu_count()}"
    )
    print(f"reference score_runs loop : {ref_s:8.3f} s")
    print(f"reportgen archive SQL     : {best:8.3f} s (best of {args.repeat}, incl. dicts)")
    print(f"speed-up                  : {ref_s / best:8.2f}x")
    print(f"numbers agree             : {agree}")
    if not agree:
        bad = next(
            k for k, (a, b) in enumerate(zip(stripped, ref["results"], strict=True)) if a != b
        )
        print(f"first difference at group {bad}: {stripped[bad]} vs {ref['results'][bad]}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
