"""One local[2] SparkSession for every Spark test; without Java or PySpark the tests skip
with the reason, except in CI (``CI`` set), where nothing may skip."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest


def _missing() -> str | None:
    if shutil.which("java") is None:
        return "no Java runtime (Spark needs one; .ci/run installs openjdk-17-jre-headless)"
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "PySpark is not installed (pip install 'reportgen-agents[spark]')"
    return None


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    reason = _missing()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"in CI the Spark tests must run: {reason}")
        pytest.skip(reason)
    from reportgen.spark import spark_session

    session = spark_session()
    yield session
    session.stop()
