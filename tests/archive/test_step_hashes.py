"""Stored step hashes: written at ingest, brought up to date by connect(), computed when absent."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from reportgen.archive.connection import connect
from reportgen.divergence.metrics import Pair, insert_runs, pair_metrics
from reportgen.divergence.reference import Run, Step, compare_pair
from reportgen.errors import InputError

RUNS = {
    "b": Run(
        (
            Step("tool_call", "a", {"x": 1}, "out"),
            Step("tool_call", "q", None, None, "error"),
            Step("tool_call", "q", None, None),
            Step("llm_call", "s", {"y": [1, 2]}, {"z": None}),
        )
    ),
    "c": Run(
        (
            Step("tool_call", "a", {"x": 2}, "out"),
            Step("tool_call", "q", None, None, "error"),
            Step("tool_call", "x", {}, None),
            Step("tool_call", "x", {}, None),
            Step("tool_call", "q", None, None),
            Step("llm_call", "s", {"y": [1, 2]}, {"z": None}),
        )
    ),
}


def expected() -> dict[str, object]:
    return compare_pair(RUNS["b"], RUNS["c"])


def metrics(con: duckdb.DuckDBPyConnection) -> dict[str, object]:
    (row,) = pair_metrics(con, [Pair("p", "t", "b", "c")])
    return {k: v for k, v in row.items() if k not in ("pair_id", "task_id")}


def check(con: duckdb.DuckDBPyConnection) -> None:
    got = metrics(con)
    assert {k: v for k, v in got.items() if k in expected()} == expected()


def stored(con: duckdb.DuckDBPyConnection) -> list[tuple[object, object]]:
    return con.execute("SELECT signature, payload FROM steps ORDER BY run_id, idx").fetchall()


def test_insert_runs_stores_the_hashes_ingest_would() -> None:
    con = connect(None)
    insert_runs(con, RUNS)
    hashes = stored(con)
    assert all(sig is not None and pay is not None for sig, pay in hashes)
    recomputed = con.execute(
        "SELECT rg_step_signature(type, action, input_keys), rg_step_payload(input, output) "
        "FROM steps ORDER BY run_id, idx"
    ).fetchall()
    assert hashes == recomputed
    # equal signatures exactly where the steps are equivalent: b[1] and b[2] share one
    assert hashes[1][0] == hashes[2][0] and hashes[1][1] == hashes[2][1]
    assert hashes[0][0] != hashes[3][0]
    check(con)


def test_rows_without_hashes_are_computed_at_read() -> None:
    con = connect(None)
    insert_runs(con, RUNS)
    con.execute("UPDATE steps SET signature = NULL WHERE idx = 2")
    check(con)
    # wrong but present values are what the metrics read: no step matches any more
    con.execute("UPDATE steps SET signature = idx + CASE WHEN run_id = 'c' THEN 100 ELSE 0 END")
    assert metrics(con)["trajectory_divergence_index"] == 1.0


def test_archive_from_before_the_hashes_is_upgraded_even_read_only(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    con = connect(db)
    insert_runs(con, RUNS)
    # what schema 1 left: no hash columns, no probe
    con.execute("ALTER TABLE steps DROP COLUMN signature")
    con.execute("ALTER TABLE steps DROP COLUMN payload")
    con.execute("DELETE FROM archive_info WHERE key = 'step_hashes'")
    con.execute("UPDATE archive_info SET value = '1' WHERE key = 'schema_version'")
    con.close()
    ro = connect(db, read_only=True)
    try:
        assert all(sig is not None and pay is not None for sig, pay in stored(ro))
        version = ro.execute(
            "SELECT value FROM archive_info WHERE key = 'schema_version'"
        ).fetchall()
        assert version == [("2",)]
        check(ro)
    finally:
        ro.close()


def test_hashes_from_another_hash_function_are_recomputed(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    con = connect(db)
    insert_runs(con, RUNS)
    good = stored(con)
    # as if an older DuckDB had hashed differently
    con.execute("UPDATE steps SET signature = 7, payload = 7")
    con.execute("UPDATE archive_info SET value = 'older' WHERE key = 'step_hashes'")
    con.close()
    again = connect(db)
    try:
        assert stored(again) == good
        check(again)
    finally:
        again.close()
    # an up-to-date archive is left alone: a read-only open changes nothing
    before = db.stat().st_mtime_ns
    connect(db, read_only=True).close()
    assert db.stat().st_mtime_ns == before


@pytest.mark.parametrize("read_only", [False, True])
def test_not_an_archive_still_fails_clearly(tmp_path: Path, read_only: bool) -> None:
    db = tmp_path / "other.duckdb"
    other = duckdb.connect(str(db))
    other.execute("CREATE TABLE x AS SELECT 1 AS y")
    other.close()
    before = db.read_bytes()
    with pytest.raises(InputError, match="not a reportgen archive"):
        connect(db, read_only=read_only)
    assert db.read_bytes() == before


def test_a_new_archive_is_what_an_upgraded_empty_one_is(tmp_path: Path) -> None:
    """connect() writes a new file's schema in one go (no probes of what is there); the
    result is what the path for existing archives makes of an empty DuckDB file."""
    duckdb.connect(str(tmp_path / "empty.duckdb")).close()
    made = {name: connect(tmp_path / name) for name in ("new.duckdb", "empty.duckdb")}
    made["memory"] = connect(None)

    def layout(con: duckdb.DuckDBPyConnection) -> tuple[object, ...]:
        info = con.execute("SELECT * FROM archive_info ORDER BY key").fetchall()
        columns = con.execute(
            "SELECT table_name, column_name, data_type, is_nullable, column_default"
            " FROM information_schema.columns WHERE table_schema = 'main'"
            " ORDER BY table_name, ordinal_position"
        ).fetchall()
        return info, columns

    new, empty, memory = (layout(con) for con in made.values())
    assert new == empty == memory
    assert [key for key, _ in new[0]] == ["schema_version", "step_hashes"]
    for con in made.values():
        con.close()
