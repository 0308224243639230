"""Convergence of every group of runs in the archive, computed in one DuckDB query.

A group is (suite, label, task_id, batch) with at least two outputs; its numbers equal
``reportgen.convergence.score_runs`` on the group's outputs ordered by trial, then run_id.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa

from reportgen.metrics.sql import load_sql

__all__ = ["GROUP_KEYS", "group_convergence", "group_convergence_table"]

GROUP_KEYS = ("suite", "label", "task_id", "batch")


def group_convergence_table(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """One Arrow row per group: keys, num_runs, the rounded scores and the divergence point."""
    table: pa.Table = con.sql(load_sql("convergence_groups")).to_arrow_table()
    return table


def group_convergence(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Per group, the group keys plus a dict shaped exactly like ``score_runs`` returns."""
    result: list[dict[str, Any]] = []
    for row in group_convergence_table(con).to_pylist():
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
