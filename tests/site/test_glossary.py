"""For every reader: each metric of the registry has a definition, shown on hover (title) and
on keyboard focus wherever a metric names a column or a card; rows of several suites carry a
suite column; every chart has a caption and named axes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reportgen.gating import pair_metrics
from reportgen.gating.metrics import LABEL_METRICS
from reportgen.site import BuildReport
from reportgen.site.glossary import definition, term
from tests.site.browser_pages import chromium_page
from tests.site.html import Element, parse_file

Site = tuple[Path, BuildReport]


def test_every_registered_metric_has_a_definition() -> None:
    missing = [m.name for m in pair_metrics() if not definition(m.name)]
    missing += [m.name for m in LABEL_METRICS if not definition(m.name)]
    assert missing == []


def test_term_is_a_focusable_abbreviation_and_escapes() -> None:
    html = str(term("TDI"))
    assert html.startswith('<abbr class="def" tabindex="0" title="Trajectory Divergence Index')
    assert str(term("no such <metric>")) == "no such &lt;metric&gt;"


def _defined(el: Element) -> dict[str, str]:
    """The abbreviations under ``el``: their text to their definition."""
    return {
        a.text: a.attrs["title"]
        for a in el.select("abbr", class_="def")
        if a.attrs.get("tabindex") == "0"
    }


def test_metric_headers_and_cards_carry_their_definition(demo_site: Site) -> None:
    out = demo_site[0]
    compare = parse_file(out / "compare/baseline..candidate/index.html")
    heads = _defined(compare.one("section", id="pairs").select("thead")[0])
    for name in ("TDI", "RSR", "loops", "repeats", "cost", "tokens", "latency", "reward Δ"):
        assert heads[name] == definition(name), name
    assert heads["WEI"].startswith("Wasted Effort Index")
    verdicts = _defined(compare.one("section", id="verdicts"))
    assert {m.label for m in LABEL_METRICS} & set(verdicts)
    [run] = (out / "runs/nightly/fix-login").glob("2026-11-28-fix-login-candidate-*.html")
    cards = _defined(parse_file(run).select("div", class_="cards")[0])
    assert set(cards) >= {"wasted steps", "WEI", "loops", "repeats"}
    pair = parse_file(out / "compare/baseline..candidate/nightly/fix-login/2026-11-28.html")
    rows = _defined(pair.one("section", id="metrics"))
    assert rows["Trajectory divergence (TDI)"] == definition("divergence")
    task = parse_file(out / "tasks/nightly/fix-login.html")
    assert {"TDI", "RSR", "loops"} <= set(_defined(task.one("section", id="pairs")))


@pytest.mark.browser
def test_a_definition_shows_on_keyboard_focus(demo_site: Site) -> None:
    out = demo_site[0]
    with chromium_page() as tab:
        page = tab.open(out / "compare/baseline..candidate/index.html")
        target = page.locator("section#pairs thead abbr.def").first
        for _ in range(200):  # Tab through the page until the first header's term has focus
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.matches('section#pairs thead abbr.def')"):
                break
        shown = page.evaluate("() => getComputedStyle(document.activeElement, '::after').content")
        assert definition(target.inner_text()) in json.loads(shown)
        assert tab.problems == []


def test_rows_of_several_suites_name_their_suite(demo_site: Site) -> None:
    out = demo_site[0]
    index = parse_file(out / "index.html")
    for section in ("attention", "nights"):
        found = index.select("section", id=section)
        if found:
            assert found[0].select("th")[0 if section == "attention" else 1].text == "suite"
    pairs = parse_file(out / "compare/baseline..candidate/index.html").one("section", id="pairs")
    assert "suite" in [th.text for th in pairs.select("th")]


def _figures(site: Path) -> list[tuple[str, dict[str, object]]]:
    """Every chart figure of a site: inline ones and those in data files beside pages."""
    found = []
    for page in site.rglob("*.html"):
        for m in re.finditer(
            r'<script type="application/json" id="fig-([^"]+)">(.*?)</script>',
            page.read_text(encoding="utf-8"),
            re.S,
        ):
            found.append((f"{page.name}:{m.group(1)}", json.loads(m.group(2))))
    for script in site.rglob("*.js"):
        text = script.read_text(encoding="utf-8")
        if "assets" not in script.parts and text.startswith("window.RG_CHARTS"):
            found.append((script.name, json.loads(text[text.index("]=") + 2 :].rstrip()[:-1])))
    return found


def test_every_chart_has_a_caption_and_named_axes(demo_site: Site) -> None:
    out = demo_site[0]
    figures = _figures(out)
    assert len(figures) > 100
    unnamed = []
    for name, fig in figures:
        layout = fig["layout"]
        assert isinstance(layout, dict)
        for axis in ("xaxis", "yaxis"):
            title = layout.get(axis, {}).get("title", {}).get("text")
            if not title:
                unnamed.append(f"{name} {axis}")
    assert unnamed == []
    for page in out.rglob("*.html"):
        doc = parse_file(page)
        for box in doc.select("figure", class_="chart-box"):
            assert box.one("figcaption").text.strip(), page


def test_every_metric_is_defined_once_in_the_registry() -> None:
    """The glossary holds no definition of its own: each comes from the metric's registry
    declaration (pair metrics and label-level metrics alike)."""
    from reportgen.gating.metrics import LABEL_METRICS, pair_metrics
    from reportgen.site.glossary import DEFINITIONS

    declared = {m.name: m.definition for m in (*pair_metrics(), *LABEL_METRICS)}
    assert all(declared.values()), [name for name, text in declared.items() if not text]
    assert declared == DEFINITIONS
