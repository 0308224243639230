"""The tables of a Parquet archive as Spark DataFrames: the files its manifest lists."""

from __future__ import annotations

import os
from typing import Any

from reportgen.archive.parquet import file_url, parquet_location, read_manifest
from reportgen.errors import InputError

#: DuckDB's httpfs and Spark's Hadoop connector name S3 differently.
_SPARK_SCHEMES = {"s3://": "s3a://"}


def archive_files(db: str | os.PathLike[str], table: str) -> list[str]:
    """The URLs of ``table``'s files in the Parquet archive ``db``, as Spark reads them."""
    location = parquet_location(db)
    if location is None:
        raise InputError(
            os.fspath(db),
            "--engine spark reads a Parquet archive (a folder); make one with "
            "`reportgen archive convert`",
        )
    manifest = read_manifest(location, os.fspath(db))
    urls = [file_url(location, e["path"]) for e in manifest["tables"][table]]
    for duck, spark in _SPARK_SCHEMES.items():
        urls = [spark + u[len(duck) :] if u.startswith(duck) else u for u in urls]
    return urls


def read_archive(spark: Any, db: str | os.PathLike[str]) -> tuple[Any, Any]:
    """The ``runs`` and ``steps`` DataFrames of the Parquet archive ``db`` (columns as the
    files hold them; no partition columns are added to steps)."""
    return read_table(spark, db, "runs"), read_table(spark, db, "steps")


def read_table(spark: Any, db: str | os.PathLike[str], table: str) -> Any:
    """One table of the archive as a DataFrame (empty with no columns when it has no rows)."""
    files = archive_files(db, table)
    if not files:
        return None
    # mergeSchema: files written before a column was added lack it (it reads as NULL there)
    return spark.read.option("mergeSchema", "true").parquet(*files)
