"""Find input files and take their measure (hash, size, longest line) before any parsing."""

from __future__ import annotations

import gzip
import hashlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from reportgen.errors import InputError

SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
# Other tools' document formats read by adapters: SWE-agent trajectories, Inspect AI zip logs.
ADAPTER_SUFFIXES = (".traj", ".eval")
CHUNK = 1 << 22
HEAD_BYTES = 1 << 16


@dataclass(frozen=True)
class SourceFile:
    """One input file, measured: what the loader needs to know before DuckDB reads it."""

    path: Path
    display: str
    size_bytes: int
    content_hash: str
    head: bytes
    lines: bool  # JSON Lines (.jsonl) rather than one JSON document

    @property
    def compressed(self) -> bool:
        return self.path.name.endswith(".gz")


def is_input_file(path: Path) -> bool:
    """True for the file names ingest reads: .json, .jsonl and their .gz forms, plus .traj
    (SWE-agent) and .eval (Inspect AI)."""
    return path.name.endswith(SUFFIXES + ADAPTER_SUFFIXES)


def discover(paths: Iterable[str | Path]) -> list[tuple[Path, str]]:
    """Expand files and folders (recursively) into ``(path, display name)`` pairs, sorted."""
    found: list[tuple[Path, str]] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            inside = sorted(_walk(path))
            if not inside:
                raise InputError(str(given), "folder holds no .json or .jsonl files")
            found.extend((p, str(p)) for p in inside)
        elif path.is_file():
            if not is_input_file(path):
                raise InputError(str(given), "not a .json, .jsonl, .json.gz or .jsonl.gz file")
            found.append((path, str(given)))
        else:
            raise InputError(str(given), "no such file or folder")
    return found


def _walk(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            path = Path(root) / name
            if is_input_file(path) and not name.startswith("."):
                yield path


def _open(path: Path) -> BinaryIO:
    if path.name.endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return path.open("rb")


def measure(path: Path, display: str, max_record_bytes: int) -> SourceFile:
    """Hash a file and check what DuckDB would let through silently: emptiness, a byte-order
    mark, and records longer than ``max_record_bytes`` (the longest line of a .jsonl file)."""
    lines = path.name.endswith((".jsonl", ".jsonl.gz"))
    digest = hashlib.sha256()
    with path.open("rb") as raw:
        for block in iter(lambda: raw.read(CHUNK), b""):
            digest.update(block)
    head = b""
    total = 0
    line_no = 1
    line_len = 0
    tail = b""
    suspicious = False
    try:
        with _open(path) as stream:
            for block in iter(lambda: stream.read(CHUNK), b""):
                if len(head) < HEAD_BYTES:
                    head += block[: HEAD_BYTES - len(head)]
                total += len(block)
                window = tail + block
                suspicious = suspicious or b"NaN" in window or b"Infinity" in window
                tail = block[-8:]
                if lines:
                    line_no, line_len = _longest_line(
                        block, line_no, line_len, max_record_bytes, display
                    )
    except (OSError, EOFError) as exc:
        raise InputError(display, f"cannot read: {exc}") from exc
    if head.startswith(b"\xef\xbb\xbf"):
        raise InputError(
            display, "starts with a UTF-8 byte-order mark; JSON must not have one", line=1
        )
    if not head.strip():
        raise InputError(display, "empty file")
    # An .eval zip holds many records (samples); its adapter checks each against the limit.
    if not lines and total > max_record_bytes and not path.name.endswith(".eval"):
        raise InputError(
            display,
            f"document is {_mb(total)}, over the {_mb(max_record_bytes)} limit per record (--max-record-mb)",
        )
    if suspicious:
        _refuse_non_finite(path, display, lines)
    return SourceFile(path, display, os.path.getsize(path), digest.hexdigest(), head, lines)


def _refuse_non_finite(path: Path, display: str, lines: bool) -> None:
    """DuckDB accepts NaN and Infinity anywhere in JSON; standard JSON does not. Files whose
    bytes mention them (rare: usually inside a string) get a strict parse to tell which."""
    import json

    def refuse(name: str) -> float:
        raise ValueError(f"{name} is not valid JSON (numbers must be finite)")

    with _open(path) as stream:
        records = enumerate(stream, start=1) if lines else [(1, stream.read())]
        for number, raw in records:
            try:
                json.loads(raw, parse_constant=refuse)
            except ValueError as exc:
                if "not valid JSON (numbers must be finite)" in str(exc):
                    raise InputError(
                        display, f"invalid JSON: {exc}", line=number if lines else None
                    ) from None


def _longest_line(
    block: bytes, line_no: int, carried: int, limit: int, display: str
) -> tuple[int, int]:
    """Advance over ``block``: return (line number, length so far) of the unfinished last line,
    raising when any line grows past ``limit``. Vectorised with numpy, no per-line loop."""
    ends = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
    if len(ends) == 0:
        length = carried + len(block)
        if length > limit:
            raise _too_long(display, line_no, limit)
        return line_no, length
    lengths = np.diff(ends, prepend=-1) - 1
    lengths[0] += carried
    over = np.flatnonzero(lengths > limit)
    if len(over):
        raise _too_long(display, line_no + int(over[0]), limit)
    tail = len(block) - int(ends[-1]) - 1
    if tail > limit:
        raise _too_long(display, line_no + len(ends), limit)
    return line_no + len(ends), tail


def _too_long(display: str, line: int, limit: int) -> InputError:
    return InputError(
        display, f"record is over the {_mb(limit)} limit per record (--max-record-mb)", line=line
    )


def _mb(n: int) -> str:
    return f"{n / (1 << 20):.0f} MB" if n >= 1 << 20 else f"{n} bytes"
