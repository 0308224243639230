"""Avoidable spend on the site: the run page's findings and the index's sums per suite, shaped
from the archive's :class:`reportgen.spend.SpendReport` (computed once per build)."""

from __future__ import annotations

from typing import Any

from reportgen.site import fmt, paths
from reportgen.site.data import SiteData
from reportgen.spend import SpendReport

TOP_RUNS = 5
"""Runs listed per suite on the index, costliest first."""


def run_avoidable(report: SpendReport | None, run_id: str) -> dict[str, Any] | None:
    """A run's findings for ``_avoidable_run.html`` (None: no finding, nothing shown)."""
    spent = None if report is None else report.runs.get(run_id)
    if spent is None:
        return None
    return {
        "n": len(spent.findings),
        "tokens_text": fmt.num(spent.tokens),
        "cost_text": fmt.usd(spent.cost_usd),
        "n_unknown": spent.n_unknown,
        "by_kind": sorted(spent.by_kind.items()),
        "findings": [
            {
                "kind": f.kind,
                "step": f.step,
                "ref_step": f.ref_step,
                "tokens_text": fmt.num(f.tokens),
                "cost_text": fmt.usd(f.cost_usd),
                "cost": f.cost_usd,
                "explanation": f.explanation,
            }
            for f in spent.findings
        ],
    }


def index_avoidable(data: SiteData) -> list[dict[str, Any]]:
    """Per suite with findings: the sums and its costliest runs, for ``_avoidable_index.html``."""
    report = data.spend
    if report is None:
        return []
    by_suite: dict[str, list[dict[str, Any]]] = {}
    for run in data.runs:
        spent = report.runs.get(run["run_id"])
        if spent is not None:
            by_suite.setdefault(run["suite"], []).append(
                {
                    "run_id": run["run_id"],
                    "href": paths.run_path(run["suite"], run["task_id"], run["run_id"]),
                    "cost": spent.cost_usd,
                    "cost_text": fmt.usd(spent.cost_usd),
                    "tokens_text": fmt.num(spent.tokens),
                    "n": len(spent.findings),
                }
            )
    rows = []
    for suite, total in sorted(report.suites.items()):
        runs = sorted(by_suite.get(suite, []), key=lambda r: (-r["cost"], r["run_id"]))
        rows.append(
            {
                "suite": suite,
                "n_runs": total.n_runs,
                "n_findings": total.n_findings,
                "tokens_text": fmt.num(total.tokens),
                "cost_text": fmt.usd(total.cost_usd),
                "n_unknown": total.n_unknown,
                "runs": runs[:TOP_RUNS],
            }
        )
    return rows
