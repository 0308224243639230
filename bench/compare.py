"""Benchmark: every divergence metric for 10,000 task pairs of ~200 steps, from the archive.

Seeded. A vectorised generator (the distribution of ``bench/divergence.py``: a shared plan per
task; each run inserts detours, repeats steps and fails at random) writes the runs straight
into an in-memory archive as Arrow columns. Then:

* ``pair_metrics`` over all pairs (pairing already done; the full JSON contract, step_diffs
  included) is timed, wall and CPU; loading the archive is reported separately;
* a pure-Python DP per pair (``bench/divergence.py``'s ``naive_compare``: full table,
  traceback, loop scan, window walk; fewer metrics than ``pair_metrics``) is timed on a sample
  and extrapolated to all pairs;
* AgentDiff 0.3.0 (``$REPORTGEN_REF_AGENTDIFF_PYTHON``, else ``/work/refvenv-diff/bin/python``)
  is timed on a sample in its own interpreter (``compare`` only, parsing excluded) and
  extrapolated;
* the sample's results are checked against ``compare_pair`` (exact equality).

    PYTHONPATH=. /work/venv/bin/python bench/compare.py [--pairs 10000] [--steps 200]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).resolve().parent))

from divergence import naive_compare

from reportgen.archive.connection import connect
from reportgen.divergence.agentdiff_export import to_agentdiff_trace
from reportgen.divergence.metrics import Pair, pair_metrics
from reportgen.divergence.reference import Run, Step, compare_pair

N_ACTIONS = 30
KEY_SETS: tuple[tuple[str, ...], ...] = (
    (),
    ("a",),
    ("b",),
    ("c",),
    ("a", "b"),
    ("a", "c"),
    ("b", "c"),
)
# rng.sample(["a", "b", "c"], randrange(3)): size 0, 1 or 2 with probability 1/3 each
KEY_SET_P = np.array([3, 1, 1, 1, 1, 1, 1], dtype=float) / 9.0
OUTPUTS: tuple[str | None, ...] = ('"done"', '"same"', None)
STATUSES = ("ok", "error", "retry", "abandoned")
STATUS_P = np.array([17, 1, 1, 1], dtype=float) / 20.0
_DEFAULT_REF = Path("/work/refvenv-diff/bin/python")


def _input_texts() -> list[str]:
    """Every input JSON text the generator can write: (key set, values) combinations, then
    the detours' {"q": 0..2}. Index = key_set * 4 + value bits, detours at 28 + q."""
    texts: list[str] = []
    for keys in KEY_SETS:
        for bits in range(4):
            values = {k: (bits >> n) & 1 for n, k in enumerate(keys)}
            texts.append(json.dumps(values, separators=(",", ":")))
    texts.extend(json.dumps({"q": q}).replace(" ", "") for q in range(3))
    return texts


def make_archive(
    con: duckdb.DuckDBPyConnection, n_pairs: int, n_steps: int, seed: int
) -> list[Pair]:
    """Write 2 * n_pairs seeded runs into the archive on ``con``; return the pairs."""
    rng = np.random.default_rng(seed)
    plan_len = max(1, int(n_steps * 0.85))
    plan_action = rng.integers(0, N_ACTIONS, size=(n_pairs, plan_len))
    plan_keys = rng.choice(len(KEY_SETS), size=(n_pairs, plan_len), p=KEY_SET_P)
    n_runs = 2 * n_pairs
    # per run and plan step: a detour before it (5 %), then 1 step, or 2-4 repeats (5 %)
    detour = rng.random((n_runs, plan_len)) < 0.05
    repeats = 1 + (rng.random((n_runs, plan_len)) < 0.05) * rng.integers(1, 4, (n_runs, plan_len))
    per_plan = detour.astype(np.int64) + repeats
    run_len = per_plan.sum(axis=1)
    total = int(run_len.sum())
    # flatten: for each (run, plan step) emit the detour (if any) then the repeats
    slot_run = np.repeat(np.arange(n_runs), plan_len)
    slot_plan = np.tile(np.arange(plan_len), n_runs)
    counts = per_plan.ravel()
    step_slot = np.repeat(np.arange(counts.size), counts)
    first = np.cumsum(counts) - counts
    within = np.arange(total) - first[step_slot]
    is_detour = detour.ravel()[step_slot] & (within == 0)
    run = slot_run[step_slot]
    pair = run // 2
    pa_idx = plan_action[pair, slot_plan[step_slot]]
    pk_idx = plan_keys[pair, slot_plan[step_slot]]
    action = np.where(is_detour, rng.integers(0, N_ACTIONS, total), pa_idx)
    input_id = np.where(
        is_detour, 28 + rng.integers(0, 3, total), pk_idx * 4 + rng.integers(0, 4, total)
    )
    # keys absent from a key set have no value bits: keep only the bits of present keys
    n_keys = np.array([len(k) for k in KEY_SETS])[pk_idx]
    input_id = np.where(is_detour, input_id, pk_idx * 4 + (input_id % 4) % (1 << n_keys))
    step_type = np.where((action % 10 == 0) & ~is_detour, 0, 1)  # llm_call for tool_*0 plans
    idx = np.arange(total) - np.repeat(np.cumsum(run_len) - run_len, run_len)

    actions = pa.array([f"tool_{i}" for i in range(N_ACTIONS)])
    texts = pa.array(_input_texts())
    key_lists = pa.array([list(k) for k in KEY_SETS] + [["q"]], type=pa.list_(pa.string()))
    key_id = np.where(is_detour, len(KEY_SETS), pk_idx)
    run_ids = pa.array([("b" if r % 2 == 0 else "c") + str(r // 2) for r in range(n_runs)])
    steps = pa.table(
        {
            "run_id": pc.take(run_ids, pa.array(run)),
            "idx": pa.array(idx.astype(np.int32)),
            "type": pc.take(pa.array(["llm_call", "tool_call"]), pa.array(step_type)),
            "action": pc.take(actions, pa.array(action)),
            "input": pc.take(texts, pa.array(input_id)),
            "input_keys": pc.take(key_lists, pa.array(key_id)),
            "output": pc.take(
                pa.array(OUTPUTS, type=pa.string()), pa.array(rng.integers(0, 3, total))
            ),
            "status": pc.take(pa.array(STATUSES), pa.array(rng.choice(4, size=total, p=STATUS_P))),
            "tokens_in": pa.array(rng.integers(50, 500, total)),
            "tokens_out": pa.array(rng.integers(10, 200, total)),
            "cost_usd": pa.array(rng.random(total) / 1000),
            "latency_ms": pa.array(rng.integers(50, 2000, total).astype(np.float64)),
        }
    )
    runs = pa.table(
        {
            "run_id": run_ids,
            "task_id": pa.array([f"task{r // 2}" for r in range(n_runs)]),
            "n_steps": pa.array(run_len.astype(np.int32)),
        }
    )
    con.register("bench_steps", steps)
    con.register("bench_runs", runs)
    try:
        con.execute(
            "INSERT INTO runs (run_id, suite, label, task_id, batch, trial, n_steps, format, "
            "source_file, content_hash) SELECT run_id, 'bench', left(run_id, 1), task_id, "
            "'adhoc', 0, n_steps, 'python', '<bench>', md5(run_id) FROM bench_runs"
        )
        con.execute(
            "INSERT INTO steps (run_id, idx, type, action, input, input_keys, output, status, "
            "tokens_in, tokens_out, cost_usd, latency_ms, signature, payload) SELECT run_id, "
            "idx, type, action, CAST(input AS JSON), input_keys, CAST(output AS JSON), status, "
            "tokens_in, tokens_out, cost_usd, latency_ms, "
            "rg_step_signature(type, action, input_keys), "
            "rg_step_payload(CAST(input AS JSON), CAST(output AS JSON)) FROM bench_steps"
        )
    finally:
        con.unregister("bench_steps")
        con.unregister("bench_runs")
    return [Pair(f"p{p}", f"task{p}", f"b{p}", f"c{p}") for p in range(n_pairs)]


def read_runs(con: duckdb.DuckDBPyConnection, run_ids: list[str]) -> dict[str, Run]:
    """Runs of the archive as in-memory Run objects (for the sample timings and checks)."""
    rows = con.execute(
        "SELECT run_id, type, action, CAST(input AS VARCHAR), CAST(output AS VARCHAR), status, "
        "tokens_in, tokens_out, cost_usd, latency_ms FROM steps WHERE list_contains(?, run_id) "
        "ORDER BY run_id, idx",
        [run_ids],
    ).fetchall()
    steps: dict[str, list[Step]] = {r: [] for r in run_ids}
    for rid, typ, act, inp, out, status, t_in, t_out, cost, lat in rows:
        steps[rid].append(
            Step(
                typ,
                act,
                None if inp is None else json.loads(inp),
                None if out is None else json.loads(out),
                status,
                t_in,
                t_out,
                cost,
                lat,
            )
        )
    return {r: Run(tuple(s)) for r, s in steps.items()}


# Validates all traces first, then times compare() alone (wall and CPU) and prints them.
_AGENTDIFF_RUNNER = """
import json, sys, time
from agentdiff import AgentTrace, compare
cases = [(AgentTrace.model_validate(c["baseline"]), AgentTrace.model_validate(c["candidate"]))
         for c in json.load(sys.stdin)]
t0, c0 = time.perf_counter(), time.process_time()
reports = [compare(b, c) for b, c in cases]
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                  "tdi": [r.trajectory_divergence_index for r in reports]}))
"""


def time_agentdiff(pairs: list[tuple[Run, Run]]) -> dict[str, Any] | None:
    """AgentDiff 0.3.0's compare() on the pairs, in its own interpreter; None if not installed."""
    python = os.environ.get("REPORTGEN_REF_AGENTDIFF_PYTHON") or (
        str(_DEFAULT_REF) if _DEFAULT_REF.exists() else None
    )
    if python is None:
        return None
    payload = [
        {
            "baseline": to_agentdiff_trace(b, "b", wrap_outputs=True),
            "candidate": to_agentdiff_trace(c, "c", wrap_outputs=True),
        }
        for b, c in pairs
    ]
    proc = subprocess.run(
        [python, "-c", _AGENTDIFF_RUNNER],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"AgentDiff failed: {proc.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    """Build the archive, time pair_metrics and the references, print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="time pair_metrics this many times")
    parser.add_argument("--naive-sample", type=int, default=100)
    parser.add_argument("--agentdiff-sample", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2, help="DuckDB threads")
    args = parser.parse_args()

    con = connect(None)
    con.execute(f"SET threads = {args.threads}")
    t0, c0 = time.perf_counter(), time.process_time()
    pairs = make_archive(con, args.pairs, args.steps, args.seed)
    load_wall, load_cpu = time.perf_counter() - t0, time.process_time() - c0
    (n_steps,) = con.execute("SELECT count(*) FROM steps").fetchall()[0]
    rss_load = peak_rss_mb()
    print(
        f"archive: {len(pairs):,} pairs, {2 * len(pairs):,} runs, {n_steps:,} steps "
        f"(mean {n_steps / (2 * len(pairs)):.1f}/run); generated and loaded in "
        f"{load_wall:.2f} s wall, {load_cpu:.2f} s CPU; peak RSS {rss_load:.0f} MB"
    )

    walls, cpus = [], []
    results: list[dict[str, Any]] = []
    for _ in range(max(1, args.repeat)):
        results = []
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        results = pair_metrics(con, pairs)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    wall, cpu = min(walls), min(cpus)
    rss = peak_rss_mb()
    print(
        f"pair_metrics, all metrics (TDI, WEI, loops, RSR, unrecovered, deltas, step_diffs), "
        f"{args.threads} DuckDB threads: best of {len(walls)}: {wall:.2f} s wall "
        f"({', '.join(f'{w:.2f}' for w in walls)}), {cpu:.2f} s CPU "
        f"({', '.join(f'{c:.2f}' for c in cpus)}); {len(pairs) / wall:,.0f} pairs/s wall, "
        f"{len(pairs) / cpu:,.0f} pairs/s CPU; peak RSS {rss:.0f} MB (+{rss - rss_load:.0f} MB "
        f"over the loaded archive)"
    )

    n_sample = max(args.naive_sample, args.agentdiff_sample)
    sample = pairs[:n_sample]
    runs = read_runs(con, [r for p in sample for r in (p.baseline_run_id, p.candidate_run_id)])
    for p, got in zip(sample, results, strict=False):
        b, c = runs[p.baseline_run_id], runs[p.candidate_run_id]
        expected = compare_pair(b, c)
        assert {k: v for k, v in got.items() if k in expected} == expected, p.pair_id
    print(f"checked: pair_metrics == compare_pair on the first {len(sample):,} pairs")

    naive_pairs = sample[: max(1, args.naive_sample)]
    t0, c0 = time.perf_counter(), time.process_time()
    for p in naive_pairs:
        naive_compare(runs[p.baseline_run_id], runs[p.candidate_run_id])
    n_wall = (time.perf_counter() - t0) / len(naive_pairs) * len(pairs)
    n_cpu = (time.process_time() - c0) / len(naive_pairs) * len(pairs)
    print(
        f"pure-Python DP (TDI, recovery, loops only), timed on {len(naive_pairs)} pairs and "
        f"extrapolated to {len(pairs):,}: {n_wall:.1f} s wall, {n_cpu:.1f} s CPU -> "
        f"pair_metrics is {n_wall / wall:.0f}x faster (wall), {n_cpu / cpu:.0f}x (CPU)"
    )

    ad_pairs = sample[: args.agentdiff_sample]
    if not ad_pairs:
        return
    ref = time_agentdiff([(runs[p.baseline_run_id], runs[p.candidate_run_id]) for p in ad_pairs])
    if ref is None:
        print("AgentDiff: not installed (set REPORTGEN_REF_AGENTDIFF_PYTHON); skipped")
        return
    for p, got, tdi in zip(ad_pairs, results, ref["tdi"], strict=False):
        assert got["trajectory_divergence_index"] == tdi, p.pair_id
    a_wall = ref["wall"] / len(ad_pairs) * len(pairs)
    a_cpu = ref["cpu"] / len(ad_pairs) * len(pairs)
    print(
        f"AgentDiff 0.3.0 compare(), timed on {len(ad_pairs)} pairs "
        f"({ref['wall'] / len(ad_pairs):.3f} s/pair) and extrapolated to {len(pairs):,}: "
        f"{a_wall:.0f} s wall, {a_cpu:.0f} s CPU -> pair_metrics is {a_wall / wall:.0f}x "
        f"faster (wall), {a_cpu / cpu:.0f}x (CPU); same TDI on the sample"
    )


if __name__ == "__main__":
    main()
