"""Whole-CLI benchmark: the commands users run, each a whole process on generated folders
(one run per file), beside anchors measured in the same run.

    python bench/cli.py [--files 1000] [--steps 200] [--repeat 1] [--agentdiff-sample 20]

Seeded folders ``baseline/`` and ``candidate/`` of ``--files`` trace files each (``.json``,
one run of ``--steps`` steps per file; the candidate detours, repeats and fails at random).
Timed, each in its own process (wall time; CPU time and peak RSS from wait4), stdout to /dev/null:

* ``reportgen ingest DIR`` of each folder into one archive, beside a bare DuckDB
  ``read_json`` of the same file list into a table of a DuckDB file, the two taking turns
  (ratio bare / ingest, of wall and of CPU time);
* ``reportgen compare DIR_B DIR_C --json`` (files, no archive), beside its floor: a process
  that only reads and parses the same files and writes the JSON compare wrote (orjson); the
  two take turns ``--repeat`` times, each turn's CPU seconds and ratio printed;
* ``reportgen gate --json`` and ``reportgen build`` on that archive;
* ``python -c pass`` and a bare typer app (start-up anchors) beside ``reportgen --version``;
* with ``--db-pairs N``: ``reportgen compare --db ARCHIVE --json`` of N pairs of ~200 steps
  (the seeded archive of ``bench/compare.py``, written to a file first);
* AgentDiff 0.3.0 (``$REPORTGEN_REF_AGENTDIFF_PYTHON``, else ``/work/main/.ci/.ref-diff``)
  reading, comparing and writing the JSON report of ``--agentdiff-sample`` pairs of the same
  files in one process of its own (its best case: its CLI compares one pair per process),
  extrapolated to every pair; and, with ``--agentdiff-cli-sample N``, its CLI
  (``agentdiff B C --format json``) once per pair for N pairs, extrapolated (skipped when
  not installed).

Try ``--files 10000 --steps 20 --no-build`` for many small files, and ``--only compare
--agentdiff-sample 0`` for compare beside its floor alone (with the ratios of their wall and
CPU times; the floor's CPU time is that of its timed part, measured inside its process)."""

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
ACTIONS = ["read_file", "write_file", "run_tests", "search_code", "plan", "grep", "edit_file"]
BARE_READ = (
    "import duckdb, sys; files = sorted(str(p) for d in sys.argv[2:] for p in"
    " __import__('pathlib').Path(d).glob('*.json'));"
    " duckdb.connect(sys.argv[1]).execute("
    "'CREATE TABLE t AS SELECT * FROM read_json(?, format=\\'auto\\')', [files])"
)
BARE_TYPER = """
import typer
app = typer.Typer(add_completion=False)
@app.command()
def hello(version: bool = typer.Option(False, "--version")) -> None:
    typer.echo("bare 0.0")
app()
"""
# The least any compare of the folders must do, with no metric computed: read and parse every
# file (orjson, the collector off) and write the JSON compare wrote (parsed first, untimed).
FLOOR = """
import gc, pathlib, sys, time, orjson
gc.disable()
t0, c0 = time.perf_counter(), time.process_time()
runs = [orjson.loads(p.read_bytes()) for d in sys.argv[2:] for p in sorted(pathlib.Path(d).glob("*.json"))]
t1, c1 = time.perf_counter(), time.process_time()
out = orjson.loads(pathlib.Path(sys.argv[1]).read_bytes())
t2, c2 = time.perf_counter(), time.process_time()
with open("/dev/null", "wb") as sink:
    sink.write(orjson.dumps(out))
print(t1 - t0 + time.perf_counter() - t2, c1 - c0 + time.process_time() - c2)
"""
_DEFAULT_REF = Path("/work/main/.ci/.ref-diff/bin/python")
# Reads the pairs' files with AgentDiff's own loader, compares them and writes each report as
# its `diff --format json` does (model_dump_json(indent=2)), all in one process: AgentDiff's
# best case, with no start-up per pair.
AGENTDIFF_RUNNER = """
import json, os, sys, time
from agentdiff import AgentTrace, compare
t0 = time.perf_counter()
with open(os.devnull, "w") as sink:
    for b, c in json.load(sys.stdin):
        with open(b) as fb, open(c) as fc:
            report = compare(
                AgentTrace.model_validate_json(fb.read()), AgentTrace.model_validate_json(fc.read())
            )
        sink.write(report.model_dump_json(indent=2))
print(time.perf_counter() - t0)
"""


def _step(rng: random.Random, action: str, status: str) -> dict[str, object]:
    return {
        "type": "tool_call",
        "action": action,
        "input": {"path": f"src/m{rng.randint(1, 50)}.py", "query": "x" * rng.randint(1, 20)},
        "output": "ok " * rng.randint(1, 20),
        "status": status,
        "tokens_in": rng.randint(10, 2000),
        "tokens_out": rng.randint(1, 500),
        "cost_usd": round(rng.random() / 100, 6),
        "latency_ms": rng.randint(10, 5000),
    }


def generate(root: Path, n_files: int, n_steps: int, seed: int = 1) -> None:
    """``root/baseline`` and ``root/candidate``: one trace-v1 run per file, task i in file i."""
    rng = random.Random(seed)
    for side in ("baseline", "candidate"):
        (root / side).mkdir(parents=True, exist_ok=True)
    for i in range(n_files):
        plan = [rng.choice(ACTIONS) for _ in range(n_steps)]
        for side in ("baseline", "candidate"):
            steps = []
            for action in plan:
                if side == "candidate" and rng.random() < 0.05:
                    steps.append(_step(rng, rng.choice(ACTIONS), "ok"))  # a detour
                status = rng.choice(["ok"] * 18 + ["error", "retry"])
                steps.append(_step(rng, action, status))
            run = {
                "run_id": f"{side[0]}{i}",
                "task_id": f"t{i}",
                "suite": "bench",
                "batch": "2026-11-28",
                "started_at": "2026-11-28T02:00:00Z",
                "steps": steps[:n_steps],
            }
            (root / side / f"t{i:05d}.json").write_text(json.dumps(run))


def agentdiff_files(root: Path, out: Path, n_files: int, sample: int) -> list[tuple[str, str]]:
    """The first ``sample`` pairs of ``root`` written under ``out`` as AgentDiff traces."""
    from reportgen.divergence.agentdiff_export import to_agentdiff_trace
    from reportgen.divergence.reference import Run, Step

    out.mkdir(exist_ok=True)
    pairs = []
    for i in range(min(sample, n_files)):
        paths = []
        for side in ("baseline", "candidate"):
            data = json.loads((root / side / f"t{i:05d}.json").read_text())
            run = Run(
                tuple(
                    Step(
                        s["type"], s["action"], s["input"], s["output"], s["status"],
                        s["tokens_in"], s["tokens_out"], s["cost_usd"], s["latency_ms"],
                    )
                    for s in data["steps"]
                )
            )  # fmt: skip
            path = out / f"{side}-{i}.json"
            path.write_text(json.dumps(to_agentdiff_trace(run, side, wrap_outputs=True)))
            paths.append(str(path))
        pairs.append((paths[0], paths[1]))
    return pairs


def _pairs_archive(path: Path, n_pairs: int) -> None:
    """The archive of bench/compare.py (labels b and c, ~200 steps a run), as a file; built
    in a child, so this process stays small (children inherit its peak RSS at fork)."""
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); from compare import make_archive;"
        " from reportgen.archive.connection import connect; con = connect(sys.argv[2]);"
        " make_archive(con, int(sys.argv[3]), 200, 1); con.close()"
    )
    here = str(Path(__file__).resolve().parent)
    subprocess.run([sys.executable, "-c", script, here, str(path), str(n_pairs)], check=True)


def measure(argv: list[str], stdin: str | None = None) -> tuple[float, float, str, float]:
    """Wall seconds, peak RSS (MB), stdout's last line and CPU seconds (user + system, all
    threads) of one child process."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=out if stdin is not None else subprocess.DEVNULL,
        )
        if stdin is not None and child.stdin is not None:
            child.stdin.write(stdin.encode())
            child.stdin.close()
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        out.seek(0)
        last = (out.read().decode().strip().splitlines() or [""])[-1]
    if os.waitstatus_to_exitcode(status) not in (0, 3):  # 3: a gate failed, still a result
        sys.exit(f"failed ({os.waitstatus_to_exitcode(status)}): {' '.join(argv)}")
    return seconds, usage.ru_maxrss / 1024, last, usage.ru_utime + usage.ru_stime


def best(argv: list[str], repeat: int, before: object = None) -> tuple[float, float, float]:
    """Best wall time, the peak RSS and the least CPU time of ``repeat`` runs (``before()``
    ahead of each). CPU time varies less than wall time on a shared machine."""
    return best_side_by_side([argv], repeat, before)[0]


def best_side_by_side(
    argvs: list[list[str]], repeat: int, before: object = None
) -> list[tuple[float, float, float]]:
    """``best`` of each command, the commands taking turns (a, b, a, b, ...): a slow spell
    of a shared machine then falls on both sides of a ratio, not on one."""
    runs: list[list[tuple[float, float, float]]] = [[] for _ in argvs]
    for _ in range(max(1, repeat)):
        for argv, done in zip(argvs, runs, strict=True):
            if callable(before):
                before()
            seconds, rss, _, cpu = measure(argv)
            done.append((seconds, rss, cpu))
    return [
        (min(r[0] for r in done), max(r[1] for r in done), min(r[2] for r in done)) for done in runs
    ]


def main() -> None:
    as_users_run()
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--agentdiff-sample", type=int, default=20)
    parser.add_argument("--agentdiff-cli-sample", type=int, default=0)
    parser.add_argument("--no-build", action="store_true", help="skip reportgen build")
    parser.add_argument("--db-pairs", type=int, default=0, help="also compare --db --json")
    parser.add_argument(
        "--only",
        choices=["compare"],
        default=None,
        help="time only this command beside its anchor (compare: compare DIR DIR --json and its floor)",
    )
    args = parser.parse_args()
    root = DATA / f"cli-{args.files}x{args.steps}"
    if not (root / "candidate").exists():
        print(f"generating {root} ...", flush=True)
        generate(root, args.files, args.steps)
    base, cand = root / "baseline", root / "candidate"
    for path in (*base.iterdir(), *cand.iterdir()):
        path.read_bytes()  # warm the page cache so every command reads from memory
    bin_dir = Path(sys.executable).parent
    rg = str(bin_dir / "reportgen") if (bin_dir / "reportgen").exists() else "reportgen"
    rows: list[tuple[str, float, float, float, str]] = []

    def row(name: str, seconds: float, rss: float, cpu: float, note: str = "") -> None:
        rows.append((name, seconds, rss, cpu, note))
        print(f"{name:44} {seconds:8.2f} s {cpu:7.2f} s cpu {rss:7.0f} MB  {note}", flush=True)

    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        db = tmp / "bench.duckdb"
        bare_db = tmp / "bare.duckdb"

        def fresh() -> None:
            for leftover in (db, bare_db, Path(f"{db}.wal"), Path(f"{bare_db}.wal")):
                leftover.unlink(missing_ok=True)

        if args.only is None:
            bare, ingest = best_side_by_side(
                [
                    [sys.executable, "-c", BARE_READ, str(bare_db), str(base), str(cand)],
                    [rg, "ingest", str(base), str(cand), "--db", str(db), "--quiet"],
                ],
                args.repeat,
                fresh,
            )
            row("bare DuckDB read_json (both dirs)", *bare)
            ratios = (
                f"ratio bare/ingest {bare[0] / ingest[0]:.2f}x (cpu {bare[2] / ingest[2]:.2f}x)"
            )
            row("reportgen ingest (both dirs)", *ingest, ratios)
        written = tmp / "compare.json"
        compare_argv = [rg, "compare", str(base), str(cand), "--json"]
        with written.open("wb") as sink:  # what the floor writes (untimed)
            subprocess.run(compare_argv, stdout=sink, check=False)
        floor_argv = [sys.executable, "-c", FLOOR, str(written), str(base), str(cand)]
        turns = []  # compare and its floor taking turns, as best_side_by_side
        for _ in range(max(1, args.repeat)):
            seconds, rss, _, cpu = measure(compare_argv)
            floor = measure(floor_argv, "")
            inside_wall, inside_cpu = (float(x) for x in floor[2].split())
            turns.append(((seconds, rss, cpu), (inside_wall, floor[1], inside_cpu), floor))
        compare = (
            min(t[0][0] for t in turns),
            max(t[0][1] for t in turns),
            min(t[0][2] for t in turns),
        )
        row("reportgen compare DIR_B DIR_C --json", *compare)
        floor_wall = min(t[1][0] for t in turns)
        floor_cpu = min(t[1][2] for t in turns)
        whole = min(turns, key=lambda t: t[1][2])[2]
        row(
            "floor: read+parse files, write its JSON",
            floor_wall,
            max(t[1][1] for t in turns),
            floor_cpu,
            f"timed inside its process, {whole[0]:.2f} s / {whole[3]:.2f} s cpu in all (the"
            f" {written.stat().st_size / 1e6:.0f} MB of JSON it writes are parsed first, untimed)",
        )
        for n, (ours, anchor, _) in enumerate(turns, start=1):
            print(
                f"  turn {n}: compare {ours[2]:.2f} s cpu, floor {anchor[2]:.2f} s cpu,"
                f" {ours[2] / anchor[2]:.2f}x",
                flush=True,
            )
        print(
            f"compare / floor: wall {compare[0] / floor_wall:.2f}x, cpu {compare[2] / floor_cpu:.2f}x",
            flush=True,
        )
        if args.only is not None:
            print(f"\n{args.files:,} files x {args.steps} steps per side, best of {args.repeat}")
            return
        gate = best([rg, "gate", "--db", str(db), "--json"], args.repeat)
        row("reportgen gate --json", *gate)
        site = tmp / "site"
        if not args.no_build:
            build = best(
                [rg, "build", "--db", str(db), "--out", str(site)],
                args.repeat,
                lambda: shutil.rmtree(site, ignore_errors=True),
            )
            row("reportgen build (fresh)", *build)
        if args.db_pairs > 0:
            pairs_db = tmp / "pairs.duckdb"
            _pairs_archive(pairs_db, args.db_pairs)
            argv = [rg, "compare", "--db", str(pairs_db), "--baseline-label", "b"]
            on_db = best([*argv, "--candidate-label", "c", "--json"], args.repeat)
            row(f"reportgen compare --db --json ({args.db_pairs:,} pairs)", *on_db)
        with tempfile.TemporaryDirectory() as typer_dir:
            bare_typer = Path(typer_dir) / "bare.py"
            bare_typer.write_text(BARE_TYPER)
            py = best([sys.executable, "-c", "pass"], 5)
            row("python -c pass", *py)
            typer_app = best([sys.executable, str(bare_typer), "--version"], 5)
            row("bare typer app --version", *typer_app)
        version = best([rg, "--version"], 5)
        row(
            "reportgen --version", *version, f"ratio to bare typer {version[0] / typer_app[0]:.2f}x"
        )

        python = os.environ.get("REPORTGEN_REF_AGENTDIFF_PYTHON") or (
            str(_DEFAULT_REF) if _DEFAULT_REF.exists() else None
        )
        if python is None or args.agentdiff_sample <= 0:
            print(
                "AgentDiff: skipped (--agentdiff-sample 0, or not installed: set REPORTGEN_REF_AGENTDIFF_PYTHON)"
            )
        else:
            sample = max(args.agentdiff_sample, args.agentdiff_cli_sample)
            pairs = agentdiff_files(root, tmp / "agentdiff", args.files, sample)
            cli_runs: list[tuple[float, float, float]] = []
            in_one = pairs[: args.agentdiff_sample]
            seconds, rss, last, cpu = measure([python, "-c", AGENTDIFF_RUNNER], json.dumps(in_one))
            per_pair = float(last) / len(in_one)
            whole = seconds - float(last) + per_pair * args.files
            row(
                f"AgentDiff 0.3.0, {len(in_one)} pairs in one process",
                seconds,
                rss,
                cpu,
                f"{per_pair:.3f} s/pair -> ~{whole:.0f} s for {args.files:,} pairs"
                f" (reportgen compare {whole / compare[0]:.0f}x faster; 100x: {whole / 100:.1f} s)",
            )
            cli = Path(python).parent / "agentdiff"
            for b, c in pairs[: args.agentdiff_cli_sample]:
                run = [str(cli), b, c, "--format", "json"]
                seconds, rss, _, cpu = measure(run)
                cli_runs.append((seconds, rss, cpu))
            if cli_runs:
                per_pair = sum(r[0] for r in cli_runs) / len(cli_runs)
                whole = per_pair * args.files
                row(
                    f"AgentDiff 0.3.0 CLI, {len(cli_runs)} pairs",
                    sum(r[0] for r in cli_runs),
                    max(r[1] for r in cli_runs),
                    sum(r[2] for r in cli_runs),
                    f"{per_pair:.3f} s/pair -> ~{whole:.0f} s for {args.files:,} pairs"
                    f" (reportgen compare {whole / compare[0]:.0f}x faster)",
                )
    print(f"\n{args.files:,} files x {args.steps} steps per side, best of {args.repeat}")


if __name__ == "__main__":
    main()
