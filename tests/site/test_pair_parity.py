"""The pair page after issue 19: the first divergence where the paths part, stagnant loops as
loops and other repeats as repeats (no alarm), and a modified step's input changes, escaped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reportgen.ingest import ingest
from reportgen.site import build_site
from tests.site.browser_pages import rendered_html
from tests.site.html import parse

TAU2 = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "tau2-bench"
GROK3 = (
    "2025-10-13T11:40:16.379079_airline_llm_agent_grok-3_user_simulator_grok-3.json",
    "2025-10-13T11:40:32.212900_airline_tighter_policy_llm_agent_grok-3_user_simulator_grok-3.json",
)


def _pair_pages(site: Path, labels: str) -> list[Path]:
    folder = site / "compare" / labels
    return sorted(p for p in folder.rglob("*.html") if p.name != "index.html")


def test_tau2_task_24_page(tmp_path: Path) -> None:
    if not TAU2.is_dir():
        pytest.skip(f"{TAU2} is missing (the shared real data)")
    db = tmp_path / "a.duckdb"  # the two policies as two labels of one suite
    ingest([TAU2 / GROK3[0]], db, label="airline")
    ingest([TAU2 / GROK3[1]], db, label="airline_tighter_policy", suite="tau2-bench/airline")
    site = tmp_path / "site"
    build_site(
        db,
        site,
        build_time="2026-11-29T00:00:00Z",
        baseline_label="airline",
        candidate_label="airline_tighter_policy",
    )
    pages = _pair_pages(site, "airline..airline_tighter_policy")
    page = next(p for p in pages if "/24/" in str(p) and p.stem.endswith("2025-10-13"))
    doc = parse(rendered_html(page))  # the rows are drawn from the page's pair-rows data
    first = doc.one(id="first-divergence")
    row = first.parent
    while row is not None and row.tag != "tr":
        row = row.parent
    assert row is not None and row.attrs["id"] == "row-2"  # the greeting and a reply line up
    rows = doc.select("tr", id="row-0")
    assert "diff-matched" in rows[0].classes  # b#0 and c#0: the same greeting
    # no stagnant loop in either run: repeats only, and nothing marked as a loop
    assert doc.select("section", id="loops") == []
    repeats = doc.one("section", id="repeats")
    assert "stagnant" not in repeats.text
    assert doc.select(class_="loop-mark") == []


def test_argument_diff_on_the_pair_page(tmp_path: Path) -> None:
    evil = "<script>alert(1)</script>"

    def run(label: str, path: str) -> dict[str, object]:
        return {
            "task_id": "t",
            "label": label,
            "started_at": "2026-11-28T02:00:00Z",
            "steps": [
                {"type": "tool", "action": "read", "status": "ok", "input": {"path": path}},
                {"type": "tool", "action": "done", "status": "ok"},
            ],
        }

    traces = tmp_path / "runs.jsonl"
    traces.write_text(
        json.dumps(run("baseline", "a.py")) + "\n" + json.dumps(run("candidate", evil)) + "\n"
    )
    db = tmp_path / "a.duckdb"
    ingest([traces], db)
    site = tmp_path / "site"
    build_site(db, site, build_time="2026-11-29T00:00:00Z")
    (page,) = _pair_pages(site, "baseline..candidate")
    html = page.read_text(encoding="utf-8")
    assert evil not in html
    doc = parse(rendered_html(page))  # drawn by steps.js with textContent
    (change,) = doc.select(class_="arg-diff")
    assert "path" in change.text and "changed" in change.text
    assert '"a.py"' in change.text and evil in change.text  # shown as text, escaped
