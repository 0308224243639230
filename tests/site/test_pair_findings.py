"""The pair page's trajectory findings (P22): the pair record's ``findings`` (the records
``--json`` and ``--explain`` give, never recomputed), stable ones listed, flapping ones greyed,
counted and folded in a <details>, too few baseline repeats said so; agent text escaped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reportgen.archive import connect
from reportgen.cli import app
from reportgen.divergence.findings import summary
from reportgen.site import BuildReport
from reportgen.site.data import PairInfo, load_site_data
from tests.site.browser_pages import chromium_page
from tests.site.conftest import JS_LINK, XSS
from tests.site.html import Element, parse_file

runner = CliRunner()


@pytest.fixture(scope="module")
def site_pairs(demo_db: Path) -> dict[str, PairInfo]:
    con = connect(demo_db, read_only=True)
    try:
        return {p.pair_id: p for p in load_site_data(con, "baseline", "candidate").pairs}
    finally:
        con.close()


def _section(site: Path, pair: PairInfo) -> Element:
    return parse_file(site / pair.path).one("section", id="findings")


def _texts(section: Element, cls: str) -> list[str]:
    return [" ".join(li.text.split()) for li in section.select("li", class_=cls)]


def test_the_page_shows_the_json_findings(
    demo_db: Path, demo_site: tuple[Path, BuildReport], site_pairs: dict[str, PairInfo]
) -> None:
    site = demo_site[0]
    records = json.loads(runner.invoke(app, ["compare", "--db", str(demo_db), "--json"]).stdout)
    by_id = {p["pair_id"]: p["findings"] for p in records["pairs"]}
    kinds = set()
    for pair_id, pair in site_pairs.items():
        assert pair.metrics["findings"] == by_id[pair_id]  # one answer: the same records
        found = summary(by_id[pair_id])
        section = _section(site, pair)
        assert " ".join(section.one("p", class_="findings-count").text.split()) == found.headline
        assert _texts(section, "finding-stable") == [
            f"{f.kind} {f.key} ({f.rate_words})" for f in found.stable
        ]
        assert _texts(section, "finding-flapping") == [
            f"{f.kind} {f.key} ({f.rate_words})" for f in found.flapping
        ]
        for line, cls in ((found.flapping_line, "findings-flapping"),
                          (found.unjudged_line, "findings-unjudged")):  # fmt: skip
            folds = section.select("details", class_=cls)
            assert [" ".join(d.one("summary").text.split()) for d in folds] == (
                [line] if line else []
            )
            assert all("muted" in d.classes for d in folds)  # greyed
        kinds |= {f.verdict for f in (*found.stable, *found.flapping, *found.unjudged)}
    assert kinds == {"stable", "flapping", "too_few_repeats"}  # the demo shows all three


def _mixed(site_pairs: dict[str, PairInfo]) -> PairInfo:
    """A pair with both stable and flapping findings."""
    return next(
        p
        for p in site_pairs.values()
        if (s := summary(p.metrics["findings"])).stable and s.flapping
    )


def test_the_fold_opens_in_a_browser(
    demo_site: tuple[Path, BuildReport], site_pairs: dict[str, PairInfo]
) -> None:
    pair = _mixed(site_pairs)
    found = summary(pair.metrics["findings"])
    with chromium_page() as tab:
        page = tab.open(demo_site[0] / pair.path)
        stable = page.locator("#findings li.finding-stable")
        flapping = page.locator("#findings li.finding-flapping")
        assert stable.count() == len(found.stable) and stable.first.is_visible()
        assert flapping.count() == len(found.flapping)
        assert not flapping.first.is_visible()  # folded
        colour = "el => getComputedStyle(el).color"
        assert flapping.first.evaluate(colour) != stable.first.evaluate(colour)  # greyed
        page.locator("#findings details.findings-flapping summary").click()
        assert flapping.first.is_visible()
        assert tab.problems == [], tab.problems


def test_agent_text_in_findings_is_escaped(hostile_site: Path) -> None:
    pages = [p for p in hostile_site.rglob("*.html") if "/compare/" in p.as_posix()]
    sections = [s for p in pages for s in parse_file(p).select("section", id="findings")]
    keys = [k.text for s in sections for k in s.select("span", class_="finding-key")]
    assert f"{JS_LINK}:+error" in keys  # the hostile action's status flip, shown as text
    for section in sections:
        assert not section.select("a") and not section.select("script")
    for page in pages:
        assert XSS not in page.read_text(encoding="utf-8")
