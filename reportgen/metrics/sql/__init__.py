"""Metric SQL, one concern per file; ``load_sql(name)`` returns a file's text."""

from __future__ import annotations

from reportgen._sql import read_sql


def load_sql(name: str) -> str:
    """Return the text of ``reportgen/metrics/sql/<name>.sql``."""
    return read_sql(__name__, name)
