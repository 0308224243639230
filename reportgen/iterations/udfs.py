"""DuckDB UDFs of the iteration metrics, registered in one place: ``register_iteration_udfs``.

Each is vectorised (one call per batch of rows) and calls the same functions as the Recorder,
so records derived while recording and in SQL agree. Patch similarity runs in rapidfuzz's
``cpdist`` (C++, element-wise over the batch) over the patches' changed lines."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
from duckdb.func import FunctionNullHandling, PythonUDFType
from rapidfuzz import process
from rapidfuzz.distance import Indel

from reportgen.iterations.checks import check_kind
from reportgen.iterations.patches import changed_lines, count_patch_lines


def rg_patch_ratio(previous: Any, current: Any) -> pa.Array:
    """Per row, the line-level similarity of two patches (``patches.patch_ratio``: Indel
    similarity of their changed lines, in rapidfuzz's ``cpdist``); NULL when either is NULL."""
    a = previous.to_pylist()
    b = current.to_pylist()
    both = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x is not None and y is not None]
    out: list[float | None] = [None] * len(a)
    if both:
        scores = process.cpdist(
            [changed_lines(a[i]) for i in both],
            [changed_lines(b[i]) for i in both],
            scorer=Indel.normalized_similarity,
            dtype=np.float64,
        )
        for i, score in zip(both, scores.tolist(), strict=True):
            out[i] = float(score)
    return pa.array(out, type=pa.float64())


def rg_patch_lines(patch: Any) -> pa.Array:
    """Per row, lines added plus removed in a unified diff; NULL for a NULL patch."""
    return pa.array([count_patch_lines(p) for p in patch.to_pylist()], type=pa.int32())


def rg_check_kind(check: Any, normaliser: Any) -> pa.Array:
    """Per row, ``test-suite``, ``build-only`` or ``unknown`` (see reportgen.iterations.checks)."""
    return pa.array(
        [check_kind(c, n) for c, n in zip(check.to_pylist(), normaliser.to_pylist(), strict=True)],
        type=pa.string(),
    )


_UDFS: tuple[tuple[str, Callable[..., pa.Array], list[Any], str], ...] = (
    ("rg_patch_ratio", rg_patch_ratio, ["VARCHAR", "VARCHAR"], "DOUBLE"),
    ("rg_patch_lines", rg_patch_lines, ["VARCHAR"], "INTEGER"),
    ("rg_check_kind", rg_check_kind, ["VARCHAR", "VARCHAR"], "VARCHAR"),
)


def register_iteration_udfs(con: duckdb.DuckDBPyConnection) -> None:
    """Register the iteration UDFs on ``con``; calling it again is harmless."""
    for name, func, params, returns in _UDFS:
        with contextlib.suppress(duckdb.InvalidInputException):
            con.remove_function(name)
        con.create_function(
            name,
            func,
            params,
            returns,
            type=PythonUDFType.ARROW,
            null_handling=FunctionNullHandling.SPECIAL,
        )
