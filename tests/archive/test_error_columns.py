"""runs.error_kind / runs.error_reason: an adapter's meta.error_kind and meta.error_reason are
promoted to the columns at ingest (the kind checked against the vocabulary), older archives
gain the columns when opened, and every copy of an archive keeps them (Parquet archive, the
site's snapshot and ``restore``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reportgen.archive import connect
from reportgen.archive.parquet_convert import convert
from reportgen.archive.snapshot import restore_snapshot
from reportgen.ingest import ingest

ROWS = "SELECT task_id, success, reward, CAST(meta AS VARCHAR), error_kind, error_reason FROM runs"


def _run(task: str, success: bool | None, meta: dict[str, Any] | None) -> dict[str, Any]:
    run: dict[str, Any] = {"task_id": task, "label": "c", "success": success, "reward": 1.0}
    if meta is not None:
        run["meta"] = meta
    run["steps"] = [{"type": "llm", "action": "think", "status": "ok"}]
    return run


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "c"
    folder.mkdir()
    runs = [
        _run(
            "t1", False, {"model": "m", "error_kind": "Rate-Limit", "error_reason": "429\n  slow"}
        ),
        _run("t2", True, {"error_kind": "cosmic rays", "error_reason": "bit flip"}),
        _run("t3", True, {"model": "m"}),
        _run("t4", False, None),
        _run("t5", None, {"error_kind": "environment", "error_reason": "x" * 500}),
    ]
    (folder / "runs.jsonl").write_text("\n".join(json.dumps(r) for r in runs) + "\n")
    return folder


def _rows(db: str | Path) -> list[tuple[Any, ...]]:
    con = connect(db, read_only=True)
    try:
        return con.execute(ROWS + " ORDER BY task_id").fetchall()
    finally:
        con.close()


EXPECTED = [
    ("t1", None, None, '{"model":"m"}', "rate_limit", "429 slow"),
    ("t2", None, None, None, "other", "cosmic rays: bit flip"),
    ("t3", True, 1.0, '{"model":"m"}', None, None),
    ("t4", False, 1.0, None, None, None),
    ("t5", None, None, None, "environment", "x" * 300),
]


def test_meta_keys_become_the_columns(tmp_path: Path) -> None:
    """Known kinds normalised, an unknown one is 'other' with its word kept in the reason, the
    reason on one line and cut to 300 characters, the keys gone from meta, and an errored run
    neither scored a success nor a reward; runs without error_kind are untouched."""
    db = tmp_path / "a.duckdb"
    ingest([_folder(tmp_path)], db=db)
    assert _rows(db) == EXPECTED


def test_an_archive_made_before_the_columns_gains_them(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    ingest([_folder(tmp_path)], db=db)
    con = connect(db)
    con.execute("ALTER TABLE runs DROP COLUMN error_reason")
    con.execute("ALTER TABLE runs DROP COLUMN error_kind")
    con.close()
    con = connect(db, read_only=True)  # made writable once, as for the step hashes
    try:
        columns = {r[0] for r in con.execute("DESCRIBE runs").fetchall()}
        assert {"error_kind", "error_reason"} <= columns
        assert con.execute("SELECT count(*) FROM runs WHERE error_kind IS NULL").fetchone() == (5,)
    finally:
        con.close()


def test_parquet_archive_and_restore_keep_them(tmp_path: Path) -> None:
    from reportgen.site import build_site

    folder = _folder(tmp_path)
    parquet = f"parquet:{tmp_path / 'pq'}"
    ingest([folder], db=parquet)
    assert _rows(parquet) == EXPECTED
    convert(parquet, str(tmp_path / "back.duckdb"))
    assert _rows(tmp_path / "back.duckdb") == EXPECTED
    build_site(tmp_path / "back.duckdb", tmp_path / "site", build_time="2026-11-29T06:00:00Z")
    restore_snapshot(str(tmp_path / "site"), tmp_path / "restored.duckdb")
    assert _rows(tmp_path / "restored.duckdb") == EXPECTED
