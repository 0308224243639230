"""Every archive session has a memory limit and a folder to spill to: a share of the
machine's memory and a folder of the process in the system's temporary directory by default,
REPORTGEN_DUCKDB_MEMORY_LIMIT and REPORTGEN_DUCKDB_TEMP_DIRECTORY otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reportgen.archive import connect
from reportgen.archive.connection import MEMORY_LIMIT_ENV, TEMP_DIRECTORY_ENV, memory_limit
from reportgen.errors import InputError


def _settings(path: Path | None) -> tuple[str, str]:
    con = connect(path, read_only=path is not None)
    try:
        row = con.execute(
            "SELECT current_setting('memory_limit'), current_setting('temp_directory')"
        ).fetchall()[0]
    finally:
        con.close()
    return str(row[0]), str(row[1])


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    path = tmp_path / "a.duckdb"
    connect(path).close()
    return path


def test_defaults(archive: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MEMORY_LIMIT_ENV, raising=False)
    monkeypatch.delenv(TEMP_DIRECTORY_ENV, raising=False)
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert 0 < int(memory_limit().removesuffix("MB")) << 20 <= ram // 2
    for path in (archive, None):
        limit, temp = _settings(path)
        assert limit.endswith(("MiB", "GiB"))
        assert Path(temp).name == f"reportgen-duckdb-{os.getpid()}"


def test_overrides(archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "300MB")
    monkeypatch.setenv(TEMP_DIRECTORY_ENV, str(tmp_path / "spill"))
    for path in (archive, None):
        assert _settings(path) == ("286.1 MiB", str(tmp_path / "spill"))


def test_a_bad_limit_is_named(archive: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "lots")
    with pytest.raises(InputError, match=f"{MEMORY_LIMIT_ENV}.*memory_limit 'lots'"):
        connect(archive, read_only=True)
