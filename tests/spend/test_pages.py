"""Avoidable spend on the site: listed on the run page (links to the steps), summed per suite
on the index, agent text escaped, and the pages render in Chromium with no console error."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from reportgen.ingest import ingest
from reportgen.site import build_site
from reportgen.site import paths as site_paths
from reportgen.spend import avoidable_spend
from tests.formats.helpers import DATA, needs_data
from tests.site.browser_pages import chromium_page
from tests.site.html import parse

SESSION = "3fe1b6bc-dbd0-4320-b980-4f147befa187"  # claude-code/codemie-code/session-3fe1b6bc


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if not (DATA / "claude-code").is_dir():
        pytest.skip("the shared real data is missing")
    root = tmp_path_factory.mktemp("spend-site")
    hostile = root / "hostile" / "run.json"
    hostile.parent.mkdir()
    path = "<script>alert(1)</script>.py"
    steps = [{"type": "llm", "action": "m", "status": "ok", "tokens_in": 10, "cost_usd": 0.5}]
    steps += [{"type": "tool", "action": "Read", "status": "ok", "parent": 0,
               "input": {"file_path": path}, "output": o} for o in ("a", "b")]  # fmt: skip
    hostile.write_text(json.dumps({"run_id": "hostile", "task_id": "t", "steps": steps}))
    db = root / "a.duckdb"
    ingest([DATA / "claude-code", DATA / "codex-cli", hostile], db)
    out = root / "site"
    build_site(db, out, build_time="2026-12-01T00:00:00Z")
    return db, out


def _page(db: Path, run_id: str) -> str:
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute("SELECT suite, task_id FROM runs WHERE run_id = ?", [run_id]).fetchone()
    assert row is not None
    return site_paths.run_path(row[0], row[1], run_id)


@needs_data
def test_run_page_lists_findings_linked_to_steps(site: tuple[Path, Path]) -> None:
    db, out = site
    section = parse(out / _page(db, SESSION)).one("section", id="avoidable")
    rows = section.select("tr")[1:]
    with duckdb.connect(str(db), read_only=True) as con:
        spent = avoidable_spend(con, [SESSION]).run(SESSION)
    assert len(rows) == len(spent.findings) == 2
    links = [a.attrs["href"] for row in rows for a in row.select("a")]
    assert links == ["#step-23", "#step-10", "#step-76", "#step-12"]
    assert "$0.1000" in section.text  # the run's total, each step once


@needs_data
def test_index_sums_per_suite_and_text_is_escaped(site: tuple[Path, Path]) -> None:
    db, out = site
    index = (out / "index.html").read_text(encoding="utf-8")
    section = parse(index).one("section", id="avoidable")
    cells = [row.select("td")[0].text for row in section.select("tr")[1:]]
    with duckdb.connect(str(db), read_only=True) as con:
        suites = avoidable_spend(con).suites
    assert cells == sorted(suites)
    hostile = (out / _page(db, "hostile")).read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in hostile
    assert "&lt;script&gt;alert(1)&lt;/script&gt;.py" in hostile


@needs_data
@pytest.mark.browser
def test_pages_with_findings_render(site: tuple[Path, Path]) -> None:
    db, out = site
    with duckdb.connect(str(db), read_only=True) as con:
        runs = sorted(avoidable_spend(con).runs)
    with chromium_page() as checked:
        checked.open(out / "index.html")
        for run_id in runs:
            shown = checked.open(out / _page(db, run_id))
            assert shown.locator("#avoidable tr").count() > 1
        assert checked.problems == []
