"""Retention: run and pair pages keep their steps for the newest --keep-nights nights only;
older ones keep a small page at the same address (no link breaks), every step stays in
data/, and the search index holds only the steps that have a page."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from reportgen.site import build_site
from reportgen.site.render import PRUNED_CSP
from reportgen.site.stepdata import unpack_json
from tests.site.conftest import BUILD_TIME, archive_nights, html_pages
from tests.site.html import parse_file
from tests.site.test_links import broken_links


@pytest.fixture(scope="module")
def kept_two(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("retention") / "site"
    build_site(demo_db, out, build_time=BUILD_TIME, keep_nights=2)
    return out


def test_only_the_newest_nights_keep_step_pages(demo_db: Path, kept_two: Path) -> None:
    nights = archive_nights(demo_db)
    assert len(nights) > 2
    newest = set(nights[-2:])
    step_pages = [
        p for p in html_pages(kept_two) if p.relative_to(kept_two).parts[0] in ("runs", "compare")
    ]
    full = pruned = 0
    for page in step_pages:
        html = page.read_text(encoding="utf-8")
        if page.name == "index.html":
            continue
        night = next(n for n in nights if n in page.name)
        if night in newest:
            assert "past the 2 newest nights" not in html
            full += 1
        else:
            assert "past the 2 newest nights" in html and 'id="steps"' not in html
            pruned += 1
    assert full and pruned


def test_pruned_site_links_resolve_and_data_keeps_every_step(
    demo_db: Path, demo_site: tuple[Path, object], kept_two: Path
) -> None:
    assert broken_links(kept_two) == []
    con = duckdb.connect()
    steps = con.execute(
        f"SELECT count(*) FROM '{kept_two / 'data' / 'steps/*.parquet'}'"
    ).fetchone()
    archive = duckdb.connect(str(demo_db), read_only=True)
    assert steps == archive.execute("SELECT count(*) FROM steps").fetchone()
    size = sum(p.stat().st_size for p in kept_two.rglob("*") if p.is_file())
    full = sum(p.stat().st_size for p in demo_site[0].rglob("*") if p.is_file())
    assert size < full * 0.8


def test_a_stand_in_is_short_has_no_script_and_the_strictest_csp(kept_two: Path) -> None:
    stand_ins = [
        p for p in html_pages(kept_two) if "newest nights kept step by step" in p.read_text()
    ]
    assert stand_ins
    for page in stand_ins:
        doc = parse_file(page)
        [meta] = doc.select("meta", http_equiv="Content-Security-Policy")
        assert meta.attrs["content"] == PRUNED_CSP
        assert not doc.select("script")
        assert page.stat().st_size < 900, page  # a year holds tens of thousands of them


def test_the_comparison_lists_the_pairs_of_kept_nights_and_every_nights_row(
    demo_db: Path, kept_two: Path
) -> None:
    newest = set(archive_nights(demo_db)[-2:])
    doc = parse_file(kept_two / "compare" / "baseline..candidate" / "index.html")
    pairs = doc.one("section", id="pairs")
    listed = {row.select("td")[0].text for row in pairs.one("tbody").select("tr")}
    assert listed == newest
    assert "pairs of older nights are on their task pages" in pairs.text
    verdicts = {d.attrs["id"] for d in doc.select("details", class_="verdicts")}
    assert verdicts == {f"verdicts-night-{n}" for n in newest}
    rows = doc.one("section", id="nights").one("tbody").select("tr")
    assert len(rows) == len(archive_nights(demo_db))  # every night keeps its summary row
    for row in rows:
        has_link = bool(row.select("a", class_="filter-link"))
        assert has_link == (row.select("td")[0].text in newest)


def test_task_pages_link_the_step_pages_of_kept_nights_only(demo_db: Path, kept_two: Path) -> None:
    newest = set(archive_nights(demo_db)[-2:])
    for page in (kept_two / "tasks").rglob("*.html"):
        doc = parse_file(page)
        assert "The 2 newest nights have step pages" in doc.one("main").text
        for section in ("runs", "pairs"):
            for row in doc.one("section", id=section).one("tbody").select("tr"):
                night = row.select("td")[0].text
                assert bool(row.select("a")) == (night in newest), (page, night)


def test_kept_pair_pages_show_the_findings_of_a_site_that_keeps_every_night(
    demo_db: Path, demo_site: tuple[Path, object], kept_two: Path
) -> None:
    newest = archive_nights(demo_db)[-2:]
    shown = 0
    for page in (kept_two / "compare").rglob("*.html"):
        if page.name == "index.html" or not any(n in page.name for n in newest):
            continue
        kept = parse_file(page).select("section", id="findings")
        full = parse_file(demo_site[0] / page.relative_to(kept_two)).select(
            "section", id="findings"
        )
        assert [f.text for f in kept] == [f.text for f in full], page
        shown += len(kept)
    assert shown  # the findings were computed for the kept nights only, and are the same


def test_search_indexes_steps_of_kept_nights_only(demo_db: Path, kept_two: Path) -> None:
    import re

    nights = archive_nights(demo_db)
    con = duckdb.connect(str(demo_db), read_only=True)
    # runs are numbered as the index numbers them: newest night first, then by run id
    run_ids = [
        r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY batch DESC, run_id").fetchall()
    ]
    batch = dict(con.execute("SELECT run_id, batch FROM runs").fetchall())
    con.close()
    postings: list[int] = []
    for shard in (kept_two / "search").glob("w-*.js"):
        call = re.fullmatch(r"window\.RG_SEARCH_SHARD\((.*)\);\n", shard.read_text(), re.S)
        assert call
        _name, packed = json.loads(f"[{call[1]}]")
        words = unpack_json(packed.encode())
        postings += [p for found in words.values() for p in found]
    with_steps = {run_ids[p // 1_000_000] for p in postings if p % 1_000_000}
    assert with_steps and {batch[r] for r in with_steps} <= set(nights[-2:])


def test_keep_nights_zero_keeps_every_step_page(demo_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "reportgen", "build", "--db", str(demo_db), "--out", str(out),
         "--keep-nights", "0"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not [
        p
        for p in html_pages(out)
        if "nights this site shows step by step" in p.read_text(encoding="utf-8")
    ]


def test_avoidable_spend_sums_the_runs_of_kept_nights(demo_db: Path, kept_two: Path) -> None:
    from reportgen.archive import connect
    from reportgen.site.data import load_site_data
    from reportgen.spend import avoidable_spend

    nights = archive_nights(demo_db)
    con = connect(demo_db, read_only=True)
    try:
        data = load_site_data(con, "baseline", "candidate", frozenset(nights[-2:]))
        kept = [r["run_id"] for r in data.runs if r["batch"] in nights[-2:]]
        alone = avoidable_spend(con, kept)
    finally:
        con.close()
    assert data.spend is not None and data.spend_nights == 2
    assert data.spend.suites == alone.suites and data.spend.runs == alone.runs
    assert data.spend.runs and set(data.spend.runs) <= set(kept)
    index = (kept_two / "index.html").read_text(encoding="utf-8")
    assert "over the runs of the newest 2 nights (those with run pages)" in index


def test_a_new_navigation_leaves_the_stand_ins_of_runs_as_they_were(
    demo_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    build_site(demo_db, out, build_time=BUILD_TIME, keep_nights=1)
    stand_ins = [
        p
        for p in (out / "runs").rglob("*.html")
        if "past the 1 newest nights kept" in p.read_text(encoding="utf-8")
    ]
    assert stand_ins
    before = {p: p.stat().st_ino for p in stand_ins}
    nav = (out / "index.html").read_text(encoding="utf-8")
    build_site(demo_db, out, build_time=BUILD_TIME, keep_nights=1, compare=["candidate..baseline"])
    assert (out / "index.html").read_text(encoding="utf-8") != nav  # the header changed
    assert {p: p.stat().st_ino for p in stand_ins} == before  # linked from the last build
