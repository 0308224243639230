"""Divergence metrics for many baseline/candidate pairs at once, from the archive.

``pair_metrics`` stages the pairs and their runs (``sql/pair_runs.sql``), reads each run's own
totals (``sql/run_totals.sql``), checks the signature and payload hashes for collisions
(``sql/pair_metrics.sql``) and fetches every step once (``sql/step_signatures.sql``). Then one
vectorised pass over all pairs (numpy, :mod:`reportgen.metrics.udfs`) computes the alignment,
TDI, WEI, RSR, loops, deltas and diffs, and the rows are assembled as JSON-contract dicts with
the same numbers :func:`reportgen.metrics.trajectory.compare_pair` gives for the same two runs.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Final

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from reportgen.metrics.sql import load_sql
from reportgen.metrics.trajectory import DELTA_NOTES, Run, canonical_json, normalise_status
from reportgen.metrics.udfs import (
    Alignments,
    IntArray,
    Loops,
    align_slices,
    dense_codes,
    loops_batch,
    recovery_batch,
)

_INPUT_VIEW = "rg_pairs_input"
_STAGES = ("pairs", "pair_runs")
_WASTED_CODES = (1, 2, 3)  # status_code of error, retry, abandoned (step_signatures.sql)
_OTHER_STATUS = 4
_DIFF_NAMES: Final = np.array(["matched", "modified", "added", "removed"], dtype=object)
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class Pair:
    """A baseline run and a candidate run of one task to compare."""

    pair_id: str
    task_id: str
    baseline_run_id: str
    candidate_run_id: str


PairLike = Pair | tuple[Any, Any, str, str]


def _as_columns(pairs: Iterable[PairLike]) -> dict[str, list[Any]]:
    """The pairs as columns for an Arrow table; pair ids must be unique."""
    rows = [
        (p.pair_id, p.task_id, p.baseline_run_id, p.candidate_run_id)
        if isinstance(p, Pair)
        else tuple(p)
        for p in pairs
    ]
    ids = [r[0] for r in rows]
    if len(set(ids)) != len(ids):
        raise ValueError("pair_id values must be unique")
    names = ("pair_id", "task_id", "baseline_run_id", "candidate_run_id")
    return {name: [r[i] for r in rows] for i, name in enumerate(names)}


# --------------------------------------------------------------------------- per-run arrays


@dataclass(frozen=True, slots=True)
class _Steps:
    """Every step of the staged runs, run after run in step order (run ``r`` owns
    ``off[r]:off[r + 1]``), as dense codes plus the per-step facts the metrics need."""

    off: IntArray
    sig: IntArray
    payload: IntArray
    status: IntArray
    wasted: BoolArray
    label: npt.NDArray[np.object_]  # action of each step (the signature's action)


@dataclass(frozen=True, slots=True)
class _Totals:
    """Resolved totals per run: value arrays plus "known" masks (unknown = NULL)."""

    n_steps: IntArray
    n_wasted: IntArray
    tokens: IntArray
    tokens_known: BoolArray
    cost: FloatArray
    cost_known: BoolArray
    latency: FloatArray
    latency_known: BoolArray


def _np(col: pa.ChunkedArray | pa.Array, fill: Any = 0) -> npt.NDArray[Any]:
    """A column as numpy, NULLs replaced by ``fill``."""
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if arr.null_count:
        arr = pc.fill_null(arr, fill)
    return np.asarray(arr.to_numpy(zero_copy_only=False))


def _valid(col: pa.ChunkedArray) -> BoolArray:
    """True where the column is not NULL."""
    return np.asarray(pc.is_valid(col).to_numpy(zero_copy_only=False), dtype=bool)


def _placement(rn: IntArray, idx: IntArray, runs: int) -> tuple[IntArray, IntArray]:
    """Run offsets and, per fetched row, its place in run-then-step order (no sort when the
    step indices of every run are 0..n-1, as the archive writes them)."""
    counts = np.bincount(rn, minlength=runs).astype(np.int64)
    off = np.zeros(runs + 1, dtype=np.int64)
    np.cumsum(counts, out=off[1:])
    if rn.size == 0:
        return off, rn
    pos = off[rn] + idx
    if bool(np.all(pos[1:] == pos[:-1] + 1)) and pos[0] == 0:
        return off, pos  # already in run-then-step order: nothing to move
    if (
        idx.min() >= 0
        and bool(np.all(idx < counts[rn]))
        and bool(np.all(np.bincount(pos, minlength=rn.size) == 1))
    ):
        return off, pos
    order = np.lexsort((idx, rn))
    pos = np.empty(rn.size, dtype=np.int64)
    pos[order] = np.arange(rn.size, dtype=np.int64)
    return off, pos


def _fold(values: FloatArray, off: IntArray) -> FloatArray:
    """Per run, the left-to-right float sum of its values (as SQL and the reference fold)."""
    counts = np.diff(off)
    order = np.argsort(-counts, kind="stable")
    starts = off[:-1][order]
    live = np.searchsorted(-counts[order], -np.arange(int(counts.max(initial=0))), side="left")
    acc = np.zeros(counts.size, dtype=np.float64)
    for j, q in enumerate(live.tolist()):
        acc[:q] += values[starts[:q] + j]
    out = np.empty_like(acc)
    out[order] = acc
    return out


def _run_sum(values: IntArray, off: IntArray) -> IntArray:
    """Per run, the sum of its (integer) values."""
    csum = np.zeros(values.size + 1, dtype=np.int64)
    np.cumsum(values, out=csum[1:])
    return csum[off[1:]] - csum[off[:-1]]


def _placed(table: pa.Table, runs: int) -> tuple[IntArray, IntArray]:
    """Run offsets and the run-then-step place of each row of a (rn, idx) table."""
    return _placement(_np(table["rn"]).astype(np.int64), _np(table["idx"]).astype(np.int64), runs)


def _scatter(values: npt.NDArray[Any], pos: IntArray) -> npt.NDArray[Any]:
    """``values`` moved to their places ``pos`` (a permutation)."""
    if pos.size and pos[0] == 0 and bool(np.all(pos[1:] == pos[:-1] + 1)):
        return values
    out = np.empty_like(values)
    out[pos] = values
    return out


def _signatures(con: duckdb.DuckDBPyConnection, runs: int) -> _Steps:
    """Every step's signature and payload ids, status code and action, by run
    (``sql/step_signatures.sql``; other statuses are all 4 here, see :func:`_spell`)."""
    table = con.sql(load_sql("step_signatures")).to_arrow_table()
    groups = table["payloads"].combine_chunks()
    per_sig = _np(pc.list_value_length(groups)).astype(np.int64)
    members = pc.list_flatten(groups)
    per_group = _np(pc.list_value_length(members)).astype(np.int64)
    step = _np(pc.list_flatten(members)).astype(np.int64)
    sig_of_group = np.repeat(np.arange(per_sig.size, dtype=np.int64), per_sig)
    sig = np.repeat(sig_of_group, per_group)
    payload = np.repeat(np.arange(per_group.size, dtype=np.int64), per_group)
    off, pos = _placement(step >> 35, step & 0xFFFF_FFFF, runs)
    names = np.asarray(table["action"].to_numpy(zero_copy_only=False), dtype=object)
    sig = _scatter(sig, pos)
    status = _scatter((step >> 32) & 7, pos)
    wasted = (status >= _WASTED_CODES[0]) & (status <= _WASTED_CODES[-1])
    return _Steps(off, sig, _scatter(payload, pos), status, wasted, names[sig])


def _spell(con: duckdb.DuckDBPyConnection, steps: _Steps) -> _Steps:
    """``steps`` with each status other than the five known ones numbered by its spelling
    (4 + dense code), so that equal codes mean equal statuses."""
    runs = steps.off.size - 1
    spelled = con.sql(load_sql("pair_metrics"), params={"spell": True}).to_arrow_table()
    _, pos_s = _placed(spelled, runs)
    codes = _scatter(dense_codes(spelled["status_text"].combine_chunks()), pos_s)
    status = np.where(steps.status == _OTHER_STATUS, _OTHER_STATUS + codes, steps.status)
    return _Steps(steps.off, steps.sig, steps.payload, status, steps.wasted, steps.label)


def _load(con: duckdb.DuckDBPyConnection, runs: pa.Table, steps: _Steps) -> _Totals:
    """Fetch the other per-step facts of the staged runs once and resolve the run totals
    (``steps``: what :func:`_signatures` gave)."""
    n_runs = runs.num_rows
    off, wasted = steps.off, steps.wasted
    table = con.sql(load_sql("pair_metrics"), params={"spell": False}).to_arrow_table()
    off_b, pos = _placed(table, n_runs)
    rn = _np(table["rn"]).astype(np.int64)
    if not np.array_equal(off, off_b):
        raise RuntimeError("steps changed while the metrics read them")

    def from_steps(name: str, fill: Any, fold: bool) -> tuple[npt.NDArray[Any], BoolArray]:
        col = table[name]
        if col.null_count == len(col):
            return np.zeros(n_runs, dtype=np.float64 if fold else np.int64), np.zeros(n_runs, bool)
        # sums need no order: only the float folds place the values first
        given = np.bincount(rn, weights=_valid(col), minlength=n_runs) > 0
        if fold:
            return _fold(_scatter(_np(col, fill).astype(np.float64), pos), off), given
        sums = np.zeros(n_runs, dtype=np.int64)
        np.add.at(sums, rn, _np(col, fill).astype(np.int64))
        return sums, given

    def resolve(name: str, fill: Any, fold: bool) -> tuple[npt.NDArray[Any], BoolArray]:
        own = _valid(runs[name])
        step_vals, step_given = from_steps(name, fill, fold)
        return np.where(own, _np(runs[name], fill), step_vals), own | step_given

    t_in, t_in_k = resolve("tokens_in", 0, fold=False)
    t_out, t_out_k = resolve("tokens_out", 0, fold=False)
    cost, cost_k = resolve("cost_usd", 0.0, fold=True)
    lat, lat_k = resolve("latency_ms", 0.0, fold=True)
    return _Totals(
        n_steps=np.diff(off),
        n_wasted=_run_sum(wasted.astype(np.int64), off),
        tokens=np.where(t_in_k, t_in, 0).astype(np.int64)
        + np.where(t_out_k, t_out, 0).astype(np.int64),
        tokens_known=t_in_k | t_out_k,
        cost=cost.astype(np.float64),
        cost_known=cost_k,
        latency=lat.astype(np.float64),
        latency_known=lat_k,
    )


# --------------------------------------------------------------------------- all pairs at once


def _percent(
    b: npt.NDArray[Any], b_known: BoolArray, c: npt.NDArray[Any], c_known: BoolArray
) -> tuple[list[float | None], list[str | None]]:
    """Percentage change per pair, and the DELTA_NOTES key where it is undefined."""
    bf, cf = b.astype(np.float64), c.astype(np.float64)
    zero = b_known & (bf == 0)
    ok = b_known & c_known & ~zero
    with np.errstate(divide="ignore", invalid="ignore"):
        if b.dtype.kind in "iu":
            value = ((c - b).astype(np.float64) / np.where(ok, bf, 1.0)) * 100.0
        else:
            value = ((cf - bf) / np.where(ok, bf, 1.0)) * 100.0
    values: list[float | None] = [
        v if k else None for v, k in zip(value.tolist(), ok.tolist(), strict=True)
    ]
    reason = np.where(
        ~b_known,
        "baseline_unknown",
        np.where(~c_known, "candidate_unknown", np.where(zero, "baseline_zero", "")),
    )
    return values, [r or None for r in reason.tolist()]


def _step_metrics(
    steps: _Steps, b_run: IntArray, c_run: IntArray, al: Alignments
) -> dict[str, Any]:
    """Every metric of every pair that the steps alone give (pair p: runs b_run[p] and
    c_run[p], aligned as ``al``), as Python lists; the deltas come from :func:`_deltas`."""
    off = steps.off
    n_steps = np.diff(off)
    n_wasted = _run_sum(steps.wasted.astype(np.int64), off)
    n, m = n_steps[b_run], n_steps[c_run]
    pairs = b_run.size
    row_pair = np.repeat(np.arange(pairs, dtype=np.int64), np.diff(al.row_off))
    matched = (al.b >= 0) & (al.c >= 0)

    # RSR: both sides of every pair as 2 * pairs step sequences, aligned flags from the matches
    side_len = np.concatenate([n, m])
    side_off = np.zeros(2 * pairs + 1, dtype=np.int64)
    np.cumsum(side_len, out=side_off[1:])
    src = np.concatenate([off[b_run], off[c_run]])
    gather = np.repeat(src - side_off[:-1], side_len) + np.arange(int(side_off[-1]), dtype=np.int64)
    aligned = np.zeros(int(side_off[-1]), dtype=bool)
    aligned[side_off[:-1][row_pair[matched]] + al.b[matched]] = True
    aligned[side_off[pairs:-1][row_pair[matched]] + al.c[matched]] = True
    rec, unrec = recovery_batch(steps.wasted[gather], aligned, side_off)
    b_rec, c_rec = rec[:pairs], rec[pairs:]

    total = (n + m).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        tdi = np.where(total == 0, 0.0, 1.0 - (2.0 * al.lcs) / np.where(total == 0, 1.0, total))
        b_wei = np.where(n == 0, 0.0, n_wasted[b_run] / np.where(n == 0, 1, n))
        c_wei = np.where(m == 0, 0.0, n_wasted[c_run] / np.where(m == 0, 1, m))
        rsr = np.where(b_rec > 0, c_rec / np.where(b_rec > 0, b_rec, 1), c_rec.astype(np.float64))
    out: dict[str, Any] = {
        "trajectory_divergence_index": tdi.tolist(),
        "baseline_wei": b_wei.tolist(),
        "candidate_wei": c_wei.tolist(),
        "baseline_recovery_steps": b_rec.tolist(),
        "candidate_recovery_steps": c_rec.tolist(),
        "baseline_unrecovered_steps": unrec[:pairs].tolist(),
        "candidate_unrecovered_steps": unrec[pairs:].tolist(),
        "recovery_step_ratio": rsr.tolist(),
        "row_off": al.row_off.tolist(),
    }
    return out


def _diff_rows(
    steps: _Steps, b_run: IntArray, c_run: IntArray, al: Alignments
) -> list[dict[str, Any]]:
    """The step_diffs objects of all pairs, pair after pair (pair p owns the rows
    ``al.row_off[p]:al.row_off[p + 1]``)."""
    off = steps.off
    row_pair = np.repeat(np.arange(b_run.size, dtype=np.int64), np.diff(al.row_off))
    matched = (al.b >= 0) & (al.c >= 0)
    b_glob = off[b_run][row_pair] + al.b
    c_glob = off[c_run][row_pair] + al.c
    same = np.zeros(al.b.size, dtype=bool)
    bm, cm = b_glob[matched], c_glob[matched]
    same[matched] = (steps.status[bm] == steps.status[cm]) & (
        steps.payload[bm] == steps.payload[cm]
    )
    kind = np.where(al.b < 0, 2, np.where(al.c < 0, 3, np.where(same, 0, 1)))
    label = steps.label[np.where(al.b >= 0, b_glob, c_glob)]
    return [
        {"status": s, "baseline_index": bi, "candidate_index": ci, "action": a}
        for s, bi, ci, a in zip(
            _DIFF_NAMES[kind].tolist(), _nones(al.b), _nones(al.c), label.tolist(), strict=True
        )
    ]


def _deltas(totals: _Totals, b_run: IntArray, c_run: IntArray) -> dict[str, Any]:
    """The cost, token and latency deltas of every pair."""
    out: dict[str, Any] = {}
    for key, vals, known in (
        ("cost", totals.cost, totals.cost_known),
        ("token", totals.tokens, totals.tokens_known),
        ("latency", totals.latency, totals.latency_known),
    ):
        out[f"{key}_delta"] = _percent(vals[b_run], known[b_run], vals[c_run], known[c_run])
    return out


def _nones(x: IntArray) -> list[int | None]:
    """Python ints, None where negative (an object take: no int is created per row)."""
    if x.size == 0:
        return []
    values = np.empty(int(x.max(initial=0)) + 2, dtype=object)
    values[0] = None
    values[1:] = range(values.size - 1)
    return list(values[x + 1].tolist())


_LoopRow = tuple[int, int, int, list[str], bool]


def _run_loops(steps: _Steps, found: Loops) -> tuple[list[_LoopRow], list[int]]:
    """Loops of every run as (start, length, iterations, step names, stagnant) rows, run by
    run and by start, plus run offsets into them (run r owns rows off[r]:off[r + 1])."""
    runs = steps.off.size - 1
    off = np.zeros(runs + 1, dtype=np.int64)
    np.cumsum(np.bincount(found.seq, minlength=runs), out=off[1:])
    glob = steps.off[found.seq] + found.start
    ends = np.cumsum(found.length)
    name_idx = np.repeat(glob - ends + found.length, found.length)
    names = steps.label[name_idx + np.arange(int(ends[-1]) if ends.size else 0)].tolist()
    bounds = [0, *ends.tolist()]
    rows = list(
        zip(
            found.start.tolist(),
            found.length.tolist(),
            found.iterations.tolist(),
            [names[a:z] for a, z in pairwise(bounds)],
            found.stagnant.tolist(),
            strict=True,
        )
    )
    return rows, off.tolist()


def _run_totals_dicts(totals: _Totals) -> list[dict[str, Any]]:
    """The *_totals object of every run."""

    def opt(vals: npt.NDArray[Any], known: BoolArray) -> list[Any]:
        return [v if k else None for v, k in zip(vals.tolist(), known.tolist(), strict=True)]

    return [
        {"steps": s, "wasted_steps": w, "tokens": t, "cost_usd": c, "latency_ms": lat}
        for s, w, t, c, lat in zip(
            totals.n_steps.tolist(),
            totals.n_wasted.tolist(),
            opt(totals.tokens, totals.tokens_known),
            opt(totals.cost, totals.cost_known),
            opt(totals.latency, totals.latency_known),
            strict=True,
        )
    ]


def _assemble(
    columns: dict[str, list[Any]],
    b_run: list[int],
    c_run: list[int],
    metrics: dict[str, Any],
    loops: tuple[list[_LoopRow], list[int]],
    run_totals: list[dict[str, Any]],
    diffs: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """The JSON-contract dict of every pair (same keys, order and values as compare_pair)."""
    row_off = metrics["row_off"]
    loop_rows, loop_off = loops
    scalar_keys = (
        "trajectory_divergence_index",
        "baseline_wei",
        "candidate_wei",
        "baseline_recovery_steps",
        "candidate_recovery_steps",
        "baseline_unrecovered_steps",
        "candidate_unrecovered_steps",
        "recovery_step_ratio",
    )
    scalars = [metrics[k] for k in scalar_keys]
    deltas = [(key, what, *metrics[f"{key}_delta"]) for key, what in _DELTAS]
    out: list[dict[str, Any]] = []
    for p, (pid, task, b_id, c_id) in enumerate(
        zip(
            columns["pair_id"],
            columns["task_id"],
            columns["baseline_run_id"],
            columns["candidate_run_id"],
            strict=True,
        )
    ):
        br, cr = b_run[p], c_run[p]
        row: dict[str, Any] = {
            "pair_id": pid,
            "task_id": task,
            "baseline_run_id": b_id,
            "candidate_run_id": c_id,
        }
        for key, values in zip(scalar_keys[:3], scalars[:3], strict=True):
            row[key] = values[p]
        row["loops_detected"] = [
            {
                "side": side,
                "start_index": s,
                "length": k,
                "iterations": c,
                "steps": list(names),
                "stagnant": st,
            }
            for side, run in (("baseline", br), ("candidate", cr))
            for s, k, c, names, st in loop_rows[loop_off[run] : loop_off[run + 1]]
        ]
        for key, values in zip(scalar_keys[3:], scalars[3:], strict=True):
            row[key] = values[p]
        for key, what, values, reasons in deltas:
            row[f"{key}_delta_percentage"] = values[p]
            if reasons[p] is not None:
                row[f"{key}_delta_note"] = DELTA_NOTES[reasons[p]].format(what=what)
        row["step_diffs"] = diffs[row_off[p] : row_off[p + 1]]
        row["baseline_totals"] = dict(run_totals[br])
        row["candidate_totals"] = dict(run_totals[cr])
        out.append(row)
    return out


_DELTAS = (("cost", "cost"), ("token", "tokens"), ("latency", "latency"))


def pair_metrics(con: duckdb.DuckDBPyConnection, pairs: Sequence[PairLike]) -> list[dict[str, Any]]:
    """Every divergence metric of every pair, in the order given, as JSON-contract dicts.

    ``pairs`` are :class:`Pair` or ``(pair_id, task_id, baseline_run_id, candidate_run_id)``
    tuples. Stages the temp tables pairs and pair_runs (replaced, then dropped; tables of those
    names in the main schema are untouched), fetches every step of those runs once, and
    computes all pairs in one vectorised pass. Raises ValueError for duplicate pair ids or
    runs the archive lacks."""
    columns = _as_columns(pairs)
    if not columns["pair_id"]:
        return []
    created: list[str] = []
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="reportgen-metrics")
    gc_was_enabled = gc.isenabled()
    gc.disable()  # millions of small, acyclic dicts: collections would only rescan them
    try:
        con.register(_INPUT_VIEW, pa.table(columns))
        try:
            for name in _STAGES:
                source = f"SELECT * FROM {_INPUT_VIEW}" if name == "pairs" else load_sql(name)
                con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {source}")
                created.append(name)
            missing = [r[0] for r in con.execute(load_sql("pair_runs_missing")).fetchall()]
            if missing:
                shown = ", ".join(map(str, missing[:5])) + (" ..." if len(missing) > 5 else "")
                raise ValueError(f"{len(missing)} run(s) not in the archive: {shown}")
            runs = con.sql(load_sql("run_totals")).to_arrow_table()
            rn = dict(zip(runs["run_id"].to_pylist(), range(runs.num_rows), strict=True))
            b_run = [rn[r] for r in columns["baseline_run_id"]]
            c_run = [rn[r] for r in columns["candidate_run_id"]]
            b_arr, c_arr = np.array(b_run, dtype=np.int64), np.array(c_run, dtype=np.int64)
            steps = _signatures(con, runs.num_rows)
            # the alignment and then the diff objects need only the signatures: they run on
            # the other thread while DuckDB reads the remaining step facts (it releases the
            # GIL) and this thread folds the totals and scans for loops
            off = steps.off
            lengths = np.diff(off)
            aligning = pool.submit(
                align_slices,
                steps.sig,
                off[b_arr],
                lengths[b_arr],
                steps.sig,
                off[c_arr],
                lengths[c_arr],
            )
            spell = bool((steps.status == _OTHER_STATUS).any())
            diffing = (
                None
                if spell  # statuses other than the known five: compared once spelled
                else pool.submit(lambda: _diff_rows(steps, b_arr, c_arr, aligning.result()))
            )
            totals = _load(con, runs, steps)
            if spell:
                steps = _spell(con, steps)
        finally:
            for name in reversed(created):
                con.execute(f"DROP TABLE IF EXISTS temp.{name}")
            con.unregister(_INPUT_VIEW)
        found = loops_batch(steps.sig, steps.payload, off, dense=True)
        al = aligning.result()
        metrics = _step_metrics(steps, b_arr, c_arr, al)
        metrics.update(_deltas(totals, b_arr, c_arr))
        loops = _run_loops(steps, found)
        run_totals = _run_totals_dicts(totals)
        diffs = _diff_rows(steps, b_arr, c_arr, al) if diffing is None else diffing.result()
        return _assemble(columns, b_run, c_run, metrics, loops, run_totals, diffs)
    finally:
        pool.shutdown()
        if gc_was_enabled:
            gc.enable()


def insert_runs(
    con: duckdb.DuckDBPyConnection,
    runs: Mapping[str, Run],
    *,
    task_id: str = "task",
    suite: str = "adhoc",
) -> None:
    """Write in-memory runs (keyed by run_id) into the archive's runs and steps tables.

    For tests, benches and API callers that hold traces in Python; files go through ingest."""
    run_cols: dict[str, list[Any]] = {k: [] for k in _RUN_COLUMNS}
    step_cols: dict[str, list[Any]] = {k: [] for k in _STEP_COLUMNS}
    for run_id, run in runs.items():
        run_fields: tuple[tuple[str, Any], ...] = (
            ("run_id", run_id),
            ("task_id", task_id),
            ("suite", suite),
            ("tokens_in", run.tokens_in),
            ("tokens_out", run.tokens_out),
            ("cost_usd", run.cost_usd),
            ("latency_ms", run.latency_ms),
            ("n_steps", len(run.steps)),
        )
        for key, value in run_fields:
            run_cols[key].append(value)
        for idx, s in enumerate(run.steps):
            step_fields: tuple[tuple[str, Any], ...] = (
                ("run_id", run_id),
                ("idx", idx),
                ("type", s.type),
                ("action", s.action),
                ("input", None if s.input is None else canonical_json(s.input)),
                ("input_keys", list(s.signature[2])),
                ("output", None if s.output is None else canonical_json(s.output)),
                ("status", normalise_status(s.status)),
                ("tokens_in", s.tokens_in),
                ("tokens_out", s.tokens_out),
                ("cost_usd", s.cost_usd),
                ("latency_ms", s.latency_ms),
            )
            for key, value in step_fields:
                step_cols[key].append(value)
    con.register("rg_runs_input", pa.table(run_cols, schema=_RUN_SCHEMA))
    con.register("rg_steps_input", pa.table(step_cols, schema=_STEP_SCHEMA))
    try:
        con.execute(load_sql("insert_runs"))
        con.execute(load_sql("insert_steps"))
    finally:
        con.unregister("rg_runs_input")
        con.unregister("rg_steps_input")


_RUN_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("task_id", pa.string()),
        ("suite", pa.string()),
        ("tokens_in", pa.int64()),
        ("tokens_out", pa.int64()),
        ("cost_usd", pa.float64()),
        ("latency_ms", pa.float64()),
        ("n_steps", pa.int32()),
    ]
)
_STEP_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("idx", pa.int32()),
        ("type", pa.string()),
        ("action", pa.string()),
        ("input", pa.string()),
        ("input_keys", pa.list_(pa.string())),
        ("output", pa.string()),
        ("status", pa.string()),
        ("tokens_in", pa.int64()),
        ("tokens_out", pa.int64()),
        ("cost_usd", pa.float64()),
        ("latency_ms", pa.float64()),
    ]
)
_RUN_COLUMNS = tuple(_RUN_SCHEMA.names)
_STEP_COLUMNS = tuple(_STEP_SCHEMA.names)
