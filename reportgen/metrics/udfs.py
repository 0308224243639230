"""DuckDB UDFs for the per-pair sequence work of the divergence SQL; the one place they are registered.

Each UDF is vectorised (``type="arrow"``: one call per batch of rows), small and pure, and calls
the same functions as the Python reference in :mod:`reportgen.metrics.trajectory`, so the SQL
path and ``compare_pair`` agree by construction. Sequences arrive as dense integer ids.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import duckdb
import pyarrow as pa
from duckdb.func import PythonUDFType
from rapidfuzz.distance import LCSseq

from reportgen.metrics.trajectory import align_ids, is_stagnant, loop_blocks, recovery_flags


def _rows(arr: Any) -> list[Any]:
    """Python values of an Arrow argument (Array or ChunkedArray); NULL lists become []."""
    return [[] if v is None else v for v in arr.to_pylist()]


def _list_of_structs(
    rows: Sequence[Sequence[Sequence[Any]]], fields: Sequence[tuple[str, pa.DataType]]
) -> pa.Array:
    """Build a list<struct> Arrow array from per-row lists of tuples, column-wise (no dicts)."""
    offsets = [0]
    columns: list[list[Any]] = [[] for _ in fields]
    for row in rows:
        if row:
            for col, values in zip(columns, zip(*row, strict=True), strict=True):
                col.extend(values)
        offsets.append(offsets[-1] + len(row))
    children = [pa.array(col, type=t) for col, (_, t) in zip(columns, fields, strict=True)]
    values = pa.StructArray.from_arrays(children, names=[name for name, _ in fields])
    return pa.ListArray.from_arrays(pa.array(offsets, type=pa.int32()), values)


def rg_lcs_length(a: Any, b: Any) -> pa.Array:
    """LCS length of two integer sequences per row (rapidfuzz)."""
    return pa.array(
        [
            int(LCSseq.similarity(x, y)) if x and y else 0
            for x, y in zip(_rows(a), _rows(b), strict=True)
        ],
        type=pa.int32(),
    )


def rg_align(a: Any, b: Any) -> pa.Array:
    """The DESIGN.md LCS alignment per row, as a list of {b: baseline idx, c: candidate idx}."""
    rows = [align_ids(x, y) for x, y in zip(_rows(a), _rows(b), strict=True)]
    return _list_of_structs(rows, [("b", pa.int32()), ("c", pa.int32())])


def rg_recovery(wasted: Any, matched: Any) -> pa.Array:
    """RSR window walk of one run per row: {recovery_steps, unrecovered_steps}.

    ``wasted`` flags the run's error/retry/abandoned steps in order; ``matched`` lists the
    indices of its steps that the alignment matches with the other run."""
    rec: list[int] = []
    unrec: list[int] = []
    for flags, idxs in zip(_rows(wasted), _rows(matched), strict=True):
        aligned = [False] * len(flags)
        for i in idxs:
            aligned[i] = True
        r, u = recovery_flags(flags, aligned)
        rec.append(r)
        unrec.append(u)
    return pa.StructArray.from_arrays(
        [pa.array(rec, type=pa.int32()), pa.array(unrec, type=pa.int32())],
        names=["recovery_steps", "unrecovered_steps"],
    )


def rg_loops(sigs: Any, payloads: Any) -> pa.Array:
    """Loops of one run per row: {start_index, length, iterations, stagnant}, left to right."""
    rows = [
        [(s, k, n, is_stagnant(p, s, k, n)) for s, k, n in loop_blocks(sig)]
        for sig, p in zip(_rows(sigs), _rows(payloads), strict=True)
    ]
    return _list_of_structs(
        rows,
        [
            ("start_index", pa.int32()),
            ("length", pa.int32()),
            ("iterations", pa.int32()),
            ("stagnant", pa.bool_()),
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
