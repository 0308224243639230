"""``backlog_steps``: the backlog's size, so "certified 9 of 12" can count the steps never
attempted; without it the report counts the steps attempted, as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from reportgen.archive import connect
from reportgen.errors import InputError
from reportgen.ingest import ingest
from reportgen.iterations import Recorder, analyse
from reportgen.iterations.report import summary_lines
from tests.iterations.helpers import ingested, make_app, write_records


def loop(n_steps: int, certified: int, backlog: int | None) -> list[dict[str, Any]]:
    """One attempt per step; the first ``certified`` pass."""
    records = []
    for i in range(n_steps):
        record: dict[str, Any] = {"run": "r", "iter": i, "step": f"s{i}", "attempt": 1}
        record |= {"exit": 0 if i < certified else 1}
        if backlog is not None:
            record["backlog_steps"] = backlog
        records.append(record)
    return records


def test_nine_of_twelve_backlog_steps(tmp_path: Path) -> None:
    con = ingested(tmp_path, loop(10, 9, 12))
    try:
        (run,) = analyse(con)
    finally:
        con.close()
    assert (run.certified_steps, run.n_steps, run.backlog_steps) == (9, 10, 12)
    assert summary_lines(run)[0].startswith("certified 9 of 12 backlog steps (10 attempted) in")
    assert run.to_dict()["backlog_steps"] == 12


def test_without_it_the_steps_attempted_are_counted(tmp_path: Path) -> None:
    con = ingested(tmp_path, loop(10, 9, None))
    try:
        (run,) = analyse(con)
    finally:
        con.close()
    assert run.backlog_steps is None
    assert summary_lines(run)[0].startswith("certified 9 of 10 steps in")


def test_records_that_disagree_take_the_largest_never_below_attempted(tmp_path: Path) -> None:
    records = loop(10, 9, None)
    records[0]["backlog_steps"] = 11
    records[5]["backlog_steps"] = 12
    con = ingested(tmp_path, records)
    try:
        (run,) = analyse(con)
    finally:
        con.close()
    assert run.backlog_steps == 12
    small = loop(10, 9, 4)  # a backlog smaller than what was attempted: the attempted count
    con = ingested(tmp_path / "b", small)
    try:
        (run,) = analyse(con)
    finally:
        con.close()
    assert run.backlog_steps == 10


@pytest.mark.parametrize("value", [0, -1, 2.5, "12", True])
def test_bad_backlog_steps_is_one_error_naming_line_and_field(tmp_path: Path, value: Any) -> None:
    records = loop(3, 1, 12)
    records[1]["backlog_steps"] = value
    path = write_records(tmp_path / "bad.jsonl", records)
    with pytest.raises(InputError) as caught:
        ingest([path], tmp_path / "a.duckdb")
    assert caught.value.line == 2 and caught.value.field == "backlog_steps"
    assert "\n" not in str(caught.value)


def test_the_cli_and_the_recorder(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    rec = Recorder(path, "loop", backlog_steps=3)
    rec.record(step="a", exit_code=0)
    rec.record(step="b", exit_code=1)
    assert all(json.loads(line)["backlog_steps"] == 3 for line in path.read_text().splitlines())
    result = CliRunner().invoke(make_app(), ["iterations", str(path)])
    assert result.exit_code == 0, result.output
    assert "certified 1 of 3 backlog steps (2 attempted)" in result.stdout
    with pytest.raises(ValueError):
        Recorder(tmp_path / "x.jsonl", "loop", backlog_steps=0)


def test_an_archive_made_before_the_column_gets_it(tmp_path: Path) -> None:
    """An archive whose iterations table has no backlog_steps column (made by an earlier
    version) is brought up to date once, then reads as before."""
    db = tmp_path / "old.duckdb"
    ingest([write_records(tmp_path / "a.jsonl", loop(2, 1, None))], db)
    with duckdb.connect(str(db)) as raw:
        raw.execute("ALTER TABLE iterations DROP COLUMN backlog_steps")
    con = connect(db, read_only=True)
    try:
        (run,) = analyse(con)
    finally:
        con.close()
    assert (run.certified_steps, run.backlog_steps) == (1, None)
