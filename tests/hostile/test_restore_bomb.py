"""``restore`` of a compressed-text bomb: a runs file of a few KB whose text inflates to a
hundred MB and more is refused in one line, before its rows are in the archive, with bounded
memory; so is a snapshot of many such files, each within its own bound. Before, every row was restored: DuckDB holds a row group's text about twice while
it checkpoints it, so 1,200 values of a MB from a 7 KB file peaked at 2.3 GB
(bench/memory.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import reportgen.archive.snapshot as snapshot
from reportgen.archive import connect
from reportgen.archive.snapshot import restore_snapshot, write_snapshot
from reportgen.archive.snapshot_layout import part_file
from reportgen.errors import InputError
from tests.hostile.conftest import ROOT, one_line

# The peak is the child's own VmHWM (wait4's ru_maxrss also counts the parent's memory).
CHILD = """
import sys
from reportgen.cli import main
sys.argv = ["reportgen", "restore", sys.argv[1], "--db", sys.argv[2]]
try:
    main()
finally:
    with open("/proc/self/status") as status:
        print(next(l for l in status if l.startswith("VmHWM:")).split()[1], file=sys.stderr)
"""


RUNS = part_file("runs", "b1")


def _bomb(folder: Path, runs: int, width: int, nights: int = 1) -> Path:
    """A snapshot whose runs files hold ``runs`` outputs of ``width`` bytes of one
    character each (a few KB on disk), spread over ``nights`` nights (``b1``, ``b2`` …)."""
    con = connect(folder.parent / f"{folder.name}-source.duckdb")
    try:
        con.execute(
            "INSERT INTO runs BY NAME SELECT 'r' || i AS run_id, 's' AS suite, 'b' AS label,"
            " 't' || i AS task_id, 'b' || (1 + i % ?) AS batch, 0 AS trial, 0 AS n_steps,"
            " 'trace-v1' AS format, 'bomb.jsonl' AS source_file, 'h' AS content_hash,"
            " repeat('x', ?) AS output FROM range(?) t(i)",
            [nights, width, runs],
        )
        write_snapshot(con, folder)
    finally:
        con.close()
    return folder


def test_a_small_file_that_inflates_past_its_bound_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _bomb(tmp_path / "data", 8, 1 << 20)
    assert (data / RUNS).stat().st_size < 64 << 10
    monkeypatch.setattr(snapshot, "INFLATION_FLOOR", 2 << 20)
    monkeypatch.setattr(snapshot, "MAX_INFLATION", 64)
    db = tmp_path / "restored.duckdb"
    with pytest.raises(InputError, match="compressed-text bomb") as caught:
        restore_snapshot(str(data), db)
    assert caught.value.path.endswith(RUNS)
    assert not db.exists()


def test_a_snapshot_within_the_bound_restores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _bomb(tmp_path / "data", 8, 1 << 20)
    monkeypatch.setattr(snapshot, "INFLATION_FLOOR", 16 << 20)
    monkeypatch.setattr(snapshot, "MAX_INFLATION", 64)
    report = restore_snapshot(str(data), tmp_path / "restored.duckdb")
    assert report.rows["runs"] == 8


def test_many_files_each_within_its_bound_are_refused_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight nights of a MB each: every file is within the floor of 2 MB, the snapshot is not
    (a file's floor does not add up night after night)."""
    data = _bomb(tmp_path / "data", 8, 1 << 20, nights=8)
    monkeypatch.setattr(snapshot, "INFLATION_FLOOR", 2 << 20)
    monkeypatch.setattr(snapshot, "MAX_INFLATION", 64)
    db = tmp_path / "restored.duckdb"
    with pytest.raises(InputError, match="the snapshot inflates") as caught:
        restore_snapshot(str(data), db)
    assert "/runs/b" in caught.value.path
    assert not db.exists()
    monkeypatch.setattr(snapshot, "INFLATION_FLOOR", 16 << 20)
    assert restore_snapshot(str(data), db).rows["runs"] == 8


@pytest.mark.slow
def test_restore_of_a_bomb_stops_early_with_bounded_memory(tmp_path: Path) -> None:
    data = _bomb(tmp_path / "data", 200, 1 << 20)  # 200 MB of text from a few KB
    db = tmp_path / "restored.duckdb"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(data), str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    *errors, peak = done.stderr.strip().splitlines()
    assert done.returncode == 1, done.stderr
    one_line("\n".join(errors), RUNS, "compressed-text bomb")
    assert not db.exists()
    # before: all 200 MB was restored (exit 0); now it stops after 64 MB (INFLATION_FLOOR)
    assert int(peak) / 1024 < 500, peak
