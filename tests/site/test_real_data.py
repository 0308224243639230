"""Real data end to end: the tau2-bench airline results under the standard and the tighter
policy become a baseline/candidate comparison, paired by task and trial, and the site's pages
for it render in Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.archive import connect
from reportgen.divergence.compare import compare_labels
from reportgen.ingest import ingest
from reportgen.site import build_site
from tests.site.browser_pages import chromium_page

TAU2 = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "tau2-bench"


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
        baseline_label="airline",
        candidate_label="airline_tighter_policy",
    )
    return db, site


def test_policies_pair_by_task_and_trial(tau2_site: tuple[Path, Path]) -> None:
    con = connect(tau2_site[0], read_only=True)
    try:
        comparison = compare_labels(con, "airline", "airline_tighter_policy")
    finally:
        con.close()
    assert len(comparison.pairs) == 48 and not comparison.unpaired  # 3 models x 4 tasks x 4 trials
    tasks = {p["task_id"] for p in comparison.pairs}
    assert tasks == {"8", "11", "24", "32"}
    assert all(p["pair_id"].startswith("tau2-bench/") for p in comparison.pairs)


@pytest.mark.browser
def test_comparison_pages_render(tau2_site: tuple[Path, Path]) -> None:
    site = tau2_site[1]
    compare_dir = site / "compare" / "airline..airline_tighter_policy"
    pair_pages = sorted(p for p in compare_dir.rglob("*.html") if p.name != "index.html")
    assert len(pair_pages) == 48
    with chromium_page() as checked:
        for page in [
            site / "index.html",
            compare_dir / "index.html",
            pair_pages[0],
            pair_pages[-1],
        ]:
            shown = checked.open(page)
            assert shown.title()
        assert checked.problems == []
