"""The Spark session reportgen uses: the one ``spark-submit`` (or the user) configured, else
a local one (``local[2]`` unless ``REPORTGEN_SPARK_MASTER`` says otherwise)."""

from __future__ import annotations

import os
import sys
from typing import Any

from reportgen.errors import UsageError

LOCAL_SHUFFLE_PARTITIONS = "8"


def spark_session() -> Any:
    """The active SparkSession, or a new one: a cluster's when ``spark.master`` is set (by
    ``spark-submit``), else local with the UI off and few shuffle partitions. Workers of a
    local session run this Python, so they import the same reportgen."""
    try:
        from pyspark import SparkConf
        from pyspark.sql import SparkSession
    except ImportError:
        raise UsageError(
            "--engine spark needs PySpark 4: pip install 'reportgen-agents[spark]'"
        ) from None
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder.appName("reportgen")
    if not SparkConf().contains("spark.master"):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        builder = (
            builder.master(os.environ.get("REPORTGEN_SPARK_MASTER", "local[2]"))
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", LOCAL_SHUFFLE_PARTITIONS)
            .config("spark.driver.memory", os.environ.get("REPORTGEN_SPARK_DRIVER_MEMORY", "2g"))
        )
    session = (
        builder.config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "100000")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session
