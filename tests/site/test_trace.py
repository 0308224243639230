"""The run page as a trace viewer: the tree by stored parents (hand-worked cases, and against
a naive recursive walk on random parents), the waterfall from stored start times, and in
Chromium on real Langfuse, OTel and Claude Code traces: tree depth = stored parents (checked
against a recursive SQL query), bars starting at the stored times, sub-agent runs under the
step that started them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reportgen.ingest import ingest
from reportgen.site import build_site
from reportgen.site.trace import step_tree, waterfall
from tests.site.browser_pages import SCREENSHOTS, chromium_page, rendered_html
from tests.site.html import parse, parse_file

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def _steps(parents: list[int | None]) -> list[dict[str, Any]]:
    return [{"idx": i, "parent": p} for i, p in enumerate(parents)]


def test_tree_depths_order_and_children_by_hand() -> None:
    tree = step_tree(_steps([None, 0, 1, 0, None, 4]))
    assert tree.order == [0, 1, 2, 3, 4, 5]
    assert tree.depth == [0, 1, 2, 1, 0, 1]
    assert tree.kids == [2, 1, 0, 0, 1, 0]
    assert tree.nested and tree.note is None


def test_children_follow_their_parent_in_step_order() -> None:
    tree = step_tree(_steps([None, 0, 0, 1]))  # step 3 sits inside step 1, before step 2
    assert tree.order == [0, 1, 3, 2]
    assert tree.depth == [0, 1, 1, 2]


def test_no_parents_is_flat_without_a_note() -> None:
    tree = step_tree(_steps([None, None, None]))
    assert not tree.nested and tree.note is None and tree.order == [0, 1, 2]


@pytest.mark.parametrize(
    ("parents", "words"),
    [
        ([None, 7], "steps 1 name a parent step that is not in this run"),
        ([None, 1], "steps 1 name a parent step that is not in this run"),  # itself
        ([None, 2, 1], "the parents of steps 1, 2 form a cycle"),
    ],
)
def test_a_missing_parent_or_a_cycle_falls_back_to_flat(
    parents: list[int | None], words: str
) -> None:
    tree = step_tree(_steps(parents))
    assert tree.note == words
    assert tree.order == list(range(len(parents))) and set(tree.depth) == {0}
    assert not tree.nested


def _naive_depths(parents: list[int | None]) -> list[int] | None:
    """Depth by walking up each step's parents; None when a walk leaves the run or loops."""
    out = []
    for i in range(len(parents)):
        seen, at, d = {i}, parents[i], 0
        while at is not None:
            if not 0 <= at < len(parents) or at in seen:
                return None
            seen.add(at)
            at, d = parents[at], d + 1
        out.append(d)
    return out


@given(st.lists(st.one_of(st.none(), st.integers(-1, 12)), min_size=1, max_size=12))
def test_tree_depths_equal_a_naive_walk(parents: list[int | None]) -> None:
    tree = step_tree(_steps(parents))
    expected = _naive_depths(parents)
    if expected is None:
        assert tree.note is not None and set(tree.depth) == {0}
    else:
        assert tree.note is None and tree.depth == expected
        assert sorted(tree.order) == list(range(len(parents)))
        for at, i in enumerate(tree.order):  # a parent comes before its children
            if parents[i] is not None:
                assert tree.order.index(parents[i]) < at  # type: ignore[arg-type]


def test_waterfall_bars_start_at_the_stored_times() -> None:
    steps = [
        {"started_ms": 1000.0, "latency_ms": 1000.0},
        {"started_ms": 1500.0, "latency_ms": 250.0},
        {"started_ms": None, "latency_ms": 5.0},
        {"started_ms": 1750.0, "latency_ms": 250.0},
    ]
    falls = waterfall(steps)
    assert falls is not None
    assert falls.span_ms == 1000.0
    assert falls.offsets_ms == [0.0, 500.0, None, 750.0]
    assert falls.bars == [(0.0, 100.0), (50.0, 25.0), None, (75.0, 25.0)]
    assert waterfall([{"started_ms": None, "latency_ms": 1.0}]) is None


@pytest.fixture(scope="module")
def trace_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folders = [DATA / "langfuse", DATA / "otel-genai" / "any-agent", DATA / "claude-code"]
    if not all(f.is_dir() for f in folders):
        pytest.skip(f"{DATA} is missing (the shared real data)")
    root = tmp_path_factory.mktemp("traces")
    db = root / "traces.duckdb"
    ingest(folders, db)
    site = root / "site"
    build_site(db, site, build_time="2026-12-01T00:00:00Z")
    return db, site


_DEPTHS = """
WITH RECURSIVE tree(idx, depth) AS (
    SELECT idx, 0 FROM steps WHERE run_id = $run AND parent IS NULL
    UNION ALL
    SELECT s.idx, t.depth + 1 FROM steps s JOIN tree t ON s.parent = t.idx WHERE s.run_id = $run
)
SELECT idx, depth FROM tree ORDER BY idx
"""
_STARTS = """
SELECT idx, epoch_us(started_at) / 1000.0 - min(epoch_us(started_at) / 1000.0) OVER () AS at,
       max(epoch_us(started_at) / 1000.0 + coalesce(latency_ms, 0)) OVER ()
         - min(epoch_us(started_at) / 1000.0) OVER () AS span
FROM steps WHERE run_id = $run ORDER BY idx
"""


def _runs(db: Path, fmt: str) -> list[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "SELECT run_id FROM runs WHERE format = ? AND run_id IN "
            "(SELECT run_id FROM steps WHERE parent IS NOT NULL) ORDER BY run_id",
            [fmt],
        ).fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]


def _page_of(site: Path, run_id: str) -> Path:
    [page] = [p for p in (site / "runs").rglob(f"{run_id}.html")]
    return page


_SHOWN = """() => Array.from(document.querySelectorAll("table.steps tbody tr[id^=step-]")).map(r => {
  const bar = r.querySelector("i.wb"), track = r.querySelector(".wt");
  const a = bar && bar.getBoundingClientRect(), b = track && track.getBoundingClientRect();
  return [parseInt(r.id.slice(5)), parseInt(r.dataset.depth), a ? (a.left - b.left) / b.width : null];
})"""


@pytest.mark.browser
@pytest.mark.parametrize("fmt", ["langfuse", "otel"])
def test_real_traces_draw_the_stored_tree_and_times(
    trace_site: tuple[Path, Path], fmt: str
) -> None:
    db, site = trace_site
    runs = _runs(db, fmt)
    assert len(runs) >= 4
    con = duckdb.connect(str(db), read_only=True)
    with chromium_page() as tab:
        for run_id in runs:
            depths = dict(con.execute(_DEPTHS, {"run": run_id}).fetchall())
            starts = {
                i: (at, span) for i, at, span in con.execute(_STARTS, {"run": run_id}).fetchall()
            }
            page = tab.open(_page_of(site, run_id))
            shown = page.evaluate(_SHOWN)
            assert {i: d for i, d, _ in shown} == depths, run_id
            assert max(depths.values()) >= 1
            for i, _depth, left in shown:  # the bar's left edge at the stored start time
                at, span = starts[i]
                assert left is not None and abs(left - at / span) < 0.0002, (run_id, i)
        assert tab.problems == []
    con.close()


@pytest.mark.browser
def test_a_toggle_folds_the_steps_inside_and_opens_them_again(
    trace_site: tuple[Path, Path],
) -> None:
    db, site = trace_site
    run_id = max(_runs(db, "langfuse"), key=lambda r: _page_of(site, r).stat().st_size)
    with chromium_page() as tab:
        page = tab.open(_page_of(site, run_id))
        visible = "() => Array.from(document.querySelectorAll('table.steps tbody tr')).filter(r => r.offsetParent !== null).length"
        total = page.evaluate(visible)
        root = page.locator("table.steps tbody tr").first
        root.locator("button.tw").focus()
        page.keyboard.press("Enter")  # keyboard-reachable
        assert page.evaluate(visible) == 1
        assert root.locator("button.tw").get_attribute("aria-expanded") == "false"
        page.keyboard.press("Enter")
        assert page.evaluate(visible) == total
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "run-tree.png"), full_page=True)
        page.locator("table.steps").screenshot(path=str(SCREENSHOTS / "run-waterfall.png"))
        assert tab.problems == []


def test_sub_agent_runs_sit_under_the_step_that_started_them(
    trace_site: tuple[Path, Path],
) -> None:
    db, site = trace_site
    con = duckdb.connect(str(db), read_only=True)
    try:
        children = con.execute(
            "SELECT run_id, CAST(meta->>'parent_step' AS INTEGER), meta->>'parent_run_id' "
            "FROM runs WHERE meta->>'parent_step' IS NOT NULL ORDER BY run_id"
        ).fetchall()
    finally:
        con.close()
    assert children
    for child, step, parent in children:
        page = _page_of(site, parent)
        rows = (
            parse(rendered_html(page)).one("table", class_="steps").select("tbody")[0].select("tr")
        )
        at = next(i for i, r in enumerate(rows) if r.attrs.get("id") == f"step-{step}")
        following = rows[at + 1 : at + 1 + 8]
        subs = [r for r in following if "sub-run" in r.classes and child in r.text]
        assert subs, (parent, step, child)
        assert "not in this run's totals" in subs[0].text  # the adapter says totals exclude it
        href = subs[0].select("a")[0].attrs["href"]
        target = (page.parent / href).resolve()
        assert target.is_file() and f"<code>{child}</code>" in target.read_text(encoding="utf-8")
        note = parse_file(page).one("p", class_="sub-note").text
        assert "do not include" in note


@pytest.mark.browser
def test_a_claude_code_session_opens_its_sub_agents_and_back(
    trace_site: tuple[Path, Path],
) -> None:
    db, site = trace_site
    con = duckdb.connect(str(db), read_only=True)
    try:
        child, step, parent = con.execute(
            "SELECT run_id, CAST(meta->>'parent_step' AS INTEGER), meta->>'parent_run_id' "
            "FROM runs WHERE format = 'claude-code' AND meta->>'parent_step' IS NOT NULL "
            "ORDER BY run_id LIMIT 1"
        ).fetchone()
    finally:
        con.close()
    with chromium_page() as tab:
        page = tab.open(_page_of(site, parent))
        after = page.evaluate(
            "s => document.getElementById('step-' + s).nextElementSibling.className", step
        )
        assert "sub-run" in after  # the sub-agent's row sits right under its step
        row = page.locator(f"#step-{step} + tr.sub-run")
        assert row.is_visible() and child in row.inner_text()
        row.locator("a").first.click()
        page.wait_for_load_state("load")
        assert f"<code>{child}</code>" in page.content()
        back = page.locator("p.related a", has_text="Parent run")
        back.click()
        page.wait_for_load_state("load")
        assert page.url.endswith(f"#step-{step}")
        assert tab.problems == []
