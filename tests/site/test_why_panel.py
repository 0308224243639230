"""The why panel at the top of a pair page (P18): a failed candidate's pair shows the goal
(folded), both outcomes with the scorer's reason, both final answers with their word diff,
the first divergence and the first error, all escaped; failed and short steps are open; runs
and pairs are named by their goal, the id beside it and in the URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.ingest import ingest
from reportgen.site import build_site
from tests.site.browser_pages import rendered_html
from tests.site.html import Element, parse
from tests.site.why_pair import BASE_ANSWER, ERROR, SCORER, SCRIPT, write_traces

TITLE = "Answer the customer's question about refunds."


@pytest.fixture(scope="module")
def why_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("why")
    ingest([write_traces(root / "traces")], root / "db.duckdb")
    build_site(root / "db.duckdb", root / "site", build_time="2026-11-29T00:00:00Z")
    return root / "site"


def _pair_file(site: Path) -> Path:
    [page] = (site / "compare").rglob("refund-question/*.html")
    return page


def _pair_page(site: Path) -> tuple[str, Element]:
    """The page's HTML as built, and as Chromium draws it (its step rows come from data)."""
    file = _pair_file(site)
    return file.read_text(encoding="utf-8"), parse(rendered_html(file))


def test_the_pair_page_leads_with_why_the_candidate_failed(why_site: Path) -> None:
    html, doc = _pair_page(why_site)
    panel = doc.one("section", id="why")
    text = panel.text
    assert html.index('id="why"') < html.index('id="metrics"')  # at the top
    assert "Answer the customer's question about refunds." in text
    more = panel.one("details", class_="why-more")  # 13 lines: folded after 8
    assert "Rule 12" in more.text and "Rule 7:" not in more.text
    sides = panel.select("div", class_="why-side")
    assert [s.attrs["data-side"] for s in sides] == ["baseline", "candidate"]
    assert "success" in sides[0].text and "failure" in sides[1].text
    assert SCORER in sides[1].text and "Correct: 30 days." in sides[0].text
    assert BASE_ANSWER in sides[0].text and "60 days of the request" in sides[1].text
    diff = panel.one("div", class_="why-diff")
    assert [d.text for d in diff.select("del")] == ["30"]
    assert [i.text for i in diff.select("ins")] == ["60", f" {SCRIPT}"]
    # agent text is text: the answer's script shows as words, never as an element
    assert SCRIPT in sides[1].text and not any("alert" in s.text for s in doc.select("script"))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    where = panel.one("ul", class_="why-where")
    [first, error] = where.select("li")
    anchor = first.one("a").attrs["href"]
    assert anchor.startswith("#row-") and doc.one("tr", id=anchor[1:])
    assert "open_policy" in error.text and ERROR in error.text
    drawn = parse(rendered_html(_pair_file(why_site)))  # side cells come from step scripts
    error_row = drawn.one("tr", id=error.one("a").attrs["href"][1:])
    assert "open_policy" in error_row.text


def test_failed_and_short_steps_are_open_and_long_ones_folded(why_site: Path) -> None:
    doc = parse(rendered_html(_pair_file(why_site)))  # side cells come from step scripts
    table = doc.one("table", class_="diff")
    opened: dict[str, set[bool]] = {}
    for cell in table.select("td", class_="side"):
        if "empty" in cell.classes:
            continue
        action = cell.one("div", class_="step-head").one("strong").text
        states = {"open" in d.attrs for d in cell.select("details", class_="payload")}
        opened.setdefault(action, set()).update(states)
    assert opened["open_policy"] == {True}  # the error step, its message at once
    assert opened["read_file"] == {True}  # input and output each ≤ 200 characters
    assert opened["search_docs"] == {False}  # 480 characters of output: folded


def test_runs_and_pairs_are_named_by_their_goal_with_the_id_beside(why_site: Path) -> None:
    from reportgen.site.paths import run_path, task_path

    run_page = why_site / run_path("support", "refund-question", "2026-11-28/refund/baseline")
    assert "refund-question" in run_page.as_posix()  # the id stays in the URL
    h1 = parse(run_page).one("h1")
    assert h1.text.startswith(TITLE) and h1.one("small").text == "refund-question"
    task = parse(why_site / task_path("support", "refund-question")).one("h1")
    assert TITLE in task.text and task.one("small").text == "refund-question"
    compare = next((why_site / "compare").rglob("index.html"))
    rows = [r for r in parse(compare).select("tr") if "refund-question" in r.text]
    assert rows and TITLE in rows[0].text
    assert "refund-question" in rows[0].one("small", class_="title-id").text
