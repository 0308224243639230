"""Read the input of ``reportgen converge`` (a file or stdin) safely: bounded in size and in
nesting, so hostile input is a clear error (exit 1) rather than a MemoryError or a
RecursionError. Messages for ordinary bad input are those of the reference tool's drop-in."""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import Any, BinaryIO, Protocol

from reportgen.errors import ReportgenError
from reportgen.formats.nesting import MAX_DEPTH, NestingScanner

__all__ = ["BadInput", "load_json", "read_runs"]

MAX_INPUT_BYTES = 128 << 20
"""Largest converge input read (128 MB): far above any real set of outputs of one task."""

_CHUNK = 1 << 20


class _Reader(Protocol):
    def read(self, n: int, /) -> bytes: ...


class BadInput(ReportgenError):
    """The input could not be read or is not a non-empty list of strings (exit 1)."""


def load_json(source: str) -> Any:
    """Parse JSON from a file path, or from standard input when ``source`` is ``-``; raise
    ``BadInput`` for unreadable, oversized (``MAX_INPUT_BYTES``), too deeply nested
    (``MAX_DEPTH``), non-UTF-8 or invalid JSON."""
    try:
        if source == "-":
            raw = _read_capped(_stdin_bytes(), "standard input")
        else:
            with _open_regular(source) as handle:
                raw = _read_capped(handle, source)
    except FileNotFoundError:
        raise BadInput(f"no such file: {source}") from None
    except OSError as exc:
        raise BadInput(f"cannot read {source}: {exc}") from None
    except MemoryError:
        raise BadInput(f"{source} is too large to read") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{source} is not readable text: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{source} is not valid JSON: {exc}") from None
    except (RecursionError, MemoryError):
        raise BadInput(f"{source} is not valid JSON: nested or sized beyond what is read") from None


def _stdin_bytes() -> _Reader:
    """Standard input as bytes."""
    buffer: _Reader | None = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return buffer
    return _TextAsBytes(sys.stdin.read(MAX_INPUT_BYTES + 1))


class _TextAsBytes:
    """Standard input replaced by a text stream (as in tests): its text, as UTF-8 bytes."""

    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8", "surrogateescape")
        self.at = 0

    def read(self, n: int) -> bytes:
        block = self.data[self.at : self.at + n]
        self.at += len(block)
        return block


def _open_regular(path: str) -> BinaryIO:
    """Open ``path`` without blocking on a FIFO; devices and FIFOs are read like files but stay
    under the size cap, so /dev/zero is refused rather than read forever."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise IsADirectoryError(21, "Is a directory", path)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _read_capped(stream: _Reader, name: str) -> bytes:
    """All of ``stream``, refusing it once past ``MAX_INPUT_BYTES`` or ``MAX_DEPTH`` deep."""
    blocks: list[bytes] = []
    total = 0
    scanner = NestingScanner(lines=False)
    while True:
        block = stream.read(_CHUNK)
        if not block:
            break
        total += len(block)
        if total > MAX_INPUT_BYTES:
            raise BadInput(f"{name} is over the {MAX_INPUT_BYTES >> 20} MB converge reads")
        problem = scanner.feed(block)
        if problem is not None and "nested" in problem.message:
            raise BadInput(
                f"{name} is not valid JSON: line {problem.line}: nested more than {MAX_DEPTH} "
                "levels deep"
            )
        blocks.append(block)
    return b"".join(blocks)


def read_runs(source: str) -> list[str]:
    """Load the runs from ``["...", ...]`` or ``{"runs": [...]}``; raise ``BadInput`` if not."""
    data = load_json(source)
    runs = data.get("runs", data) if isinstance(data, dict) else data
    if not isinstance(runs, list) or not runs:
        raise BadInput('expected a non-empty JSON list of strings, or {"runs": [...]}')
    if any(not isinstance(run, str) for run in runs):
        raise BadInput("every run must be a JSON string")
    return runs
