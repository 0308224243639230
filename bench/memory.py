"""Memory benchmark: peak RSS of whole CLI processes on inputs that grow, to show that ingest
and restore stay under a stated bound however large the input.

    python bench/memory.py [--sizes 100,300,1000] [--bomb-mb 1200] [--only ingest|restore] [--keep]

* ``reportgen ingest FILE --db ARCHIVE --quiet`` of seeded JSON Lines files of tiny one-step
  trace-v1 runs (about 330 bytes a run), of each size in MB of ``--sizes``;
* ``reportgen restore SNAPSHOT --db ARCHIVE`` of a compressed-text bomb: a snapshot whose
  runs file (``runs/b1-….parquet``) is a few KB that inflates to ``--bomb-mb`` MB of text
  (each run's output a long run of one character). restore refuses it (exit 1) once it has
  decoded more than snapshot.MAX_INFLATION times the file's size (past
  snapshot.INFLATION_FLOOR).

Each command is its own process, measured with wait4: wall seconds, CPU seconds (user +
system, all threads) and peak RSS (Linux's ru_maxrss of a child also counts the memory it had
before exec, this small process's: tens of MB). The bound (docs/scale.md): peak RSS at most 2 GB, and flat
from 300 MB to 1 GB of input (the ratio of the two peaks is printed; target <= 1.15). Inputs
are written under ``bench/_data/`` (git-ignored); the largest are deleted after measuring
unless ``--keep``. Needs about 3x the largest size free on disk (the input, the archive and
DuckDB's spill files)."""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _environment import as_users_run

DATA = Path(__file__).resolve().parent / "_data"
ACTIONS = ["read_file", "write_file", "run_tests", "search_code", "plan"]
BOUND_MB = 2048
FLAT_RATIO = 1.15


def generate(path: Path, size_mb: int, seed: int = 1) -> int:
    """A JSON Lines file of about ``size_mb`` MB of one-step runs; returns the run count."""
    rng = random.Random(seed)
    target = size_mb * 1_000_000
    written = runs = 0
    with path.open("w") as handle:
        while written < target:
            lines = []
            for _ in range(10_000):
                step = {
                    "type": "tool",
                    "action": rng.choice(ACTIONS),
                    "input": {"path": f"src/m{rng.randint(1, 50)}.py"},
                    "output": "ok",
                    "status": "ok",
                    "tokens_in": rng.randint(10, 2000),
                    "tokens_out": rng.randint(1, 500),
                    "cost_usd": round(rng.random() / 100, 6),
                    "latency_ms": rng.randint(10, 5000),
                }
                run = {
                    "run_id": f"r{runs}",
                    "task_id": f"t{runs % 500}",
                    "label": "baseline",
                    "suite": "bench",
                    "started_at": "2026-11-28T02:00:00Z",
                    "output": "done",
                    "steps": [step],
                }
                lines.append(json.dumps(run, separators=(",", ":")))
                runs += 1
            text = "\n".join(lines) + "\n"
            handle.write(text)
            written += len(text)
    return runs


BOMB = """
import sys
from pathlib import Path
import reportgen.archive.connection as connection
from reportgen.archive.snapshot import write_snapshot
folder, mb = Path(sys.argv[1]), int(sys.argv[2])
con = connection.connect(folder.parent / "bomb-source.duckdb")
n, width = mb, 1_000_000  # mb runs of a 1 MB output each
con.execute(
    "INSERT INTO runs BY NAME SELECT 'r' || i AS run_id, 'bench' AS suite, 'bomb' AS label,"
    " 't' || i AS task_id, 'b1' AS batch, 0 AS trial, 0 AS n_steps, 'trace-v1' AS format,"
    " 'bomb.jsonl' AS source_file, 'h' AS content_hash,"
    " repeat('x', ?) AS output FROM range(?) t(i)",
    [width, n],
)
write_snapshot(con, folder)
con.close()
"""


def bomb(folder: Path, mb: int) -> None:
    """A snapshot whose runs file (one night, ``b1``) inflates to about ``mb`` MB of text."""
    if (folder / "manifest.json").exists():
        return
    subprocess.run([sys.executable, "-c", BOMB, str(folder), str(mb)], check=True)
    (folder.parent / "bomb-source.duckdb").unlink(missing_ok=True)


def measure(argv: list[str]) -> tuple[float, float, float, int]:
    """Wall seconds, CPU seconds, peak RSS (MB) and exit code of one child process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code != 0 and child.stderr is not None:
        print(f"  exit {code}: {child.stderr.read().decode(errors='replace').strip()[:300]}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code


def main() -> None:
    as_users_run()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="100,300,1000", help="JSONL sizes in MB")
    parser.add_argument("--bomb-mb", type=int, default=1200)
    parser.add_argument("--keep", action="store_true", help="keep the generated inputs")
    parser.add_argument(
        "--only", choices=["ingest", "restore"], help="measure only ingest or only restore"
    )
    args = parser.parse_args()
    sizes = [] if args.only == "restore" else [int(s) for s in args.sizes.split(",")]
    DATA.mkdir(exist_ok=True)
    free = shutil.disk_usage(DATA).free >> 20
    largest = max(sizes, default=args.bomb_mb)
    if free < 3 * largest:
        sys.exit(f"{free} MB free under {DATA}: needs about {3 * largest} MB")
    reportgen = [sys.executable, "-m", "reportgen"]
    peaks: dict[int, float] = {}
    print(f"{'command':34} {'input MB':>9} {'wall s':>7} {'CPU s':>7} {'peak RSS MB':>12}")
    with tempfile.TemporaryDirectory(dir=DATA, prefix="memory-") as tmp:
        for size in sizes:
            path = DATA / f"one-step-runs-{size}mb.jsonl"
            if not path.exists():
                generate(path, size)
            archive = Path(tmp) / f"ingest-{size}.duckdb"
            wall, cpu, rss, code = measure(
                [*reportgen, "ingest", str(path), "--db", str(archive), "--quiet"]
            )
            peaks[size] = rss
            mb = path.stat().st_size / 1e6
            print(f"{'ingest (one-step runs)':34} {mb:9.0f} {wall:7.1f} {cpu:7.1f} {rss:12.0f}")
            archive.unlink(missing_ok=True)
            if size >= 300 and not args.keep:
                path.unlink()
        if args.only != "ingest":
            snapshot = DATA / f"bomb-{args.bomb_mb}mb"
            bomb(snapshot, args.bomb_mb)
            packed = sum(p.stat().st_size for p in snapshot.rglob("*.parquet")) / 1024
            wall, cpu, rss, code = measure(
                [*reportgen, "restore", str(snapshot), "--db", str(Path(tmp) / "restored.duckdb")]
            )
            peaks[-1] = rss
            label = f"restore (runs file {packed:.0f} KiB)"
            print(f"{label:34} {args.bomb_mb:9d} {wall:7.1f} {cpu:7.1f} {rss:12.0f}  exit {code}")
    worst = max(peaks.values())
    print(
        f"\nbound: peak RSS <= {BOUND_MB} MB: {'holds' if worst <= BOUND_MB else 'BROKEN'}"
        f" (worst {worst:.0f} MB)"
    )
    if 300 in peaks and 1000 in peaks:
        ratio = peaks[1000] / peaks[300]
        verdict = "flat" if ratio <= FLAT_RATIO else "GROWS"
        print(f"ingest peak 1 GB / 300 MB: {ratio:.2f} ({verdict}; target <= {FLAT_RATIO})")


if __name__ == "__main__":
    main()
