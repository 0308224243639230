"""Tables read at any width (P18), in real headless Chromium from file://: at 390 and 1280 px
no page is wider than its viewport; ids, dates and links in table cells never break inside a
word (an id may break only after a separator: / - _ . :); at 390 px the comparison page's
verdicts, the pair page's step deltas and the matrix's second configuration stay in view.

On the demo site and on a site of all the shared real data (with three comparisons, so it has
a matrix; skipped when the shared data is missing). One browser page for the module, each site
built once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reportgen.ingest import ingest
from reportgen.site import BuildReport, build_site
from tests.site.browser_pages import SCREENSHOTS, CheckedPage, chromium_page
from tests.site.shared_data import DATA, read_folders

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Three comparisons of the real data (two share a baseline); several make a matrix page.
REAL_COMPARE = ("xai/grok-3..xai/grok-3-mini", "xai/grok-3..xai/grok-4", "Kodah..iSWE-Agent")
WIDTHS = (390, 1280)

#: For every visible table cell that holds an id (one token with a letter), a date or a link
#: alone: its computed wrapping, and each word of it that the browser laid out over more than
#: one line. A "word" of an id ends after a separator (/ - _ . :), so an id may break there;
#: a date is one word. Then, at a narrow width, the cells that must stay in view.
CHECK = r"""(narrow) => {
  const out = {width: document.documentElement.scrollWidth, styles: [], broken: [], hidden: []};
  const DATE = /\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?/g, WORD = /[^\s\/_.:-]+[\/_.:-]*/g;
  const shown = el => el.getClientRects().length > 0;
  function kind(td) {
    const t = td.textContent.trim();
    if (!t) { return null; }
    if (/^\d{4}-\d{2}-\d{2}\S*$/.test(t)) { return 'date'; }
    const links = td.querySelectorAll('a');
    if (links.length === 1 && links[0].textContent.trim() === t) { return 'link'; }
    if (!/\s/.test(t) && /[A-Za-z]/.test(t) && t.length > 2) { return 'id'; }
    return null;
  }
  function oneLine(node, start, end) {
    const r = document.createRange(); r.setStart(node, start); r.setEnd(node, end);
    const tops = Array.from(r.getClientRects()).filter(b => b.width > 0).map(b => b.top);
    return tops.every(top => Math.abs(top - tops[0]) < 3);
  }
  document.querySelectorAll('table.data td').forEach(td => {
    if (!shown(td)) { return; }
    const k = kind(td); if (!k) { return; }
    const text = td.textContent.trim();
    [td].concat(Array.from(td.querySelectorAll('a'))).forEach(el => {
      const s = getComputedStyle(el);
      if (s.wordBreak === 'break-all' || s.overflowWrap === 'anywhere' || s.overflowWrap === 'break-word') {
        out.styles.push(k + ' "' + text + '": word-break ' + s.wordBreak + ', overflow-wrap ' + s.overflowWrap);
      }
    });
    const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const pattern = k === 'date' ? DATE : WORD;
      pattern.lastIndex = 0;
      for (let m = pattern.exec(n.data); m; m = pattern.exec(n.data)) {
        if (!oneLine(n, m.index, m.index + m[0].length)) { out.broken.push(k + ' "' + text + '": "' + m[0] + '"'); }
      }
    }
  });
  if (narrow) {
    const must = [];
    document.querySelectorAll('details[open] table.verdict-table tbody tr').forEach(tr => must.push(['verdict', tr.cells[tr.cells.length - 1]]));
    document.querySelectorAll('table.diff tbody tr:not([hidden]) td.deltas').forEach(td => must.push(['step delta', td]));
    document.querySelectorAll('table.matrix tbody tr').forEach(tr => {
      const tds = tr.querySelectorAll('td'); if (tds.length > 1) { must.push(['second configuration', tds[1]]); }
    });
    must.forEach(([what, el]) => {
      const b = el.getBoundingClientRect();
      if (!shown(el) || b.width <= 0 || b.left < 0 || b.right > window.innerWidth + 0.5) {
        out.hidden.push(what + ' at ' + Math.round(b.left) + '..' + Math.round(b.right));
      }
    });
  }
  return out;
}"""


@pytest.fixture(scope="module")
def tab() -> Iterator[CheckedPage]:
    with chromium_page() as page:
        yield page


@pytest.fixture(scope="module")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not DATA.is_dir():
        pytest.skip(f"{DATA} is missing (the shared real data)")
    root = tmp_path_factory.mktemp("widths-real")
    db = root / "all.duckdb"
    ingest(read_folders(DATA), db)
    site = root / "site"
    build_site(db, site, build_time="2026-12-01T00:00:00Z", compare=REAL_COMPARE)
    return site


def pages_of(site: Path) -> list[Path]:
    """The index, every comparison page, the matrix, three pair pages of each comparison and
    one run page."""
    pages = [site / "index.html"]
    for compare in sorted(p for p in (site / "compare").iterdir() if p.is_dir()):
        pages.append(compare / "index.html")
        pages += sorted(p for p in compare.rglob("*.html") if p.name != "index.html")[:3]
    if (site / "compare" / "matrix.html").exists():
        pages.append(site / "compare" / "matrix.html")
    pages.append(sorted((site / "runs").rglob("*.html"))[0])
    return pages


def check(tab: CheckedPage, site: Path, name: str) -> list[str]:
    problems = []
    for width in WIDTHS:
        tab.page.set_viewport_size({"width": width, "height": 900})
        for page in pages_of(site):
            tab.page.goto(page.as_uri())
            tab.page.wait_for_load_state("load")
            found: dict[str, Any] = tab.page.evaluate(CHECK, width < 600)
            where = f"{page.relative_to(site)} at {width} px"
            if found["width"] > width:
                problems.append(f"{where}: {found['width']} px wide")
            problems += [f"{where}: {p}" for p in found["styles"][:3]]
            problems += [f"{where}: breaks inside {p}" for p in found["broken"][:3]]
            problems += [f"{where}: out of view: {p}" for p in found["hidden"][:3]]
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        tab.page.goto((site / "index.html").as_uri())
        tab.page.screenshot(path=str(SCREENSHOTS / f"widths-{name}-index-{width}.png"))
    return problems


def test_demo_site_reads_at_390_and_1280(
    tab: CheckedPage, demo_site: tuple[Path, BuildReport]
) -> None:
    problems = check(tab, demo_site[0], "demo")
    assert problems == [], "\n".join(problems)


def test_real_data_site_reads_at_390_and_1280(tab: CheckedPage, real_site: Path) -> None:
    problems = check(tab, real_site, "real")
    assert problems == [], "\n".join(problems)
