"""The reliability profile on a suite's page: one row per night and label, each measure with
its interval (:mod:`reportgen.statistics.reliability`; template ``_reliability.html``)."""

from __future__ import annotations

from typing import Any

from reportgen.gating.metrics import RELIABILITY_METRICS
from reportgen.statistics.reliability import ReliabilityMeasure, ReliabilityProfile


def _cell(measure: ReliabilityMeasure | None) -> dict[str, Any]:
    if measure is None:
        return {"text": "n/a", "interval": "", "few": False, "value": None}
    interval = (
        ""
        if measure.ci_low is None or measure.ci_high is None
        else f"{measure.ci_low:.2f} to {measure.ci_high:.2f}"
    )
    return {
        "text": f"{measure.estimate:.2f}",
        "interval": interval,
        "few": measure.too_few_repeats,
        "value": measure.estimate,
        "tasks": measure.n_tasks,
        "trials": f"{measure.trials:g}",
    }


def reliability_table(
    profiles: list[ReliabilityProfile], suite: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The columns (the measures any of ``suite``'s profiles has, in registry order: name,
    header, definition) and rows (one per night and label, newest night first) of its
    reliability table; none without repeated runs."""
    mine = sorted((p for p in profiles if p.suite == suite), key=lambda p: p.label)
    mine.sort(key=lambda p: p.batch, reverse=True)
    present = {m.name for p in mine for m in p.measures}
    columns = [
        {"name": m.name, "header": m.label, "definition": m.definition}
        for m in RELIABILITY_METRICS
        if m.name in present
    ]
    rows = [
        {"batch": p.batch, "label": p.label, "cells": [_cell(p.get(c["name"])) for c in columns]}
        for p in mine
    ]
    return columns, rows
