"""Suite notes: a README.md in an ingested folder describes the suites of the runs under it."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import duckdb

from reportgen.formats.source import SourceFile

MAX_NOTE_BYTES = 1 << 20


def find_notes(paths: Iterable[str | Path]) -> list[Path]:
    """README.md files in the given folders (recursively), sorted."""
    found: set[Path] = set()
    for given in paths:
        folder = Path(given)
        if folder.is_dir():
            found.update(p for p in folder.rglob("README.md") if p.is_file())
    return sorted(found)


def stage_notes(
    con: duckdb.DuckDBPyConnection, notes: list[Path], sources: list[SourceFile]
) -> int:
    """Attach each note to the suites of the staged runs loaded from under its folder,
    replacing an earlier copy of the same note; returns how many (suite, note) rows it wrote."""
    if not notes:
        return 0
    by_display = {s.display: s.path.resolve() for s in sources}
    staged = con.execute("SELECT DISTINCT suite, source_file FROM stage_runs").fetchall()
    written = 0
    for note in notes:
        folder = note.parent.resolve()
        suites = sorted(
            {suite for suite, display in staged if by_display[display].is_relative_to(folder)}
        )
        with note.open("rb") as handle:  # at most MAX_NOTE_BYTES, however large the file
            raw = handle.read(MAX_NOTE_BYTES)
        text = raw.decode("utf-8", errors="replace")
        digest = hashlib.sha256(raw).hexdigest()
        for suite in suites:
            con.execute("DELETE FROM suite_notes WHERE suite = ? AND path = ?", [suite, str(note)])
            con.execute(
                "INSERT INTO suite_notes VALUES (?, ?, ?, ?)", [suite, str(note), text, digest]
            )
            written += 1
    return written
