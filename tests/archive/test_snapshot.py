"""A site's data/ snapshot restores the archive it was built from: the rebuilt site is
byte-identical, from a folder and over HTTP; damaged snapshots are refused, leaving nothing.
The snapshot is written night by night: a rebuild links the files of unchanged nights from
the previous site and gives the bytes a fresh build gives; a snapshot of format version 1
(a file per table, older sites) still restores."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from reportgen.archive import connect, table_counts
from reportgen.archive.snapshot import MANIFEST, restore_snapshot, write_snapshot
from reportgen.archive.snapshot_layout import PARTITIONED, part_file, part_name
from reportgen.demo import run_demo
from reportgen.errors import InputError
from reportgen.site import build_site
from reportgen.site.redaction import Redaction, redact_archive
from tests.site.conftest import archive_nights

BUILD_TIME = "2026-11-29T06:00:00Z"
TABLES = ("runs", "steps", "iterations", "outputs", "files", "loads", "suite_notes")
V1 = Path(__file__).parent / "fixtures" / "snapshot-v1"


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
            table: con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall() for table in TABLES
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
    night = part_file("steps", archive_nights(built[0])[2])
    damage(site / "data" / night)
    done = _restore_cli(str(site), "--db", str(tmp_path / "r.duckdb"))
    assert done.returncode == 1
    line = done.stderr.strip()
    assert "\n" not in line and night in line and says in line, line
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


def _inodes(data: Path) -> dict[str, int]:
    """Each file under a snapshot folder (relative name) with its inode."""
    return {str(p.relative_to(data)): p.stat().st_ino for p in data.rglob("*") if p.is_file()}


def _same_tree(a: Path, b: Path) -> None:
    diff = subprocess.run(["diff", "-r", str(a), str(b)], capture_output=True, text=True)
    assert diff.returncode == 0, diff.stdout[:2000]


def _without_last_night(db: Path, to: Path) -> str:
    """A copy of the archive ``db`` at ``to`` without its newest night; return that night."""
    shutil.copy(db, to)
    night = archive_nights(db)[-1]
    con = duckdb.connect(str(to))
    try:
        for table in ("steps", "iterations", "outputs"):
            con.execute(
                f"DELETE FROM {table} WHERE run_id IN (SELECT run_id FROM runs WHERE batch = ?)",
                [night],
            )
        con.execute("DELETE FROM runs WHERE batch = ?", [night])
    finally:
        con.close()
    return night


def test_a_build_with_one_more_night_links_the_others_and_is_a_fresh_build(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    db, _site = built
    night = _without_last_night(db, tmp_path / "smaller.duckdb")
    site = tmp_path / "site"
    build_site(tmp_path / "smaller.duckdb", site, build_time=BUILD_TIME)
    before = _inodes(site / "data")
    build_site(db, site, build_time=BUILD_TIME)  # the nightly rebuild, over the same --out
    fresh = tmp_path / "fresh"
    build_site(db, fresh, build_time=BUILD_TIME)
    _same_tree(site / "data", fresh / "data")
    after = _inodes(site / "data")
    new = {part_file(table, night) for table in ("runs", "steps", "outputs")}
    assert new <= set(after) and not new & set(before)
    kept = {f for f in after if "/" in f} - new
    assert kept and kept <= set(before)
    assert all(after[f] == before[f] for f in kept)  # hard links of the previous site's files
    assert all(after[f] != fresh_inode for f, fresh_inode in _inodes(fresh / "data").items())
    manifest = json.loads((site / "data" / MANIFEST).read_text())
    assert manifest["format_version"] == 2
    assert {e["night"] for e in manifest["files"].values() if e["table"] == "steps"} == set(
        archive_nights(db)
    )


def _snapshot(db: Path, data: Path, previous: Path | None, policy: Redaction) -> dict[str, int]:
    """Write the snapshot of ``db`` as a build does (through the redaction views of
    ``policy``); return the inodes of its files."""
    con = connect(db, read_only=True)
    try:
        redact_archive(con, policy)
        write_snapshot(con, data, previous=previous)
    finally:
        con.close()
    return _inodes(data)


def _rewritten(old: dict[str, int], new: dict[str, int]) -> set[str]:
    """The night files of ``new`` that are not links of ``old``'s."""
    return {f for f in new if "/" in f and old.get(f) != new[f]}


def test_a_night_changed_in_sql_is_the_only_one_rewritten(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    db = tmp_path / "archive.duckdb"
    shutil.copy(built[0], db)
    first = _snapshot(db, tmp_path / "one", None, Redaction())
    assert _snapshot(db, tmp_path / "same", tmp_path / "one", Redaction()).keys() == first.keys()
    assert _rewritten(first, _inodes(tmp_path / "same")) == set()
    nights = archive_nights(db)
    night = nights[1]
    con = connect(db)
    try:
        con.execute(
            "UPDATE steps SET latency_ms = coalesce(latency_ms, 0) + 1 WHERE run_id IN "
            "(SELECT run_id FROM runs WHERE batch = ? AND label = 'candidate')",
            [night],
        )
    finally:
        con.close()
    second = _snapshot(db, tmp_path / "two", tmp_path / "one", Redaction())
    assert _rewritten(first, second) == {part_file("steps", night)}
    con = connect(db)
    try:  # a step's text, with its stored payload hash as ingest would store it
        con.execute(
            "UPDATE steps SET output = '\"changed\"', payload = rg_step_payload(input, "
            "'\"changed\"') WHERE idx = 0 AND run_id = (SELECT min(run_id) FROM runs "
            "WHERE batch = ?)",
            [nights[0]],
        )
    finally:
        con.close()
    third = _snapshot(db, tmp_path / "three", tmp_path / "two", Redaction())
    assert _rewritten(second, third) == {part_file("steps", nights[0])}
    _snapshot(db, tmp_path / "fresh", None, Redaction())
    _same_tree(tmp_path / "three", tmp_path / "fresh")


def test_another_redaction_policy_rewrites_every_file(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    db = built[0]
    first = _snapshot(db, tmp_path / "one", None, Redaction())
    other = Redaction.from_options(patterns=(r"never-in-the-demo",))
    second = _snapshot(db, tmp_path / "two", tmp_path / "one", other)
    nights = {f for f in second if "/" in f}
    assert nights and _rewritten(first, second) == nights
    third = _snapshot(db, tmp_path / "three", tmp_path / "one", Redaction(payloads=False))
    assert _rewritten(first, third) == nights


def test_a_previous_snapshot_not_to_be_trusted_is_not_linked(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    """A night file of another size than its manifest says, or not a regular file, is
    written again; a manifest of version 1 links nothing."""
    db = built[0]
    first = _snapshot(db, tmp_path / "one", None, Redaction())
    night = archive_nights(db)[0]
    (tmp_path / "one" / part_file("runs", night)).write_bytes(b"short")
    link = tmp_path / "one" / part_file("outputs", night)
    link.unlink()
    link.symlink_to(tmp_path / "two" / part_file("outputs", night))
    second = _snapshot(db, tmp_path / "two", tmp_path / "one", Redaction())
    assert _rewritten(first, second) == {part_file(t, night) for t in ("runs", "outputs")}
    _snapshot(db, tmp_path / "fresh", None, Redaction())
    _same_tree(tmp_path / "two", tmp_path / "fresh")
    shutil.rmtree(tmp_path / "one")
    shutil.copytree(V1, tmp_path / "one")
    third = _snapshot(db, tmp_path / "three", tmp_path / "one", Redaction())
    assert _rewritten({}, third) == {f for f in third if "/" in f}


def test_a_version_1_snapshot_restores_and_its_archive_restores_from_version_2(
    tmp_path: Path,
) -> None:
    old = tmp_path / "old.duckdb"
    report = restore_snapshot(str(V1), old)
    assert report.rows["runs"] == 8 and report.rows["iterations"] == 22
    con = duckdb.connect()
    try:
        for table in TABLES:
            want = con.execute(f"SELECT * FROM '{V1 / table}.parquet' ORDER BY ALL").fetchall()
            assert _rows(old)[table] == want, table
    finally:
        con.close()
    con = connect(old, read_only=True)
    try:
        write_snapshot(con, tmp_path / "v2")
    finally:
        con.close()
    manifest = json.loads((tmp_path / "v2" / MANIFEST).read_text())
    assert manifest["format_version"] == 2
    assert {f for f in manifest["files"] if f.startswith("steps/")} == {
        part_file("steps", "2026-11-27"),
        part_file("steps", "2026-11-28"),
    }
    assert part_file("iterations", None) in manifest["files"]  # records of no archived run
    new = tmp_path / "new.duckdb"
    assert restore_snapshot(str(tmp_path / "v2"), new).rows == report.rows
    assert _rows(new) == _rows(old)


def test_a_table_without_rows_has_no_night_files(tmp_path: Path) -> None:
    con = connect(tmp_path / "empty.duckdb")
    try:
        files = write_snapshot(con, tmp_path / "data")
    finally:
        con.close()
    assert files == ["files.parquet", "loads.parquet", "suite_notes.parquet", MANIFEST]
    assert not any((tmp_path / "data" / t).exists() for t in PARTITIONED)
    assert restore_snapshot(str(tmp_path / "data"), tmp_path / "r.duckdb").rows["runs"] == 0


@pytest.mark.parametrize(
    "batch",
    ["2026-11-28", "", "null", "../../etc/passwd", "a/b\\c", "CON", ".hidden", "-rf",
     "über night ☃", "x" * 300, "line\nbreak", "tab\there", "%2e%2e", "A", "a"],
)  # fmt: skip
def test_a_night_file_name_is_safe_whatever_the_batch(batch: str) -> None:
    name = part_name(batch)
    assert name == part_name(batch) and name != part_name(None) == "null"
    assert name.isascii() and len(name) <= 57 and name[0].isalnum()
    assert all(c.isalnum() or c in "-_" for c in name), name
    others = ["2026-11-28", "", "null", "../../etc/passwd", "A", "a", "x" * 300, "x" * 301]
    assert sum(part_name(other) == name for other in others) <= 1


def test_hostile_batches_stay_in_their_table_folders_and_restore(tmp_path: Path) -> None:
    from reportgen.ingest import ingest
    from tests.conftest import make_run

    batches = ["../../escape", "/abs", "a\\b", " ", "null", "con", "2026-11-28"]
    runs = [
        make_run(f"t{i}", batch=batch, run_id=f"r{i}", output=f"out {i}")
        for i, batch in enumerate(batches)
    ]
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    db = tmp_path / "a.duckdb"
    ingest([tmp_path / "in"], db)
    data = tmp_path / "site" / "data"
    _snapshot(db, data, None, Redaction())
    made = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.parquet"))
    assert all(p.startswith("site/data/") for p in made), made
    assert len(list((data / "runs").iterdir())) == len(batches)
    restored = tmp_path / "r.duckdb"
    restore_snapshot(str(data), restored)
    assert _rows(restored) == _rows(db)


def _with_view(db: Path, data: Path, previous: Path | None, view: str) -> dict[str, int]:
    """Write the snapshot of ``db`` in a session where ``view`` shadows a table."""
    con = connect(db, read_only=True)
    try:
        row = con.execute("SELECT current_database()").fetchone()
        con.execute(view.format(archive=row[0] if row else ""))
        write_snapshot(con, data, previous=previous)
    finally:
        con.close()
    return _inodes(data)


def test_a_view_of_another_shape_is_published_and_keyed_as_the_session_reads_it(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    """A table shadowed by a view that is not a redaction's ``SELECT * REPLACE (...) FROM
    <archive table>`` is read through the view for its rows and its keys alike."""
    db = built[0]
    upper = (
        "CREATE TEMP VIEW steps AS SELECT * REPLACE (upper(action) AS action) "
        'FROM "{archive}".main.steps WHERE idx >= 0'
    )
    first = _with_view(db, tmp_path / "one", None, upper)
    con = duckdb.connect()
    try:
        actions = con.execute(
            f"SELECT count(*) FILTER (WHERE action <> upper(action)), count(*) "
            f"FROM '{tmp_path / 'one' / 'steps'}/*.parquet'"
        ).fetchone()
    finally:
        con.close()
    assert actions is not None and actions[0] == 0 and actions[1] > 0
    again = _with_view(db, tmp_path / "two", tmp_path / "one", upper)
    assert _rewritten(first, again) == set()
    lower = upper.replace("upper(action)", "lower(action)")
    other = _with_view(db, tmp_path / "three", tmp_path / "two", lower)
    assert _rewritten(again, other) == {f for f in other if f.startswith("steps/")}


@pytest.mark.parametrize(
    "policy",
    [Redaction(), Redaction(payloads=False), Redaction.from_options(patterns=(r"a ' FROM b",))],
)
def test_a_build_reads_the_archive_tables_under_the_redaction_views(
    built: tuple[Path, Path], policy: Redaction
) -> None:
    """The fast path: rows are found and keyed on the archive tables, not through the
    redaction views (a change of the views' shape in reportgen/site/redaction.py would make
    every nightly snapshot read every row of the archive through them again)."""
    from reportgen.archive.snapshot_reads import reads

    con = connect(built[0], read_only=True)
    try:
        redact_archive(con, policy)
        found = reads(con)
    finally:
        con.close()
    assert all(source.endswith(f".main.{table}") for table, (_, source) in found.items())
    assert all(head.startswith("SELECT * REPLACE (") for head, _ in found.values())
