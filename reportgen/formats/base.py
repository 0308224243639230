"""What a format adapter is: it recognises its files and stages them into temp tables."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import duckdb
import orjson

from reportgen.formats.source import SourceFile

# The temp tables every adapter fills, named after the archive tables they feed.
STAGE_TABLES = ("runs", "steps", "iterations", "outputs")


@dataclass(frozen=True)
class StageOptions:
    """Knobs that apply to every format. ``reprice``: store ``runs.cost_recomputed_usd``
    (off for a one-off ``compare``, whose in-memory archive never reads it)."""

    max_record_bytes: int
    reprice: bool = True


class Format(Protocol):
    """A file format ``reportgen ingest`` can read."""

    name: str
    description: str
    maps: str  # one line: what becomes a run / a step / a status

    def detect(self, source: SourceFile) -> bool:
        """True when ``source`` (judged by its first bytes) is in this format."""
        ...

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        """Parse ``sources`` into ``stage_<table>`` temp tables, or raise InputError."""
        ...


def growing(formats: Iterable[Format]) -> list[str]:
    """The names of the append-only session-log formats among ``formats`` (a ``grows = True``
    attribute): re-ingesting such a file after it grew replaces the runs it held before,
    without ``--replace``, and their runs get session defaults (label, batch day)."""
    return sorted({f.name for f in formats if getattr(f, "grows", False) is True})


def first_record(source: SourceFile) -> Any:
    """The first JSON value of a file, parsed from its head; None when the head is not enough.
    Parsed once per file however many detectors ask (shared: read it, never change it)."""
    return _first_record(source)


@lru_cache(maxsize=16)
def _first_record(source: SourceFile) -> Any:
    text = source.head.decode("utf-8", errors="replace")
    if source.lines:
        first = next((line for line in text.splitlines() if line.strip()), "")
        if "\n" not in text.lstrip() and len(source.head) < source.size_bytes:
            return None
        text = first
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    try:  # what orjson refuses but json accepts: lone surrogates, NaN (refused at measure)
        return json.loads(text)
    except ValueError:
        return None


class Marked:
    """A bytes regex and a literal every match of it contains: ``search`` looks for the
    literal first (``bytes in``, far faster than the regex engine over a 64 KB head that does
    not match), so detection asks each file's head cheaply. Same answers as the regex. The
    literal defaults to the leading quoted key of a pattern such as ``rb'"steps"\\s*:'``."""

    def __init__(self, pattern: bytes, literal: bytes | None = None) -> None:
        if literal is None:
            key = _LEADING_KEY.match(pattern)
            assert key is not None and b"|" not in pattern, pattern
            literal = key.group(0)
        assert literal in pattern, literal
        self.regex = re.compile(pattern)
        self.literal = literal

    def search(self, head: bytes) -> re.Match[bytes] | None:
        return self.regex.search(head) if self.literal in head else None


_LEADING_KEY = re.compile(rb'"[A-Za-z0-9_]+"')
