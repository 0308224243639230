"""Real data end to end: the tau2-bench airline results of grok-3 and grok-4 (the agent model is
a tau2 run's label; its domain, standard or tighter policy, its suite) become a
baseline/candidate comparison, paired by suite, task and trial, and the site's pages for it
render in Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.archive import connect
from reportgen.divergence.compare import compare_labels
from reportgen.ingest import ingest
from reportgen.site import build_site
from reportgen.site.paths import compare_dir
from tests.site.browser_pages import chromium_page
from tests.site.html import parse_file
from tests.site.shared_data import DATA, NOT_YET_READ

TAU2 = DATA / "tau2-bench"
BASE, CAND = "xai/grok-3", "xai/grok-4"


@pytest.fixture(scope="module")
def tau2_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if not TAU2.is_dir():
        pytest.skip(f"{TAU2} is missing (the shared real data)")
    root = tmp_path_factory.mktemp("tau2")
    db = root / "tau2.duckdb"
    ingest([TAU2], db)
    site = root / "site"
    build_site(
        db,
        site,
        build_time="2026-11-29T00:00:00Z",
        baseline_label=BASE,
        candidate_label=CAND,
    )
    return db, site


def test_models_pair_by_suite_task_and_trial(tau2_site: tuple[Path, Path]) -> None:
    con = connect(tau2_site[0], read_only=True)
    try:
        comparison = compare_labels(con, BASE, CAND)
    finally:
        con.close()
    assert len(comparison.pairs) == 32 and not comparison.unpaired  # 2 domains x 4 tasks x 4 trials
    tasks = {p["task_id"] for p in comparison.pairs}
    assert tasks == {"8", "11", "24", "32"}
    suites = {p["pair_id"].rsplit("/", 2)[0] for p in comparison.pairs}
    assert suites == {"tau2-bench/airline", "tau2-bench/airline_tighter_policy"}
    page = parse_file(tau2_site[1] / compare_dir(BASE, CAND) / "index.html")
    said = page.one("p", class_="paired-by").text
    assert (
        said
        == "A pair is a baseline run and a candidate run of the same suite, task and trial, night by night."
    )


@pytest.mark.browser
def test_comparison_pages_render(tau2_site: tuple[Path, Path]) -> None:
    site = tau2_site[1]
    folder = site / compare_dir(BASE, CAND)
    pair_pages = sorted(p for p in folder.rglob("*.html") if p.name != "index.html")
    assert len(pair_pages) == 32
    with chromium_page() as checked:
        for page in [
            site / "index.html",
            folder / "index.html",
            pair_pages[0],
            pair_pages[-1],
        ]:
            shown = checked.open(page)
            assert shown.title()
        assert checked.problems == []


MINI = TAU2.parent / "mini-swe-agent"


def _stagnant_runs(db: Path) -> tuple[set[str], set[str]]:
    """Run ids with a stagnant loop and with any back-to-back repeat, by the pure-Python
    reference detector (not the compiled one the site uses)."""
    from reportgen.divergence.reference import detect_loops

    con = connect(db, read_only=True)
    try:
        rows = con.execute(
            "SELECT run_id, list(type ORDER BY idx), list(action ORDER BY idx), "
            "list(CAST(input_keys AS VARCHAR) ORDER BY idx), list(CAST(input AS VARCHAR) ORDER BY idx), "
            "list(CAST(output AS VARCHAR) ORDER BY idx) FROM steps GROUP BY run_id"
        ).fetchall()
    finally:
        con.close()
    stagnant, repeats = set(), set()
    for run_id, types, actions, keys, inputs, outputs in rows:
        loops = detect_loops(list(zip(types, actions, keys, strict=True)), inputs, outputs)
        if any(x.stagnant for x in loops):
            stagnant.add(run_id)
        if loops:
            repeats.add(run_id)
    return stagnant, repeats


def _loop_alarms(page: Path) -> list[str]:
    """What on a page would call something a loop: a warn card for loops, loop shading,
    loop marks, a stagnant badge."""
    doc = parse_file(page)
    found = [
        f"card {c.text}"
        for c in doc.select(class_="card")
        if "warn" in c.classes and c.text.strip().startswith("loops")
    ]
    found += ["shaded row" for _ in doc.select(class_="in-loop")]
    found += [f"mark {m.text}" for m in doc.select(class_="loop-mark")]
    return found


@pytest.fixture(scope="module")
def mini_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if not MINI.is_dir():
        pytest.skip(f"{MINI} is missing (the shared real data)")
    root = tmp_path_factory.mktemp("mini")
    db = root / "mini.duckdb"
    ingest([MINI], db)
    site = root / "site"
    build_site(db, site, build_time="2026-11-29T00:00:00Z")
    return db, site


@pytest.mark.parametrize("which", ["tau2", "mini"])
def test_repeats_without_a_stagnant_loop_raise_no_loop_alarm(
    which: str, tau2_site: tuple[Path, Path], mini_site: tuple[Path, Path]
) -> None:
    db, site = tau2_site if which == "tau2" else mini_site
    stagnant, repeats = _stagnant_runs(db)
    assert repeats and not stagnant, "these real runs repeat steps, never with the same payloads"
    pages = sorted(site.rglob("*.html"))
    alarms = {p.relative_to(site).as_posix(): a for p in pages if (a := _loop_alarms(p))}
    assert alarms == {}
    run_pages = [p for p in pages if p.relative_to(site).parts[0] == "runs"]
    assert any(parse_file(p).select(class_="repeat-mark") for p in run_pages)  # quietly marked
    if which == "tau2":
        compare = site / compare_dir(BASE, CAND) / "index.html"
        section = parse_file(compare).one("section", id="pairs")
        head = [th.text for th in section.select("th")]
        rows = section.select("tbody")[0].select("tr")
        assert {tr.select("td")[head.index("loops")].text for tr in rows} == {"0"}
        assert any(tr.select("td")[head.index("repeats")].text != "0" for tr in rows)
        pairs = [p for p in compare.parent.rglob("*.html") if p.name != "index.html"]
        assert any(parse_file(p).select(class_="repeat-mark") for p in pairs)


def test_the_folders_not_yet_read_are_in_the_shared_data() -> None:
    if not DATA.is_dir():
        pytest.skip(f"{DATA} is missing (the shared real data)")
    assert sorted(n for n in NOT_YET_READ if not (DATA / n).exists()) == []


def test_all_data_site_picks_a_comparison_and_says_why(all_data_site: tuple[Path, Path]) -> None:
    index = parse_file(all_data_site[1] / "index.html")
    said = index.one("p", class_="chosen-by").text
    assert "No labels named baseline and candidate" in said and "--compare" in said
    links = [a.attrs["href"] for a in index.one("section", id="comparisons").select("a")]
    # gpt-4o (tau-bench) has the most runs but shares no task with another label; the two
    # SWE-PolyBench systems (69 runs each) share all of theirs
    assert "of those that share any" in said
    assert f"{compare_dir('Kodah', 'iSWE-Agent')}/index.html" in links


def test_all_data_site_links_resolve(all_data_site: tuple[Path, Path]) -> None:
    from tests.site.test_links import broken_links

    assert broken_links(all_data_site[1], allow_web_links=True) == []


def _one_page_per_kind(db: Path, site: Path) -> list[Path]:
    """The index, suites page, the first page of each folder, the biggest page of each, and
    one run page per input format."""
    pages = sorted(site.rglob("*.html"))
    picked: dict[str, Path] = {}
    for page in pages:
        picked.setdefault(page.relative_to(site).parts[0], page)
    for folder in {p.relative_to(site).parts[0] for p in pages}:
        found = [p for p in pages if p.relative_to(site).parts[0] == folder]
        picked[f"{folder}-biggest"] = max(found, key=lambda p: p.stat().st_size)
    con = connect(db, read_only=True)
    try:
        runs = con.execute("SELECT format, min(run_id) FROM runs GROUP BY format").fetchall()
    finally:
        con.close()
    by_name = {p.name: p for p in pages if p.relative_to(site).parts[0] == "runs"}
    for fmt, run_id in runs:
        for page in by_name.values():
            if f"<code>{run_id}</code>" in page.read_text(encoding="utf-8"):
                picked[f"run-{fmt}"] = page
                break
    return sorted(set(picked.values()))


@pytest.mark.browser
def test_all_data_pages_render_without_errors_and_fit_390_px(
    all_data_site: tuple[Path, Path],
) -> None:
    from tests.site.browser_pages import SCREENSHOTS

    db, site = all_data_site
    pages = _one_page_per_kind(db, site)
    assert len(pages) >= 20
    wide = {}
    with chromium_page() as checked:
        for page in pages:
            checked.open(page)
        checked.page.set_viewport_size({"width": 390, "height": 844})
        for page in pages:
            shown = checked.open(page)
            width = shown.evaluate("document.documentElement.scrollWidth")
            if width > 390:
                wide[page.relative_to(site).as_posix()] = width
        trees = [p for p in pages if "data-tree" in p.read_text(encoding="utf-8")]
        tree = max(trees, key=lambda p: p.stat().st_size)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        checked.open(tree).screenshot(path=str(SCREENSHOTS / "run-tree-390px.png"), full_page=True)
        assert checked.problems == []
    assert wide == {}


def test_all_data_newly_broken_tasks_reach_their_diff(all_data_site: tuple[Path, Path]) -> None:
    """On the real data (Kodah against iSWE-Agent on SWE-PolyBench breaks tasks), every newly
    broken task named on the index and on a comparison page links to a diff that shows it."""
    site = all_data_site[1]
    pages = [site / "index.html", *sorted((site / "compare").glob("*/index.html"))]
    checked = 0
    for page in pages:
        for paragraph in parse_file(page).select("p", class_="newly-broken"):
            for link in paragraph.select("a"):
                target = page.parent / link.attrs["href"]
                row = parse_file(target).one("tr", id="metric-candidate_success")
                assert "✓→✗" in row.text, (page, link.attrs["href"])
                checked += 1
    assert checked > 0
