"""The search index is written night by night: a build with one more night links every
unchanged unit's files from the previous site (same inode) and gives the same search/ folder
as a fresh build; a night whose steps changed is rewritten alone, and another redaction
policy rewrites every unit. Units are checked with blocks of two older nights
(``BLOCK_NIGHTS`` patched), so the blocks' rules are exercised on a small archive."""

from __future__ import annotations

import filecmp
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from reportgen.ingest import ingest
from reportgen.site import build_site, search
from reportgen.site.redaction import Redaction
from tests.conftest import make_run, make_step
from tests.site.conftest import BUILD_TIME

from .test_search import Index

NIGHTS = [f"2026-11-0{d}" for d in range(1, 8)]


def _night(tmp: Path, db: Path, night: str) -> None:
    """Add a night of four runs (two tasks, two labels) to ``db``."""
    runs = [
        make_run(
            task,
            label=label,
            suite="s",
            run_id=f"{night}/{task}/{label}",
            steps=[
                make_step("read_file", output=f"night {night} {task} zebra{night[-1]}"),
                make_step("run_tests", output=f"{label} quokka"),
            ],
        )
        for task in ("t1", "t2")
        for label in ("baseline", "candidate")
    ]
    src = tmp / f"{night}.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    ingest([src], db, batch=night)


def _archive(tmp: Path, nights: list[str]) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    db = tmp / f"a{len(nights)}.duckdb"
    for night in nights:
        _night(tmp, db, night)
    return db


def _unit_files(site: Path) -> dict[str, list[str]]:
    """Each unit's files (site-relative), from the site's manifest."""
    pages = json.loads((site / ".reportgen-manifest.json").read_text())["pages"]
    return {
        path.removeprefix("search/"): entry["files"]
        for path, entry in pages.items()
        if path.startswith("search/")
    }


def _inode(path: Path) -> int:
    return path.stat().st_ino


def _same_folders(a: Path, b: Path) -> bool:
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    _match, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    return not mismatch and not errors


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "BLOCK_NIGHTS", 2)


def test_one_more_night_links_every_older_unit(tmp_path: Path, small_blocks: None) -> None:
    old_db = _archive(tmp_path, NIGHTS[:6])
    new_db = tmp_path / "new.duckdb"  # the same archive, and one more night
    shutil.copyfile(old_db, new_db)
    _night(tmp_path, new_db, NIGHTS[6])
    site = tmp_path / "site"
    build_site(old_db, site, build_time=BUILD_TIME, keep_nights=2)
    before = _unit_files(site)
    # nights 1-4 keep no steps: blocks b0 (1, 2) and b1 (3, 4); nights 5 and 6 are units
    assert sorted(before) == sorted(["b0", "b1", *(u for u in before if u.startswith("n"))])
    assert len(before) == 4
    inodes = {f: _inode(site / f) for files in before.values() for f in files}
    report = build_site(new_db, site, build_time=BUILD_TIME, keep_nights=2)
    after = _unit_files(site)
    assert report.removed == 0  # night 5's unit went away: units are not pages
    assert report.written + report.skipped == report.pages
    # night 5 left the kept window: it joins block b2; night 7 is a unit of its own
    index = Index(site)
    units = {night: unit for night, _runs, unit in index.meta["nights"]}
    assert units[NIGHTS[0]] == units[NIGHTS[1]] == "b0" and units[NIGHTS[4]] == "b2"
    assert units[NIGHTS[5]] in before and units[NIGHTS[6]] not in before
    for unit in ("b0", "b1", units[NIGHTS[5]]):
        assert after[unit] == before[unit]
        assert all(_inode(site / f) == inodes[f] for f in after[unit]), unit
    for unit in ("b2", units[NIGHTS[6]]):
        assert all(f not in inodes for f in after[unit])
    fresh = tmp_path / "fresh"
    build_site(new_db, fresh, build_time=BUILD_TIME, keep_nights=2)
    assert _same_folders(site / "search", fresh / "search")
    # the index still answers as a direct reading of the archive would
    zebras = index.query("zebra")
    assert [index.run(p)[1].rsplit(" · ", 1)[1] for p in zebras] == [
        n for n in reversed(NIGHTS[5:]) for _run in range(4)
    ]  # kept nights only: the older nights' steps are not indexed
    assert len(index.query("night")) == 4 * 2  # the two kept nights' read_file steps
    assert len(index.query("t1 candidate")) == 7  # every night's run of t1 by the candidate


def test_a_changed_night_or_policy_rewrites_its_units(tmp_path: Path, small_blocks: None) -> None:
    db = _archive(tmp_path, NIGHTS[:5])
    site = tmp_path / "site"
    build_site(db, site, build_time=BUILD_TIME, keep_nights=2)
    before = _unit_files(site)
    units = {night: unit for night, _runs, unit in Index(site).meta["nights"]}
    inodes = {f: _inode(site / f) for files in before.values() for f in files}
    con = duckdb.connect(str(db))
    con.execute(
        "UPDATE steps SET action = 'write_file' WHERE idx = 0 AND run_id IN "
        "(SELECT run_id FROM runs WHERE batch = ?)",
        [NIGHTS[3]],
    )
    con.close()
    build_site(db, site, build_time=BUILD_TIME, keep_nights=2)
    after = _unit_files(site)
    changed = {
        u for u, files in after.items() if any(_inode(site / f) != inodes.get(f) for f in files)
    }
    assert changed == {units[NIGHTS[3]]}
    index = Index(site)
    assert len(index.query("write_file")) == 4
    shutil.rmtree(tmp_path / "fresh", ignore_errors=True)
    build_site(db, tmp_path / "fresh", build_time=BUILD_TIME, keep_nights=2)
    assert _same_folders(site / "search", tmp_path / "fresh" / "search")
    # another policy: every unit is rewritten (its words come through other views)
    inodes = {f: _inode(site / f) for files in after.values() for f in files}
    build_site(db, site, build_time=BUILD_TIME, keep_nights=2, redaction=Redaction(payloads=False))
    final = _unit_files(site)
    assert all(_inode(site / f) != inodes.get(f) for files in final.values() for f in files)
    assert Index(site).query("zebra") == []  # step output is blanked without payloads
    assert len(Index(site).query("write_file")) == 4


def test_the_index_reads_the_redacted_rows(tmp_path: Path) -> None:
    """The index reads only the units' rows, redacted as every page is: a secret in a step's
    output and in a run's id is in no word, and the run is found under its redacted id."""
    key = "sk-ant-api03-" + "q" * 40
    run = make_run(
        "t1",
        label="baseline",
        suite="s",
        run_id=f"run-{key}",
        steps=[make_step("read_file", output=f"walrus token {key}")],
    )
    src = tmp_path / "secret.jsonl"
    src.write_text(json.dumps(run) + "\n", encoding="utf-8")
    db = tmp_path / "a.duckdb"
    ingest([src], db, batch=NIGHTS[0])
    _night(tmp_path, db, NIGHTS[1])
    site = tmp_path / "site"
    build_site(db, site, build_time=BUILD_TIME)
    index = Index(site)
    words = index.words()
    assert "walrus" in words and not any("q" * 30 in w or "api03" in w for w in words)
    (hit,) = index.query("walrus")
    shown = index.run(hit)[3]
    assert key not in shown and "[REDACTED]" in shown
    assert hit - hit % 1_000_000 in index.query("t1 baseline")  # the run itself
    assert all(key not in f.read_text() for f in (site / "search").iterdir())


def test_redaction_views_give_the_words_of_the_stored_tables(tmp_path: Path) -> None:
    """The index reads its units' rows through the redacted views (a filter on their run
    ids); an archive without secrets gives the words a build without redaction does."""
    db = _archive(tmp_path, NIGHTS[:3])
    build_site(db, tmp_path / "fast", build_time=BUILD_TIME, keep_nights=2)
    plain = tmp_path / "plain"
    build_site(db, plain, build_time=BUILD_TIME, keep_nights=2, redaction=Redaction((), True))
    assert Index(plain).words() == Index(tmp_path / "fast").words()
