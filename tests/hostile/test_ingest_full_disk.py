"""Case 6: a full disk during ingest is one clear line, exit 1, and the archive unchanged."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from reportgen.ingest import loader
from tests.conftest import make_run, make_step
from tests.hostile.conftest import cli, one_line, write_runs
from tests.hostile.fingerprint import archive_fingerprint

ENOSPC = 'IO Error: Could not write file "x.duckdb.wal": No space left on device'


def test_enospc_while_writing_is_one_line(
    archive: Path, good_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = loader._write

    def full(*args: Any, **kwargs: Any) -> Any:
        real(*args, **kwargs)  # rows are in, uncommitted, when the disk fills
        raise duckdb.IOException(ENOSPC)

    monkeypatch.setattr(loader, "_write", full)
    before = archive_fingerprint(archive)
    result = cli("ingest", good_file, "--db", archive)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(archive), "no space left on the device")
    assert archive_fingerprint(archive) == before


def test_enospc_on_a_first_load_leaves_nothing(
    tmp_path: Path, good_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*args: Any, **kwargs: Any) -> Any:
        raise duckdb.IOException(ENOSPC)

    monkeypatch.setattr(loader, "_write", full)
    db = tmp_path / "new.duckdb"
    result = cli("ingest", good_file, "--db", db)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(db), "no space left")
    assert not db.exists()
    assert [p for p in tmp_path.iterdir() if p.name.startswith(".new.duckdb")] == []


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs (needs root and mount; skipped elsewhere)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a tmpfs")
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True
    )
    if made.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_real_full_disk(tiny_disk: Path, tmp_path: Path, good_file: Path) -> None:
    db = tiny_disk / "a.duckdb"
    assert cli("ingest", good_file, "--db", db, "-q").exit_code == 0
    big = write_runs(
        tmp_path / "big" / "runs.jsonl",
        [
            make_run(
                f"t{i}",
                run_id=f"big-{i}",
                steps=[make_step(output="x" * 2000 + str(i * 20 + j)) for j in range(20)],
            )
            for i in range(300)
        ],
    )
    before = archive_fingerprint(db)
    result = cli("ingest", big, "--db", db)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(db), "no space left on the device")
    assert archive_fingerprint(db) == before
    assert cli("build", "--out", tmp_path / "site", "--db", db).exit_code == 0
