"""Ingest benchmark: 1M steps of seeded JSONL through `reportgen ingest`, against a bare DuckDB
`read_json` of the same file (into a DuckDB file, as ingest does), in the same run.

    python bench/ingest.py [--steps 1000000] [--repeat 2]

Prints steps/s, wall time and peak RSS of each (every measurement is its own process, measured
with wait4), and the throughput ratio ingest / bare read_json. Target: >= 0.8x, RSS < 2 GB."""

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

from _environment import as_users_run

DATA = Path(__file__).resolve().parent / "_data"
ACTIONS = ["read_file", "write_file", "run_tests", "search_code", "plan", "grep", "edit_file"]
BARE = "import duckdb, sys; duckdb.connect(sys.argv[2]).execute('CREATE TABLE t AS SELECT * FROM read_json(?)', [sys.argv[1]])"


def generate(path: Path, n_steps: int, steps_per_run: int = 100, seed: int = 1) -> None:
    """Seeded traces: runs of ``steps_per_run`` steps with realistic fields."""
    rng = random.Random(seed)
    with path.open("w") as handle:
        for r in range(n_steps // steps_per_run):
            steps = [
                {
                    "type": "tool",
                    "action": rng.choice(ACTIONS),
                    "input": {
                        "path": f"src/m{rng.randint(1, 50)}.py",
                        "query": "x" * rng.randint(1, 20),
                    },
                    "output": "ok " * rng.randint(1, 20),
                    "status": rng.choice(["ok"] * 8 + ["error", "retry"]),
                    "tokens_in": rng.randint(10, 2000),
                    "tokens_out": rng.randint(1, 500),
                    "cost_usd": round(rng.random() / 100, 6),
                    "latency_ms": rng.randint(10, 5000),
                    "started_at": "2026-11-28T02:00:01Z",
                }
                for _ in range(steps_per_run)
            ]
            run = {
                "run_id": f"r{r}",
                "task_id": f"t{r % 50}",
                "label": "baseline",
                "suite": "bench",
                "started_at": "2026-11-28T02:00:00Z",
                "meta": {"model": "m-1"},
                "output": "done",
                "steps": steps,
            }
            handle.write(json.dumps(run) + "\n")


def measure(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(argv)}")
    return seconds, usage.ru_maxrss / 1024


def main() -> None:
    as_users_run()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    DATA.mkdir(exist_ok=True)
    path = DATA / f"steps-{args.steps}.jsonl"
    if not path.exists():
        print(f"generating {path} ...", flush=True)
        generate(path, args.steps)
    path.read_bytes()  # warm the page cache so both sides read from memory
    best: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            for name, argv in (
                (
                    "bare read_json",
                    [sys.executable, "-c", BARE, str(path), f"{tmp}/bare{i}.duckdb"],
                ),
                (
                    "reportgen ingest",
                    [
                        sys.executable,
                        "-m",
                        "reportgen",
                        "ingest",
                        str(path),
                        "--db",
                        f"{tmp}/rg{i}.duckdb",
                        "--quiet",
                    ],
                ),
            ):
                seconds, rss = measure(argv)
                if name not in best or seconds < best[name][0]:
                    best[name] = (seconds, max(rss, best.get(name, (0, 0))[1]))
    size_mb = path.stat().st_size / 1e6
    print(f"\n{args.steps:,} steps, {size_mb:.0f} MB of JSONL, best of {args.repeat}")
    print(f"{'':18} {'seconds':>8} {'steps/s':>12} {'MB/s':>8} {'peak RSS MB':>12}")
    for name, (seconds, rss) in best.items():
        print(
            f"{name:18} {seconds:8.2f} {args.steps / seconds:12,.0f} {size_mb / seconds:8.1f} {rss:12.0f}"
        )
    ratio = best["bare read_json"][0] / best["reportgen ingest"][0]
    print(f"\nthroughput ratio ingest / bare read_json: {ratio:.2f}x (target >= 0.8x)")


if __name__ == "__main__":
    main()
