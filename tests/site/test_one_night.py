"""A site of one night (every benchmark result file is one) draws no trend of single points:
its nightly charts are one bar per label for that night (P18)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.ingest import ingest
from reportgen.site import build_site
from tests.site.test_glossary import _figures

TAU2 = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "tau2-bench"


def test_one_night_draws_bars_not_single_point_lines(tmp_path: Path) -> None:
    if not TAU2.is_dir():
        pytest.skip(f"{TAU2} is missing (the shared real data)")
    db = tmp_path / "a.duckdb"
    ingest([TAU2], db)
    site = tmp_path / "site"
    build_site(db, site, build_time="2026-12-01T00:00:00Z")
    history = [(name, fig) for name, fig in _figures(site) if name.startswith("tau2-bench")]
    assert history, "the history pages of the two tau2 suites have charts"
    lines = [
        name
        for name, fig in history
        for trace in fig["data"]  # type: ignore[attr-defined]
        if trace.get("mode") == "lines+markers" and len(trace.get("x", [])) <= 1
    ]
    assert lines == []
    bars = [name for name, fig in history if any(t.get("type") == "bar" for t in fig["data"])]  # type: ignore[attr-defined]
    assert bars
