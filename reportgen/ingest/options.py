"""Checks of ingest options that the command line cannot express in its types."""

from __future__ import annotations

import math

from reportgen.errors import UsageError

MAX_RECORD_MB_CEILING = 4096
"""Largest ``--max-record-mb`` accepted: DuckDB's read_json takes the limit as a 32-bit size."""


def check_max_record_mb(value: float) -> float:
    """``--max-record-mb`` must be a finite number of megabytes above 0 (and at most
    ``MAX_RECORD_MB_CEILING``): nan, inf, 1e400, 0 and negatives are usage errors (exit 2)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise UsageError(f"--max-record-mb: {value!r} is not a number of megabytes")
    if not math.isfinite(value) or value <= 0 or value > MAX_RECORD_MB_CEILING:
        raise UsageError(
            f"--max-record-mb: {value!r} must be a finite number of megabytes above 0 and at "
            f"most {MAX_RECORD_MB_CEILING}"
        )
    if int(value * (1 << 20)) < 1:
        raise UsageError(f"--max-record-mb: {value!r} is under one byte")
    return float(value)
