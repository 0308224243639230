"""Pairing in Spark: the baseline and candidate runs of two labels matched by suite, task and
trial (and batch, night by night), as ``divergence/sql/pairs_by_side.sql`` matches them in
DuckDB; the rows then get their pair ids on the driver, by the same code."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reportgen.divergence.pairing import LABEL_KEYS, Pairing, pairing_from_rows

_COLUMNS = {"suite": "suite", "task": "task_id", "trial": "trial"}


def pair_labels_spark(
    runs: Any,
    baseline_label: str,
    candidate_label: str,
    *,
    suite: str | None = None,
    baseline_batch: str | None = None,
    candidate_batch: str | None = None,
    keys: Sequence[str] = LABEL_KEYS,
) -> Pairing:
    """The pairs and unpaired runs of two labels of the ``runs`` DataFrame, paired by ``keys``
    (reportgen.divergence.pairing.PAIR_KEYS). Several runs of one side for one key pair up in
    run_id order (byte order, as in DuckDB)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    same_batch = baseline_batch is None and candidate_batch is None
    key = [_COLUMNS[k] for k in keys] + (["batch"] if same_batch else [])

    def side(label: str, batch: str | None, prefix: str) -> Any:
        rows = runs.filter(F.col("label") == label)
        if suite is not None:
            rows = rows.filter(F.col("suite") == suite)
        if batch is not None:
            rows = rows.filter(F.col("batch") == batch)
        nth = F.row_number().over(Window.partitionBy(*key).orderBy("run_id"))
        rows = rows.select("run_id", "suite", "task_id", "batch", "trial").withColumn("nth", nth)
        return rows.select([F.col(c).alias(f"{prefix}_{c}") for c in rows.columns])

    b = side(baseline_label, baseline_batch, "b")
    c = side(candidate_label, candidate_batch, "c")
    on = [b[f"b_{k}"] == c[f"c_{k}"] for k in (*key, "nth")]
    joined = b.join(c, on, "full_outer").select(
        F.coalesce("b_suite", "c_suite"),
        F.coalesce("b_task_id", "c_task_id"),
        F.coalesce("c_batch", "b_batch"),
        F.coalesce("b_trial", "c_trial"),
        "b_run_id",
        "c_run_id",
    )
    rows = [tuple(r) for r in joined.collect()]
    rows.sort(key=_order)
    return pairing_from_rows(rows, tuple(keys), same_batch)


def _order(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """pairs_by_side.sql's ORDER BY: suite, task_id, batch, trial, run ids (NULLs last)."""
    suite, task, batch, trial, b, c = row
    return (suite, task, batch, trial, b is None, b or "", c is None, c or "")
