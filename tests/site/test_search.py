"""The search index: its postings equal a direct scan of the archive (a slow reference), runs
are numbered newest night first, each hit has the text its snippet is cut from (with the
step's action and status, and the run's trial), and in Chromium a word of a step's output
typed into the index's search box finds that step, whose result link lands on it (from
file://), and a common word shows snippets with the word marked, 50 hits, then "more"."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest

from reportgen.site import BuildReport
from reportgen.site.stepdata import read_steps_script, unpack_json

from .browser_pages import chromium_page

Site = tuple[Path, BuildReport]
WORD = re.compile(r"[a-z0-9_]{2,40}")


def _shard(site: Path, word: str) -> dict[str, list[int]]:
    text = (site / "search" / f"w-{word[:2]}.js").read_text(encoding="utf-8")
    call = re.fullmatch(r"window\.RG_SEARCH_SHARD\((.*)\);\n", text, re.S)
    assert call
    name, packed = json.loads(f"[{call[1]}]")
    assert name == word[:2]
    shard: dict[str, list[int]] = unpack_json(packed.encode())
    return shard


def _reference(db: Path, word: str) -> list[int]:
    """Runs and steps whose text holds ``word`` as a whole word, scanned row by row."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        run_ids = [
            r[0]
            for r in con.execute("SELECT run_id FROM runs ORDER BY batch DESC, run_id").fetchall()
        ]
        run_no = {r: i for i, r in enumerate(run_ids)}
        found = set()
        for run_id, idx, *texts in con.execute(
            "SELECT run_id, idx, action, status, CAST(input AS VARCHAR), CAST(output AS VARCHAR) FROM steps"
        ).fetchall():
            text = " ".join(t[:4000] for t in texts if t is not None).lower()
            if word in WORD.findall(text):
                found.add(run_no[run_id] * 1_000_000 + idx + 1)
        for run_id, *texts in con.execute(
            "SELECT run_id, task_id, suite, label, batch, CAST(meta AS VARCHAR), output FROM runs"
        ).fetchall():
            text = " ".join(t[:4000] for t in texts if t is not None).lower()
            if word in WORD.findall(text):
                found.add(run_no[run_id] * 1_000_000)
        return sorted(found)
    finally:
        con.close()


@pytest.mark.parametrize("word", ["error", "test", "migration", "timeout", "nightly"])
def test_postings_equal_a_direct_scan(demo_db: Path, demo_site: Site, word: str) -> None:
    assert _shard(demo_site[0], word).get(word, []) == _reference(demo_db, word)


def _call(site: Path, name: str, call: str) -> list[object]:
    """The JSON arguments of one ``window.<call>(...)`` search file."""
    text = (site / "search" / f"{name}.js").read_text(encoding="utf-8")
    found = re.fullmatch(rf"window\.{call}\((.*)\);\n", text, re.S)
    assert found
    args: list[object] = json.loads(f"[{found[1]}]")
    return args


def test_hits_carry_snippet_text_newest_night_first(demo_db: Path, demo_site: Site) -> None:
    """Postings list the newest night's hits first; each hit's record holds the step's action,
    status and the text the word was found in (a step's from its run's step data script), and
    its run's trial."""
    site = demo_site[0]
    meta = _call(site, "meta", "RG_SEARCH_META")[0]
    assert isinstance(meta, dict)
    code, per_runs, per_docs = meta["step_code"], meta["runs_per_chunk"], meta["docs_per_chunk"]
    postings = _shard(site, "migration")["migration"]
    runs: dict[int, list[list[object]]] = {}
    con = duckdb.connect(str(demo_db), read_only=True)
    try:
        nights = []
        for p in postings:
            run_no, idx = divmod(p, code)
            k = run_no // per_runs
            runs.setdefault(k, _call(site, f"runs-{k}", "RG_SEARCH_RUNS")[1])  # type: ignore[arg-type]
            path, title, trial, run_id = runs[k][run_no % per_runs]
            nights.append(str(title).rsplit(" · ", 1)[1])
            if idx:  # a step: its text from its run's step data script (stepdata.py)
                script = (site / str(path).removesuffix(".html")).with_suffix(".steps.js")
                key, data = read_steps_script(script)
                assert key == run_id
                step = next(s for s in data["steps"] if s["i"] == idx - 1)
                action, status, text = step["a"], step["s"], step["in"] + " " + step["out"]
            else:  # the run itself: its text from the docs chunk
                docs = _call(site, f"docs-{run_no // per_docs}", "RG_SEARCH_DOCS")[1]
                assert isinstance(docs, dict)
                action, status, text = docs[str(p)]
            assert "migration" in text.lower()
            if idx:  # a step: its action and status as stored
                row = con.execute(
                    "SELECT action, status, r.trial FROM steps JOIN runs AS r USING (run_id) "
                    "WHERE idx = ? AND run_id = ?",
                    [idx - 1, run_id],
                ).fetchall()
                assert (action, status, trial) in row
    finally:
        con.close()
    assert nights == sorted(nights, reverse=True) and nights[0] == "2026-11-28"


def _rare_output_word(db: Path) -> tuple[str, set[tuple[str, int]]]:
    """A word of few step outputs (and of no run's own text): the word and its steps."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "SELECT run_id, idx, lower(CAST(output AS VARCHAR)) FROM steps WHERE output IS NOT NULL"
        ).fetchall()
        run_text = " ".join(
            str(t).lower()
            for row in con.execute("SELECT task_id, meta, output FROM runs").fetchall()
            for t in row
        )
    finally:
        con.close()
    where: dict[str, set[tuple[str, int]]] = {}
    for run_id, idx, text in rows:
        for w in set(WORD.findall(text)):
            where.setdefault(w, set()).add((run_id, idx))
    usable = [w for w in where if w.isalpha() and len(w) > 4 and w not in run_text]
    word = min(usable, key=lambda w: (len(where[w]), w))
    return word, where[word]


@pytest.mark.browser
def test_search_finds_a_step_and_lands_on_it(demo_db: Path, demo_site: Site) -> None:
    word, steps = _rare_output_word(demo_db)
    with chromium_page() as tab:
        tab.open(demo_site[0] / "index.html")
        tab.page.fill("#search-box", word)
        tab.page.wait_for_selector(".search-results li a", timeout=10_000)
        links = tab.page.query_selector_all(".search-results li a")
        assert len(links) == len(steps)
        first = links[0].inner_text()
        assert first.startswith("nightly · ")  # each result names its suite
        idx = int(first.rsplit("step ", 1)[1])
        links[0].click()
        tab.page.wait_for_load_state("load")
        assert tab.page.url.endswith(f"#step-{idx}")
        assert word in (tab.page.text_content(f"tr#step-{idx}") or "").lower()
        assert tab.problems == []


@pytest.mark.browser
def test_search_shows_snippets_with_marks_and_more(demo_site: Site) -> None:
    """A word of many steps: each hit shows its step's action, status and trial and a snippet
    with the word in <mark> (text, never markup), the newest night first, 50 at a time."""
    with chromium_page() as tab:
        tab.open(demo_site[0] / "index.html")
        tab.page.fill("#search-box", "pass")
        tab.page.wait_for_selector(".search-results li .search-snippet mark", timeout=10_000)
        items = tab.page.query_selector_all(".search-results li")
        assert len(items) == 50
        first = items[0]
        assert "2026-11-28" in first.query_selector("a").inner_text()  # type: ignore[union-attr]
        marks = [m.inner_text() for m in tab.page.query_selector_all(".search-results mark")]
        assert marks and all(m.lower() == "pass" for m in marks)
        about = first.query_selector(".search-step").inner_text()  # type: ignore[union-attr]
        assert "trial" in about
        more = tab.page.query_selector("button.search-more")
        assert more is not None and more.is_visible() and "left" in more.inner_text()
        total = int(
            re.search(r"of (\d+) matches", tab.page.inner_text(".search-status"))[1]  # type: ignore[index]
        )
        assert total > 50
        more.click()
        tab.page.wait_for_function(
            "n => document.querySelectorAll('.search-results li').length === n",
            arg=min(total, 100),
            timeout=10_000,
        )
        assert (
            tab.page.eval_on_selector_all(
                ".search-results script, .search-results img", "e => e.length"
            )
            == 0
        )
        assert tab.problems == []
