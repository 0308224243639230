"""Scale bench for the Parquet archive and the two engines (docs/scale.md).

    .venv/bin/python bench/scale.py --runs 5000 --steps 200      # 10^6 steps
    .venv/bin/python bench/scale.py --runs 50000 --steps 200     # 10^7 steps (the target)

Writes RUNS native traces of STEPS steps each (baseline and candidate of RUNS / 2 tasks over
NIGHTS nights, seeded) as JSONL, then measures, each command in its own process under
``/usr/bin/time`` (wall time and peak RSS; the Spark figure is the driver's Python process plus
what it waited for, i.e. the JVM, in local[2]):

- ``reportgen ingest`` into a new Parquet archive folder, one ingest per night (as a nightly
  job loads them): total, first and last ingest time, peak RSS;
- ``reportgen gate --batch all`` with the DuckDB engine, and with ``--engine spark``;
- the archive's size on disk against the JSONL it came from.

Prints one JSON object (the figures docs/scale.md quotes)."""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ACTIONS = ("read_file", "edit_file", "run_tests", "search_code", "plan", "write_file")
STATUSES = ("ok",) * 17 + ("error", "retry", "abandoned")


def write_traces(folder: Path, runs: int, steps: int, nights: int, seed: int) -> int:
    """RUNS traces as one JSONL file per night and label; returns the bytes written."""
    rng = random.Random(seed)
    tasks = max(1, runs // (2 * nights))
    total = 0
    for night in range(nights):
        batch = f"2026-{1 + night // 28:02d}-{1 + night % 28:02d}"
        for label in ("baseline", "candidate"):
            path = folder / label / f"{batch}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("w") as out:
                for task in range(tasks):
                    plan = random.Random(task).choices(ACTIONS, k=steps)
                    trace = []
                    for i, action in enumerate(plan):
                        if rng.random() < 0.05:
                            action = rng.choice(ACTIONS)
                        trace.append(
                            {
                                "type": "tool",
                                "action": action,
                                "status": rng.choice(STATUSES),
                                "input": {"path": f"src/m{i % 17}.py"},
                                "output": "ok"
                                if rng.random() < 0.7
                                else f"line {rng.randint(1, 99)}",
                                "tokens_in": rng.randint(50, 900),
                                "tokens_out": rng.randint(5, 200),
                                "cost_usd": round(rng.random() / 500, 6),
                                "latency_ms": rng.randint(20, 3000),
                            }
                        )
                    run = {
                        "run_id": f"{batch}/t{task}/{label}",
                        "task_id": f"t{task}",
                        "label": label,
                        "suite": "nightly",
                        "batch": batch,
                        "started_at": f"{batch}T02:00:00Z",
                        "steps": trace,
                    }
                    out.write(json.dumps(run) + "\n")
            total += path.stat().st_size
    return total


def measured(command: list[str]) -> dict[str, float]:
    """Wall seconds, CPU seconds (user + system, of the process and the children it waited
    for: less sensitive than wall time to a shared machine) and peak RSS (MB) of ``command``."""
    started = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "RSSKB %M CPU %U %S", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    found = re.findall(r"RSSKB (\d+) CPU ([\d.]+) ([\d.]+)", done.stderr)
    if done.returncode not in (0, 3):
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    rss, user, system = found[-1]
    return {
        "seconds": round(seconds, 2),
        "cpu_seconds": round(float(user) + float(system), 2),
        "peak_rss_mb": round(int(rss) / 1024, 1),
    }


def size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--nights", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument(
        "--keep",
        type=Path,
        help="write the traces and the archive into this folder and keep them; a folder "
        "holding an archive already is reused as it is (only the gates are measured again)",
    )
    args = parser.parse_args()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        run(args, args.keep)
        return
    with tempfile.TemporaryDirectory(prefix="reportgen-scale-") as tmp:
        run(args, Path(tmp))


def run(args: argparse.Namespace, root: Path) -> None:
    """Generate, ingest (unless ``root`` holds an archive already) and gate; print the figures."""
    reportgen = str(Path(sys.executable).with_name("reportgen"))
    archive = root / "archive"
    figures: dict[str, object] = {
        "runs": args.runs,
        "steps": args.runs * args.steps,
        "nights": args.nights,
        "cores": os.cpu_count(),
    }
    if not (archive / "manifest.json").exists():
        started = time.perf_counter()
        jsonl = write_traces(root / "in", args.runs, args.steps, args.nights, args.seed)
        figures["generate_seconds"] = round(time.perf_counter() - started, 1)
        nightly = [  # one ingest per night, as a nightly job loads them
            measured([reportgen, "ingest", *map(str, sorted((root / "in").glob(f"*/{night}"))),
                      "--db", f"parquet:{archive}", "-q"])
            for night in sorted({p.name for p in (root / "in").glob("*/*.jsonl")})
        ]  # fmt: skip
        figures["ingest"] = {
            "ingests": len(nightly),
            "seconds": round(sum(m["seconds"] for m in nightly), 2),
            "first_seconds": nightly[0]["seconds"],
            "last_seconds": nightly[-1]["seconds"],
            "cpu_seconds": round(sum(m["cpu_seconds"] for m in nightly), 2),
            "peak_rss_mb": max(m["peak_rss_mb"] for m in nightly),
        }
        figures["jsonl_mb"] = round(jsonl / 1e6, 1)
    figures["archive_mb"] = round(size(archive) / 1e6, 1)
    gate = [reportgen, "gate", "--db", str(archive), "--batch", "all"]
    figures["gate_duckdb"] = measured(gate)
    if not args.no_spark:
        figures["gate_spark_local2"] = measured([*gate, "--engine", "spark"])
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
