"""The rg_* UDFs, called through SQL as the metric queries call them."""

from __future__ import annotations

import random
from collections.abc import Iterator

import duckdb
import pytest

from reportgen.divergence.reference import align, detect_loops, lcs_length, recovery_flags
from reportgen.divergence.udfs import register_udfs


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory connection with the UDFs registered."""
    c = duckdb.connect()
    register_udfs(c)
    yield c
    c.close()


def one(con: duckdb.DuckDBPyConnection, sql: str, params: list[object] | None = None) -> object:
    """The single value a query returns."""
    row = con.execute(sql, params).fetchone()
    assert row is not None
    return row[0]


def test_register_twice_is_harmless(con: duckdb.DuckDBPyConnection) -> None:
    """register_udfs can run again on the same connection."""
    register_udfs(con)
    assert one(con, "SELECT rg_lcs_length([1, 2, 3], [2, 3])") == 2


def test_lcs_length(con: duckdb.DuckDBPyConnection) -> None:
    """LCS length of integer lists; empty lists give 0, NULL gives NULL."""
    assert one(con, "SELECT rg_lcs_length([1, 2, 3, 2, 4, 1, 2], [2, 4, 3, 1, 2, 1])") == 4
    assert one(con, "SELECT rg_lcs_length([], [1])") == 0
    assert one(con, "SELECT rg_lcs_length(CAST([] AS INTEGER[]), CAST([] AS INTEGER[]))") == 0
    assert one(con, "SELECT rg_lcs_length(NULL, [1])") is None


def test_lcs_length_bound_parameters(con: duckdb.DuckDBPyConnection) -> None:
    """Lists can be bound as parameters."""
    assert one(con, "SELECT rg_lcs_length(?::INTEGER[], ?::INTEGER[])", [[5, 6, 7], [6, 7, 8]]) == 2


def test_align(con: duckdb.DuckDBPyConnection) -> None:
    """Alignment rows as {b, c} structs in order; the last equal item matches."""
    got = one(con, "SELECT rg_align([1, 2, 1], [1])")
    assert got == [{"b": 0, "c": None}, {"b": 1, "c": None}, {"b": 2, "c": 0}]
    assert one(con, "SELECT rg_align([], [7])") == [{"b": None, "c": 0}]
    assert one(con, "SELECT rg_align([], [])") == []


def test_recovery(con: duckdb.DuckDBPyConnection) -> None:
    """Worked case: candidate [a, q!, x, y, q, s] with a, q!, q, s matched -> 3 recovery steps."""
    got = one(con, "SELECT rg_recovery([false, true, false, false, false, false], [0, 1, 4, 5])")
    assert got == {"recovery_steps": 3, "unrecovered_steps": 0}
    got = one(con, "SELECT rg_recovery([false, true, false, false], [0, 1])")
    assert got == {"recovery_steps": 2, "unrecovered_steps": 2}


def test_loops(con: duckdb.DuckDBPyConnection) -> None:
    """Loop blocks with stagnancy from payload ids."""
    got = one(con, "SELECT rg_loops([1, 2, 2, 2, 3], [0, 5, 5, 5, 1])")
    assert got == [{"start_index": 1, "length": 1, "iterations": 3, "stagnant": True}]
    got = one(con, "SELECT rg_loops([1, 2, 1, 2], [0, 1, 2, 1])")
    assert got == [{"start_index": 0, "length": 2, "iterations": 2, "stagnant": False}]
    assert one(con, "SELECT rg_loops([], [])") == []


def test_many_rows_across_batches(con: duckdb.DuckDBPyConnection) -> None:
    """Thousands of rows (several Arrow batches, NULLs among them) give the per-row answers."""
    rng = random.Random(7)
    rows: list[tuple[int, list[int] | None, list[int]]] = []
    for i in range(5000):
        xs = [rng.randrange(4) for _ in range(rng.randrange(12))]
        ys = [rng.randrange(4) for _ in range(rng.randrange(12))]
        rows.append((i, None if i % 997 == 0 else xs, ys))
    con.execute("CREATE TABLE t (i INTEGER, a INTEGER[], b INTEGER[])")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
    got = con.execute(
        "SELECT i, rg_lcs_length(a, b), rg_align(a, b), rg_loops(b, b), "
        "rg_recovery(list_transform(b, lambda x: x = 0), CAST(range(0, len(b), 2) AS INTEGER[])) FROM t ORDER BY i"
    ).fetchall()
    for (i, a, b), (gi, lcs, alignment, loops, rec) in zip(rows, got, strict=True):
        assert gi == i
        if a is None:
            assert lcs is None and alignment is None
        else:
            assert lcs == lcs_length(a, b)
            assert [(r["b"], r["c"]) for r in alignment] == align(a, b)
        expected_loops = [
            (lp.start_index, lp.length, lp.iterations, lp.stagnant) for lp in detect_loops(b, b, b)
        ]
        assert [
            (r["start_index"], r["length"], r["iterations"], r["stagnant"]) for r in loops
        ] == expected_loops
        aligned = [k % 2 == 0 for k in range(len(b))]
        expected_rec = recovery_flags([x == 0 for x in b], aligned)
        assert (rec["recovery_steps"], rec["unrecovered_steps"]) == expected_rec
