"""The search index: its postings equal a direct scan of the archive (a slow reference), runs
are numbered newest night first, each hit has the text its snippet is cut from (with the
step's action and status, and the run's trial), and in Chromium a word of a step's output
typed into the index's search box finds that step, whose result link lands on it (from
file://), and a common word shows snippets with the word marked, 50 hits, then "more"."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import duckdb
import pytest

from reportgen.site import BuildReport
from reportgen.site.stepdata import read_steps_script, unpack_json

from .browser_pages import chromium_page

Site = tuple[Path, BuildReport]
WORD = re.compile(r"[a-z0-9_]{2,40}")


def _call(site: Path, name: str, call: str) -> list[Any]:
    """The JSON arguments of one ``window.<call>(...)`` search file."""
    text = (site / "search" / f"{name}.js").read_text(encoding="utf-8")
    found = re.fullmatch(rf"window\.{call}\((.*)\);\n", text, re.S)
    assert found
    args: list[Any] = json.loads(f"[{found[1]}]")
    return args


class Index:
    """A built site's search index, read through its files as the search box reads them:
    meta.js's nights (newest first) give each unit's runs their site numbers."""

    def __init__(self, site: Path) -> None:
        self.site = site
        self.meta: dict[str, Any] = _call(site, "meta", "RG_SEARCH_META")[0]
        self.code: int = self.meta["step_code"]
        self.n: int = self.meta["prefix"]  # characters of a shard's prefix
        self.segments: dict[str, list[tuple[int, int, int]]] = {}  # local, site, runs
        local: dict[str, int] = {}
        at = 0
        for _night, runs, unit in self.meta["nights"]:
            self.segments.setdefault(unit, []).append((local.get(unit, 0), at, runs))
            local[unit] = local.get(unit, 0) + runs
            at += runs
        self.where: dict[int, tuple[str, int]] = {}  # site posting -> unit, unit posting

    def site_no(self, unit: str, posting: int) -> int:
        run = posting // self.code
        first, at, _runs = next(s for s in self.segments[unit] if s[0] <= run < s[0] + s[2])
        found = (at + run - first) * self.code + posting % self.code
        self.where[found] = (unit, posting)
        return found

    def shard(self, prefix: str) -> dict[str, list[int]]:
        """The words beginning with ``prefix`` with their postings as the site numbers them (from the
        shard of each unit meta.js says holds words of that prefix)."""
        words: dict[str, list[int]] = {}
        for unit, held in self.meta["units"].items():
            if prefix not in [held[i : i + self.n] for i in range(0, len(held), self.n)]:
                assert not (self.site / "search" / f"w-{prefix}.{unit}.js").exists()
                continue
            name, packed = _call(self.site, f"w-{prefix}.{unit}", "RG_SEARCH_SHARD")
            assert name == f"{prefix}.{unit}"
            for word, postings in unpack_json(packed.encode()).items():
                words.setdefault(word, []).extend(self.site_no(unit, p) for p in postings)
        return {w: sorted(p) for w, p in words.items()}

    def words(self) -> dict[str, list[int]]:
        """Every word of the index."""
        n = self.n
        prefixes = {h[i : i + n] for h in self.meta["units"].values() for i in range(0, len(h), n)}
        return {w: p for prefix in sorted(prefixes) for w, p in self.shard(prefix).items()}

    def query(self, text: str) -> list[int]:
        """The hits of a query, in the order the box shows them (static/search.js)."""
        found: set[int] | None = None
        for typed in WORD.findall(text.lower()):
            shard = self.shard(typed[: self.n])
            hits = {p for w, ps in shard.items() if w.startswith(typed) for p in ps}
            found = hits if found is None else found & hits
        return sorted(found or ())

    def run(self, posting: int) -> list[Any]:
        """The run of a hit: [page, title, trial, run id]."""
        unit, local = self.where[posting]
        run_no = local // self.code
        per = self.meta["runs_per_chunk"]
        name, k, runs = _call(self.site, f"runs-{unit}-{run_no // per}", "RG_SEARCH_RUNS")
        assert (name, k) == (unit, run_no // per)
        row: list[Any] = runs[run_no % per]
        return row

    def doc(self, posting: int) -> list[Any]:
        """A run hit's [action, status, text] from its unit's docs chunk."""
        unit, local = self.where[posting]
        k = local // self.code // self.meta["docs_per_chunk"]
        name, chunk, docs = _call(self.site, f"docs-{unit}-{k}", "RG_SEARCH_DOCS")
        assert (name, chunk) == (unit, k)
        doc: list[Any] = docs[str(local)]
        return doc


def _texts(db: Path) -> dict[int, str]:
    """Each run's and step's indexed text, lower-cased, by the site's posting (runs numbered
    newest night first, then by run id), read row by row: a slow reference."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        run_ids = [
            r[0]
            for r in con.execute("SELECT run_id FROM runs ORDER BY batch DESC, run_id").fetchall()
        ]
        run_no = {r: i for i, r in enumerate(run_ids)}
        texts: dict[int, str] = {}
        for run_id, idx, *parts in con.execute(
            "SELECT run_id, idx, action, status, CAST(input AS VARCHAR), CAST(output AS VARCHAR) FROM steps"
        ).fetchall():
            texts[run_no[run_id] * 1_000_000 + idx + 1] = " ".join(
                t[:4000] for t in parts if t is not None
            ).lower()
        for run_id, *parts in con.execute(
            "SELECT run_id, task_id, suite, label, batch, CAST(meta AS VARCHAR), output FROM runs"
        ).fetchall():
            texts[run_no[run_id] * 1_000_000] = " ".join(
                t[:4000] for t in parts if t is not None
            ).lower()
        return texts
    finally:
        con.close()


def _reference(db: Path, word: str) -> list[int]:
    """Runs and steps whose text holds ``word`` as a whole word, scanned row by row."""
    return sorted(p for p, text in _texts(db).items() if word in WORD.findall(text))


def _reference_query(db: Path, query: str) -> list[int]:
    """The hits of a query, scanned row by row: each word typed begins a word of the text."""
    typed = WORD.findall(query.lower())
    hits = []
    for p, text in _texts(db).items():
        words = set(WORD.findall(text))
        if all(any(w.startswith(t) for w in words) for t in typed):
            hits.append(p)
    return sorted(hits)


@pytest.mark.parametrize("word", ["error", "test", "migration", "timeout", "nightly"])
def test_postings_equal_a_direct_scan(demo_db: Path, demo_site: Site, word: str) -> None:
    index = Index(demo_site[0])
    assert index.shard(word[: index.n]).get(word, []) == _reference(demo_db, word)


@pytest.mark.parametrize("query", ["pass", "te mig", "nightly error", "read a", "ti"])
def test_queries_find_what_a_direct_scan_finds(demo_db: Path, demo_site: Site, query: str) -> None:
    """A query's hits through the unit files, in the box's order (newest night first), are
    the runs and steps whose text has a word beginning with each word typed."""
    hits = Index(demo_site[0]).query(query)
    assert hits and hits == _reference_query(demo_db, query)


def test_each_night_is_a_unit(demo_db: Path, demo_site: Site) -> None:
    """Every night keeps its steps in the demo: each night is its own unit, newest first."""
    index = Index(demo_site[0])
    nights = [n for n, _runs, _unit in index.meta["nights"]]
    assert nights == sorted(nights, reverse=True) and len(nights) > 2
    assert len({unit for _n, _r, unit in index.meta["nights"]}) == len(nights)
    assert set(index.meta["units"]) == {unit for _n, _r, unit in index.meta["nights"]}


def test_hits_carry_snippet_text_newest_night_first(demo_db: Path, demo_site: Site) -> None:
    """Postings list the newest night's hits first; each hit's record holds the step's action,
    status and the text the word was found in (a step's from its run's step data script), and
    its run's trial."""
    site = demo_site[0]
    index = Index(site)
    postings = index.shard("migration"[: index.n])["migration"]
    con = duckdb.connect(str(demo_db), read_only=True)
    try:
        nights = []
        for p in postings:
            _run_no, idx = divmod(p, index.code)
            path, title, trial, run_id = index.run(p)
            nights.append(str(title).rsplit(" · ", 1)[1])
            if idx:  # a step: its text from its run's step data script (stepdata.py)
                script = (site / str(path).removesuffix(".html")).with_suffix(".steps.js")
                key, data = read_steps_script(script)
                assert key == run_id
                step = next(s for s in data["steps"] if s["i"] == idx - 1)
                action, status, text = step["a"], step["s"], step["in"] + " " + step["out"]
            else:  # the run itself: its text from the docs chunk
                action, status, text = index.doc(p)
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
