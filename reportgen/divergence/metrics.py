"""Divergence metrics for many baseline/candidate pairs at once, from the archive.

``pair_metrics`` stages the pairs and their runs (``sql/pair_runs.sql``), reads each run's own
totals (``sql/run_totals.sql``) and every step once (``sql/step_facts.sql``: signature and
payload hashes, status, numbers). Then one pass over all pairs (numpy plus the compiled
kernels of :mod:`reportgen.divergence.udfs`) computes the alignment, TDI, WEI, RSR, loops, deltas
and diffs, and the rows are assembled as JSON-contract dicts with the same numbers
:func:`reportgen.divergence.reference.compare_pair` gives for the same two runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any, Final, cast

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from reportgen._gc import collector_paused
from reportgen._sql import load_sql
from reportgen.archive import arrow
from reportgen.archive.arrow import STEP_ROWS
from reportgen.archive.connection import define_step_hashes
from reportgen.divergence import _kernels, formulas
from reportgen.divergence.records import (
    DIFF_STATUSES,
    DiffRows,
    PairRecord,
    RunTotals,
    StepDiff,
)
from reportgen.divergence.reference import (
    DELTA_NOTES,
    Run,
    canonical_json,
    normalise_status,
)
from reportgen.divergence.udfs import (
    Alignments,
    IntArray,
    Loops,
    align_slices,
    dense_codes,
    loops_batch,
    pair_recovery,
)

_INPUT_VIEW = "rg_pairs_input"
_STAGES = ("pairs", "pair_runs")
_WASTED_CODES = (1, 2, 3)  # status_code of error, retry, abandoned (step_facts.sql)
_OTHER_STATUS = 4
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
    payload: IntArray  # input and output: stagnant loops, identical calls
    state: IntArray  # payload and error message: matched or modified
    status: IntArray
    wasted: BoolArray
    actions: list[str]  # action of each signature (labels diff rows and loop steps)
    order: IntArray  # per run, its step indices in alignment order (reference.alignment_order)
    cycle: BoolArray  # per run: its parent links form a cycle (aligned in step order)
    reordered: bool  # some run's alignment order is not its step order


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
    return arrow.to_numpy(col, fill)


def _valid(col: pa.ChunkedArray) -> BoolArray:
    """True where the column is not NULL."""
    return arrow.valid(col.combine_chunks())


def _placement(
    rn: npt.NDArray[np.int32], idx: npt.NDArray[np.int32], runs: int
) -> tuple[IntArray, IntArray]:
    """Run offsets and, per fetched row, its place in run-then-step order: computed directly
    when the step indices of every run are 0..n-1, as the archive writes them, else by sort."""
    off = np.zeros(runs + 1, dtype=np.int64)
    pos = np.empty(rn.size, dtype=np.int64)
    if _kernels.place_rows(rn, idx, off, pos):
        return off, pos
    np.cumsum(np.bincount(rn, minlength=runs), out=off[1:])
    order = np.lexsort((idx, rn))
    pos[order] = np.arange(rn.size, dtype=np.int64)
    return off, pos


def _run_sum(values: IntArray, off: IntArray) -> IntArray:
    """Per run, the sum of its (integer) values."""
    csum = np.zeros(values.size + 1, dtype=np.int64)
    np.cumsum(values, out=csum[1:])
    return csum[off[1:]] - csum[off[:-1]]


def _placed(table: pa.Table, runs: int) -> tuple[IntArray, IntArray]:
    """Run offsets and the run-then-step place of each row of a (rn, idx) table."""
    return _placement(_int32(table["rn"]), _int32(table["idx"]), runs)


def _int32(col: pa.ChunkedArray) -> npt.NDArray[np.int32]:
    """A non-NULL integer column as contiguous int32."""
    return np.ascontiguousarray(_np(col), dtype=np.int32)


def _scatter(values: npt.NDArray[Any], pos: IntArray) -> npt.NDArray[Any]:
    """``values`` moved to their places ``pos`` (a permutation)."""
    if pos.size and pos[0] == 0 and bool(np.all(pos[1:] == pos[:-1] + 1)):
        return values
    out = np.empty_like(values)
    out[pos] = values
    return out


def _facts(con: duckdb.DuckDBPyConnection, runs: int) -> tuple[_Steps, pa.Table, IntArray]:
    """Every step of the staged runs (``sql/step_facts.sql``), read once: the per-step arrays
    the metrics need, plus the fetched table and each row's place (for :func:`_totals`).
    Statuses other than the known five are all 4 here (see :func:`_spell`)."""
    missing = con.sql(load_sql("step_hashes_missing")).fetchall()[0][0]
    table = con.sql(load_sql("step_facts"), params={"computed": missing}).to_arrow_table()
    off, pos = _placed(table, runs)
    encoded = pc.dictionary_encode(table["signature"].combine_chunks())
    codes = _np(encoded.indices).astype(np.int64)
    # a signature's action is any of its steps' action (the signature includes the action)
    some_step = np.zeros(len(encoded.dictionary), dtype=np.int64)
    some_step[codes] = np.arange(codes.size, dtype=np.int64)
    actions = table["action"].take(arrow.numbers(some_step, pa.int64())).to_pylist()
    sig = _scatter(codes, pos)
    payload = _scatter(_np(table["payload"]).view(np.int64), pos)
    state = _scatter(_np(table["state"]).view(np.int64), pos)
    status = _scatter(_np(table["status_code"]).astype(np.int64), pos)
    wasted = (status >= _WASTED_CODES[0]) & (status <= _WASTED_CODES[-1])
    parent = _scatter(_np(table["parent"], -1).astype(np.int64), pos)
    order = np.empty(parent.size, dtype=np.int64)
    cycle = np.zeros(runs, dtype=np.int8)
    moved = bool(_kernels.alignment_orders(parent, off, order, cycle))
    steps = _Steps(
        off, sig, payload, state, status, wasted, actions, order, cycle.view(bool), moved
    )
    return steps, table, pos


def _spell(con: duckdb.DuckDBPyConnection, steps: _Steps) -> _Steps:
    """``steps`` with each status other than the five known ones numbered by its spelling
    (4 + dense code), so that equal codes mean equal statuses."""
    runs = steps.off.size - 1
    spelled = con.sql(load_sql("step_statuses")).to_arrow_table()
    _, pos_s = _placed(spelled, runs)
    codes = _scatter(dense_codes(spelled["status_text"].combine_chunks()), pos_s)
    status = np.where(steps.status == _OTHER_STATUS, _OTHER_STATUS + codes, steps.status)
    return replace(steps, status=status)


def _totals(runs: pa.Table, steps: _Steps, table: pa.Table, pos: IntArray) -> _Totals:
    """Each run's totals: its own where it gives them, else the sums of its steps (``table``
    and ``pos``: what :func:`_facts` read)."""
    n_runs = runs.num_rows
    off, wasted = steps.off, steps.wasted
    rn = _int32(table["rn"])

    def from_steps(name: str, fold: bool) -> tuple[npt.NDArray[Any], BoolArray]:
        col = table[name]
        given = np.zeros(n_runs, dtype=np.int8)
        valid = np.ascontiguousarray(_valid(col)).view(np.int8)
        if fold:
            folds = np.zeros(n_runs, dtype=np.float64)
            values = np.ascontiguousarray(_np(col, 0.0), dtype=np.float64)
            _kernels.run_folds(rn, pos, off, values, valid, folds, given)
            return folds, given.view(bool)
        sums = np.zeros(n_runs, dtype=np.int64)
        _kernels.run_sums(rn, np.ascontiguousarray(_np(col), dtype=np.int64), valid, sums, given)
        return sums, given.view(bool)

    empty = np.diff(off) == 0  # a run without steps that gives no total spent nothing

    def resolve(name: str, fill: Any, fold: bool) -> tuple[npt.NDArray[Any], BoolArray]:
        own = _valid(runs[name])
        step_vals, step_given = from_steps(name, fold)
        return np.where(own, _np(runs[name], fill), step_vals), own | step_given | empty

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
    # a change that overflows a float is undefined (null, "not_finite"), as in pct_delta
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if b.dtype.kind in "iu":
            value = ((c - b).astype(np.float64) / np.where(ok, bf, 1.0)) * 100.0
        else:
            value = ((cf - bf) / np.where(ok, bf, 1.0)) * 100.0
    huge = ok & ~np.isfinite(value)
    ok &= ~huge
    values: list[float | None] = [
        v if k else None for v, k in zip(value.tolist(), ok.tolist(), strict=True)
    ]
    reason = np.where(
        ~b_known,
        "baseline_unknown",
        np.where(
            ~c_known,
            "candidate_unknown",
            np.where(zero, "baseline_zero", np.where(huge, "not_finite", "")),
        ),
    )
    return values, [r or None for r in reason.tolist()]


def _step_metrics(
    steps: _Steps, totals: _Totals, b_run: IntArray, c_run: IntArray, al: Alignments
) -> dict[str, Any]:
    """Every metric of every pair that the steps give (pair p: runs b_run[p] and c_run[p],
    aligned as ``al``; step counts from ``totals``), as Python lists; the deltas come from
    :func:`_deltas`."""
    off, n_steps, n_wasted = steps.off, totals.n_steps, totals.n_wasted
    n, m = n_steps[b_run], n_steps[c_run]
    b_rec, b_unrec, c_rec, c_unrec = pair_recovery(steps.wasted, al, off[b_run], n, off[c_run], m)
    tdi = formulas.tdi(al.lcs, n + m)
    b_wei = formulas.wei(n_wasted[b_run], n)
    c_wei = formulas.wei(n_wasted[c_run], m)
    with np.errstate(divide="ignore", invalid="ignore"):
        rsr = np.where(b_rec > 0, c_rec / np.where(b_rec > 0, b_rec, 1), c_rec.astype(np.float64))
    out: dict[str, Any] = {
        "trajectory_divergence_index": tdi.tolist(),
        "baseline_wei": b_wei.tolist(),
        "candidate_wei": c_wei.tolist(),
        "baseline_recovery_steps": b_rec.tolist(),
        "candidate_recovery_steps": c_rec.tolist(),
        "baseline_unrecovered_steps": b_unrec.tolist(),
        "candidate_unrecovered_steps": c_unrec.tolist(),
        "recovery_step_ratio": rsr.tolist(),
    }
    return out


def _diff_rows(steps: _Steps, b_run: IntArray, c_run: IntArray, al: Alignments) -> DiffRows:
    """The step_diffs rows of every pair as arrays: a row of two steps is matched when their
    statuses and states are equal, else modified; the action is its step's (baseline first)."""
    off = steps.off
    pair = np.repeat(np.arange(b_run.size, dtype=np.int64), np.diff(al.row_off))
    has_b, has_c = al.b >= 0, al.c >= 0
    gb = np.where(has_b, off[b_run][pair] + al.b, 0)
    gc = np.where(has_c, off[c_run][pair] + al.c, 0)
    same = (steps.status[gb] == steps.status[gc]) & (steps.state[gb] == steps.state[gc])
    kind = np.where(~has_b, 2, np.where(~has_c, 3, np.where(same, 0, 1))).astype(np.int8)
    action = np.where(has_b, steps.sig[gb], steps.sig[gc]).astype(np.int64)
    return DiffRows(
        np.ascontiguousarray(al.row_off, dtype=np.int64),
        kind,
        np.ascontiguousarray(al.b, dtype=np.int64),
        np.ascontiguousarray(al.c, dtype=np.int64),
        action,
        steps.actions,
    )


def step_diff_dicts(rows: DiffRows) -> list[list[StepDiff]]:
    """The step_diffs list of every pair of ``rows`` (compiled: ``_kernels.diff_lists``)."""
    return cast(
        list[list[StepDiff]],
        _kernels.diff_lists(
            rows.off, rows.kind, rows.b, rows.c, rows.action, rows.actions, DIFF_STATUSES
        ),
    )


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
    actions = steps.actions
    labels = steps.sig[name_idx + np.arange(int(ends[-1]) if ends.size else 0)].tolist()
    names = [actions[x] for x in labels]
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


def _run_totals_dicts(totals: _Totals) -> list[RunTotals]:
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
    run_totals: list[RunTotals],
) -> list[PairRecord]:
    """The JSON-contract dict of every pair (same keys, order and values as compare_pair),
    its step_diffs left empty (see :func:`_diff_rows`)."""
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
        "baseline_identical_calls",
        "candidate_identical_calls",
        "first_divergence",
        "baseline_parent_cycle",
        "candidate_parent_cycle",
    )
    scalars = [metrics[k] for k in scalar_keys]
    deltas = [(key, what, *metrics[f"{key}_delta"]) for key, what in _DELTAS]
    out: list[PairRecord] = []
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
        row["step_diffs"] = []
        row["baseline_totals"] = dict(run_totals[br])
        row["candidate_totals"] = dict(run_totals[cr])
        out.append(cast(PairRecord, row))
    return out


_DELTAS = (("cost", "cost"), ("token", "tokens"), ("latency", "latency"))


#: Pairs per chunk at most: one chunk's steps are read (DuckDB) while the previous chunk is
#: computed.
CHUNK_PAIRS: Final = 5000
#: Steps per chunk, about (the steps of its pairs' runs): what bounds a chunk's memory.
CHUNK_STEPS: Final = 500_000


@dataclass(frozen=True, slots=True)
class _Chunk:
    """What the archive gives for one chunk of pairs: the pairs, their runs' own totals, and
    every step of those runs (``facts`` and ``pos``: the fetched table and each row's place)."""

    columns: dict[str, list[Any]]
    b_run: list[int]
    c_run: list[int]
    runs: pa.Table
    steps: _Steps
    facts: pa.Table
    pos: IntArray


def _read(con: duckdb.DuckDBPyConnection, columns: dict[str, list[Any]]) -> _Chunk:
    """Stage the pairs and their runs (temp tables pairs and pair_runs, replaced and then
    dropped; tables of those names in the main schema are untouched) and read them."""
    created: list[str] = []
    define_step_hashes(con)  # any connection with the archive's tables will do
    con.register(_INPUT_VIEW, arrow.table({k: arrow.strings(v) for k, v in columns.items()}))
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
        steps, facts, pos = _facts(con, runs.num_rows)
        if bool((steps.status == _OTHER_STATUS).any()):
            steps = _spell(con, steps)  # statuses other than the known five
    finally:
        for name in reversed(created):
            con.execute(f"DROP TABLE IF EXISTS temp.{name}")
        con.unregister(_INPUT_VIEW)
    b_run = [rn[r] for r in columns["baseline_run_id"]]
    c_run = [rn[r] for r in columns["candidate_run_id"]]
    return _Chunk(columns, b_run, c_run, runs, steps, facts, pos)


def _in_order(steps: _Steps, values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Per-step ``values`` with each run's steps in alignment order (as they are when no run
    has parents, the common case: no copy then)."""
    if not steps.reordered:
        return values
    return np.asarray(values[steps.off[_seg(steps.off)] + steps.order])


def _seg(off: IntArray) -> IntArray:
    """For each step, the index of its run."""
    return np.repeat(np.arange(off.size - 1, dtype=np.int64), np.diff(off))


def _to_step_index(
    steps: _Steps, start: IntArray, al_rows: IntArray, row_off: IntArray
) -> IntArray:
    """Alignment rows (positions in alignment order, -1 none) as step indices of their runs;
    pair p's rows ``row_off[p]:row_off[p + 1]`` belong to the run starting at ``start[p]``."""
    if not steps.reordered or not al_rows.size:
        return al_rows
    base = np.repeat(start, np.diff(row_off))
    out = steps.order[np.where(al_rows >= 0, base + al_rows, 0)]
    return np.where(al_rows >= 0, out, -1)


def _identical_calls(steps: _Steps) -> IntArray:
    """Per run, the steps that repeat an earlier step of the run with the same signature and
    payload (reference.identical_calls), anywhere in the run (compiled, run by run)."""
    out = np.zeros(steps.off.size - 1, dtype=np.int64)
    _kernels.identical_calls(steps.sig, steps.payload, steps.off, out)
    return out


def _first_divergence(
    steps: _Steps, sig_o: IntArray, b_arr: IntArray, c_arr: IntArray
) -> list[dict[str, int | None] | None]:
    """Where each pair's two step sequences (in alignment order) first differ."""
    off, lengths = steps.off, np.diff(steps.off)
    b_start, c_start = off[b_arr], off[c_arr]
    n, m = lengths[b_arr], lengths[c_arr]
    k = np.zeros(b_arr.size, dtype=np.int64)
    _kernels.common_prefixes(sig_o, b_start, n, c_start, m, k)
    order = steps.order
    out: list[dict[str, int | None] | None] = []
    for p, pos in enumerate(k.tolist()):
        if pos < 0:
            out.append(None)
            continue
        out.append(
            {
                "position": pos,
                "baseline_index": int(order[b_start[p] + pos]) if pos < n[p] else None,
                "candidate_index": int(order[c_start[p] + pos]) if pos < m[p] else None,
            }
        )
    return out


def _compute(chunk: _Chunk, pool: ThreadPoolExecutor) -> tuple[list[PairRecord], DiffRows]:
    """Every metric of every pair of the chunk, and its step_diffs rows as arrays. The alignment (compiled, it releases the GIL)
    runs on ``pool`` while this thread resolves the totals and scans for loops. Alignment,
    TDI, RSR and the first divergence use each run's alignment order (AgentDiff's order of
    nested steps); loops, identical calls and the indices reported use step order."""
    steps = chunk.steps
    b_arr = np.array(chunk.b_run, dtype=np.int64)
    c_arr = np.array(chunk.c_run, dtype=np.int64)
    off = steps.off
    lengths = np.diff(off)
    sig_o = _in_order(steps, steps.sig)
    aligning = pool.submit(
        align_slices, sig_o, off[b_arr], lengths[b_arr], sig_o, off[c_arr], lengths[c_arr],
    )  # fmt: skip
    totals = _totals(chunk.runs, steps, chunk.facts, chunk.pos)
    found = loops_batch(steps.sig, steps.payload, off, dense=True)
    identical = _identical_calls(steps)
    first = _first_divergence(steps, sig_o, b_arr, c_arr)
    al_o = aligning.result()
    metrics = _step_metrics(
        replace(steps, wasted=_in_order(steps, steps.wasted)), totals, b_arr, c_arr, al_o
    )
    metrics.update(_deltas(totals, b_arr, c_arr))
    metrics["baseline_identical_calls"] = identical[b_arr].tolist()
    metrics["candidate_identical_calls"] = identical[c_arr].tolist()
    metrics["first_divergence"] = first
    metrics["baseline_parent_cycle"] = steps.cycle[b_arr].tolist()
    metrics["candidate_parent_cycle"] = steps.cycle[c_arr].tolist()
    al = Alignments(
        lcs=al_o.lcs,
        row_off=al_o.row_off,
        b=_to_step_index(steps, off[b_arr], al_o.b, al_o.row_off),
        c=_to_step_index(steps, off[c_arr], al_o.c, al_o.row_off),
    )
    loops = _run_loops(steps, found)
    run_totals = _run_totals_dicts(totals)
    diffs = _diff_rows(steps, b_arr, c_arr, al)
    records = _assemble(chunk.columns, chunk.b_run, chunk.c_run, metrics, loops, run_totals)
    return records, diffs


def pair_metrics(
    con: duckdb.DuckDBPyConnection,
    pairs: Sequence[PairLike],
    *,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[PairRecord]:
    """Every divergence metric of every pair, in the order given, as JSON-contract dicts.

    ``pairs`` are :class:`Pair` or ``(pair_id, task_id, baseline_run_id, candidate_run_id)``
    tuples. Works through chunks of pairs (:func:`chunk_bounds`): each chunk's steps are read
    once (:func:`_read`) while the chunk before is computed (:func:`_compute`), so DuckDB and
    Python overlap and the working memory is a chunk's. Raises ValueError for duplicate pair
    ids or runs the archive lacks. ``progress("computing metrics", done, total)`` is called
    after each chunk."""
    out: list[PairRecord] = []
    for records, _ in pair_metric_chunks(con, pairs, progress=progress):
        out.extend(records)
    return out


def pair_metrics_rows(
    con: duckdb.DuckDBPyConnection,
    pairs: Sequence[PairLike],
    *,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[list[PairRecord], DiffRows]:
    """As :func:`pair_metrics`, but each record's step_diffs left empty and the rows of all
    pairs returned as arrays (a few bytes a row, not a dict): what ``compare --json`` writes
    as JSON text."""
    out: list[PairRecord] = []
    parts: list[DiffRows] = []
    for records, rows in pair_metric_chunks(con, pairs, step_dicts=False, progress=progress):
        out.extend(records)
        parts.append(rows)
    return out, DiffRows.concat(parts)


def chunk_bounds(con: duckdb.DuckDBPyConnection, pairs: Sequence[PairLike]) -> list[int]:
    """Where the chunks of ``pairs`` start, and where the last ends: consecutive pairs, at
    most CHUNK_PAIRS of them and about CHUNK_STEPS steps of their runs (a pair's steps being
    its two runs' ``n_steps``; a chunk ends past the pair that reaches the bound). Chunks
    bounded by steps, not by pairs alone, keep one chunk's memory the same whatever the runs'
    length and however many nights a comparison covers."""
    columns = _as_columns(pairs)
    total = len(columns["pair_id"])
    if not total:
        return [0]
    runs = sorted({*columns["baseline_run_id"], *columns["candidate_run_id"]})
    counts = dict(con.execute(load_sql("run_step_counts"), {"run_ids": runs}).fetchall())
    steps = np.array(
        [
            counts.get(b, 0) + counts.get(c, 0)
            for b, c in zip(columns["baseline_run_id"], columns["candidate_run_id"], strict=True)
        ],
        dtype=np.int64,
    )
    before = np.cumsum(steps) - steps  # the steps of the pairs before each pair
    starts = np.flatnonzero(np.diff(before // CHUNK_STEPS)) + 1  # where a new bound is passed
    bounds = [0]
    for end in [*starts.tolist(), total]:  # then at most CHUNK_PAIRS pairs a chunk
        bounds += range(bounds[-1] + CHUNK_PAIRS, end, CHUNK_PAIRS)
        bounds.append(end)
    return bounds


def pair_metric_chunks(
    con: duckdb.DuckDBPyConnection,
    pairs: Sequence[PairLike],
    bounds: Sequence[int] | None = None,
    *,
    step_dicts: bool = True,
    progress: Callable[[str, int, int], None] | None = None,
) -> Iterator[tuple[list[PairRecord], DiffRows]]:
    """The records and step_diffs rows of each chunk of ``pairs`` (``bounds``: where the
    chunks start and end, default :func:`chunk_bounds`), in order, one chunk at a time:
    a caller that keeps only what it needs of each chunk holds one chunk's memory, whatever
    the number of pairs. ``step_dicts``: each record's step_diffs as dicts (else empty; the
    rows are returned as arrays either way). See :func:`pair_metrics`."""
    columns = _as_columns(pairs)
    total = len(columns["pair_id"])
    if not total:
        return
    bounds = chunk_bounds(con, pairs) if bounds is None else list(bounds)
    chunks = [{k: v[a:z] for k, v in columns.items()} for a, z in pairwise(bounds)]
    reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reportgen-read")
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reportgen-metrics")
    try:
        with collector_paused():
            reading = reader.submit(_read, con, chunks[0])
            for k in range(len(chunks)):
                chunk = reading.result()
                if k + 1 < len(chunks):  # the connection is free: _compute never touches it
                    reading = reader.submit(_read, con, chunks[k + 1])
                records, rows = _compute(chunk, pool)
                del chunk
                if step_dicts:
                    for record, diffs in zip(records, step_diff_dicts(rows), strict=True):
                        record["step_diffs"] = diffs
                yield records, rows
                del records, rows
                if progress is not None:
                    progress("computing metrics", bounds[k + 1], total)
    finally:
        reader.shutdown(wait=True, cancel_futures=True)
        pool.shutdown()


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
                ("parent", s.parent),
                ("error", s.error),
            )
            for key, value in step_fields:
                step_cols[key].append(value)
    define_step_hashes(con)
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
_STEP_SCHEMA = STEP_ROWS.append(pa.field("parent", pa.int32())).append(
    pa.field("error", pa.string())
)
_RUN_COLUMNS = tuple(_RUN_SCHEMA.names)
_STEP_COLUMNS = tuple(_STEP_SCHEMA.names)
