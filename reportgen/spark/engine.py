"""``--engine spark``: the Engine of :mod:`reportgen.divergence.compare` that pairs runs and
computes pair metrics in Spark over a Parquet archive; the rest of a comparison (outcomes,
verdicts, label-level statistics, steps shown in JSON) reads only per-pair results and small
tables on the driver."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import duckdb

from reportgen.divergence.metrics import Pair
from reportgen.divergence.pairing import Pairing
from reportgen.divergence.records import PairRecord
from reportgen.errors import InputError
from reportgen.ingest.loader import ProgressHook
from reportgen.spark.metrics import collect_records, pair_metrics, pairs_frame
from reportgen.spark.pairing import pair_labels_spark
from reportgen.spark.session import spark_session
from reportgen.spark.tables import archive_files, read_table


class SparkEngine:
    """Pairing and pair metrics of the Parquet archive ``db`` in Spark (``spark``: a session;
    default :func:`reportgen.spark.spark_session`)."""

    def __init__(self, db: str | os.PathLike[str], spark: Any = None) -> None:
        archive_files(db, "runs")  # a Parquet archive, or a clear error now
        self.db = db
        self.spark = spark if spark is not None else spark_session()
        self._runs: Any = None
        self._steps: Any = None

    def _tables(self) -> tuple[Any, Any]:
        if self._runs is None:
            self._runs = read_table(self.spark, self.db, "runs")
            if self._runs is not None:  # read twice (pairing, metrics); small
                self._runs = self._runs.cache()
            self._steps = read_table(self.spark, self.db, "steps")
        if self._runs is None:
            raise InputError(os.fspath(self.db), "the archive holds no runs")
        return self._runs, self._steps

    def pair_labels(
        self,
        con: duckdb.DuckDBPyConnection,
        baseline_label: str,
        candidate_label: str,
        *,
        suite: str | None,
        baseline_batch: str | None,
        candidate_batch: str | None,
        keys: Sequence[str],
    ) -> Pairing:
        runs, _ = self._tables()
        return pair_labels_spark(
            runs,
            baseline_label,
            candidate_label,
            suite=suite,
            baseline_batch=baseline_batch,
            candidate_batch=candidate_batch,
            keys=keys,
        )

    def pair_metrics(
        self,
        con: duckdb.DuckDBPyConnection,
        pairs: Sequence[Pair],
        *,
        progress: ProgressHook | None = None,
    ) -> list[PairRecord]:
        if not pairs:
            return []
        runs, steps = self._tables()
        if steps is None:  # no run has steps: an empty steps frame of the archive's columns
            steps = self.spark.createDataFrame([], _empty_steps_schema(con))
        frame = pairs_frame(self.spark, pairs)
        buckets = max(1, -(-len(pairs) // 1000))
        result = pair_metrics(frame, runs, steps, buckets=buckets, packed=True)
        records = collect_records(result, [p.pair_id for p in pairs])
        if progress is not None:
            progress("computing metrics", len(records), len(pairs))
        return records


def _empty_steps_schema(con: duckdb.DuckDBPyConnection) -> str:
    """A DDL schema for an empty steps frame: the columns pair metrics read."""
    return "run_id string, idx int"
