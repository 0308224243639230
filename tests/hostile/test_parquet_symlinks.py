"""A Parquet archive whose table folder is a symlink (``steps -> /bigdisk/steps``): the next
ingest's clean-up of what dead writers left never deletes through it, so files there that
the manifest does not list (anyone's) stay; the archive still reads and grows."""

from __future__ import annotations

import shutil
from pathlib import Path

from reportgen.archive import connect
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
