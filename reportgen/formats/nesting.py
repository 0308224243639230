"""How deep JSON nests, measured on raw bytes while a file streams by (numpy, no per-byte loop).

Deeply nested JSON crashes recursive code (Python's ``json``, JSON Schema checks, templates)
with RecursionError, at ingest or later in ``build``. Ingest refuses records nested deeper than
``MAX_DEPTH`` so nothing downstream ever sees one. The same pass tells whether a ``.json``
document is followed by a second one (``{...}{...}``), which a ``.json`` file must not hold."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

MAX_DEPTH = 200
"""Deepest nesting of objects and arrays accepted in one record (the record itself is 1)."""

_QUOTE, _BACKSLASH, _NEWLINE = 34, 92, 10
_OPEN = (123, 91)  # { [
_CLOSE = (125, 93)  # } ]
_SPACE = (32, 9, 10, 13)


@dataclass
class NestingProblem:
    """What the scan found wrong, and on which line (1-based)."""

    line: int
    message: str


class NestingScanner:
    """Feed a file's bytes block by block; ``feed`` returns the first problem, if any.

    ``lines``: JSON Lines, where every newline ends a record (depth and string state restart);
    otherwise one document, whose top-level value must not be followed by anything but space.
    Brackets inside strings do not count; escaped quotes (an odd run of backslashes before
    them) do not end a string."""

    def __init__(self, lines: bool, max_depth: int = MAX_DEPTH) -> None:
        self.lines = lines
        self.max_depth = max_depth
        self.depth = 0
        self.in_string = False
        self.backslashes = 0  # trailing run of backslashes carried from the previous block
        self.line = 1
        self.ended = False  # the top-level value of a document has closed

    def feed(self, block: bytes) -> NestingProblem | None:
        """Scan the next block; the first problem found, else None."""
        if not block:
            return None
        b = np.frombuffer(block, dtype=np.uint8)
        n = len(b)
        idx = np.arange(n, dtype=np.int32)
        newline = b == _NEWLINE
        quotes = (b == _QUOTE) & ~self._escaped(b, idx)
        # where the current segment began: the last newline at or before i (-1: none yet)
        if self.lines:
            last_nl = np.maximum.accumulate(np.where(newline, idx, -1))
        else:
            last_nl = np.full(n, -1, dtype=np.int32)
        before = last_nl < 0  # still on the line carried from the previous block
        quote_count = np.cumsum(quotes, dtype=np.int32)
        base = np.where(before, -int(self.in_string), quote_count[np.maximum(last_nl, 0)])
        outside = ((quote_count - base) & 1) == 0
        opens = (b == _OPEN[0]) | (b == _OPEN[1])
        closes = (b == _CLOSE[0]) | (b == _CLOSE[1])
        delta = (opens & outside).astype(np.int32) - (closes & outside).astype(np.int32)
        level = np.cumsum(delta, dtype=np.int32)
        depth = np.where(before, level + self.depth, level - level[np.maximum(last_nl, 0)])
        problem = self._too_deep(depth, newline)
        if problem is None and not self.lines:
            problem = self._second_document(b, depth, closes & outside, newline)
        self._carry(b, quote_count, base, depth, newline)
        return problem

    def _escaped(
        self, b: npt.NDArray[np.uint8], idx: npt.NDArray[np.int32]
    ) -> npt.NDArray[np.bool_]:
        """For each byte: is it preceded by an odd run of backslashes (so escaped)?"""
        backslash = b == _BACKSLASH
        last_other = np.maximum.accumulate(np.where(backslash, -1, idx))
        run = np.empty(len(b), dtype=np.int32)
        run[0] = self.backslashes
        prev = last_other[:-1]
        run[1:] = np.where(prev < 0, idx[1:] + self.backslashes, idx[1:] - 1 - prev)
        escaped: npt.NDArray[np.bool_] = (run & 1) == 1
        return escaped

    def _too_deep(
        self, depth: npt.NDArray[np.int32], newline: npt.NDArray[np.bool_]
    ) -> NestingProblem | None:
        if int(depth.max()) <= self.max_depth:
            return None
        at = int(np.argmax(depth > self.max_depth))
        line = self.line + int(np.count_nonzero(newline[:at]))
        return NestingProblem(
            line, f"nested more than {self.max_depth} levels deep (objects and arrays)"
        )

    def _second_document(
        self,
        b: npt.NDArray[np.uint8],
        depth: npt.NDArray[np.int32],
        closing: npt.NDArray[np.bool_],
        newline: npt.NDArray[np.bool_],
    ) -> NestingProblem | None:
        if self.ended:
            start = 0
        else:
            ends = np.flatnonzero(closing & (depth == 0))
            if len(ends) == 0:
                return None
            self.ended = True
            start = int(ends[0]) + 1
        rest = b[start:]
        other = np.flatnonzero(~np.isin(rest, _SPACE))
        if len(other) == 0:
            return None
        at = start + int(other[0])
        line = self.line + int(np.count_nonzero(newline[:at]))
        return NestingProblem(
            line, "holds more than one JSON document; a .json file holds exactly one (use .jsonl)"
        )

    def _carry(
        self,
        b: npt.NDArray[np.uint8],
        quote_count: npt.NDArray[np.int32],
        base: npt.NDArray[np.int32],
        depth: npt.NDArray[np.int32],
        newline: npt.NDArray[np.bool_],
    ) -> None:
        """Keep the state at the end of this block for the next one."""
        self.in_string = bool((int(quote_count[-1]) - int(base[-1])) & 1)
        self.depth = int(depth[-1])
        self.line += int(np.count_nonzero(newline))
        others = np.flatnonzero(b != _BACKSLASH)
        trailing = len(b) - 1 - int(others[-1]) if len(others) else len(b)
        self.backslashes = trailing + (self.backslashes if not len(others) else 0)
