"""Build behaviour: byte-identical output, incremental rebuilds, atomic swap, Parquet data."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from reportgen.errors import UsageError
from reportgen.ingest import ingest
from reportgen.site import BuildReport, build_site
from reportgen.site.build import resolve_build_time
from reportgen.site.render import Renderer
from reportgen.site.writer import MANIFEST
from tests.conftest import make_run
from tests.site.conftest import BUILD_TIME

Site = tuple[Path, BuildReport]


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_same_archive_gives_a_byte_identical_site(
    demo_db: Path, demo_site: Site, tmp_path: Path
) -> None:
    again = tmp_path / "again"
    build_site(demo_db, again, build_time=BUILD_TIME)
    assert _files(again) == _files(demo_site[0])


def test_report_counts_pages(demo_site: Site) -> None:
    out, report = demo_site
    assert report.index == out / "index.html" and report.index.is_file()
    assert (
        report.pages == report.written == len(list(out.rglob("*.html"))) == 487
    )  # 486 + suites.html
    assert report.skipped == 0
    manifest = json.loads((out / MANIFEST).read_text())
    pages = [p for p in manifest["pages"] if not p.startswith("search/")]
    assert len(pages) == report.pages  # and the search index's units (search.py), not pages


def test_rebuild_skips_unchanged_pages(demo_db: Path, demo_site: Site, tmp_path: Path) -> None:
    out = tmp_path / "site"
    shutil.copytree(demo_site[0], out)
    report = build_site(demo_db, out, build_time=BUILD_TIME)
    assert (report.written, report.skipped) == (0, report.pages)
    report = build_site(demo_db, out, build_time="2027-01-01T00:00:00Z")
    assert report.written == 1, "only the index carries the build time"
    assert _files(out)["index.html"] != _files(demo_site[0])["index.html"]


def _small_archive(tmp_path: Path, runs: list[dict[str, object]]) -> Path:
    src = tmp_path / f"runs{len(list(tmp_path.glob('runs*')))}.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    db = tmp_path / "a.duckdb"
    ingest([src], db)
    return db


def test_new_runs_rewrite_only_the_pages_they_touch(tmp_path: Path) -> None:
    runs = [
        make_run(t, label=lab, suite="s", run_id=f"{t}/{lab}")
        for t in ("t1", "t2", "t3")
        for lab in ("baseline", "candidate")
    ]
    db = _small_archive(tmp_path, runs)
    out = tmp_path / "site"
    first = build_site(db, out, build_time=BUILD_TIME)
    assert first.written == first.pages
    untouched = (out / "runs/s/t1/t1-baseline-").parent
    before = _files(out)
    _small_archive(tmp_path, [make_run("t4", label="baseline", suite="s", run_id="t4/baseline")])
    second = build_site(db, out, build_time=BUILD_TIME)
    assert second.pages == first.pages + 2  # the new run and its task
    assert 0 < second.written < second.pages and second.skipped > 0
    after = _files(out)
    new = sorted(set(after) - set(before))
    assert any(n.startswith("runs/s/t4/") for n in new) and "tasks/s/t4.html" in new
    assert all(
        after[k] == before[k] for k in before if k.startswith(untouched.relative_to(out).as_posix())
    )


def test_failed_build_leaves_the_previous_site(
    demo_db: Path, demo_site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    shutil.copytree(demo_site[0], out)
    before = _files(out)
    calls = {"n": 0}
    real = Renderer.render

    def failing(self: Renderer, page: object) -> dict[str, bytes]:
        calls["n"] += 1
        if calls["n"] > 3:
            raise RuntimeError("template blew up")
        return real(self, page)  # type: ignore[arg-type]

    monkeypatch.setattr(Renderer, "render", failing)
    monkeypatch.setattr(Renderer, "page_hash", lambda self, page: "changed")
    with pytest.raises(RuntimeError, match="blew up"):
        build_site(demo_db, out, build_time="2030-01-01T00:00:00Z")
    assert _files(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"], "no temp folder left behind"


def test_refuses_to_replace_a_folder_that_is_not_a_site(demo_db: Path, tmp_path: Path) -> None:
    (tmp_path / "precious.txt").write_text("keep me")
    with pytest.raises(UsageError, match="refusing"):
        build_site(demo_db, tmp_path, build_time=BUILD_TIME)
    assert (tmp_path / "precious.txt").read_text() == "keep me"


def test_build_time_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_build_time("2026-11-29T06:00:00+01:00") == "2026-11-29T05:00:00Z"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1800000000")
    assert resolve_build_time(None) == "2027-01-15T08:00:00Z"
    with pytest.raises(UsageError):
        resolve_build_time("yesterday")


def test_archive_is_published_as_parquet(demo_db: Path, demo_site: Site) -> None:
    data = demo_site[0] / "data"
    con = duckdb.connect()
    runs = con.execute(f"SELECT count(*) FROM read_parquet('{data / 'runs/*.parquet'}')").fetchone()
    steps = con.execute(
        f"SELECT count(*) FROM read_parquet('{data / 'steps/*.parquet'}')"
    ).fetchone()
    archive = duckdb.connect(str(demo_db), read_only=True)
    assert runs == archive.execute("SELECT count(*) FROM runs").fetchone()
    assert steps == archive.execute("SELECT count(*) FROM steps").fetchone()
    nights = ["runs", "steps", "iterations", "outputs"]  # a file per night in each folder
    small = ["files", "loads", "suite_notes"]
    assert sorted(p.name for p in data.iterdir()) == sorted(
        ["manifest.json", *nights, *(f"{t}.parquet" for t in small)]
    )


def test_large_charts_are_written_beside_the_page(tmp_path: Path) -> None:
    run = make_run("long", n_steps=400, label="baseline", suite="s", run_id="long/baseline")
    db = _small_archive(tmp_path, [run])
    out = tmp_path / "site"
    build_site(db, out, build_time=BUILD_TIME)
    [page] = (out / "runs/s/long").glob("*.html")
    side = page.with_name(page.stem + ".timeline.js")
    assert side.is_file() and side.read_text().startswith("window.RG_CHARTS=")
    assert f'data-src="{side.name}"' in page.read_text()
