"""A site's data/ snapshot restores the archive it was built from: the rebuilt site is
byte-identical, from a folder and over HTTP; damaged snapshots are refused, leaving nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from reportgen.archive import connect, table_counts
from reportgen.archive.snapshot import MANIFEST, restore_snapshot
from reportgen.demo import run_demo
from reportgen.errors import InputError
from reportgen.site import build_site

BUILD_TIME = "2026-11-29T06:00:00Z"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The demo archive and the site built from it."""
    db, _report, _summary = run_demo(tmp_path_factory.mktemp("demo"), site=False)
    site = tmp_path_factory.mktemp("sites") / "site"
    build_site(db, site, build_time=BUILD_TIME)
    return db, site


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    con = connect(db, read_only=True)
    try:
        return {
            table: con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
            for table in ("runs", "steps", "iterations", "outputs", "files", "loads", "suite_notes")
        }
    finally:
        con.close()


def _restore_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reportgen", "restore", *args], capture_output=True, text=True
    )


def test_restore_from_the_site_folder_rebuilds_the_same_site(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    db, site = built
    restored = tmp_path / "restored.duckdb"
    report = restore_snapshot(str(site), restored)
    assert report.rows == table_counts_of(db)
    assert _rows(restored) == _rows(db)
    rebuilt = tmp_path / "site"
    build_site(restored, rebuilt, build_time=BUILD_TIME)
    assert _files(rebuilt) == _files(site)


def table_counts_of(db: Path) -> dict[str, int]:
    con = connect(db, read_only=True)
    try:
        counts = table_counts(con)
    finally:
        con.close()
    return {table: counts[table] for table in counts if table != "archive_info"}


def test_restore_over_http_rebuilds_the_same_site(
    built: tuple[Path, Path], tmp_path: Path, serve: Callable[[Path], str]
) -> None:
    db, site = built
    url = serve(site)
    restored = tmp_path / "restored.duckdb"
    done = _restore_cli(url, "--db", str(restored), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rows"]["runs"] == table_counts_of(db)["runs"]
    rebuilt = tmp_path / "site"
    build_site(restored, rebuilt, build_time=BUILD_TIME)
    assert _files(rebuilt) == _files(site)


def test_restore_accepts_the_data_folder_itself(built: tuple[Path, Path], tmp_path: Path) -> None:
    _db, site = built
    restore_snapshot(str(site / "data"), tmp_path / "r.duckdb")
    assert (tmp_path / "r.duckdb").is_file()


def _copy_site(site: Path, to: Path) -> Path:
    for rel, data in _files(site).items():
        (to / rel).parent.mkdir(parents=True, exist_ok=True)
        (to / rel).write_bytes(data)
    return to


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "site")


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda p: p.write_bytes(p.read_bytes()[:-100]), "bytes where the manifest says"),
        (lambda p: p.write_bytes(p.read_bytes()[:-1] + b"\x00"), "checksum differs"),
        (lambda p: p.unlink(), "cannot read"),
    ],
    ids=["truncated", "tampered", "missing"],
)
def test_a_damaged_data_file_is_exit_1_and_leaves_no_archive(
    built: tuple[Path, Path], tmp_path: Path, damage: Callable[[Path], object], says: str
) -> None:
    site = _copy_site(built[1], tmp_path / "site")
    damage(site / "data" / "steps.parquet")
    done = _restore_cli(str(site), "--db", str(tmp_path / "r.duckdb"))
    assert done.returncode == 1
    line = done.stderr.strip()
    assert "\n" not in line and "steps.parquet" in line and says in line, line
    assert _leftovers(tmp_path) == []


def test_a_bad_manifest_is_refused(built: tuple[Path, Path], tmp_path: Path) -> None:
    site = _copy_site(built[1], tmp_path / "site")
    manifest = site / "data" / MANIFEST
    data = json.loads(manifest.read_text())
    data["format_version"] = 99
    manifest.write_text(json.dumps(data))
    with pytest.raises(InputError, match="format version 99"):
        restore_snapshot(str(site), tmp_path / "r.duckdb")
    manifest.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        restore_snapshot(str(site), tmp_path / "r.duckdb")
    assert _leftovers(tmp_path) == []


def test_a_folder_that_is_no_site_is_refused(tmp_path: Path) -> None:
    done = _restore_cli(str(tmp_path), "--db", str(tmp_path / "r.duckdb"))
    assert done.returncode == 1 and "no manifest.json" in done.stderr


def test_an_unreachable_url_is_exit_1(tmp_path: Path, serve: Callable[[Path], str]) -> None:
    url = serve(tmp_path)  # serves an empty folder: the manifest is a 404
    done = _restore_cli(url, "--db", str(tmp_path / "r.duckdb"))
    assert done.returncode == 1 and "HTTP 404" in done.stderr
    assert not (tmp_path / "r.duckdb").exists()


def test_an_existing_archive_is_never_replaced(built: tuple[Path, Path], tmp_path: Path) -> None:
    target = tmp_path / "r.duckdb"
    target.write_bytes(b"precious")
    done = _restore_cli(str(built[1]), "--db", str(target))
    assert done.returncode == 1 and "already here" in done.stderr
    assert target.read_bytes() == b"precious"
    assert os.listdir(tmp_path) == ["r.duckdb"]
