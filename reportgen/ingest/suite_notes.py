"""Suite notes: a README.md in an ingested folder describes the suites of the runs under it.

A README.md that is a symlink, or that lies under a symlinked folder (resolving outside the
ingested folder), is never read: it could point at any file of the machine (a secret env
file), which the site would then publish."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

import duckdb

from reportgen.formats.source import SourceFile

MAX_NOTE_BYTES = 1 << 20


def _plain_note(note: Path, root: Path) -> bool:
    """True for a regular README.md that is no symlink and resolves inside ``root``."""
    if note.is_symlink() or not note.is_file():
        return False
    return note.resolve().is_relative_to(root)


def find_notes(paths: Iterable[str | Path]) -> list[Path]:
    """README.md files in the given folders (recursively; symlinks never followed), sorted."""
    found: set[Path] = set()
    for given in paths:
        folder = Path(given)
        if folder.is_dir():
            root = folder.resolve()
            notes = (Path(f, "README.md") for f in _folders(str(folder)))
            found.update(p for p in notes if _plain_note(p, root))
    return sorted(found)


def _folders(top: str) -> Iterable[str]:
    """``top`` and every folder under it, symlinked folders not entered; iterative, so no
    nesting depth exhausts Python's stack (``Path.rglob`` recurses)."""
    stack = [top]
    while stack:
        folder = stack.pop()
        yield folder
        try:
            with os.scandir(folder) as listing:
                stack.extend(e.path for e in listing if e.is_dir(follow_symlinks=False))
        except OSError:
            continue


def read_note(note: Path) -> bytes:
    """The first MAX_NOTE_BYTES of a note, refusing a symlink even if one was swapped in
    since ``find_notes`` looked (``O_NOFOLLOW``)."""
    fd = os.open(note, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as file:
        return file.read(MAX_NOTE_BYTES)


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
        try:
            raw = read_note(note)
        except OSError:  # swapped for a symlink, or gone, since find_notes: not a note
            continue
        folder = note.parent.resolve()
        suites = sorted(
            {suite for suite, display in staged if by_display[display].is_relative_to(folder)}
        )
        text = raw.decode("utf-8", errors="replace")
        digest = hashlib.sha256(raw).hexdigest()
        for suite in suites:
            con.execute("DELETE FROM suite_notes WHERE suite = ? AND path = ?", [suite, str(note)])
            con.execute(
                "INSERT INTO suite_notes VALUES (?, ?, ?, ?)", [suite, str(note), text, digest]
            )
            written += 1
    return written
