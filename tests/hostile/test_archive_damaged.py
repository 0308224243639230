"""Case 7: a truncated or bit-flipped archive is one clear line and exit 1 for every command."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from reportgen.archive.connection import TABLES
from tests.hostile.conftest import cli, one_line


def flip(path: Path, offset: int) -> None:
    with path.open("r+b") as handle:
        handle.seek(offset)
        byte = handle.read(1)
        handle.seek(offset)
        handle.write(bytes([byte[0] ^ 0xFF]))


def reads_fully(path: Path) -> str:
    """'open' when DuckDB cannot open the file, 'scan' when it opens but a table cannot be
    read, '' when everything reads."""
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error:
        return "open"
    try:
        for table in TABLES:
            con.execute(f"SELECT * FROM {table}").fetchall()
    except duckdb.Error:
        return "scan"
    finally:
        con.close()
    return ""


def lazy_flip(archive: Path, scratch: Path) -> int:
    """An offset whose flip DuckDB only notices when it reads the data (not at open)."""
    size = archive.stat().st_size
    for offset in range(3 * 4096 + 100, size, 4096 * 7):
        shutil.copy(archive, scratch)
        flip(scratch, offset)
        if reads_fully(scratch) == "scan":
            return offset
    pytest.fail("no data block found to damage")


def damage(archive: Path, how: str, tmp_path: Path) -> None:
    if how == "truncated":
        with archive.open("r+b") as handle:
            handle.truncate(archive.stat().st_size // 3)
    elif how == "header_flip":
        flip(archive, 4096 + 200)
    else:
        flip(archive, lazy_flip(archive, tmp_path / "scratch.duckdb"))


@pytest.mark.parametrize("how", ["truncated", "header_flip", "data_flip"])
@pytest.mark.parametrize("command", ["ingest", "build", "gate", "compare"])
def test_damaged_archive_is_one_clear_line(
    how: str, command: str, archive: Path, good_file: Path, tmp_path: Path
) -> None:
    damage(archive, how, tmp_path)
    before = archive.read_bytes()
    args: dict[str, list[str | Path]] = {
        "ingest": ["ingest", good_file],
        "build": ["build", "--out", tmp_path / "site"],
        "gate": ["gate"],
        "compare": ["compare"],
    }
    result = cli(*args[command], "--db", archive)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(archive), "damaged")
    assert archive.read_bytes() == before
