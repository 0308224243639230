"""How deep JSON nests, measured on raw bytes while a file streams by (a compiled byte loop).

Deeply nested JSON crashes recursive code (Python's ``json``, JSON Schema checks, templates)
with RecursionError, at ingest or later in ``build``. Ingest refuses records nested deeper than
``MAX_DEPTH`` so nothing downstream ever sees one. The same pass tells whether a ``.json``
document is followed by a second one (``{...}{...}``), which a ``.json`` file must not hold."""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.formats._scan import Scan
from reportgen.limits import MAX_DEPTH

__all__ = ["MAX_DEPTH", "NestingProblem", "NestingScanner"]


@dataclass
class NestingProblem:
    """What the scan found wrong, and on which line (1-based)."""

    line: int
    message: str


class NestingScanner:
    """Feed a file's bytes block by block; ``feed`` returns the first problem, if any.

    ``lines``: JSON Lines, where every newline ends a record (depth and string state restart);
    otherwise one document, whose top-level value must not be followed by anything but space.
    Brackets inside strings do not count; escaped quotes do not end a string. The byte loop is
    compiled (``_scan.pyx``): a file streams through at memory speed."""

    def __init__(self, lines: bool, max_depth: int = MAX_DEPTH) -> None:
        self.lines = lines
        self.max_depth = max_depth
        self.scan = Scan(lines, max_depth)

    def feed(self, block: bytes) -> NestingProblem | None:
        """Scan the next block; the first problem found, else None."""
        if not block:
            return None
        problem, at = self.scan.feed(block)
        if problem == 1:
            return NestingProblem(
                at, f"nested more than {self.max_depth} levels deep (objects and arrays)"
            )
        if problem == 2:
            return NestingProblem(
                at,
                "holds more than one JSON document; a .json file holds exactly one (use .jsonl)",
            )
        return None
