"""Vectorised sequence kernels of the divergence metrics, and the DuckDB UDFs built on them.

The kernels work on many sequences at once, given flat numpy arrays plus offsets (sequence
``s`` is ``values[off[s]:off[s + 1]]``), with no Python loop per step or per pair:

* :func:`align_batch` - LCS length and the DESIGN.md alignment of many pairs: bit-parallel LCS
  rows (Hyyro 2004) for all pairs of a chunk at once, then one vectorised traceback;
* :func:`recovery_batch` - the RSR window walk of many runs, with running maxima;
* :func:`loops_batch` - the greedy back-to-back repeat scan of many runs, from the pairs of
  equal steps.

:func:`reportgen.metrics.divergence.pair_metrics` calls them directly on arrays fetched from
DuckDB; the ``rg_*`` UDFs (``type="arrow"``: one call per batch of rows) call them per batch,
for SQL that wants them. Each equals its per-sequence reference in
:mod:`reportgen.metrics.trajectory` exactly (tests compare them on random inputs).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
from duckdb.func import PythonUDFType
from rapidfuzz.distance import LCSseq

from reportgen.metrics.trajectory import loop_blocks

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
WordArray = npt.NDArray[np.uint64]

#: Upper bound for the LCS bit rows of one chunk of pairs (the rest is O(steps)).
CHUNK_BYTES: Final = 160 * 2**20
#: Match table addressed by (pair, symbol) when one pair's share stays under this many bytes.
DIRECT_TABLE_BYTES_PER_PAIR: Final = 64 * 2**10
#: A run whose equal-step pairs exceed max(LOOP_PAIR_MIN, LOOP_PAIR_FACTOR * steps) is scanned
#: by the exact per-run reference instead (one step repeated thousands of times, say).
LOOP_PAIR_MIN: Final = 4096
LOOP_PAIR_FACTOR: Final = 64
_ONE: Final = np.uint64(1)
_ALL: Final = np.uint64(0xFFFF_FFFF_FFFF_FFFF)


def _i64(x: Any) -> IntArray:
    """``x`` as an int64 numpy array."""
    return np.asarray(x, dtype=np.int64)


def dense_codes(values: npt.ArrayLike) -> IntArray:
    """Small non-negative ints with equal codes exactly for equal values (hash-based, O(n))."""
    arr = np.asarray(values)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    encoded = pc.dictionary_encode(pa.array(arr))
    return _i64(encoded.indices.to_numpy(zero_copy_only=False))


def _sorted_pairs(major: IntArray, minor: IntArray) -> tuple[IntArray, IntArray]:
    """(major, minor) pairs of non-negative ints sorted by major, then minor.

    Packs each pair into one int64 and sorts values (SIMD sort; several times faster than a
    stable argsort), falling back to lexsort when the packed key could overflow."""
    if major.size == 0:
        return major, minor
    bound = int(minor.max()) + 1
    if (int(major.max()) + 1) * bound < 2**62:
        key = np.sort(major * bound + minor)
        return key // bound, key % bound
    order = np.lexsort((minor, major))
    return major[order], minor[order]


def _seg_ids(off: IntArray) -> IntArray:
    """For each element of the flat array, the index of its sequence."""
    return np.repeat(np.arange(off.size - 1, dtype=np.int64), np.diff(off))


def _ranges(starts: IntArray, lengths: IntArray) -> IntArray:
    """Concatenation of ``arange(s, s + n)`` for each (s, n), vectorised."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    seg = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    first = np.cumsum(lengths) - lengths
    return _i64(starts)[seg] + (np.arange(total, dtype=np.int64) - first[seg])


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


def _word_masks(lengths: IntArray, words: int) -> WordArray:
    """Per sequence, ``words`` uint64 words with the low ``lengths`` bits set."""
    bits = np.clip(lengths[:, None] - 64 * np.arange(words, dtype=np.int64)[None, :], 0, 64)
    low = (_ONE << np.minimum(bits, 63).astype(np.uint64)) - _ONE
    return np.where(bits >= 64, _ALL, low).astype(np.uint64)


def _chunks(n: IntArray, m: IntArray, words: IntArray, n_codes: int) -> list[IntArray]:
    """Pair indices, longest baseline first, cut so that each chunk's bit rows plus its match
    table (``n_codes`` rows per pair when addressed directly, else at most n + m) fit in
    CHUNK_BYTES (a chunk holds at least one pair)."""
    order = np.argsort(-n, kind="stable")
    out: list[IntArray] = []
    start = 0
    while start < order.size:
        rest = order[start:]
        widest = np.maximum.accumulate(words[rest])
        count = np.arange(1, rest.size + 1, dtype=np.int64)
        direct = n_codes * widest * 8 <= DIRECT_TABLE_BYTES_PER_PAIR
        table_rows = np.where(direct, count * n_codes, np.cumsum(n[rest] + m[rest]))
        cost = (count * (int(n[rest[0]]) + 1) + table_rows) * widest * 8
        over = cost > CHUNK_BYTES
        take = max(1, int(np.argmax(over))) if bool(over.any()) else rest.size
        out.append(rest[:take])
        start += take
    return out


def _align_chunk(
    idx: IntArray,
    a_vals: IntArray,
    a_start: IntArray,
    a_len: IntArray,
    b_vals: IntArray,
    b_start: IntArray,
    b_len: IntArray,
    n_codes: int,
) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray]:
    """LCS and traceback moves of the pairs ``idx`` (sorted by baseline length, descending).

    Returns lcs, final i and j of the traceback loop, and its moves as (pair, t, b, c)."""
    nc = a_len[idx]
    mc = b_len[idx]
    count = idx.size
    nmax = int(nc.max(initial=0))
    mmax = int(mc.max(initial=0))
    words = max(1, (mmax + 63) // 64)
    local = np.arange(count, dtype=np.int64)

    # candidate steps -> per (pair, symbol) match bit vectors
    c_pos = _ranges(b_start[idx], mc)
    c_pair = np.repeat(local, mc)
    c_j = c_pos - np.repeat(b_start[idx], mc)
    a_pos = _ranges(a_start[idx], nc)
    a_pair = np.repeat(local, nc)
    a_i = a_pos - np.repeat(a_start[idx], nc)
    if n_codes * words * 8 <= DIRECT_TABLE_BYTES_PER_PAIR:  # (pair, symbol) addressed directly
        c_key = c_pair * n_codes + b_vals[c_pos]
        a_key = a_pair * n_codes + a_vals[a_pos]
        n_keys = count * n_codes
    else:  # many symbols: number the (pair, symbol) keys that occur
        keys, inverse = np.unique(
            np.concatenate([c_pair * n_codes + b_vals[c_pos], a_pair * n_codes + a_vals[a_pos]]),
            return_inverse=True,
        )
        c_key, a_key = inverse[: c_pos.size], inverse[c_pos.size :]
        n_keys = keys.size
    # match bits, word-major: table[w, key]; column n_keys: no match (padding)
    table = np.zeros((words, n_keys + 1), dtype=np.uint64)
    np.bitwise_or.at(
        table.reshape(-1), (c_j >> 6) * (n_keys + 1) + c_key, _ONE << (c_j & 63).astype(np.uint64)
    )
    a_code = np.full((nmax, count), n_keys, dtype=np.int64)
    a_code[a_i, a_pair] = a_key

    # bit rows, word-major: rows[i, w, p] is word w of row i of pair p (valid for i <= n of p).
    # Bit j of row i is 0 exactly when dp[i][j + 1] = dp[i][j] + 1.
    mask = np.ascontiguousarray(_word_masks(mc, words).T)
    rows = np.empty((nmax + 1, words, count), dtype=np.uint64)
    rows[0] = mask
    live = np.searchsorted(-nc, -np.arange(nmax, dtype=np.int64), side="left")  # n > i
    for i in range(nmax):
        q = int(live[i])
        match = np.take(table, a_code[i, :q], axis=1)
        carry: BoolArray | None = None
        for w in range(words):
            r = rows[i, w, :q]
            u = r & match[w]
            s = r + u
            c_out = s < r
            if carry is not None:  # add the carry of the word below
                s += carry
                c_out |= carry & (s == 0)
            carry = c_out
            np.bitwise_or(s, r ^ u, out=s)
            np.bitwise_and(s, mask[w, :q], out=rows[i + 1, w, :q])
    lcs = mc - np.bitwise_count(rows[nc, :, local]).sum(axis=1, dtype=np.int64)

    # traceback, all pairs at once. At a mismatch dp[i][j] = max(dp[i][j-1], dp[i-1][j]), so
    # "dp[i][j-1] >= dp[i-1][j]" holds exactly when dp[i][j-1] = dp[i][j]: bit j-1 of row i.
    flat_rows = rows.reshape(-1)
    a_pad = np.full(count * max(nmax, 1), -1, dtype=np.int64)
    a_pad[a_pair * max(nmax, 1) + a_i] = a_vals[a_pos]
    c_pad = np.full(count * max(mmax, 1), -2, dtype=np.int64)
    c_pad[c_pair * max(mmax, 1) + c_j] = b_vals[c_pos]
    i_cur = nc.copy()
    j_cur = mc.copy()
    act = local[(i_cur > 0) & (j_cur > 0)]
    moves_p: list[IntArray] = []
    moves_t: list[IntArray] = []
    moves_b: list[IntArray] = []
    moves_c: list[IntArray] = []
    t = 0
    while act.size:
        ii = i_cur[act]
        jj = j_cur[act]
        eq = a_pad[act * max(nmax, 1) + ii - 1] == c_pad[act * max(mmax, 1) + jj - 1]
        bit = jj - 1
        word = flat_rows[(ii * words + (bit >> 6)) * count + act]
        go_left = ((word >> (bit & 63).astype(np.uint64)) & _ONE).astype(bool)
        di = eq | ~go_left
        dj = eq | go_left
        moves_p.append(act)
        moves_t.append(np.full(act.size, t, dtype=np.int64))
        moves_b.append(np.where(di, ii - 1, -1))
        moves_c.append(np.where(dj, jj - 1, -1))
        ii -= di
        jj -= dj
        i_cur[act] = ii
        j_cur[act] = jj
        act = act[(ii > 0) & (jj > 0)]
        t += 1
    empty = np.zeros(0, dtype=np.int64)

    def cat(parts: list[IntArray]) -> IntArray:
        return np.concatenate(parts) if parts else empty

    return (
        lcs,
        i_cur,
        j_cur,
        idx[cat(moves_p)],
        cat(moves_t),
        cat(moves_b),
        cat(moves_c),
    )


def align_batch(
    a_vals: npt.ArrayLike,
    a_off: npt.ArrayLike,
    b_vals: npt.ArrayLike,
    b_off: npt.ArrayLike,
    *,
    dense: bool = False,
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
    return align_slices(a_v, a_o[:-1], np.diff(a_o), b_v, b_o[:-1], np.diff(b_o))


def align_slices(
    a_vals: IntArray,
    a_start: IntArray,
    a_len: IntArray,
    b_vals: IntArray,
    b_start: IntArray,
    b_len: IntArray,
) -> Alignments:
    """:func:`align_batch` on slices: pair ``p`` is ``a_vals[a_start[p]:][:a_len[p]]`` against
    the same slice of ``b_vals`` (slices may repeat or overlap). Values: small ints >= 0."""
    n_codes = int(max(a_vals.max(initial=-1), b_vals.max(initial=-1))) + 1
    pairs = a_start.size
    n, m = a_len, b_len
    lcs = np.zeros(pairs, dtype=np.int64)
    i_end = np.zeros(pairs, dtype=np.int64)
    j_end = np.zeros(pairs, dtype=np.int64)
    parts: list[tuple[IntArray, IntArray, IntArray, IntArray]] = []
    words = np.maximum(1, (m + 63) // 64)
    for idx in _chunks(n, m, words, n_codes):
        l_c, i_c, j_c, mp, mt, mb, mc = _align_chunk(
            idx, a_vals, a_start, a_len, b_vals, b_start, b_len, n_codes
        )
        lcs[idx], i_end[idx], j_end[idx] = l_c, i_c, j_c
        parts.append((mp, mt, mb, mc))
    mp = np.concatenate([x[0] for x in parts]) if parts else np.zeros(0, np.int64)
    mt = np.concatenate([x[1] for x in parts]) if parts else np.zeros(0, np.int64)
    mb = np.concatenate([x[2] for x in parts]) if parts else np.zeros(0, np.int64)
    mc = np.concatenate([x[3] for x in parts]) if parts else np.zeros(0, np.int64)

    # diff order: removed 0..i_end-1, added 0..j_end-1, then the traceback moves reversed
    moves = np.bincount(mp, minlength=pairs).astype(np.int64)
    head = i_end + j_end
    total = head + moves
    row_off = np.zeros(pairs + 1, dtype=np.int64)
    np.cumsum(total, out=row_off[1:])
    out_b = np.full(int(row_off[-1]), -1, dtype=np.int64)
    out_c = np.full(int(row_off[-1]), -1, dtype=np.int64)
    at = row_off[mp] + head[mp] + moves[mp] - 1 - mt
    out_b[at] = mb
    out_c[at] = mc
    removed = _ranges(row_off[:-1], i_end)
    out_b[removed] = removed - np.repeat(row_off[:-1], i_end)
    added = _ranges(row_off[:-1] + i_end, j_end)
    out_c[added] = added - np.repeat(row_off[:-1] + i_end, j_end)
    return Alignments(lcs=lcs, row_off=row_off, b=out_b, c=out_c)


# --------------------------------------------------------------------------- recovery


def recovery_batch(
    wasted: npt.ArrayLike, aligned: npt.ArrayLike, off: npt.ArrayLike
) -> tuple[IntArray, IntArray]:
    """RSR window walk of many step sequences: (recovery steps, unrecovered steps) each.

    An ok step is counted exactly when the last wasted step before it (in its sequence) comes
    after the last aligned ok step before it; unrecovered are the counted steps after the last
    aligned ok step when the final window is still open. Equals :func:`recovery_flags`."""
    w = np.asarray(wasted, dtype=bool)
    a = np.asarray(aligned, dtype=bool)
    o = _i64(off)
    seqs = o.size - 1
    if w.size == 0:
        return np.zeros(seqs, dtype=np.int64), np.zeros(seqs, dtype=np.int64)
    pos = np.arange(w.size, dtype=np.int64)
    seg = _seg_ids(o)
    start = o[:-1][seg]
    last_wasted = np.maximum.accumulate(np.where(w, pos, -1))
    last_closer = np.maximum.accumulate(np.where(a & ~w, pos, -1))
    before = np.empty_like(last_closer)
    before[0] = -1
    before[1:] = last_closer[:-1]
    counted = ~w & (last_wasted >= start) & (last_wasted > before)
    csum = np.zeros(w.size + 1, dtype=np.int64)
    np.cumsum(counted, out=csum[1:])
    rec = csum[o[1:]] - csum[o[:-1]]
    lengths = np.diff(o)
    end = np.maximum(o[1:] - 1, 0)
    open_end = (lengths > 0) & (last_wasted[end] >= o[:-1]) & (last_wasted[end] > last_closer[end])
    tail = counted & (pos > last_closer[end][seg])
    np.cumsum(tail, out=csum[1:])
    unrec = np.where(open_end, csum[o[1:]] - csum[o[:-1]], 0)
    return rec, unrec


# --------------------------------------------------------------------------- loops


@dataclass(frozen=True, slots=True)
class Loops:
    """Loops of many sequences, sorted by sequence then start (start is within the sequence)."""

    seq: IntArray
    start: IntArray
    length: IntArray
    iterations: IntArray
    stagnant: BoolArray


def _equal_pairs(codes: IntArray, off: IntArray) -> tuple[IntArray, IntArray, BoolArray]:
    """All (x, k) with codes[x] == codes[x + k] in one sequence and 2k <= its length (flat x),
    and the sequences left out because they have too many equal pairs (see LOOP_PAIR_*)."""
    seg = _seg_ids(off)
    lengths = np.diff(off)
    n_codes = int(codes.max(initial=-1)) + 1
    sk, order = _sorted_pairs(seg * n_codes + codes, np.arange(codes.size, dtype=np.int64))
    new = np.empty(sk.size, dtype=bool)
    new[:1] = True
    new[1:] = sk[1:] != sk[:-1]
    g_start = np.flatnonzero(new)
    g_size = np.diff(np.append(g_start, sk.size))
    g_pairs = (g_size * (g_size - 1) // 2).astype(np.float64)
    bound = np.bincount(seg[order[g_start]], weights=g_pairs, minlength=lengths.size)
    slow = bound > np.maximum(LOOP_PAIR_MIN, LOOP_PAIR_FACTOR * lengths)
    rank = np.arange(sk.size, dtype=np.int64) - np.repeat(g_start, g_size)
    after = np.repeat(g_size, g_size) - 1 - rank  # members of my group after me
    after[slow[seg[order]]] = 0
    half = (lengths // 2)[seg]
    cand = np.flatnonzero(after >= 1)
    xs: list[IntArray] = []
    ks: list[IntArray] = []
    d = 1
    while cand.size:
        x = order[cand]
        k = order[cand + d] - x
        ok = k <= half[x]  # positions grow with d: once too far, always too far
        xs.append(x[ok])
        ks.append(k[ok])
        cand = cand[ok]
        cand = cand[after[cand] > d]
        d += 1
    empty = np.zeros(0, dtype=np.int64)
    return (np.concatenate(xs) if xs else empty, np.concatenate(ks) if ks else empty, slow)


def loops_batch(
    codes: npt.ArrayLike,
    payloads: npt.ArrayLike,
    off: npt.ArrayLike,
    *,
    dense: bool = False,
) -> Loops:
    """The greedy loop scan of :func:`trajectory.loop_blocks` on every sequence, plus stagnancy.

    A block of period k can start at i exactly when codes[x] == codes[x + k] for all x in
    [i, i + k): i.e. i lies in a run of such x (a diagonal of the equal-step pairs) at least k
    before its end. Each position takes its shortest period; the greedy left-to-right choice
    then follows "next candidate at or after this block's end" pointers. Sequences with too
    many equal-step pairs go through the exact per-sequence scan instead."""
    o = _i64(off)
    v = _i64(codes) if dense else dense_codes(codes)
    pay = _i64(payloads) if dense else dense_codes(payloads)
    seg = _seg_ids(o)
    xs, ks, slow = _equal_pairs(v, o)
    found_seq: list[IntArray] = []
    found_pos: list[IntArray] = []
    found_k: list[IntArray] = []
    found_c: list[IntArray] = []
    if xs.size:
        ks, xs = _sorted_pairs(ks, xs)
        brk = np.ones(xs.size, dtype=bool)
        brk[1:] = (ks[1:] != ks[:-1]) | (xs[1:] != xs[:-1] + 1)
        r_first = np.flatnonzero(brk)
        r_last = np.append(r_first[1:], xs.size) - 1
        s, e, k = xs[r_first], xs[r_last] + 1, ks[r_first]
        keep = e - s >= k
        s, e, k = s[keep], e[keep], k[keep]
        span = e - s - k + 1
        i = _ranges(s, span)
        kk = np.repeat(k, span)
        ee = np.repeat(e, span)
        e_bound = int(ee.max(initial=0)) + 1
        i, key = _sorted_pairs(i, kk * e_bound + ee)  # by position, then shortest period
        kk, ee = np.divmod(key, e_bound)
        first = np.ones(i.size, dtype=bool)
        first[1:] = i[1:] != i[:-1]
        i, kk, ee = i[first], kk[first], ee[first]
        cc = 1 + (ee - i) // kk
        c_seq = seg[i]
        nxt = np.searchsorted(i, i + kk * cc, side="left")
        valid = nxt < i.size
        valid[valid] = c_seq[nxt[valid]] == c_seq[valid]
        nxt = np.where(valid, nxt, -1)
        head = np.ones(i.size, dtype=bool)
        head[1:] = c_seq[1:] != c_seq[:-1]
        chosen = np.zeros(i.size, dtype=bool)
        cur = np.flatnonzero(head)
        while cur.size:
            chosen[cur] = True
            cur = nxt[cur]
            cur = cur[cur >= 0]
        found_seq.append(c_seq[chosen])
        found_pos.append(i[chosen])
        found_k.append(kk[chosen])
        found_c.append(cc[chosen])
    for sq in np.flatnonzero(slow).tolist():
        blocks = loop_blocks(v[o[sq] : o[sq + 1]].tolist())
        if blocks:
            arr = np.array(blocks, dtype=np.int64)
            found_seq.append(np.full(len(blocks), sq, dtype=np.int64))
            found_pos.append(arr[:, 0] + o[sq])
            found_k.append(arr[:, 1])
            found_c.append(arr[:, 2])
    if not found_seq:
        empty = np.zeros(0, dtype=np.int64)
        return Loops(empty, empty, empty, empty, np.zeros(0, dtype=bool))
    l_seq = np.concatenate(found_seq)
    l_pos = np.concatenate(found_pos)
    l_k = np.concatenate(found_k)
    l_c = np.concatenate(found_c)
    order = np.argsort(l_pos, kind="stable")
    l_seq, l_pos, l_k, l_c = l_seq[order], l_pos[order], l_k[order], l_c[order]
    # stagnant: every repeat has the payloads of the first iteration
    reps = (l_c - 1) * l_k
    elem = _ranges(np.zeros(reps.size, dtype=np.int64), reps)
    loop_of = np.repeat(np.arange(reps.size, dtype=np.int64), reps)
    base = l_pos[loop_of]
    k_of = l_k[loop_of]
    differ = pay[base + k_of + elem] != pay[base + (k_of + elem) % k_of]
    stagnant = np.bincount(loop_of, weights=differ, minlength=reps.size) == 0
    return Loops(l_seq, l_pos - o[l_seq], l_k, l_c, stagnant)


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
