"""The search index: its postings equal a direct scan of the archive (a slow reference), it
holds only redacted text, and in Chromium a word of a step's output typed into the index's
search box finds that step, whose result link lands on it (from file://)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest

from reportgen.site import BuildReport

from .browser_pages import chromium_page

Site = tuple[Path, BuildReport]
WORD = re.compile(r"[a-z0-9_]{2,40}")


def _shard(site: Path, word: str) -> dict[str, list[int]]:
    text = (site / "search" / f"w-{word[:2]}.js").read_text(encoding="utf-8")
    call = re.fullmatch(r"window\.RG_SEARCH_SHARD\((.*)\);\n", text, re.S)
    assert call
    name, shard = json.loads(f"[{call[1]}]")
    assert name == word[:2]
    return shard


def _reference(db: Path, word: str) -> list[int]:
    """Runs and steps whose text holds ``word`` as a whole word, scanned row by row."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        run_ids = [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]
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
