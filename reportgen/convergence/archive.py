"""Convergence of every group of runs in the archive, all groups at once.

A group is (suite, label, task_id, batch) with at least two outputs; runs are ordered by trial,
then run_id, then output. ``group_convergence`` gives exactly what
``reportgen.convergence.score_runs`` gives per group (vectorised: see
``reportgen/convergence/vectorised.py``); ``convergence_report`` adds trajectories, the pairwise
matrix, outliers and outcomes; ``convergence_gate``, ``page_data`` and ``history_series`` serve
the gate and the site. See docs/convergence.md.
"""

from __future__ import annotations

import os
from typing import Any

import duckdb

from reportgen._sql import load_sql
from reportgen.convergence.gate import check_threshold, convergence_gate
from reportgen.convergence.members import GROUP_KEYS, read_members
from reportgen.convergence.outcomes import OutcomeAgreement
from reportgen.convergence.outliers import Outlier
from reportgen.convergence.pages import history_series, page_data
from reportgen.convergence.report import GroupConvergence, convergence_report
from reportgen.convergence.trajectories import TrajectoryConvergence
from reportgen.convergence.vectorised import score_groups

__all__ = [
    "GROUP_KEYS",
    "GroupConvergence",
    "OutcomeAgreement",
    "Outlier",
    "TrajectoryConvergence",
    "check_threshold",
    "convergence_gate",
    "convergence_report",
    "group_convergence",
    "group_convergence_sql",
    "history_series",
    "page_data",
]


def group_convergence(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Per group, the group keys plus a dict shaped exactly like ``score_runs`` returns."""
    members = read_members(con)
    scores = score_groups(members.table.column("output"), members.sizes, workers=_WORKERS)
    return scores.keyed_records(members.keys())


# Chunks are scored on this many threads (numpy and Arrow release the GIL).
_WORKERS = min(2, os.cpu_count() or 1)


def group_convergence_sql(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The same as :func:`group_convergence`, computed by DuckDB SQL alone
    (``sql/convergence_groups.sql``): slower, but plain SQL; the tests check both agree."""
    result: list[dict[str, Any]] = []
    for row in con.sql(load_sql("convergence_groups")).to_arrow_table().to_pylist():
        position = row["token_position"]
        result.append(
            {
                **{key: row[key] for key in GROUP_KEYS},
                "num_runs": row["num_runs"],
                "exact_match_rate": row["exact_match_rate"],
                "token_metrics": {"avg_overlap": row["avg_overlap"], "jaccard": row["jaccard"]},
                "convergence_score": row["convergence_score"],
                "divergence_point": {
                    "diverges_at_token": row["diverges_at_token"],
                    "token_position": position,
                    "num_tokens_to_divergence": position,
                },
            }
        )
    return result
