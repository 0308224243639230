"""``score_runs`` for many groups of outputs at once, on numpy arrays (no loop per group).

Input: every group's outputs back to back (run order within a group as ``score_runs`` sees
it) and the group sizes; groups are scored in cache-sized chunks (:mod:`.chunks`). Grain of the work: one token id per token (see :mod:`.tokens`); one
sorted key per (group, token, run) to get the distinct tokens each run has; one row per pair
of runs of a group for the Jaccard values. Each number equals the scorer's bit for bit:

* exact matches: identical outputs are found by candidate classes checked in full
  (:mod:`.exact`); a group with c copies of an output holds c(c-1)/2 identical pairs;
* Jaccard: per (group, token) the set of runs that have it; small groups turn that set into a
  bitmask and count masks per group (intersections are then one small matrix product), larger
  groups list the pairs inside each set. ``avg_overlap`` adds the pair values in (i, j) order
  exactly as the builtin ``sum`` does (:mod:`.pysum`) and divides like Python does;
* divergence: tokens are compared with run 0's at the same position, in growing windows
  (:mod:`.prefix`);
* rounding is Python's ``round(x, 3)`` (:func:`.rounding.round3`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from reportgen.convergence.chunks import CHUNK_BYTES, chunk_bounds, merge
from reportgen.convergence.exact import identical_pairs
from reportgen.convergence.members import GroupKey
from reportgen.convergence.pairs import PairIndex, pair_index, set_intersections
from reportgen.convergence.prefix import shared_prefix
from reportgen.convergence.pysum import pair_means
from reportgen.convergence.rounding import round3
from reportgen.convergence.tokens import Tokens, as_string_array, tokenize_all

__all__ = ["GroupScores", "score_groups"]

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class GroupScores:
    """Per group (arrays of length G) the scorer's numbers; per pair the raw Jaccard."""

    sizes: I64
    exact_match_rate: F64
    avg_overlap: F64
    jaccard: F64
    convergence_score: F64
    position: I64
    token: list[str | None]
    pairs: PairIndex
    pair_jaccard: F64  # unrounded, in the order of ``pairs``

    def _columns(self) -> Iterator[tuple[Any, ...]]:
        """Per group: num_runs, exact, avg_overlap, jaccard, score, position, token."""
        return zip(
            self.sizes.tolist(),
            self.exact_match_rate.tolist(),
            self.avg_overlap.tolist(),
            self.jaccard.tolist(),
            self.convergence_score.tolist(),
            self.position.tolist(),
            self.token,
            strict=True,
        )

    def records(self) -> list[dict[str, Any]]:
        """One dict per group, shaped (keys and key order) exactly like ``score_runs``."""
        return [
            {
                "num_runs": n,
                "exact_match_rate": e,
                "token_metrics": {"avg_overlap": a, "jaccard": j},
                "convergence_score": s,
                "divergence_point": {
                    "diverges_at_token": t,
                    "token_position": p,
                    "num_tokens_to_divergence": p,
                },
            }
            for n, e, a, j, s, p, t in self._columns()
        ]

    def keyed_records(self, keys: Sequence[GroupKey]) -> list[dict[str, Any]]:
        """:meth:`records` led by each group's suite, label, task_id and batch."""
        return [
            {
                "suite": k[0],
                "label": k[1],
                "task_id": k[2],
                "batch": k[3],
                "num_runs": n,
                "exact_match_rate": e,
                "token_metrics": {"avg_overlap": a, "jaccard": j},
                "convergence_score": s,
                "divergence_point": {
                    "diverges_at_token": t,
                    "token_position": p,
                    "num_tokens_to_divergence": p,
                },
            }
            for k, (n, e, a, j, s, p, t) in zip(keys, self._columns(), strict=True)
        ]


def _token_sums(tok: Tokens) -> I64:
    """Sum of each output's token ids (equal outputs have equal sums)."""
    counts = np.diff(tok.offsets)
    sums = np.zeros(len(counts), dtype=np.int64)
    some = counts > 0
    if some.any():
        sums[some] = np.add.reduceat(tok.ids, tok.offsets[:-1][some])
    return sums


def score_groups(
    outputs: pa.Array | pa.ChunkedArray | list[str],
    sizes: npt.ArrayLike,
    *,
    chunk_bytes: int = CHUNK_BYTES,
    workers: int = 1,
) -> GroupScores:
    """The scorer's numbers for every group; ``sizes[g]`` outputs (>= 1) per group, in order.

    Groups are scored in chunks of about ``chunk_bytes`` of text, so that the per-token arrays
    of a chunk stay in the CPU cache (several times faster than one pass over everything);
    ``workers`` > 1 scores chunks on that many threads (numpy and Arrow release the GIL; on
    a busy 2-CPU machine one thread measured as fast, so the default is 1)."""
    arr = as_string_array(outputs)
    sizes_ = np.asarray(sizes, dtype=np.int64)
    if (sizes_ < 1).any() or int(sizes_.sum()) != len(arr):
        raise ValueError("every group needs >= 1 output and sizes must add up to the outputs")
    bounds = list(chunk_bounds(arr, sizes_, chunk_bytes))
    n_workers = min(max(workers, 1), len(bounds))

    def score(bound: tuple[int, int, int, int]) -> GroupScores:
        g0, g1, r0, r1 = bound
        return _score_chunk(arr.slice(r0, r1 - r0), sizes_[g0:g1])

    if n_workers <= 1:
        parts = [score(b) for b in bounds]
    else:
        with ThreadPoolExecutor(n_workers) as pool:
            parts = list(pool.map(score, bounds))
    return parts[0] if len(parts) == 1 else merge(parts)


def _score_chunk(arr: pa.LargeStringArray, sizes_: I64) -> GroupScores:
    """:func:`score_groups` for one chunk of whole groups."""
    row_off = np.zeros(len(sizes_) + 1, dtype=np.int64)
    np.cumsum(sizes_, out=row_off[1:])
    tok = tokenize_all(arr)
    pairs = pair_index(sizes_)
    inter, union = set_intersections(tok, row_off, pairs)
    with np.errstate(invalid="ignore", divide="ignore"):
        pair_jac = np.where(union == 0, 1.0, inter / np.maximum(union, 1))
        exact_raw = identical_pairs(arr, row_off, _token_sums(tok)) / np.maximum(pairs.counts, 1)
    single = sizes_ == 1
    exact = round3(np.where(single, 1.0, exact_raw))
    avg = round3(pair_means(pair_jac, pairs.offsets))
    first = np.ones(len(sizes_), dtype=np.float64)
    multi = np.flatnonzero(~single)
    first[multi] = pair_jac[pairs.offsets[multi]]
    position, shortest, longest = shared_prefix(tok.ids, tok.offsets, row_off)
    position[single] = 0
    with np.errstate(invalid="ignore", divide="ignore"):
        prefix = np.where(longest > 0, np.minimum(position / np.maximum(longest, 1), 1.0), 1.0)
    score = round3(0.5 * exact + 0.3 * avg + 0.2 * prefix)
    score[single] = 1.0
    token: list[str | None] = [None] * len(sizes_)
    at = np.flatnonzero((position < shortest) & ~single)
    texts = tok.texts(tok.offsets[row_off[at]] + position[at])
    for g, text in zip(at.tolist(), texts, strict=True):
        token[g] = text
    return GroupScores(sizes_, exact, avg, round3(first), score, position, token, pairs, pair_jac)
