"""The matrix page (``compare/matrix.html``): several configurations against one baseline side
by side — each comparison's latest night with its label-level metrics (change, the interval
at its family's level, the verdict read from it by the statistics package), its newly broken
and fixed tasks, and the cost against success of every label compared."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reportgen.site import paths
from reportgen.site.context import Link, MatrixPage
from reportgen.site.data import SiteData
from reportgen.site.pages_compare import ALL_SUITES, NightStats, frontier_scatter, night_anchor

MATRIX = "compare/matrix.html"


def matrix_column(data: SiteData, nights: NightStats) -> dict[str, Any]:
    """One comparison's column: its latest compared night's statistics over all suites."""
    href = paths.compare_index_path(data.baseline_label, data.candidate_label)
    latest = max((night for suite, night in nights if suite == ALL_SUITES), default=None)
    column: dict[str, Any] = {
        "name": f"{data.baseline_label}..{data.candidate_label}",
        "baseline": data.baseline_label,
        "candidate": data.candidate_label,
        "href": href,
        "night": latest,
        "pairs": 0,
        "cells": {},
        "tasks": {},
    }
    if latest is None:
        return column
    stats = nights[(ALL_SUITES, latest)]
    column["href_night"] = f"{href}#{night_anchor(latest)}"
    column["pairs"] = stats["pairs"]
    column["tasks"] = stats["tasks"]
    column["cells"] = {row["metric"]: row for row in stats["rows"]}
    return column


def matrix_page(data: SiteData, nav: list[Link], columns: list[dict[str, Any]]) -> MatrixPage:
    """The configurations side by side; metric rows in the first column's order."""
    order: list[str] = []
    labels: dict[str, str] = {}
    explain: dict[str, str] = {}
    for column in columns:
        for key, row in column["cells"].items():
            if key not in labels:
                order.append(key)
                labels[key] = row["label"]
                explain[key] = row.get("explain", "")
    compared = {c["baseline"] for c in columns} | {c["candidate"] for c in columns}
    seen = [r for r in data.runs if r["label"] in compared]
    scatter = frontier_scatter(replace(data, runs=seen))
    bases = sorted({c["baseline"] for c in columns})
    return MatrixPage(
        path=MATRIX,
        title=f"{len(columns)} configurations against {' and '.join(bases)}",
        nav=nav,
        charts=[scatter] if scatter is not None else [],
        columns=columns,
        metrics=[{"key": k, "label": labels[k]} for k in order],
    )
