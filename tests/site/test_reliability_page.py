"""The reliability profile on the suite (history) page of the demo site, parsed."""

from __future__ import annotations

from pathlib import Path

import duckdb

from reportgen.archive import connect
from reportgen.site import BuildReport
from reportgen.statistics.reliability import reliability_profiles
from tests.site.html import parse

Site = tuple[Path, BuildReport]


def test_history_page_has_a_reliability_row_per_night_and_label(
    demo_site: Site, demo_db: Path
) -> None:
    section = parse(demo_site[0] / "history" / "nightly.html").one("section", id="reliability")
    section = section.one("table", class_="reliability")
    headers = [th.text for th in section.select("th")]
    # no run of the demo carries meta.perturbation: no robustness column
    assert headers == [
        "night", "label", "outcome consistency", "tool-use consistency", "cost consistency",
        "token consistency", "latency consistency",
    ]  # fmt: skip
    rows = section.select("tbody")[0].select("tr")
    con: duckdb.DuckDBPyConnection = connect(demo_db, read_only=True)
    try:
        profiles = reliability_profiles(con, by_suite=True)
    finally:
        con.close()
    expected = sorted(((p.batch, p.label) for p in profiles if p.suite == "nightly"), reverse=True)
    got = [(tr.select("td")[0].text, tr.select("td")[1].text) for tr in rows]
    assert sorted(got, reverse=True) == expected and got[0][0] == expected[0][0]
    newest = {p.label: p for p in profiles if p.batch == expected[0][0] and p.suite == "nightly"}
    first = rows[0].select("td")
    measure = newest[first[1].text].get("outcome_consistency")
    assert measure is not None and measure.ci_low is not None and measure.ci_high is not None
    assert first[2].text.startswith(f"{measure.estimate:.2f}")
    assert f"({measure.ci_low:.2f} to {measure.ci_high:.2f})" in first[2].text
