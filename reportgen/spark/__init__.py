"""Apache Spark as the engine for archives past one machine (the optional extra
``reportgen[spark]``): pairs runs and computes every per-pair metric of a Parquet archive in
Spark, with reportgen's own kernels inside ``cogroup(...).applyInArrow`` (docs/scale.md).

``pair_metrics(pairs, runs, steps)`` is for users' own Spark jobs; :class:`SparkEngine` is what
``reportgen compare|gate --engine spark`` runs. PySpark is imported only when these are used."""

from __future__ import annotations

from typing import Any

__all__ = ["SparkEngine", "pair_metrics", "read_archive", "spark_session"]


def __getattr__(name: str) -> Any:
    if name == "pair_metrics":
        from reportgen.spark.metrics import pair_metrics

        return pair_metrics
    if name == "SparkEngine":
        from reportgen.spark.engine import SparkEngine

        return SparkEngine
    if name == "read_archive":
        from reportgen.spark.tables import read_archive

        return read_archive
    if name == "spark_session":
        from reportgen.spark.session import spark_session

        return spark_session
    raise AttributeError(name)
