"""The suites page: one row per suite (tasks, runs, nights, the newest compared night's
verdicts) with a filter, so navigation scales to many suites."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from reportgen.site import paths
from reportgen.site.context import Link, SuitesPage
from reportgen.site.data import PairInfo, SiteData
from reportgen.site.pages_compare import ALL_SUITES, NightStats

#: Up to this many suites the header links each suite's history; past it, the suites page.
NAV_SUITES = 3


def _latest_verdicts(
    suite: str, pairs: list[PairInfo], data: SiteData, nights: NightStats
) -> tuple[str | None, str]:
    """The newest compared night of ``suite`` and its verdicts in a few words."""
    if not pairs:
        return None, "no comparison"
    night = max(p.batch for p in pairs)
    key = (ALL_SUITES if len(data.suites) == 1 else suite, night)
    found = nights[key]["metrics"]
    worse = [m["metric"] for m in found if m["verdict"] == "regression"]
    better = [m["metric"] for m in found if m["verdict"] == "improvement"]
    parts = []
    if worse:
        parts.append("regression: " + ", ".join(worse))
    if better:
        parts.append("improvement: " + ", ".join(better))
    return night, "; ".join(parts) or "no significant change"


def suites_page(data: SiteData, nav: list[Link], nights: NightStats) -> SuitesPage:
    """The page listing every suite; ``nights``: the verdicts per (suite, night)."""
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for run in data.runs:
        runs[run["suite"]].append(run)
    pairs: dict[str, list[PairInfo]] = defaultdict(list)
    for pair in data.pairs:
        pairs[pair.suite].append(pair)
    rows = []
    for suite in data.suites:
        night, verdict = _latest_verdicts(suite, pairs[suite], data, nights)
        rows.append({
            "suite": suite,
            "href": paths.history_path(suite),
            "tasks": len({r["task_id"] for r in runs[suite]}),
            "runs": len(runs[suite]),
            "nights": len({r["batch"] for r in runs[suite]}),
            "latest": max(r["batch"] for r in runs[suite]),
            "compared": night,
            "regression": verdict.startswith("regression"),
            "verdict": verdict,
        })  # fmt: skip
    return SuitesPage(path="suites.html", title="Suites", nav=nav, rows=rows)
