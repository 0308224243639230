"""Case 1: first ingests racing to create a new archive never lose one another's load, and a
writer meeting another writer's lock gets one clear line (exit 1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from reportgen.errors import InputError
from reportgen.ingest import ingest
from tests.conftest import make_run
from tests.hostile.conftest import ROOT, cli_process, one_line, write_runs


def run_ids(db: Path) -> set[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {r[0] for r in con.execute("SELECT run_id FROM runs").fetchall()}
    finally:
        con.close()


def leftovers(folder: Path, db: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(f".{db.name}"))


def test_failed_first_load_does_not_delete_the_archive_another_created(tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    other = write_runs(tmp_path / "a" / "runs.jsonl", [make_run("t", run_id="theirs")])
    bad = write_runs(
        tmp_path / "b" / "runs.jsonl", [make_run("t", run_id="dup"), make_run("u", run_id="dup")]
    )

    calls: list[str] = []

    def meanwhile(phase: str, done: int, total: int) -> None:
        # while this load is staged, another process creates the archive and loads into it
        if phase == "parsing and checking" and not calls:
            calls.append(phase)
            result = cli_process("ingest", other, "--db", db, "-q")
            assert result.returncode == 0, result.stderr

    with pytest.raises(InputError, match="appears twice"):
        ingest([bad], db, progress=meanwhile)
    assert calls
    assert run_ids(db) == {"theirs"}
    assert leftovers(tmp_path, db) == []


def test_second_creator_loads_into_the_archive_the_first_published(tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    other = write_runs(tmp_path / "a" / "runs.jsonl", [make_run("t", run_id="theirs")])
    mine = write_runs(tmp_path / "b" / "runs.jsonl", [make_run("t", run_id="mine")])

    calls: list[str] = []

    def meanwhile(phase: str, done: int, total: int) -> None:
        if phase == "parsing and checking" and not calls:
            calls.append(phase)
            result = cli_process("ingest", other, "--db", db, "-q")
            assert result.returncode == 0, result.stderr

    report = ingest([mine], db, progress=meanwhile)
    assert [f["file"] for f in report.loaded] == [str(mine)]
    assert run_ids(db) == {"theirs", "mine"}
    assert leftovers(tmp_path, db) == []


def test_a_writer_meeting_a_lock_gets_one_clear_line(tmp_path: Path, archive: Path) -> None:
    good = write_runs(tmp_path / "x" / "runs.jsonl", [make_run("t", run_id="late")])
    holder = duckdb.connect(str(archive))  # another process's writer, as DuckDB sees it
    try:
        result = cli_process("ingest", good, "--db", archive)
    finally:
        holder.close()
    assert result.returncode == 1, result.stderr
    one_line(result.stderr, str(archive), "in use by another writer")
    assert "late" not in run_ids(archive)


def test_concurrent_first_ingests_keep_every_successful_load(tmp_path: Path) -> None:
    db = tmp_path / "shared.duckdb"
    files = [
        write_runs(tmp_path / f"in{i}" / "runs.jsonl", [make_run("t", run_id=f"run-{i}")])
        for i in range(4)
    ]
    bad = tmp_path / "bad" / "runs.jsonl"
    bad.parent.mkdir()
    bad.write_text('{"task_id": "t", "steps": [}\n')
    inputs = [*files, bad]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "reportgen", "ingest", str(p), "--db", str(db), "-q"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p in inputs
    ]
    outcomes = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in procs]
    loaded = set()
    for i, (code, stderr) in enumerate(outcomes):
        if code == 0:
            loaded.add(f"run-{i}")
        else:
            assert code == 1, stderr
            one_line(stderr)
    assert outcomes[-1][0] == 1
    assert loaded, outcomes
    assert run_ids(db) == loaded
    assert leftovers(tmp_path, db) == []
