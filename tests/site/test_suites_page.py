"""Navigation that scales: past three suites the header links one suites page (not one
history per suite), which lists every suite with its size and newest verdicts."""

from __future__ import annotations

import json
from pathlib import Path

from reportgen.ingest import ingest
from reportgen.site import build_site
from tests.conftest import make_run
from tests.site.conftest import BUILD_TIME
from tests.site.html import parse_file
from tests.site.test_links import broken_links


def test_many_suites_get_one_suites_page(tmp_path: Path) -> None:
    suites = [f"suite-{i:02d}" for i in range(17)]
    runs = [
        make_run(f"t{t}", suite=s, label=label, run_id=f"{s}/t{t}/{label}", success=label == "baseline")
        for s in suites for t in range(2) for label in ("baseline", "candidate")
    ]  # fmt: skip
    traces = tmp_path / "runs.jsonl"
    traces.write_text("".join(json.dumps(r) + "\n" for r in runs))
    db = tmp_path / "a.duckdb"
    ingest([traces], db)
    out = tmp_path / "site"
    build_site(db, out, build_time=BUILD_TIME)
    header = [a.text for a in parse_file(out / "index.html").one("header").select("a")]
    assert "Suites (17)" in header and not [h for h in header if h.startswith("History:")]
    rows = parse_file(out / "suites.html").one("tbody").select("tr")
    assert [r.select("td")[0].text.strip() for r in rows] == suites
    assert all(r.select("td")[1].text.strip() == "2" for r in rows)  # tasks
    assert broken_links(out) == []


def test_few_suites_keep_their_history_links(demo_site: tuple[Path, object]) -> None:
    header = [a.text for a in parse_file(demo_site[0] / "index.html").one("header").select("a")]
    assert "History: nightly" in header and not [h for h in header if h.startswith("Suites")]
    assert (demo_site[0] / "suites.html").is_file()
