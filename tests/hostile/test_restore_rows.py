"""``restore`` holds a snapshot's rows to the limits ``ingest`` holds files to: a payload
nested 5,000 deep, an int64-max token count, a NaN or -1e308 cost, a step that is its own
parent are each one error line naming the snapshot file and the column (exit 1), and no
archive is left; before, they restored and broke build, gate, compare and spend later. The
line names the night file the row came from."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.archive import connect
from reportgen.archive.snapshot import write_snapshot
from reportgen.archive.snapshot_layout import part_file
from reportgen.ingest import ingest
from tests.conftest import make_run
from tests.hostile.conftest import cli, one_line, write_runs

DEEP = "[" * 5000 + "]" * 5000
#: What each case does to the archive before its snapshot is written: file, column, SQL.
CASES = {
    "deep payload": ("steps", "input", f"UPDATE steps SET input = '{DEEP}'::JSON WHERE idx = 0"),
    "int64-max tokens": ("steps", "tokens_in", "UPDATE steps SET tokens_in = 9223372036854775807"),
    "NaN cost": ("runs", "cost_usd", "UPDATE runs SET cost_usd = 'NaN'::DOUBLE"),
    "-1e308 cost": ("runs", "cost_usd", "UPDATE runs SET cost_usd = -1e308"),
    "self-parent step": ("steps", "parent", "UPDATE steps SET parent = idx WHERE idx = 1"),
    "huge run latency": ("runs", "latency_ms", "UPDATE runs SET latency_ms = 1e300"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_snapshot_row_ingest_would_refuse_is_refused(tmp_path: Path, case: str) -> None:
    table, column, change = CASES[case]
    db = tmp_path / "a.duckdb"
    ingest([write_runs(tmp_path / "in" / "r.jsonl", [make_run("t1"), make_run("t2")])], db)
    con = connect(db)
    try:
        con.execute(change)
        write_snapshot(con, tmp_path / "site" / "data")
    finally:
        con.close()
    restored = tmp_path / "b.duckdb"
    result = cli("restore", tmp_path / "site", "--db", restored)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, part_file(table, "2026-11-28"), column)
    assert not restored.exists()
