"""A pair page's aligned step table as compact data: one small JSON record per row, packed
(stepdata.pack_json: DEFLATE, base64) into the table's ``data-rows`` attribute (data, never
run) and drawn by static/steps.js. The rows' side cells are then filled
from the two runs' step data scripts (stepdata.py), so a pair page holds only what it alone
shows: the alignment, the marks, the per-row deltas and input changes, and the word diffs.

A row is ``{"s": status, "b": side, "c": side, "f": 1, "d": [[name, change], ...],
"w": [part, ...], "x": [[key, change], ...], "p": [[part, pieces], ...]}`` (absent keys:
none), its number its place in the list; a side is ``[position in its run, status slug,
recovery, loop label, stagnant]`` with recovery 0 (none), 1 (in a window) or 2 ("counted",
marked "recovering"); ``p`` holds the word diffs of a modified step's input, output and
error, each a list of pieces: ``[0, text]`` unchanged, ``[1, text]`` removed, ``[2, text]``
added, ``[3, n]`` n unchanged characters folded, ``[4]`` more changes left out, ``[5, a, b]``
too long to diff (a and b words)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import orjson

from reportgen.divergence.textdiff import WordDiff
from reportgen.site import paths
from reportgen.site.context import DiffRow, StepView
from reportgen.site.stepdata import pack_json

_slug = lru_cache(maxsize=4096)(paths.slug)


def _side(view: StepView | None, position: int | None) -> list[Any] | None:
    """One side cell's record (see the module docstring), None for an empty cell."""
    if view is None or position is None:
        return None
    recovery = 2 if view.recovery == "counted" else 1 if view.recovery else 0
    return [position, _slug(view.status), recovery, view.loop, 1 if view.stagnant else 0]


_OPEN = {"s": b"[0,", "d": b"[1,", "i": b"[2,"}


def _pieces(diff: WordDiff) -> orjson.Fragment:
    """A word diff's pieces as the page draws them (see the module docstring), as JSON ready
    to embed: bytes from the diff's columns, no Python object per piece (a pair page has
    hundreds of pieces, and each container made is work for the garbage collector)."""
    if diff.kind == "too_long":
        return orjson.Fragment(orjson.dumps([[5, *diff.sizes]]))
    dumps = orjson.dumps
    out = [
        b"[3,%d]" % hidden if mark == "f" else b"[4]" if mark == "m" else
        _OPEN[mark] + dumps(text) + b"]"
        for mark, text, hidden in zip(diff.marks, diff.texts, diff.hidden, strict=True)
    ]  # fmt: skip
    return orjson.Fragment(b"[" + b",".join(out) + b"]")


def _record(row: DiffRow) -> dict[str, Any]:
    rec: dict[str, Any] = {"s": row.status}
    for key, view, position in (
        ("b", row.baseline, row.positions[0]),
        ("c", row.candidate, row.positions[1]),
    ):
        side = _side(view, position)
        if side is not None:
            rec[key] = side
    if row.first_divergence:
        rec["f"] = 1
    if row.deltas:
        rec["d"] = sorted(row.deltas.items())
    if row.rewritten:
        rec["w"] = list(row.rewritten)
    if row.changes:
        rec["x"] = [list(change) for change in row.changes]
    parts = (("input", row.input_diff), ("output", row.output_diff), ("error", row.error_diff))
    diffs = [[part, _pieces(diff)] for part, diff in parts if diff is not None]
    if diffs:
        rec["p"] = diffs
    return rec


def packed_rows(rows: Sequence[DiffRow]) -> str:
    """The rows' records packed for the table's ``data-rows`` attribute (base64: nothing in it
    needs escaping in an attribute)."""
    return pack_json([_record(r) for r in rows]).decode()
