"""What a format adapter is: it recognises its files and stages them into temp tables."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

import duckdb

from reportgen.formats.source import SourceFile

# The temp tables every adapter fills, named after the archive tables they feed.
STAGE_TABLES = ("runs", "steps", "iterations", "outputs")


@dataclass(frozen=True)
class StageOptions:
    """Knobs that apply to every format."""

    max_record_bytes: int


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


def first_record(source: SourceFile) -> Any:
    """The first JSON value of a file, parsed from its head; None when the head is not enough."""
    text = source.head.decode("utf-8", errors="replace")
    if source.lines:
        first = next((line for line in text.splitlines() if line.strip()), "")
        if "\n" not in text.lstrip() and len(source.head) < source.size_bytes:
            return None
        text = first
    try:
        return json.loads(text)
    except ValueError:
        return None
