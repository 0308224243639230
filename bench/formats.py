"""Adapter throughput: MB/s of each adapter on the real traces in ../shared/data.

    python bench/formats.py [--min-mb 100] [--data ../shared/data] [--only NAME,...]

For each adapter, its files (AgentDiff: the test fixtures, as no shared AgentDiff traces
exist) are staged again and again through the adapter's own ``stage`` into an in-memory
archive, as ``reportgen ingest`` does, until at least ``--min-mb`` of input has passed.
Measured: parse + map + the Arrow inserts into the stage tables (not hashing, not the final
archive write, which are format-independent). MB are on-disk bytes (an .eval zip counts its
compressed size). DuckDB runs on one thread, and the target (every adapter >= 20 MB/s) is
judged on CPU time, so a busy machine does not fail it; wall-clock MB/s is printed beside.

The session formats (Claude Code, Codex CLI, Gemini CLI, Copilot CLI, OpenHands SDK, OpenAI
Agents SDK, leaderboard submissions) count each record once per load (resumed sessions, traces split over files), so
staging the same files again would measure the skipping. For them ``--min-mb`` of input is
generated from the real files' shapes instead: copies of the shared folder, each in its own
folder, with every id (the values of ``uuid``, ``parentUuid``, ``sessionId``, ``id``, ``call_id``,
``tool_use_id``, ``trace_id``, ``parent_id``, ...) given a per-copy suffix, then staged once, in batches of about ``BATCH_MB`` that keep a
copy's files together (a sub-agent file with its session, results with their predictions)."""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from reportgen.archive.connection import connect
from reportgen.errors import InputError
from reportgen.formats.base import STAGE_TABLES, Format, StageOptions
from reportgen.formats.registry import adapters
from reportgen.formats.source import SourceFile, is_input_file, measure

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {
    "agentdiff": [ROOT / "tests" / "formats" / "fixtures" / "agentdiff"],
    "inspect": ["inspect"],
    "swe-agent": ["swe-agent"],
    "mini-swe-agent": ["mini-swe-agent/trajs"],
    "tau2-bench": ["tau2-bench"],
    "tau-bench": ["tau-bench"],
    "langfuse": ["langfuse"],
    "atif": ["atif", "atif-v1.7"],
    "harbor": ["harbor-jobs"],
    "swe-bench-harness": ["swe-bench-harness"],
    "inspect-scout": ["inspect-scout"],
    "langsmith": ["langsmith"],
    "otel": ["otel-genai", ROOT / "tests" / "formats" / "fixtures" / "otel"],
}
#: Session formats: input generated from these shared folders (see the module docstring).
GENERATED = {
    "claude-code": "claude-code",
    "codex-cli": "codex-cli",
    "gemini-cli": "gemini-cli",
    "openai-agents": "openai-agents",
    "copilot-cli": "copilot-cli",
    "openhands-sdk": "openhands-sdk",
    "swe-bench-submission": "swe-bench-experiments",
}
_IDS = re.compile(
    rb'("(?:uuid|parentUuid|leafUuid|sessionId|agentId|id|call_id|tool_use_id|trace_id'
    rb'|parent_id|new_thread_id)"\s*:\s*"[^"\\]*)"'
)
TARGET_MB_S = 20.0
BATCH_MB = 8.0


def sources_for(fmt: Format, data: Path, limit: int) -> list[SourceFile]:
    """The files of ``fmt`` under its folders, measured."""
    found: list[SourceFile] = []
    for folder in FOLDERS[fmt.name]:
        base = folder if isinstance(folder, Path) else data / folder
        for path in sorted(base.rglob("*")):
            if path.is_file() and is_input_file(path):
                try:
                    source = measure(path, str(path), limit)
                except InputError:  # e.g. a scan's empty _errors.jsonl, read with its _scan.json
                    continue
                if fmt.detect(source):
                    found.append(source)
    return found


def generate(
    fmt: Format, data: Path, out: Path, min_mb: float, limit: int
) -> list[list[SourceFile]]:
    """Copies of ``fmt``'s shared folder under ``out`` with per-copy ids, until ``min_mb`` of
    its input files; returned as batches of about BATCH_MB, each copy whole in one batch."""
    base = data / GENERATED[fmt.name]
    files = [p for p in sorted(base.rglob("*")) if p.is_file()]
    blobs = [(p.relative_to(base), p.read_bytes()) for p in files]
    batches: list[list[SourceFile]] = [[]]
    batch_bytes = total = 0
    copy = 0
    while total < min_mb * (1 << 20):
        folder = out / f"copy{copy:05d}"
        tail = b'-g%x"' % copy
        made: list[SourceFile] = []
        for relative, blob in blobs:
            path = folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            if is_input_file(path):
                path.write_bytes(_IDS.sub(lambda m, t=tail: m.group(1) + t, blob))
                source = measure(path, str(path), limit)
                if fmt.detect(source):
                    made.append(source)
            else:
                path.write_bytes(blob)  # metadata.yaml, trajectories: read as they are
        size = sum(s.size_bytes for s in made)
        if batch_bytes and batch_bytes + size > BATCH_MB * (1 << 20):
            batches.append([])
            batch_bytes = 0
        batches[-1].extend(made)
        batch_bytes += size
        total += size
        copy += 1
    return batches


def bench_batches(
    fmt: Format, batches: list[list[SourceFile]]
) -> tuple[float, float, float, int, int]:
    """(MB processed, wall seconds, CPU seconds, runs, steps) staging each batch once."""
    options = StageOptions(max_record_bytes=64 << 20)
    con = connect(None)
    con.execute("SET threads = 1")
    fresh_stage(con)
    fmt.stage(con, batches[0][:5], options)  # warm-up (imports, first registration)
    wall = cpu = 0.0
    runs = steps = 0
    for batch in batches:
        fresh_stage(con)
        started, started_cpu = time.perf_counter(), time.process_time()
        fmt.stage(con, batch, options)
        wall += time.perf_counter() - started
        cpu += time.process_time() - started_cpu
        runs_now, steps_now = staged(con)
        runs, steps = runs + runs_now, steps + steps_now
    con.close()
    mb = sum(s.size_bytes for b in batches for s in b) / (1 << 20)
    return mb, wall, cpu, runs, steps


def staged(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """(runs, steps) in the stage tables."""
    row = con.execute(
        "SELECT (SELECT count(*) FROM stage_runs), (SELECT count(*) FROM stage_steps)"
    ).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def fresh_stage(con: duckdb.DuckDBPyConnection) -> None:
    for table in STAGE_TABLES:
        con.execute(f"CREATE OR REPLACE TEMP TABLE stage_{table} AS SELECT * FROM {table} LIMIT 0")


def bench(
    fmt: Format, sources: list[SourceFile], min_mb: float
) -> tuple[float, float, float, int, int]:
    """(MB processed, wall seconds, CPU seconds, runs in the adapter's files, steps staged)."""
    options = StageOptions(max_record_bytes=64 << 20)
    con = connect(None)
    con.execute("SET threads = 1")  # CPU time then measures the adapter alone
    fresh_stage(con)
    fmt.stage(con, sources, options)  # warm-up (imports, first registration)
    runs = staged(con)[0]
    # A load hands an adapter all its files at once: batch small file sets to ~BATCH_MB per
    # stage call, as a real archive load of many such files would.
    size = sum(s.size_bytes for s in sources)
    sources = sources * max(1, int(BATCH_MB * (1 << 20) / size))
    per_pass = sum(s.size_bytes for s in sources)
    passes = max(1, int(min_mb * (1 << 20) / per_pass) + 1)
    wall = cpu = 0.0
    steps = 0
    for _ in range(passes):
        fresh_stage(con)
        started, started_cpu = time.perf_counter(), time.process_time()
        fmt.stage(con, sources, options)
        wall += time.perf_counter() - started
        cpu += time.process_time() - started_cpu
        steps += staged(con)[1]
    con.close()
    return passes * per_pass / (1 << 20), wall, cpu, runs, steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-mb", type=float, default=100.0)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--only", default="", help="comma-separated adapter names")
    args = parser.parse_args()
    only = {n for n in args.only.split(",") if n}
    if not args.data.is_dir():
        print(f"no shared data at {args.data}", file=sys.stderr)
        return 2
    print(
        f"{'adapter':<22}{'files':>6}{'runs':>6}{'MB':>8}{'wall s':>8}{'MB/s':>7}"
        f"{'CPU s':>8}{'MB/CPU-s':>10}{'steps/CPU-s':>13}"
    )
    slow: list[str] = []
    for fmt in adapters():
        if only and fmt.name not in only:
            continue
        if fmt.name in GENERATED:
            if not (args.data / GENERATED[fmt.name]).is_dir():
                print(f"{fmt.name:<22} no files")
                continue
            with tempfile.TemporaryDirectory(prefix="rg-bench-") as scratch:
                batches = generate(fmt, args.data, Path(scratch), args.min_mb, 64 << 20)
                n_files = sum(len(b) for b in batches)
                mb, wall, cpu, runs, steps = bench_batches(fmt, batches)
                shutil.rmtree(scratch, ignore_errors=True)
            report(fmt.name, n_files, runs, mb, wall, cpu, slow, steps)
            continue
        sources = sources_for(fmt, args.data, 64 << 20)
        if not sources:
            print(f"{fmt.name:<22} no files")
            continue
        mb, wall, cpu, runs, steps = bench(fmt, sources, args.min_mb)
        report(fmt.name, len(sources), runs, mb, wall, cpu, slow, steps)
    if slow:
        print(f"below {TARGET_MB_S:.0f} MB/s: {', '.join(slow)}", file=sys.stderr)
        return 1
    return 0


def report(
    name: str,
    files: int,
    runs: int,
    mb: float,
    wall: float,
    cpu: float,
    slow: list[str],
    steps: int = 0,
) -> None:
    rate = mb / cpu if cpu else float("inf")
    flag = "" if rate >= TARGET_MB_S else f"  < {TARGET_MB_S:.0f} MB/s"
    print(
        f"{name:<22}{files:>6}{runs:>6}{mb:>8.1f}{wall:>8.2f}{mb / wall:>7.1f}"
        f"{cpu:>8.2f}{rate:>10.1f}{steps / cpu if cpu else 0.0:>13.0f}{flag}",
        flush=True,
    )
    if flag:
        slow.append(name)


if __name__ == "__main__":
    raise SystemExit(main())
