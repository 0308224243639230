"""Checks of ingest options that the command line cannot express in its types, and the
defaults of session-log runs (label, batch day, time zone)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import duckdb

from reportgen.errors import UsageError

if TYPE_CHECKING:
    from reportgen.formats.base import Format

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


LABEL_BY = ("model", "branch")
"""What names a session run's label by default: the model most of its calls used, or the
git branch the session ran on (the model when the log names no branch)."""


@dataclass(frozen=True)
class SessionOptions:
    """Defaults for the runs of session-log formats (Claude Code, Codex CLI, Gemini CLI;
    ``reportgen.formats.base.growing``): ``label_by`` model or branch, or a fixed ``label``; batches per
    day of the session's start in time zone ``tz``."""

    label_by: str = "model"
    label: str | None = None
    tz: str = "UTC"


def session_options(
    label_by: str = "model", label: str | None = None, tz: str | None = None
) -> SessionOptions:
    """Checked session options: ``label_by`` one of LABEL_BY, ``label`` non-empty, ``tz`` an
    IANA zone; without ``tz``, ``$TZ`` when it names one, else UTC. A bad value is a usage
    error (exit 2)."""
    if label_by not in LABEL_BY:
        raise UsageError(f"--label-by: expected one of {', '.join(LABEL_BY)}, got {label_by!r}")
    if label is not None and not label.strip():
        raise UsageError("--label must be a non-empty string")
    if tz is None:
        env = os.environ.get("TZ", "").lstrip(":")
        zone = env if env and _zone(env) else "UTC"
    elif _zone(tz):
        zone = tz
    else:
        raise UsageError(f"--tz: {tz!r} is not a time zone name (e.g. Europe/Paris, UTC)")
    return SessionOptions(label_by, label, zone)


def _zone(name: str) -> bool:
    """True when ``name`` is an IANA time zone."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def apply_session_defaults(
    con: duckdb.DuckDBPyConnection, options: SessionOptions, staged: Iterable[Format]
) -> None:
    """Label and batch the staged runs of the session-log formats among ``staged`` (the
    formats of the load; session_defaults.sql)."""
    from reportgen._sql import load_sql
    from reportgen.formats.base import growing

    formats = growing(staged)
    if not formats:
        return
    con.execute(
        load_sql("session_defaults"),
        {
            "formats": formats,
            "label": options.label,
            "by_branch": options.label_by == "branch",
            "tz": options.tz,
        },
    )


@dataclass(frozen=True)
class Overrides:
    """``ingest --label/--suite``: what every run and output loaded is given, whatever its file
    says (None: the format's own; see the identity table in docs/formats.md)."""

    label: str | None = None
    suite: str | None = None

    def __post_init__(self) -> None:
        for flag, value in (("--label", self.label), ("--suite", self.suite)):
            if value is not None and not value.strip():
                raise UsageError(f"{flag} must be a non-empty string")


def apply_overrides(con: duckdb.DuckDBPyConnection, overrides: Overrides) -> None:
    """Give the staged runs and outputs the label and suite of ``overrides``. Iteration records
    carry neither, so a load with some refuses them (a usage error naming a file)."""
    given = {k: v for k, v in (("label", overrides.label), ("suite", overrides.suite)) if v}
    if not given:
        return
    from reportgen.archive.connection import first_row

    found = first_row(con, "SELECT source_file FROM stage_iterations LIMIT 1")
    if found:
        flags = " and ".join(f"--{k}" for k in given)
        raise UsageError(
            f"{flags}: {found[0]} holds iteration records, which have no label or suite;"
            " ingest them without these options"
        )
    sets = ", ".join(f"{k} = ${k}" for k in given)
    for table in ("runs", "outputs"):
        con.execute(f"UPDATE stage_{table} SET {sets}", given)
