"""Pairs of byte-identical outputs per group, without a pair loop or a full-text hash.

Outputs are put in candidate classes by group and a mix of byte length, first and last 8
bytes and sum of token ids: equal outputs always share a class. Each candidate is then compared in full with
its class's first member (Arrow). A class of c equal outputs holds c(c-1)/2 identical pairs;
the rare class whose members are not all equal is split exactly by interning its texts.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from reportgen.archive.arrow import numbers, to_numpy
from reportgen.convergence.ranges import ranges, run_starts
from reportgen.convergence.token_ids import words_at

__all__ = ["identical_pairs"]

I64 = npt.NDArray[np.int64]
_MIX = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93],
    dtype=np.uint64,
)


def _masked(words: npt.NDArray[np.uint64], length: I64) -> npt.NDArray[np.int64]:
    """Zero the bytes of each word past the output's end (outputs shorter than 8 bytes)."""
    keep = np.minimum(length, 8).astype(np.uint64) * np.uint64(8)
    mask = np.where(keep >= 64, np.uint64(0), np.uint64(1) << (keep % np.uint64(64))) - np.uint64(1)
    return (words & mask).view(np.int64)


def _classes(outputs: pa.LargeStringArray, group: I64, token_sum: I64) -> tuple[I64, I64, I64]:
    """Rows sorted into candidate classes: (order, class starts, class sizes).

    Byte length, first and last 8 bytes and token-id sum are mixed into 40 bits beside the
    group number; different outputs that share a class are split later, so a mix collision
    costs time, never exactness."""
    n = len(outputs)
    offsets = np.frombuffer(outputs.buffers()[1], dtype=np.int64)[outputs.offset :][: n + 1]
    buf = outputs.buffers()[2]
    data = np.frombuffer(buf, dtype=np.uint8) if buf else np.zeros(0, np.uint8)
    length = np.diff(offsets)
    mix = _masked(words_at(data, offsets[:-1]), length).view(np.uint64) * _MIX[0]
    mix ^= (
        _masked(words_at(data, np.maximum(offsets[1:] - 8, offsets[:-1])), length).view(np.uint64)
        * _MIX[1]
    )
    mix ^= length.view(np.uint64) * _MIX[2]
    mix ^= token_sum.view(np.uint64) * _MIX[3]
    key = (group << 40) | (mix >> np.uint64(24)).view(np.int64)
    order = np.argsort(key, kind="stable")
    starts = run_starts(key[order])
    return order, starts, np.diff(np.append(starts, n))


def identical_pairs(outputs: pa.LargeStringArray, row_off: I64, token_sum: I64) -> I64:
    """Per group, how many unordered pairs of its outputs are byte-identical.

    ``token_sum`` is any per-output number that equal outputs share (a filter, not a proof)."""
    sizes = np.diff(row_off)
    group = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    same = np.zeros(len(sizes), dtype=np.int64)
    if len(outputs) == 0:
        return same
    order, starts, copies = _classes(outputs, group, token_sum)
    multi = np.flatnonzero(copies > 1)
    at, cls = ranges(starts[multi], copies[multi])
    rows, firsts = order[at], order[starts[multi]][cls]
    equal = pc.equal(
        outputs.take(numbers(rows, pa.int64())), outputs.take(numbers(firsts, pa.int64()))
    )
    failed = np.zeros(len(multi), dtype=bool)
    failed[cls[~to_numpy(equal, fill=False)]] = True
    ok = multi[~failed]
    np.add.at(same, group[order[starts[ok]]], copies[ok] * (copies[ok] - 1) // 2)
    redo = failed[cls]
    if redo.any():
        texts = outputs.take(numbers(rows[redo], pa.int64())).dictionary_encode().indices
        key = np.sort(cls[redo] * len(outputs) + to_numpy(texts).astype(np.int64))
        first = run_starts(key)
        dup = np.diff(np.append(first, len(key)))
        owner = group[order[starts[multi[key[first] // len(outputs)]]]]
        np.add.at(same, owner, dup * (dup - 1) // 2)
    return same
