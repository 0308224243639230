"""Prompt-cache and reasoning token columns (cache_read_tokens, cache_write_tokens,
reasoning_tokens on steps and runs; runs.cost_recomputed_usd): a native trace's values are
stored, a bad one is refused, and an archive made before the columns gains them when opened."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reportgen.archive import connect
from reportgen.errors import InputError
from reportgen.ingest import ingest

NEW = (
    ("runs", "cache_read_tokens"),
    ("runs", "cache_write_tokens"),
    ("runs", "reasoning_tokens"),
    ("runs", "cost_recomputed_usd"),
    ("steps", "cache_read_tokens"),
    ("steps", "cache_write_tokens"),
    ("steps", "reasoning_tokens"),
)


def _trace(folder: Path, step_extra: dict[str, object], typed: bool = True) -> Path:
    folder.mkdir(exist_ok=True)
    steps: list[dict[str, object]] = [
        {"type": "llm", "action": "think", "status": "ok", "tokens_in": 100, **step_extra},
        {"type": "tool", "action": "bash", "status": "ok"},
    ]
    if not typed:  # an exponent of 3 digits: the byte scan sends the file the slow way
        steps[1]["cost_usd"] = 1e-100
    run = {
        "run_id": "r1",
        "task_id": "t",
        "cache_read_tokens": 7,
        "reasoning_tokens": 3,
        "steps": steps,
    }
    (folder / "runs.jsonl").write_text(json.dumps(run) + "\n")
    return folder


@pytest.mark.parametrize("typed", [True, False])
def test_native_trace_fields_are_stored(tmp_path: Path, typed: bool) -> None:
    db = tmp_path / "a.duckdb"
    extra = {"cache_read_tokens": 60, "cache_write_tokens": 30, "reasoning_tokens": 5}
    ingest([_trace(tmp_path / "c", extra, typed)], db=db)
    con = connect(db, read_only=True)
    try:
        steps = con.execute(
            "SELECT cache_read_tokens, cache_write_tokens, reasoning_tokens FROM steps ORDER BY idx"
        ).fetchall()
        run = con.execute(
            "SELECT cache_read_tokens, cache_write_tokens, reasoning_tokens FROM runs"
        ).fetchone()
    finally:
        con.close()
    assert steps == [(60, 30, 5), (None, None, None)]
    assert run == (7, None, 3)


@pytest.mark.parametrize("typed", [True, False])
@pytest.mark.parametrize("value", [-1, 1.5, "12"])
def test_a_bad_count_is_refused(tmp_path: Path, typed: bool, value: object) -> None:
    folder = _trace(tmp_path / "c", {"cache_write_tokens": value}, typed)
    with pytest.raises(InputError, match="cache_write_tokens"):
        ingest([folder], db=tmp_path / "a.duckdb")


def test_an_archive_made_before_the_columns_gains_them(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    ingest([_trace(tmp_path / "c", {})], db=db)
    con = connect(db)
    for table, column in NEW:
        con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    con.close()
    con = connect(db, read_only=True)  # made writable once, as for the step hashes
    try:
        for table, column in NEW:
            columns = {r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()}
            assert column in columns, (table, column)
        assert con.execute(
            "SELECT count(*) FROM steps WHERE reasoning_tokens IS NULL"
        ).fetchone() == (2,)
    finally:
        con.close()


ROWS = (
    "SELECT s.idx, s.cache_read_tokens, s.cache_write_tokens, s.reasoning_tokens,"
    " r.cache_read_tokens, r.reasoning_tokens, r.cost_recomputed_usd"
    " FROM steps AS s JOIN runs AS r USING (run_id) ORDER BY s.idx"
)


def _rows(db: str | Path) -> list[tuple[object, ...]]:
    con = connect(db, read_only=True)
    try:
        return con.execute(ROWS).fetchall()
    finally:
        con.close()


def test_parquet_archive_snapshot_and_restore_keep_them(tmp_path: Path) -> None:
    from reportgen.archive.parquet_convert import convert
    from reportgen.archive.snapshot import restore_snapshot
    from reportgen.site import build_site

    extra = {"cache_read_tokens": 60, "cache_write_tokens": 30, "reasoning_tokens": 5}
    folder = _trace(tmp_path / "c", extra)
    run = json.loads((folder / "runs.jsonl").read_text())
    run["meta"] = {"model": "gpt-5"}  # priced: cost_recomputed_usd is known
    (folder / "runs.jsonl").write_text(json.dumps(run) + "\n")
    ingest([folder], db=tmp_path / "a.duckdb")
    expected = _rows(tmp_path / "a.duckdb")
    assert expected[0][:6] == (0, 60, 30, 5, 7, 3) and expected[0][6] is not None
    parquet = f"parquet:{tmp_path / 'pq'}"
    ingest([folder], db=parquet)
    assert _rows(parquet) == expected
    convert(parquet, str(tmp_path / "back.duckdb"))
    assert _rows(tmp_path / "back.duckdb") == expected
    build_site(tmp_path / "back.duckdb", tmp_path / "site", build_time="2026-11-29T06:00:00Z")
    restore_snapshot(str(tmp_path / "site"), tmp_path / "restored.duckdb")
    assert _rows(tmp_path / "restored.duckdb") == expected
