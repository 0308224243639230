"""Split groups into cache-sized chunks, and put the chunks' scores back together."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from reportgen.convergence.pairs import PairIndex

if TYPE_CHECKING:
    from reportgen.convergence.vectorised import GroupScores

__all__ = ["CHUNK_BYTES", "chunk_bounds", "merge"]

I64 = npt.NDArray[np.int64]
CHUNK_BYTES = 1 << 20  # about 1 MiB of text: ~250k tokens, arrays of a few MB at most
CHUNK_ROWS = 1 << 16  # and at most this many outputs (unless one group has more)


def chunk_bounds(
    arr: pa.LargeStringArray, sizes: I64, chunk_bytes: int
) -> Iterator[tuple[int, int, int, int]]:
    """(first group, end group, first row, end row) of consecutive chunks of whole groups."""
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset :][: len(arr) + 1]
    row_off = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=row_off[1:])
    group_bytes = offsets[row_off] - offsets[0] if len(offsets) else row_off * 0
    g0 = 0
    while g0 < len(sizes):
        by_bytes = np.searchsorted(group_bytes, group_bytes[g0] + chunk_bytes, side="right")
        by_rows = np.searchsorted(row_off, row_off[g0] + CHUNK_ROWS, side="right")
        g1 = min(max(int(min(by_bytes, by_rows)) - 1, g0 + 1), len(sizes))
        yield g0, g1, int(row_off[g0]), int(row_off[g1])
        g0 = g1
    if len(sizes) == 0:
        yield 0, 0, 0, 0


def _merge_pairs(parts: Sequence[PairIndex], group_base: I64) -> PairIndex:
    """Concatenate pair indexes of consecutive chunks (group numbers and offsets shifted)."""
    pair_base = np.cumsum([0] + [int(p.offsets[-1]) for p in parts])
    return PairIndex(
        counts=np.concatenate([p.counts for p in parts]),
        offsets=np.concatenate(
            [p.offsets[:-1] + b for p, b in zip(parts, pair_base, strict=False)] + [pair_base[-1:]]
        ),
        group=np.concatenate([p.group + b for p, b in zip(parts, group_base, strict=False)]),
        i=np.concatenate([p.i for p in parts]),
        j=np.concatenate([p.j for p in parts]),
    )


def merge(parts: Sequence[GroupScores]) -> GroupScores:
    """One GroupScores from the scores of consecutive chunks."""
    from reportgen.convergence.vectorised import GroupScores

    group_base = np.cumsum([0] + [len(p.sizes) for p in parts])
    return GroupScores(
        sizes=np.concatenate([p.sizes for p in parts]),
        exact_match_rate=np.concatenate([p.exact_match_rate for p in parts]),
        avg_overlap=np.concatenate([p.avg_overlap for p in parts]),
        jaccard=np.concatenate([p.jaccard for p in parts]),
        convergence_score=np.concatenate([p.convergence_score for p in parts]),
        position=np.concatenate([p.position for p in parts]),
        token=[t for p in parts for t in p.token],
        pairs=_merge_pairs([p.pairs for p in parts], group_base),
        pair_jaccard=np.concatenate([p.pair_jaccard for p in parts]),
    )
