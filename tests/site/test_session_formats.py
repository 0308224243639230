"""The session formats end to end (Claude Code, Codex CLI, Gemini CLI, Copilot CLI, OpenHands
SDK, OpenAI Agents SDK, leaderboard submissions from ../shared/data): every run gets a page, sub-agent runs are linked
from the step that started them (and back), and each run page renders in Chromium with no
console error."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from reportgen.ingest import ingest
from reportgen.site import build_site
from reportgen.site import paths as site_paths
from tests.site.browser_pages import chromium_page
from tests.site.html import parse

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
FOLDERS = (
    "claude-code",
    "codex-cli",
    "gemini-cli",
    "copilot-cli",
    "openhands-sdk",
    "openai-agents",
    "swe-bench-experiments",
)


@pytest.fixture(scope="module")
def session_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if not all((DATA / f).is_dir() for f in FOLDERS):
        pytest.skip(f"{DATA} lacks the session-format folders (the shared real data)")
    root = tmp_path_factory.mktemp("sessions")
    db = root / "a.duckdb"
    ingest([DATA / f for f in FOLDERS], db)
    site = root / "site"
    build_site(
        db,
        site,
        build_time="2026-12-01T00:00:00Z",
        baseline_label="Kodah",
        candidate_label="iSWE-Agent",
    )
    return db, site


def _run_pages(db: Path) -> list[tuple[str, str]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT suite, task_id, run_id, format FROM runs ORDER BY ALL")
        return [(site_paths.run_path(s, t, r), f) for s, t, r, f in rows.fetchall()]
    finally:
        con.close()


def test_every_run_has_a_page(session_site: tuple[Path, Path]) -> None:
    db, site = session_site
    pages = _run_pages(db)
    assert {f for _, f in pages} == {
        "claude-code",
        "codex-cli",
        "gemini-cli",
        "copilot-cli",
        "openhands-sdk",
        "openai-agents",
        "swe-bench-submission",
    }
    missing = [p for p, _ in pages if not (site / p).is_file()]
    assert missing == []


def test_sub_agents_link_both_ways(session_site: tuple[Path, Path]) -> None:
    db, site = session_site
    con = duckdb.connect(str(db), read_only=True)
    try:
        parent = con.execute(
            "SELECT suite, task_id FROM runs WHERE run_id = ?",
            ["5c0375b4-57a5-4f26-b12d-d022ee4e51b7"],
        ).fetchone()
        children = con.execute(
            "SELECT suite, task_id, run_id, (meta->>'parent_step')::INT FROM runs"
            " WHERE meta->>'parent_run_id' = '5c0375b4-57a5-4f26-b12d-d022ee4e51b7'"
            " AND meta->>'parent_step' IS NOT NULL ORDER BY 4"
        ).fetchall()
    finally:
        con.close()
    assert parent is not None and len(children) == 2
    page = site_paths.run_path(parent[0], parent[1], "5c0375b4-57a5-4f26-b12d-d022ee4e51b7")
    related = parse(site / page).select("p", class_="related")[0]
    texts = [a.text for a in related.select("a")]
    for _, _, run_id, step in children:
        assert any(
            f"Sub-agent run {run_id} (started by step {step}, not in this run's totals)" in t
            for t in texts
        )
    child_page = site_paths.run_path(children[0][0], children[0][1], children[0][2])
    back = [
        a.attrs["href"]
        for a in parse(site / child_page).select("p", class_="related")[0].select("a")
        if a.text.startswith("Parent run")
    ]
    assert len(back) == 1 and back[0].endswith(f"#step-{children[0][3]}")


@pytest.mark.browser
def test_each_run_page_renders(session_site: tuple[Path, Path]) -> None:
    db, site = session_site
    pages = _run_pages(db)
    with chromium_page() as checked:
        for page, _ in pages:
            shown = checked.open(site / page)
            assert shown.title()
        assert checked.problems == []
