"""What the site's convergence pages need: one group's page, and scores over batches."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import duckdb

from reportgen.convergence.members import GROUP_KEYS, GroupKey, group_rows, read_members
from reportgen.convergence.report import build_report
from reportgen.convergence.vectorised import score_groups

__all__ = ["PAGE_FORMAT", "history_series", "page_data"]

PAGE_FORMAT = 1


def _as_key(group_key: GroupKey | Sequence[str] | Mapping[str, str]) -> GroupKey:
    """(suite, label, task_id, batch) from a tuple or a mapping with those keys."""
    if isinstance(group_key, Mapping):
        values = [group_key[k] for k in GROUP_KEYS]
    else:
        values = list(group_key)
    if len(values) != 4:
        raise ValueError("a group key is (suite, label, task_id, batch)")
    return (values[0], values[1], values[2], values[3])


def page_data(
    con: duckdb.DuckDBPyConnection, group_key: GroupKey | Sequence[str] | Mapping[str, str]
) -> dict[str, Any]:
    """Everything one group's convergence page shows; KeyError if the archive has no such group.

    ``runs`` lists each run's output with its tokens (original case, split on whitespace like
    the scorer) and ``divergence_index``: the token where the runs first disagree, or None when
    this run ends before it (the runs agree on all of the shortest one)."""
    suite, label, task_id, batch = _as_key(group_key)
    members = read_members(con, suite=suite, label=label, batch=batch)
    table = members.table
    keep = [g for g, k in enumerate(members.keys()) if k[2] == task_id]
    if not keep:
        raise KeyError(f"no convergence group {suite}/{label}/{task_id} @ {batch}")
    lo, hi = int(members.offsets[keep[0]]), int(members.offsets[keep[0] + 1])
    one = group_rows(table.slice(lo, hi - lo))
    group = build_report(con, one)[0]
    outliers = {o.index for o in group.outliers}
    runs = []
    for i, (run_id, trial, output) in enumerate(
        zip(*(one.table.column(c).to_pylist() for c in ("run_id", "trial", "output")), strict=True)
    ):
        tokens = output.split()
        position = group.divergence_position
        runs.append(
            {
                "index": i,
                "run_id": run_id,
                "trial": trial,
                "output": output,
                "tokens": tokens,
                "divergence_index": position if position < len(tokens) else None,
                "is_output_medoid": i == group.output_medoid,
                "is_trajectory_medoid": group.trajectory is not None
                and i == group.trajectory.medoid,
                "is_outlier": i in outliers,
            }
        )
    labels = [
        r if r is not None else f"trial {t}"
        for r, t in zip(group.run_ids, group.trials, strict=True)
    ]
    return {
        "format": PAGE_FORMAT,
        "group": dict(zip(GROUP_KEYS, group.key, strict=True)),
        "scores": group.scores(),
        "runs": runs,
        "matrix": {
            "labels": labels,
            "output_jaccard": group.output_similarity,
            "trajectory_similarity": group.trajectory.similarity if group.trajectory else None,
        },
        "output_medoid": group.output_medoid,
        "trajectory": dataclasses.asdict(group.trajectory) if group.trajectory else None,
        "outliers": [dataclasses.asdict(o) for o in group.outliers],
        "outcomes": dataclasses.asdict(group.outcomes) if group.outcomes else None,
    }


def history_series(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Convergence of every (suite, label, task_id) over its batches, in batch order."""
    members = read_members(con)
    scores = score_groups(members.table.column("output"), members.sizes)
    series: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for key, rec in zip(members.keys(), scores.records(), strict=True):
        series.setdefault(key[:3], []).append(
            {
                "batch": key[3],
                "convergence_score": rec["convergence_score"],
                "exact_match_rate": rec["exact_match_rate"],
                "avg_overlap": rec["token_metrics"]["avg_overlap"],
                "num_runs": rec["num_runs"],
            }
        )
    return [
        {"suite": s, "label": lab, "task_id": t, "points": sorted(p, key=lambda x: x["batch"])}
        for (s, lab, t), p in sorted(series.items())
    ]
