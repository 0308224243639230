"""Pairs of runs within groups, and the distinct-token intersections of every pair at once.

Pairs of a group are listed in the scorer's order, (0, 1), (0, 2), ..., (1, 2), ...; the pairs
of group g are ``offsets[g]:offsets[g + 1]`` of the flat arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from reportgen.convergence.ranges import run_starts
from reportgen.convergence.tokens import Tokens

__all__ = ["PairIndex", "pair_index", "set_intersections"]

I64 = npt.NDArray[np.int64]
# Small groups count token-set bitmasks per group in a (groups x 2**n) table; above this many
# cells the pairs inside each token's set of runs are listed instead.
MAX_MASK_CELLS = 1 << 22


@dataclass(frozen=True, slots=True)
class PairIndex:
    """Every unordered pair (i < j) of runs of every group, group by group."""

    counts: I64  # pairs per group, n(n-1)/2
    offsets: I64  # G + 1
    group: I64
    i: I64
    j: I64


def pair_index(sizes: I64) -> PairIndex:
    """All pairs of all groups, in (group, i, j) order; one block of work per distinct size."""
    counts = sizes * (sizes - 1) // 2
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    group = np.repeat(np.arange(len(sizes), dtype=np.int64), counts)
    i = np.empty(int(offsets[-1]), dtype=np.int64)
    j = np.empty_like(i)
    for n in np.unique(sizes[sizes > 1]).tolist():
        ti, tj = np.triu_indices(n, 1)
        groups = np.flatnonzero(sizes == n)
        at = (offsets[groups][:, None] + np.arange(len(ti))).ravel()
        i[at] = np.tile(ti, len(groups))
        j[at] = np.tile(tj, len(groups))
    return PairIndex(counts, offsets, group, i, j)


def _pair_slot(n: I64, i: I64, j: I64) -> I64:
    """Index of pair (i, j), i < j, among the pairs of a group of n runs."""
    slot: I64 = i * (2 * n - i - 1) // 2 + (j - i - 1)
    return slot


def _sorted_keys(tok: Tokens, row_off: I64) -> tuple[I64, int, int]:
    """One int64 per token occurrence, bit fields group | token id | run, sorted; and the
    widths of the token and run fields."""
    sizes = np.diff(row_off)
    run_bits = max(int(sizes.max(initial=1)) - 1, 1).bit_length()
    tok_bits = max(tok.vocab_size - 1, 1).bit_length()
    if max(len(sizes) - 1, 1).bit_length() + tok_bits + run_bits > 63:
        raise OverflowError("too many groups x tokens x runs for one int64 key; score in chunks")
    counts = np.diff(tok.offsets)
    group_of_row = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    row_key = (group_of_row << (tok_bits + run_bits)) | (
        np.arange(len(counts), dtype=np.int64) - row_off[group_of_row]
    )
    key = np.repeat(row_key, counts)
    key |= tok.ids << run_bits
    key.sort()
    return key, tok_bits, run_bits


def _by_masks(
    key: I64, tok_bits: int, run_bits: int, pairs: PairIndex, n_groups: int, width: int
) -> tuple[I64, I64, I64]:
    """(intersection, size of run i's set, size of run j's set) per pair, from a per-group
    histogram of token bitmasks: bit r of a (group, token)'s mask is set when run r has it."""
    group_token = key >> run_bits
    seg = run_starts(group_token)
    masks = np.bitwise_or.reduceat(np.left_shift(1, key & ((1 << run_bits) - 1)), seg)
    cells = 1 << width
    group = group_token[seg] >> tok_bits
    hist = np.bincount(group * cells + masks, minlength=n_groups * cells).reshape(n_groups, cells)
    m = np.arange(cells)[:, None]
    ti, tj = np.triu_indices(width, 1)
    both = hist @ ((m >> ti) & (m >> tj) & 1)  # integer matmul: exact, and no BLAS threads
    has = hist @ ((m >> np.arange(width)) & 1)
    slot = _pair_slot(np.full_like(pairs.i, width), pairs.i, pairs.j)
    return (
        both[pairs.group, slot].astype(np.int64),
        has[pairs.group, pairs.i].astype(np.int64),
        has[pairs.group, pairs.j].astype(np.int64),
    )


def _by_listing(
    key: I64, tok_bits: int, run_bits: int, pairs: PairIndex, row_off: I64
) -> tuple[I64, I64, I64]:
    """The same as :func:`_by_masks`, listing the pairs of runs inside each (group, token)."""
    key = key[run_starts(key)]  # distinct (group, token, run)
    run = key & ((1 << run_bits) - 1)
    group_token = key >> run_bits
    group = group_token >> tok_bits
    set_size = np.bincount(row_off[group] + run, minlength=int(row_off[-1]))
    seg = run_starts(group_token)
    seg_end = np.repeat(np.append(seg[1:], len(run)), np.diff(np.append(seg, len(run))))
    after = seg_end - np.arange(len(run)) - 1
    left = np.repeat(np.arange(len(run)), after)
    first = np.repeat(np.cumsum(after) - after, after)
    right = left + 1 + (np.arange(len(left)) - first)
    g = group[left]
    slot = pairs.offsets[g] + _pair_slot(np.diff(row_off)[g], run[left], run[right])
    base = row_off[pairs.group]
    return (
        np.bincount(slot, minlength=len(pairs.i)).astype(np.int64),
        set_size[base + pairs.i],
        set_size[base + pairs.j],
    )


def set_intersections(tok: Tokens, row_off: I64, pairs: PairIndex) -> tuple[I64, I64]:
    """Per pair: distinct tokens both runs have, and distinct tokens either run has."""
    sizes = np.diff(row_off)
    key, tok_bits, run_bits = _sorted_keys(tok, row_off)
    width = int(sizes.max(initial=1))
    if len(key) == 0 or len(pairs.i) == 0:
        zero = np.zeros(len(pairs.i), dtype=np.int64)
        return zero, zero
    if len(sizes) * (1 << width) <= MAX_MASK_CELLS:
        inter, size_i, size_j = _by_masks(key, tok_bits, run_bits, pairs, len(sizes), width)
    else:
        inter, size_i, size_j = _by_listing(key, tok_bits, run_bits, pairs, row_off)
    return inter, size_i + size_j - inter
