"""Case 2: an archive written by a newer reportgen is refused, untouched, by every command."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from reportgen.archive import connect
from reportgen.archive.connection import SCHEMA_VERSION
from reportgen.errors import InputError
from tests.hostile.conftest import cli, one_line

NEWER: dict[str, Callable[[duckdb.DuckDBPyConnection], None]] = {
    "schema_version_99": lambda con: con.execute(
        "UPDATE archive_info SET value = '99' WHERE key = 'schema_version'"
    ),
    "table_outputs_v99": lambda con: con.execute(
        "CREATE TABLE outputs_v99 (run_id VARCHAR, text VARCHAR)"
    ),
    "extra_not_null_column": lambda con: con.execute(
        "ALTER TABLE runs ADD COLUMN model VARCHAR DEFAULT 'x';"
        "ALTER TABLE runs ALTER COLUMN model SET NOT NULL;"
        "ALTER TABLE runs ALTER COLUMN model DROP DEFAULT"
    ),
}


def make_newer(archive: Path, how: str) -> bytes:
    con = duckdb.connect(str(archive))
    NEWER[how](con)
    con.close()
    return archive.read_bytes()


def commands(archive: Path, good: Path, out: Path) -> dict[str, list[str | Path]]:
    return {
        "ingest": ["ingest", good, "--db", archive],
        "build": ["build", "--out", out, "--db", archive],
        "gate": ["gate", "--db", archive],
        "compare": ["compare", "--db", archive],
    }


@pytest.mark.parametrize("how", sorted(NEWER))
@pytest.mark.parametrize("command", ["ingest", "build", "gate", "compare"])
def test_newer_archive_is_refused_and_left_byte_identical(
    how: str, command: str, archive: Path, good_file: Path, tmp_path: Path
) -> None:
    before = make_newer(archive, how)
    result = cli(*commands(archive, good_file, tmp_path / "site")[command])
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(archive), "newer reportgen", "untouched")
    assert archive.read_bytes() == before
    assert not (tmp_path / "site").exists()


def test_connect_refuses_newer_version_read_only_too(archive: Path) -> None:
    make_newer(archive, "schema_version_99")
    for read_only in (False, True):
        with pytest.raises(
            InputError, match=f"schema version 99, this version knows up to {SCHEMA_VERSION}"
        ):
            connect(archive, read_only=read_only)


def test_current_version_still_opens(archive: Path) -> None:
    con = connect(archive, read_only=True)
    con.close()
