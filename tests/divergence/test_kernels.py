"""The compiled kernels (reportgen.divergence.udfs) equal the per-sequence references exactly.

Many sequences go through one call, as pair_metrics sends them, so state carried from one
pair or run to the next (match tables, scratch buffers) meets the references too.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.divergence import _kernels, udfs
from reportgen.divergence.reference import align_ids, detect_loops, lcs_length, recovery_flags

from .test_trajectory_properties import slow_align, slow_loops, slow_recovery

seqs = st.lists(st.lists(st.integers(0, 3), max_size=30), min_size=1, max_size=12)
long_seqs = st.lists(st.lists(st.integers(0, 6), min_size=50, max_size=150), max_size=4)


def flat(rows: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Values and offsets of a list of sequences."""
    off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=off[1:])
    return np.array([v for r in rows for v in r], dtype=np.int64), off


def check_alignments(a_rows: list[list[int]], b_rows: list[list[int]]) -> None:
    """align_batch over all pairs equals align_ids, the full-table traceback and the LCS,
    with every bit row kept and with the checkpointed (bounded-memory) traceback."""
    a_vals, a_off = flat(a_rows)
    b_vals, b_off = flat(b_rows)
    whole = udfs.align_batch(a_vals, a_off, b_vals, b_off)
    got = udfs.align_batch(a_vals, a_off, b_vals, b_off, full_rows_words=0)
    for x, y in zip(
        (whole.lcs, whole.row_off, whole.b, whole.c),
        (got.lcs, got.row_off, got.b, got.c),
        strict=True,
    ):
        assert np.array_equal(x, y)
    assert got.b.size == got.c.size == got.row_off[-1]
    for p, (a, b) in enumerate(zip(a_rows, b_rows, strict=True)):
        lo, hi = got.row_off[p], got.row_off[p + 1]
        rows = [
            (None if x < 0 else int(x), None if y < 0 else int(y))
            for x, y in zip(got.b[lo:hi], got.c[lo:hi], strict=True)
        ]
        assert rows == align_ids(a, b) == slow_align(a, b)
        assert got.lcs[p] == lcs_length(a, b)


@settings(max_examples=150, deadline=None)
@given(seqs, st.data())
def test_align_batch_equals_reference(a_rows: list[list[int]], data: st.DataObject) -> None:
    """Short sequences over a small alphabet (many ties in the traceback)."""
    b_rows = data.draw(
        st.lists(
            st.lists(st.integers(0, 3), max_size=30), min_size=len(a_rows), max_size=len(a_rows)
        )
    )
    check_alignments(a_rows, b_rows)


@settings(max_examples=30, deadline=None)
@given(long_seqs, st.data())
def test_align_batch_multiword(a_rows: list[list[int]], data: st.DataObject) -> None:
    """Candidates longer than a machine word: carries cross words."""
    b_rows = data.draw(
        st.lists(
            st.lists(st.integers(0, 6), min_size=60, max_size=200),
            min_size=len(a_rows),
            max_size=len(a_rows),
        )
    )
    check_alignments(a_rows, b_rows)


def test_align_batch_all_ones_words() -> None:
    """Identical long runs of one symbol: rows with full words, carries through every word."""
    rows = [[7] * 200, [7] * 64, [7] * 128, [1, 7] * 70]
    check_alignments(rows, [[7] * 190, [7] * 129, [7] * 64, [7, 1] * 66])


def test_align_batch_large_alphabet_and_empty_sides() -> None:
    """Codes far apart (a sparse match table), codes shared across pairs, and empty sides."""
    rows_a = [[10**6, 5, 10**6], [], [3, 4], [], [5, 10**6, 5]]
    rows_b = [[5, 10**6], [1, 2], [], [], [10**6, 5, 10**6, 5]]
    check_alignments(rows_a, rows_b)


def test_kernels_reject_negative_codes() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        udfs.align_slices(*(np.array(x, dtype=np.int64) for x in ([-1], [0], [1], [0], [0], [1])))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.tuples(st.booleans(), st.booleans()), max_size=25), max_size=10))
def test_recovery_batch_equals_walk(rows: list[list[tuple[bool, bool]]]) -> None:
    """The compiled RSR walk equals recovery_flags on every sequence."""
    wasted, off = flat([[int(w) for w, _ in r] for r in rows])
    aligned, _ = flat([[int(a) for _, a in r] for r in rows])
    rec, unrec = udfs.recovery_batch(wasted.astype(bool), aligned.astype(bool), off)
    for k, r in enumerate(rows):
        expected = recovery_flags([w for w, _ in r], [a for _, a in r])
        assert (rec[k], unrec[k]) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), max_size=25), max_size=6), st.data())
def test_recovery_batch_on_alignments(a_rows: list[list[int]], data: st.DataObject) -> None:
    """RSR from aligned flags equals the slow walk over the diff rows (both sides)."""
    b_rows = data.draw(
        st.lists(
            st.lists(st.integers(0, 3), max_size=25), min_size=len(a_rows), max_size=len(a_rows)
        )
    )
    for a, b in zip(a_rows, b_rows, strict=True):
        rows = slow_align(a, b)
        for side, seq in ((0, a), (1, b)):
            wasted = [x == 0 for x in seq]
            aligned = [False] * len(seq)
            for row in rows:
                if row[0] is not None and row[1] is not None:
                    idx = row[side]
                    assert idx is not None
                    aligned[idx] = True
            w, off = flat([[int(x) for x in wasted]])
            al, _ = flat([[int(x) for x in aligned]])
            rec, unrec = udfs.recovery_batch(w.astype(bool), al.astype(bool), off)
            assert (rec[0], unrec[0]) == slow_recovery(rows, wasted, side)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 2), max_size=40), max_size=8), st.data())
def test_loops_batch_equals_scan(sig_rows: list[list[int]], data: st.DataObject) -> None:
    """Loops (start, length, iterations, stagnant) of every sequence equal the naive scan."""
    pay_rows = [
        data.draw(st.lists(st.integers(0, 1), min_size=len(r), max_size=len(r))) for r in sig_rows
    ]
    sigs, off = flat(sig_rows)
    pays, _ = flat(pay_rows)
    got = udfs.loops_batch(sigs, pays, off)
    per: list[list[tuple[int, int, int, bool]]] = [[] for _ in sig_rows]
    for s, start, k, c, stag in zip(
        got.seq, got.start, got.length, got.iterations, got.stagnant, strict=True
    ):
        per[s].append((int(start), int(k), int(c), bool(stag)))
    for k, (sig, pay) in enumerate(zip(sig_rows, pay_rows, strict=True)):
        expected = [
            (lp.start_index, lp.length, lp.iterations, lp.stagnant)
            for lp in detect_loops(sig, pay, pay)
        ]
        assert per[k] == expected == slow_loops(sig, [(p, p) for p in pay])


def test_loops_long_periods_and_long_repeats() -> None:
    """Long blocks, blocks inside blocks, and one symbol repeated thousands of times."""
    rows = [
        list(range(30)) * 3 + [99],
        [1, 2, 1, 2, 1, 3, 1, 2, 1, 2, 1, 3],
        [5] * 5000,
        [0, 1, 0, 0, 1, 0, 0, 1, 0, 2],
    ]
    sigs, off = flat(rows)
    got = udfs.loops_batch(sigs, sigs, off)
    per: list[list[tuple[int, int, int]]] = [[] for _ in rows]
    for s, start, k, c in zip(got.seq, got.start, got.length, got.iterations, strict=True):
        per[s].append((int(start), int(k), int(c)))
    for k, row in enumerate(rows):
        assert per[k] == [
            (lp.start_index, lp.length, lp.iterations) for lp in detect_loops(row, row, row)
        ]
    assert per[2] == [(0, 1, 5000)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), max_size=25), max_size=6), st.data())
def test_pair_recovery_equals_walk(a_rows: list[list[int]], data: st.DataObject) -> None:
    """Both sides of many pairs at once (0 = a wasted step) equal the slow walk over the
    diff rows; pairs share and reuse the scratch flags."""
    b_rows = data.draw(
        st.lists(
            st.lists(st.integers(0, 3), max_size=25), min_size=len(a_rows), max_size=len(a_rows)
        )
    )
    a_vals, a_off = flat(a_rows)
    b_vals, b_off = flat(b_rows)
    al = udfs.align_batch(a_vals, a_off, b_vals, b_off)
    wasted = np.concatenate([a_vals, b_vals]) == 0
    b_rec, b_unrec, c_rec, c_unrec = udfs.pair_recovery(
        wasted, al, a_off[:-1], np.diff(a_off), a_vals.size + b_off[:-1], np.diff(b_off)
    )
    for p, (a, b) in enumerate(zip(a_rows, b_rows, strict=True)):
        rows = slow_align(a, b)
        assert (b_rec[p], b_unrec[p]) == slow_recovery(rows, [x == 0 for x in a], 0)
        assert (c_rec[p], c_unrec[p]) == slow_recovery(rows, [x == 0 for x in b], 1)


def test_compiled_kernels_are_current() -> None:
    """In a source checkout the compiled module is at least as new as its .pyx (an editable
    install compiles it; editing the .pyx needs `pip install -e .` again)."""
    from reportgen.divergence import _kernels

    source = Path(udfs.__file__).with_name("_kernels.pyx")
    if not source.exists():
        pytest.skip("installed from a wheel: no source beside the compiled module")
    compiled = Path(_kernels.__file__)
    assert compiled.stat().st_mtime >= source.stat().st_mtime, (
        f"{source} changed after {compiled.name} was compiled: run `pip install -e .` again"
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=8), st.randoms(use_true_random=False), st.data())
def test_place_rows_and_run_totals(
    lengths: list[int], rnd: random.Random, data: st.DataObject
) -> None:
    """Shuffled (run, idx) rows land where a sort puts them; sums and left-to-right folds per
    run equal Python's; an index missing or given twice is refused."""
    rows = [(r, i) for r, n in enumerate(lengths) for i in range(n)]
    rnd.shuffle(rows)
    rn = np.array([r for r, _ in rows], dtype=np.int32)
    idx = np.array([i for _, i in rows], dtype=np.int32)
    off = np.zeros(len(lengths) + 1, dtype=np.int64)
    pos = np.empty(len(rows), dtype=np.int64)
    assert _kernels.place_rows(rn, idx, off, pos)
    assert off.tolist() == [0, *np.cumsum(lengths).tolist()]
    assert [off[r] + i for r, i in rows] == pos.tolist()
    values = data.draw(st.lists(st.floats(-1e6, 1e6), min_size=len(rows), max_size=len(rows)))
    valid = np.array(data.draw(st.lists(st.booleans(), min_size=len(rows), max_size=len(rows))))
    folds = np.zeros(len(lengths))
    given = np.zeros(len(lengths), dtype=np.int8)
    _kernels.run_folds(
        rn, pos, off, np.array(values, dtype=np.float64), valid.view(np.int8), folds, given
    )
    sums = np.zeros(len(lengths), dtype=np.int64)
    given_sums = np.zeros(len(lengths), dtype=np.int8)
    ints = np.array([int(v) for v in values], dtype=np.int64)
    _kernels.run_sums(rn, ints, valid.view(np.int8), sums, given_sums)
    for r in range(len(lengths)):
        mine = sorted((i, x) for x, (rr, i) in enumerate(rows) if rr == r)
        expected = 0.0
        for _, x in mine:
            if valid[x]:
                expected = expected + values[x]
        assert folds[r] == expected
        assert sums[r] == sum(int(ints[x]) for _, x in mine if valid[x])
        assert bool(given[r]) == bool(given_sums[r]) == any(valid[x] for _, x in mine)
    if rows:
        beyond = idx.copy()
        beyond[0] = lengths[rn[0]]  # one past the run's last step
        assert not _kernels.place_rows(rn, beyond, off, pos)
        same_run = [x for x in range(1, len(rows)) if rn[x] == rn[0]]
        if same_run:
            twice = idx.copy()
            twice[same_run[0]] = idx[0]  # two rows claim one step
            assert not _kernels.place_rows(rn, twice, off, pos)


@pytest.mark.parametrize("seed", range(4))
def test_checkpointed_traceback_on_long_runs(seed: int) -> None:
    """Long pairs (many checkpoint blocks, ragged last block) align the same way whether
    every bit row is kept or only ~2 sqrt(n) of them."""
    rng = random.Random(seed)
    n, m = rng.randrange(500, 3000), rng.randrange(500, 3000)
    a = np.array([rng.randrange(5) for _ in range(n)], dtype=np.int64)
    b = np.array([rng.randrange(5) for _ in range(m)], dtype=np.int64)
    off_a, off_b = np.array([0, n], dtype=np.int64), np.array([0, m], dtype=np.int64)
    whole = udfs.align_batch(a, off_a, b, off_b)
    blocks = udfs.align_batch(a, off_a, b, off_b, full_rows_words=0)
    assert whole.lcs[0] == blocks.lcs[0] == lcs_length(a.tolist(), b.tolist())
    assert np.array_equal(whole.b, blocks.b) and np.array_equal(whole.c, blocks.c)
