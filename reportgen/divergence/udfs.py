"""Sequence kernels of the divergence metrics for many sequences at once, and DuckDB UDFs.

The kernels take flat numpy arrays plus offsets (sequence ``s`` is
``values[off[s]:off[s + 1]]``) and run compiled (:mod:`reportgen.divergence._kernels`, Cython),
with no Python object per step and the GIL released:

* :func:`align_batch` - LCS length and the DESIGN.md alignment of many pairs: bit-parallel LCS
  rows (Hyyro 2004), then the traceback over them;
* :func:`recovery_batch`, :func:`pair_recovery` - the RSR window walk of many runs, or of
  both sides of many aligned pairs;
* :func:`loops_batch` - the greedy back-to-back repeat scan of many runs, with stagnancy.

:func:`reportgen.divergence.metrics.pair_metrics` calls them directly on arrays fetched from
DuckDB; the ``rg_*`` UDFs (``type="arrow"``: one call per batch of rows) call them per batch,
for SQL that wants them. Each equals its per-sequence reference in
:mod:`reportgen.divergence.reference` exactly (tests compare them on random inputs).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
from duckdb.func import PythonUDFType
from rapidfuzz.distance import LCSseq

from reportgen.archive.arrow import numbers, strings, to_numpy
from reportgen.divergence import _kernels

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def _i64(x: Any) -> IntArray:
    """``x`` as a contiguous int64 numpy array."""
    return np.ascontiguousarray(x, dtype=np.int64)


def dense_codes(values: npt.ArrayLike) -> IntArray:
    """Small non-negative ints with equal codes exactly for equal values (hash-based, O(n))."""
    arr = np.asarray(values)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    return _i64(to_numpy(pc.dictionary_encode(_column(arr)).indices))


def _column(arr: npt.NDArray[Any]) -> pa.Array:
    """``arr`` as Arrow, built from buffers where it can be (``pa.array`` imports pandas)."""
    if arr.dtype.kind in "iubf":
        return numbers(arr, pa.from_numpy_dtype(arr.dtype))
    values = arr.tolist()
    if arr.dtype.kind in "OU" and all(isinstance(v, str) for v in values):
        return strings(values)
    if all(type(v) is int for v in values):  # hashes: DuckDB's are unsigned 64-bit
        for kind in (pa.int64(), pa.uint64()):
            with contextlib.suppress(OverflowError):
                return numbers(np.array(values, dtype=kind.to_pandas_dtype()), kind)
    return pa.array(arr)


def _seg_ids(off: IntArray) -> IntArray:
    """For each element of the flat array, the index of its sequence."""
    return np.repeat(np.arange(off.size - 1, dtype=np.int64), np.diff(off))


def _n_codes(*arrays: IntArray) -> int:
    """One more than the largest value (values must be >= 0)."""
    top = max((int(a.max()) for a in arrays if a.size), default=-1)
    if any(a.size and int(a.min()) < 0 for a in arrays):
        raise ValueError("codes must be non-negative")
    return top + 1


# --------------------------------------------------------------------------- LCS and alignment


@dataclass(frozen=True, slots=True)
class Alignments:
    """Alignments of many pairs, flat: pair ``p`` owns rows ``row_off[p]:row_off[p + 1]``.

    ``b``/``c`` hold the baseline/candidate step index of each row, -1 where the row has none
    (an added or removed step); rows are in diff order, as :func:`trajectory.align` gives."""

    lcs: IntArray
    row_off: IntArray
    b: IntArray
    c: IntArray


def align_batch(
    a_vals: npt.ArrayLike,
    a_off: npt.ArrayLike,
    b_vals: npt.ArrayLike,
    b_off: npt.ArrayLike,
    *,
    dense: bool = False,
    full_rows_words: int = _kernels.FULL_ROWS_WORDS,
) -> Alignments:
    """LCS length and DESIGN.md alignment of every pair (baseline ``a``, candidate ``b``).

    Pair ``p`` is ``a_vals[a_off[p]:a_off[p+1]]`` against ``b_vals[b_off[p]:b_off[p+1]]``;
    equal values are equivalent steps. ``dense``: the values are already small non-negative
    ints (else they are renumbered first). Same result as :func:`trajectory.align` per pair."""
    a_o, b_o = _i64(a_off), _i64(b_off)
    a_v, b_v = _i64(a_vals), _i64(b_vals)
    if not dense:
        both = dense_codes(np.concatenate([a_v, b_v]))
        a_v, b_v = both[: a_v.size], both[a_v.size :]
    return align_slices(
        a_v, a_o[:-1], np.diff(a_o), b_v, b_o[:-1], np.diff(b_o), full_rows_words=full_rows_words
    )


def align_slices(
    a_vals: IntArray,
    a_start: IntArray,
    a_len: IntArray,
    b_vals: IntArray,
    b_start: IntArray,
    b_len: IntArray,
    *,
    full_rows_words: int = _kernels.FULL_ROWS_WORDS,
) -> Alignments:
    """:func:`align_batch` on slices: pair ``p`` is ``a_vals[a_start[p]:][:a_len[p]]`` against
    the same slice of ``b_vals`` (slices may repeat or overlap). Values: small ints >= 0.

    One compiled pass per pair (``_kernels.align_pairs``): bit-parallel LCS rows, then the
    traceback over them; it releases the GIL. A pair with more than ``full_rows_words`` words
    of rows keeps ~2 sqrt(n) of them and recomputes the rest during the traceback (same
    alignment, bounded memory; tests set it to 0 to check that path)."""
    a_v, b_v = _i64(a_vals), _i64(b_vals)
    a_len, b_len = _i64(a_len), _i64(b_len)
    pairs = a_len.size
    lcs = np.zeros(pairs, dtype=np.int64)
    row_off = np.zeros(pairs + 1, dtype=np.int64)
    room = int(a_len.sum() + b_len.sum())
    out_b = np.empty(room, dtype=np.int64)
    out_c = np.empty(room, dtype=np.int64)
    _kernels.align_pairs(
        a_v, _i64(a_start), a_len, b_v, _i64(b_start), b_len, _n_codes(a_v, b_v),
        lcs, row_off, out_b, out_c, full_rows_words,
    )  # fmt: skip
    used = int(row_off[-1])
    return Alignments(lcs=lcs, row_off=row_off, b=out_b[:used], c=out_c[:used])


# --------------------------------------------------------------------------- recovery


def recovery_batch(
    wasted: npt.ArrayLike, aligned: npt.ArrayLike, off: npt.ArrayLike
) -> tuple[IntArray, IntArray]:
    """RSR window walk of many step sequences: (recovery steps, unrecovered steps) each.

    A wasted step opens the window (not counted); an ok step while it is open counts one and
    closes it when aligned; the counted steps of a window still open at the end are also
    unrecovered. Equals :func:`trajectory.recovery_flags` per sequence."""
    o = _i64(off)
    rec = np.zeros(o.size - 1, dtype=np.int64)
    unrec = np.zeros(o.size - 1, dtype=np.int64)
    w = np.ascontiguousarray(wasted, dtype=bool).view(np.int8)
    a = np.ascontiguousarray(aligned, dtype=bool).view(np.int8)
    _kernels.recovery_walk(w, a, o, rec, unrec)
    return rec, unrec


def pair_recovery(
    wasted: BoolArray,
    al: Alignments,
    b_start: IntArray,
    b_len: IntArray,
    c_start: IntArray,
    c_len: IntArray,
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """:func:`recovery_batch` on both sides of every aligned pair, the aligned flags taken
    from ``al`` (pair ``p``: baseline ``wasted[b_start[p]:][:b_len[p]]``, candidate likewise).
    Returns recovery and unrecovered steps of the baselines, then of the candidates."""
    pairs = b_start.size
    out = [np.zeros(pairs, dtype=np.int64) for _ in range(4)]
    _kernels.pair_recovery(
        np.ascontiguousarray(wasted, dtype=bool).view(np.int8),
        _i64(b_start), _i64(b_len), _i64(c_start), _i64(c_len),
        al.row_off, al.b, al.c, *out,
    )  # fmt: skip
    return out[0], out[1], out[2], out[3]


# --------------------------------------------------------------------------- loops


@dataclass(frozen=True, slots=True)
class Loops:
    """Loops of many sequences, sorted by sequence then start (start is within the sequence)."""

    seq: IntArray
    start: IntArray
    length: IntArray
    iterations: IntArray
    stagnant: BoolArray


def loops_batch(
    codes: npt.ArrayLike,
    payloads: npt.ArrayLike,
    off: npt.ArrayLike,
    *,
    dense: bool = False,
) -> Loops:
    """The greedy loop scan of :func:`trajectory.loop_blocks` on every sequence, plus
    stagnancy (every repeat has the payloads of the first iteration), compiled
    (``_kernels.loop_scan``; it releases the GIL). ``dense``: codes and payloads are already
    small non-negative ints (else they are renumbered first)."""
    o = _i64(off)
    v = _i64(codes) if dense else dense_codes(codes)
    pay = _i64(payloads) if dense else dense_codes(payloads)
    room = v.size // 2 + 1
    seq, start, length, iterations = (np.empty(room, dtype=np.int64) for _ in range(4))
    stagnant = np.empty(room, dtype=np.int8)
    found = _kernels.loop_scan(v, pay, o, _n_codes(v), seq, start, length, iterations, stagnant)
    return Loops(
        seq[:found].copy(),
        start[:found].copy(),
        length[:found].copy(),
        iterations[:found].copy(),
        stagnant[:found].astype(bool),
    )


# --------------------------------------------------------------------------- UDFs


def _flat(arr: Any) -> tuple[IntArray, IntArray]:
    """Values and offsets of an Arrow list argument (Array or ChunkedArray); NULL lists are []."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks else pa.array([], type=arr.type)
    lengths = pc.fill_null(pc.list_value_length(arr), 0).to_numpy(zero_copy_only=False)
    off = np.zeros(len(arr) + 1, dtype=np.int64)
    np.cumsum(lengths, out=off[1:])
    values = pc.list_flatten(arr)
    if pa.types.is_boolean(values.type):
        return values.to_numpy(zero_copy_only=False).astype(np.int64), off
    return _i64(values.to_numpy(zero_copy_only=False)), off


def _struct_lists(off: IntArray, fields: list[tuple[str, pa.Array]]) -> pa.Array:
    """A list<struct> Arrow array from flat child columns and row offsets."""
    values = pa.StructArray.from_arrays([f for _, f in fields], names=[n for n, _ in fields])
    return pa.ListArray.from_arrays(pa.array(off.astype(np.int32), type=pa.int32()), values)


def _nullable_int32(x: IntArray) -> pa.Array:
    """int32 Arrow array with -1 as NULL."""
    return pa.array(x.astype(np.int32), type=pa.int32(), mask=x < 0)


def rg_lcs_length(a: Any, b: Any) -> pa.Array:
    """LCS length of two integer sequences per row (rapidfuzz, bit-parallel C++)."""
    rows_a = [[] if v is None else v for v in a.to_pylist()]
    rows_b = [[] if v is None else v for v in b.to_pylist()]
    return pa.array(
        [
            int(LCSseq.similarity(x, y)) if x and y else 0
            for x, y in zip(rows_a, rows_b, strict=True)
        ],
        type=pa.int32(),
    )


def rg_align(a: Any, b: Any) -> pa.Array:
    """The DESIGN.md LCS alignment per row, as a list of {b: baseline idx, c: candidate idx}."""
    a_vals, a_off = _flat(a)
    b_vals, b_off = _flat(b)
    al = align_batch(a_vals, a_off, b_vals, b_off)
    return _struct_lists(al.row_off, [("b", _nullable_int32(al.b)), ("c", _nullable_int32(al.c))])


def rg_recovery(wasted: Any, matched: Any) -> pa.Array:
    """RSR window walk of one run per row: {recovery_steps, unrecovered_steps}.

    ``wasted`` flags the run's error/retry/abandoned steps in order; ``matched`` lists the
    indices of its steps that the alignment matches with the other run."""
    w, off = _flat(wasted)
    idxs, m_off = _flat(matched)
    aligned = np.zeros(w.size, dtype=bool)
    aligned[off[:-1][_seg_ids(m_off)] + idxs] = True
    rec, unrec = recovery_batch(w.astype(bool), aligned, off)
    return pa.StructArray.from_arrays(
        [pa.array(rec.astype(np.int32)), pa.array(unrec.astype(np.int32))],
        names=["recovery_steps", "unrecovered_steps"],
    )


def rg_loops(sigs: Any, payloads: Any) -> pa.Array:
    """Loops of one run per row: {start_index, length, iterations, stagnant}, left to right."""
    s_vals, off = _flat(sigs)
    p_vals, _ = _flat(payloads)
    found = loops_batch(s_vals, p_vals, off)
    row_off = np.zeros(off.size, dtype=np.int64)
    np.cumsum(np.bincount(found.seq, minlength=off.size - 1), out=row_off[1:])
    return _struct_lists(
        row_off,
        [
            ("start_index", pa.array(found.start.astype(np.int32))),
            ("length", pa.array(found.length.astype(np.int32))),
            ("iterations", pa.array(found.iterations.astype(np.int32))),
            ("stagnant", pa.array(found.stagnant)),
        ],
    )


_UDFS: tuple[tuple[str, Callable[..., pa.Array], list[Any], str], ...] = (
    ("rg_lcs_length", rg_lcs_length, ["INTEGER[]", "INTEGER[]"], "INTEGER"),
    ("rg_align", rg_align, ["INTEGER[]", "INTEGER[]"], "STRUCT(b INTEGER, c INTEGER)[]"),
    (
        "rg_recovery",
        rg_recovery,
        ["BOOLEAN[]", "INTEGER[]"],
        "STRUCT(recovery_steps INTEGER, unrecovered_steps INTEGER)",
    ),
    (
        "rg_loops",
        rg_loops,
        ["INTEGER[]", "INTEGER[]"],
        "STRUCT(start_index INTEGER, length INTEGER, iterations INTEGER, stagnant BOOLEAN)[]",
    ),
)


def register_udfs(con: duckdb.DuckDBPyConnection) -> None:
    """Register every rg_* metric UDF on ``con``; calling it again is harmless."""
    for name, func, params, returns in _UDFS:
        with contextlib.suppress(duckdb.InvalidInputException):
            con.remove_function(name)
        con.create_function(name, func, params, returns, type=PythonUDFType.ARROW)
