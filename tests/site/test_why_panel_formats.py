"""Per format, the why panel shows what the file records: for each hand-checked case of
tests/formats/test_why_fields.py (a goal, a title, a scorer's reason or a final answer read
from a real file of ../shared/data), the run is paired with a copy of itself and the site is
built; the pair page's why panel (and, for a title, its heading) shows that text."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest

from reportgen.ingest import ingest
from reportgen.site import build_site
from tests.formats.helpers import DATA, needs_data
from tests.formats.test_why_fields import CASES, Case
from tests.site.html import parse_file

pytestmark = [needs_data, pytest.mark.slow]

#: The panel folds long text after this many characters; a case is checked on its start.
SHOWN = 300


def _by_run() -> dict[tuple[str, str], list[tuple[str, Case]]]:
    groups: dict[tuple[str, str], list[tuple[str, Case]]] = defaultdict(list)
    for name, case in CASES.items():
        groups[(case.path, case.where)].append((name, case))
    return groups


GROUPS = _by_run()


def _words(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _pair_with_itself(db: Path, where: str) -> None:
    """Keep the one run ``where`` picks, labelled baseline, and add its copy as candidate."""
    con = duckdb.connect(str(db))
    try:
        keep = f"SELECT run_id FROM runs WHERE {where}"
        con.execute(f"DELETE FROM steps WHERE run_id NOT IN ({keep})")
        con.execute(f"DELETE FROM runs WHERE run_id NOT IN ({keep})")
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (1,)
        con.execute("UPDATE runs SET label = 'baseline'")
        con.execute(
            "INSERT INTO runs SELECT * REPLACE (run_id || '~copy' AS run_id,"
            " 'candidate' AS label) FROM runs"
        )
        con.execute("INSERT INTO steps SELECT * REPLACE (run_id || '~copy' AS run_id) FROM steps")
    finally:
        con.close()


@pytest.mark.parametrize(
    ("path", "where"), list(GROUPS), ids=[names[0][0] for names in GROUPS.values()]
)
def test_the_why_panel_shows_what_the_format_records(path: str, where: str, tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    ingest([DATA / path], db)
    _pair_with_itself(db, where)
    site = tmp_path / "site"
    build_site(
        db, site, build_time="2026-12-01T00:00:00Z", baseline_label="baseline",
        candidate_label="candidate",
    )  # fmt: skip
    pages = [p for p in (site / "compare").rglob("*.html") if p.name != "index.html"]
    assert len(pages) == 1, pages
    doc = parse_file(pages[0])
    panel = _words(doc.one("section", id="why").text)
    heading = _words(doc.one("h1").text)
    for name, case in GROUPS[(path, where)]:
        expected = _words(case.expected)[:SHOWN].removesuffix("…").strip()
        shown = heading if case.field == "title" else panel
        assert expected in shown, (name, expected, shown[:2000])


def test_the_why_panel_says_when_the_infrastructure_ended_a_run(tmp_path: Path) -> None:
    """Harbor's broken verifier: the run is not scored, and the panel says whose error it was."""
    db = tmp_path / "a.duckdb"
    ingest([DATA / "harbor-jobs/generated/jobs/terminus-2-mock/"], db)
    _pair_with_itself(db, "run_id = 'terminus-2-mock/broken-verifier__RFziJcG'")
    site = tmp_path / "site"
    build_site(db, site, build_time="2026-12-01T00:00:00Z")
    [page] = [p for p in (site / "compare").rglob("*.html") if p.name != "index.html"]
    panel = _words(parse_file(page).one("section", id="why").text)
    assert panel.count("error, not scored") == 2
    assert "the infrastructure ended this run (not the agent's failure)" in panel
    assert "harness: RewardFileNotFoundError" in panel or "harness: No reward file" in panel, panel
