"""Case 4: --db naming an existing file that is not a reportgen archive is refused, untouched."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tests.hostile.conftest import cli, one_line


def foreign_duckdb(path: Path) -> None:
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE measurements AS SELECT 1 AS x")
    con.close()


FILES = {
    "results.csv": lambda p: p.write_text("a,b\n1,2\n"),
    "notes.txt": lambda p: p.write_text("just some text, long enough to pass a header check\n"),
    "empty.duckdb": lambda p: p.write_bytes(b""),
    "other.duckdb": foreign_duckdb,
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_ingest_into_a_non_archive_file_is_refused(
    name: str, tmp_path: Path, good_file: Path
) -> None:
    db = tmp_path / name
    FILES[name](db)
    before = db.read_bytes()
    result = cli("ingest", good_file, "--db", db)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(db), "untouched")
    assert db.read_bytes() == before
    assert not any(p.name.startswith(f".{name}") for p in tmp_path.iterdir())


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("command", ["build", "gate", "compare"])
def test_read_commands_refuse_a_non_archive_file(name: str, command: str, tmp_path: Path) -> None:
    db = tmp_path / name
    FILES[name](db)
    before = db.read_bytes()
    args = ["build", "--out", tmp_path / "site"] if command == "build" else [command]
    result = cli(*args, "--db", db)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(db))
    assert db.read_bytes() == before


def test_an_empty_duckdb_database_becomes_an_archive(tmp_path: Path, good_file: Path) -> None:
    db = tmp_path / "fresh.duckdb"
    duckdb.connect(str(db)).close()
    result = cli("ingest", good_file, "--db", db, "-q")
    assert result.exit_code == 0, result.output


def test_a_folder_of_other_files_as_db_is_refused(tmp_path: Path, good_file: Path) -> None:
    """A folder is a Parquet archive (docs/scale.md) only when empty or holding one: a folder
    of other files is refused, one line, exit 1, and left as it was."""
    db = tmp_path / "folder.duckdb"
    db.mkdir()
    (db / "notes.txt").write_text("mine")
    result = cli("ingest", good_file, "--db", db)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(db), "not a reportgen archive")
    assert [p.name for p in db.iterdir()] == ["notes.txt"]
