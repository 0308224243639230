"""The Parquet archive's clean-up deletes nothing another owner or a reader needs: a table
folder that is a symlink (``steps -> /bigdisk/steps``) is never deleted through, so files
there the manifest does not list (anyone's) stay; files a newer manifest retired stay while
a reader of the older one may still read them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reportgen.archive import connect, parquet_write
from reportgen.ingest import ingest
from tests.conftest import make_run
from tests.hostile.conftest import write_runs


def test_cleanup_never_deletes_through_a_symlinked_table_folder(tmp_path: Path) -> None:
    archive = tmp_path / "pq"
    archive.mkdir()
    ingest([write_runs(tmp_path / "in1" / "a.jsonl", [make_run("t1")])], archive)
    bigdisk = tmp_path / "bigdisk"
    bigdisk.mkdir()
    shutil.move(archive / "steps", bigdisk / "steps")
    (archive / "steps").symlink_to(bigdisk / "steps")
    precious = [bigdisk / "steps" / "precious.parquet", bigdisk / "steps" / "notes.txt"]
    for file in precious:
        file.write_bytes(b"someone else's data")
    ingest([write_runs(tmp_path / "in2" / "b.jsonl", [make_run("t2")])], archive)
    assert all(file.read_bytes() == b"someone else's data" for file in precious)
    con = connect(archive, read_only=True)
    try:
        row = con.execute("SELECT count(*) FROM runs").fetchone()
        steps = con.execute("SELECT count(DISTINCT run_id) FROM steps").fetchone()
    finally:
        con.close()
    assert row == (2,) and steps == (2,)


def test_a_reader_keeps_its_files_while_two_ingests_replace_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build reads the files of the manifest it opened; two ingests that replace runs
    meanwhile (the second one's clean-up used to delete the first manifest's files) leave
    them for RETIRED_GRACE_S; past it, the next ingest removes them."""
    archive = tmp_path / "pq"
    archive.mkdir()
    runs = [make_run("t1", run_id="r1"), make_run("t2", run_id="r2")]
    ingest([write_runs(tmp_path / "in0" / "a.jsonl", runs)], archive)
    reader = connect(archive, read_only=True)
    try:
        for n in (1, 2):
            changed = [make_run("t1", run_id="r1", n_steps=3 + n), runs[1]]
            ingest([write_runs(tmp_path / f"in{n}" / "a.jsonl", changed)], archive, replace=True)
        seen = reader.execute("SELECT count(*) FROM steps WHERE run_id = 'r1'").fetchone()
    finally:
        reader.close()
    assert seen == (3,)  # what the reader's manifest said, read after both replacements
    before = sum(1 for _ in archive.rglob("*.parquet"))
    monkeypatch.setattr(parquet_write, "RETIRED_GRACE_S", 0.0)
    ingest([write_runs(tmp_path / "in3" / "b.jsonl", [make_run("t3", run_id="r3")])], archive)
    assert sum(1 for _ in archive.rglob("*.parquet")) < before
