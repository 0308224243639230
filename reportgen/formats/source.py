"""Find input files and take their measure (hash, size, longest line) before any parsing."""

from __future__ import annotations

import errno
import gzip
import hashlib
import os
import stat
import zlib
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

import numpy as np

from reportgen.errors import InputError, show
from reportgen.formats.nesting import NestingScanner

SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
# Other tools' document formats read by adapters: SWE-agent trajectories, Inspect AI zip logs.
ADAPTER_SUFFIXES = (".traj", ".eval")
CHUNK = 1 << 20
HEAD_BYTES = 1 << 16


def _usable_cores() -> int:
    """Cores this process may run on (its CPU affinity, where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows have no affinity call
        return os.cpu_count() or 1


MEASURE_THREADS = min(4, _usable_cores())
"""Files measured side by side, one thread a usable core: reading, hashing and the byte scan
release the GIL (on 2 cores, 2 threads measured 1,000 files in 0.11 s against 0.14 s for 4)."""
MEASURE_BATCH = 32
KEEP_TOTAL_BYTES = 256 << 20
"""Small uncompressed files (read in one read) keep their bytes for the load up to this many
in all, so DuckDB's records come from memory rather than a second read of every file."""


@dataclass(frozen=True)
class SourceFile:
    """One input file, measured: what the loader needs to know before DuckDB reads it."""

    path: Path
    display: str
    size_bytes: int
    content_hash: str
    head: bytes
    lines: bool  # JSON Lines (.jsonl) rather than one JSON document
    #: The first record's top-level keys and the distinct keys of the objects in its
    #: top-level ``steps`` list, as the byte scan saw them (None: not so, or not kept).
    first_keys: frozenset[str] | None = None
    step_keys: frozenset[str] | None = None
    #: (line, key) of the first top-level key a record repeats.
    duplicate_key: tuple[int, str] | None = None
    #: Every record a native run whose steps need no type checks (the byte scan's ``typed``):
    #: trace_typed_steps.sql then reads its steps as typed values, without json_type parses.
    typed_steps: bool = False
    #: A document's top-level steps list, as byte offsets (its ``[`` to just past its ``]``),
    #: when its steps are typed: its run fields are then read from the rest alone.
    steps_span: tuple[int, int] | None = None
    #: The file's bytes as measured (a small uncompressed file; see ``KEEP_TOTAL_BYTES``).
    data: bytes | None = field(default=None, repr=False, compare=False)

    @property
    def compressed(self) -> bool:
        return self.path.name.endswith(".gz")


def is_input_file(path: Path) -> bool:
    """True for the file names ingest reads: .json, .jsonl and their .gz forms, plus .traj
    (SWE-agent) and .eval (Inspect AI)."""
    return _input_name(path.name)


def _input_name(name: str) -> bool:
    return name.endswith(SUFFIXES + ADAPTER_SUFFIXES)


def discover(
    paths: Iterable[str | Path], notices: list[str] | None = None
) -> list[tuple[Path, str]]:
    """Expand files and folders (recursively) into ``(path, display name)`` pairs, sorted.

    Only regular files are read: inside folders, a symlink to a regular file is followed (and
    said so in ``notices``), while FIFOs, devices, sockets, dangling symlinks, symlink loops and
    symlinks to folders are skipped with a notice, so ingest never hangs or loops. A path given
    explicitly that is none of a folder or a (symlink to a) regular file is an error."""
    sink = notices if notices is not None else []
    found: list[tuple[Path, str]] = []
    for given in paths:
        path = Path(given)
        kind = _kind(path)
        if kind == "folder":
            # as Path sorts them, part by part (a Path a file would cost more than its walk)
            inside = sorted(_walk(str(path), sink), key=lambda p: p.split(os.sep))
            if not inside:
                raise InputError(str(given), "folder holds no .json or .jsonl files")
            found.extend((_absolute(p), p) for p in inside)
        elif kind in ("file", "symlink to a file"):
            if not is_input_file(path):
                raise InputError(str(given), "not a .json, .jsonl, .json.gz or .jsonl.gz file")
            found.append((_absolute(path), str(given)))
        elif kind == "missing":
            raise InputError(str(given), "no such file or folder")
        else:
            raise InputError(str(given), f"not a regular file or folder ({kind})")
    return found


def _absolute(path: str | Path) -> Path:
    """``path`` made absolute as given (no ``~`` expansion, symlinks kept): DuckDB reads the
    files by these names and would expand a leading ``~`` itself."""
    return Path(os.path.abspath(path))


def _kind(path: Path) -> str:
    """What is at ``path``: folder, file, symlink to a file, missing, or why it is unreadable."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"cannot look at it: {exc.strerror}"
    link = stat.S_ISLNK(mode)
    if link:
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            return "a dangling symlink"
        except OSError as exc:
            return (
                "a symlink loop"
                if exc.errno == errno.ELOOP
                else f"a broken symlink: {exc.strerror}"
            )
    if stat.S_ISDIR(mode):
        return "symlink to a folder" if link else "folder"
    if stat.S_ISREG(mode):
        return "symlink to a file" if link else "file"
    what = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
    return f"a symlink to {what}" if link else what


def _walk(top: str, notices: list[str]) -> Iterator[str]:
    """Input files under ``top`` (names joined to it), depth first with folders in name
    order: hidden names skipped, symlinked folders not entered. ``os.scandir``'s entries tell
    a plain file or folder without a ``stat`` each; only symlinks and odd entries are looked
    at further (``_kind``). As ``os.walk`` does, a folder that cannot be listed is passed
    over. The walk keeps its own stack: no nesting depth exhausts Python's."""
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        folders: list[os.DirEntry[str]] = []
        files: list[os.DirEntry[str]] = []
        for entry in entries:
            try:
                is_folder = entry.is_dir()
            except OSError:
                is_folder = False
            (folders if is_folder else files).append(entry)
        folders.sort(key=lambda e: e.name)
        for entry in folders:
            if entry.is_symlink() and not entry.name.startswith("."):
                notices.append(f"skipped {show(entry.path)}: a symlink to a folder (not followed)")
        yield from _files(files, notices)
        stack.extend(
            entry.path
            for entry in reversed(folders)
            if not entry.name.startswith(".") and not entry.is_symlink()
        )


def _files(entries: list[os.DirEntry[str]], notices: list[str]) -> Iterator[str]:
    """The input files among one folder's non-folder ``entries`` (a symlink to a regular
    file followed, with a notice; anything else skipped, with a notice). An Inspect Scout
    scan's ``_errors.jsonl`` is read with the ``_scan.json`` beside it, not on its own (it is
    empty when no scanner failed)."""
    scan = any(entry.name == "_scan.json" for entry in entries)
    for entry in entries:
        if not _input_name(entry.name) or entry.name.startswith("."):
            continue
        if scan and entry.name == "_errors.jsonl":
            continue
        plain = not entry.is_symlink() and entry.is_file(follow_symlinks=False)
        kind = "file" if plain else _kind(Path(entry.path))
        if kind == "file":
            yield entry.path
        elif kind == "symlink to a file":
            notices.append(f"followed {show(entry.path)}: a symlink to a regular file")
            yield entry.path
        else:
            notices.append(
                f"skipped {show(entry.path)}: {kind.removeprefix('a ')}, not a regular file"
            )


def _open_raw(path: Path, display: str) -> BinaryIO:
    """Open ``path`` for reading without ever blocking (a FIFO swapped in after discovery) and
    refuse what is not a regular file, so a read always ends."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputError(display, f"cannot read: {exc.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError(display, "not a regular file")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def open_source(path: Path, display: str) -> BinaryIO:
    """``path`` for reading as bytes, inflated when it is gzip (never blocking; see _open_raw)."""
    raw = _open_raw(path, display)
    if path.name.endswith(".gz"):
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    return raw


def measure_all(
    found: Sequence[tuple[Path, str]], max_record_bytes: int
) -> Iterator[SourceFile | InputError]:
    """``measure`` of every ``(path, display)``, in order, each file's InputError in its
    place; ``MEASURE_THREADS`` threads take ``MEASURE_BATCH`` files at a time (one task per
    file cost more in hand-offs than it saved), and an early stop cancels the rest. Files
    keep their bytes up to ``KEEP_TOTAL_BYTES`` in all."""
    return _within_budget(_measure_each(found, max_record_bytes), KEEP_TOTAL_BYTES)


def _measure_each(
    found: Sequence[tuple[Path, str]], max_record_bytes: int
) -> Iterator[SourceFile | InputError]:

    def batch(items: Sequence[tuple[Path, str]]) -> list[SourceFile | InputError]:
        out: list[SourceFile | InputError] = []
        for path, display in items:
            try:
                out.append(measure(path, display, max_record_bytes))
            except InputError as error:
                out.append(error)
        return out

    if MEASURE_THREADS < 2 or len(found) < 2 * MEASURE_BATCH:
        for item in found:
            yield from batch([item])
        return
    parts = [found[i : i + MEASURE_BATCH] for i in range(0, len(found), MEASURE_BATCH)]
    pool = ThreadPoolExecutor(MEASURE_THREADS, thread_name_prefix="reportgen-measure")
    try:
        for measured in pool.map(batch, parts):
            yield from measured
    finally:
        pool.shutdown(cancel_futures=True)


def _within_budget(
    measured: Iterator[SourceFile | InputError], budget: int
) -> Iterator[SourceFile | InputError]:
    """``measured`` with the kept bytes dropped once they pass ``budget`` in all."""
    for item in measured:
        if isinstance(item, SourceFile) and item.data is not None:
            budget -= len(item.data)
            if budget < 0:
                item = replace(item, data=None)
        yield item


def measure(path: Path, display: str, max_record_bytes: int) -> SourceFile:
    """Hash a file and check what DuckDB would let through silently: emptiness, a byte-order
    mark, records longer than ``max_record_bytes`` (a .jsonl line, or a whole document: checked
    while streaming, so a gzip bomb stops at the limit), nesting deeper than ``MAX_DEPTH``, a
    second document in a .json file, NaN and Infinity. An uncompressed file is read once
    (hashed as it is checked); the same byte scan notes the keys detection asks about."""
    lines = path.name.endswith((".jsonl", ".jsonl.gz"))
    document = not lines and not path.name.endswith(".eval")
    compressed = path.name.endswith(".gz")
    digest = hashlib.sha256()
    size_bytes = 0  # of the file as it is on disk (gzip: compressed)
    if compressed:  # the hash is of the file's bytes: a pass of its own
        with _open_raw(path, display) as raw:
            size_bytes = os.fstat(raw.fileno()).st_size
            try:
                for block in iter(lambda: raw.read(CHUNK), b""):
                    digest.update(block)
            except OSError as exc:
                raise InputError(display, f"cannot read: {exc.strerror}") from None
    head = b""
    whole: bytes | None = None  # the file's bytes while it has come in one read
    total = 0
    line_no = 1
    line_len = 0
    # An .eval zip holds many records (samples); its adapter checks each against the limit.
    nesting = NestingScanner(lines) if not path.name.endswith(".eval") else None
    try:
        with open_source(path, display) as stream:
            # a file smaller than CHUNK in one read of its size: a CHUNK buffer per read
            # (mapped and unmapped by malloc) cost more than reading the file
            if not compressed:
                size_bytes = os.fstat(stream.fileno()).st_size
            size = CHUNK if compressed else min(CHUNK, size_bytes + 1)
            for block in iter(lambda: stream.read(size), b""):
                if not compressed:  # hashed in the same pass as it is checked
                    digest.update(block)
                    whole = block if total == 0 else None
                if len(head) < HEAD_BYTES:
                    head += block[: HEAD_BYTES - len(head)]
                total += len(block)
                if document and total > max_record_bytes:
                    raise InputError(
                        display,
                        f"document is over the {_mb(max_record_bytes)} limit per record (--max-record-mb)",
                    )
                if lines:
                    line_no, line_len = _longest_line(
                        block, line_no, line_len, max_record_bytes, display
                    )
                problem = nesting.feed(block) if nesting is not None else None
                if problem is not None:
                    raise InputError(display, problem.message, line=problem.line)
    except OSError as exc:
        raise InputError(display, f"cannot read: {exc if compressed else exc.strerror}") from None
    except (EOFError, zlib.error) as exc:
        raise InputError(display, f"cannot read: {exc}") from None
    if head.startswith(b"\xef\xbb\xbf"):
        raise InputError(
            display, "starts with a UTF-8 byte-order mark; JSON must not have one", line=1
        )
    if not head.strip():
        raise InputError(display, "empty file")
    if nesting is None:
        return SourceFile(path, display, size_bytes, digest.hexdigest(), head, lines)
    scan = nesting.scan
    if scan.non_finite:
        _refuse_non_finite(path, display, lines)
    return SourceFile(
        path,
        display,
        size_bytes,
        digest.hexdigest(),
        head,
        lines,
        first_keys=_keys(scan.first_keys()),
        step_keys=_keys(scan.step_keys()),
        duplicate_key=None
        if scan.duplicate is None
        else (scan.duplicate[0], scan.duplicate[1].decode("utf-8", "replace")),
        typed_steps=scan.typed,
        steps_span=scan.steps_span if scan.typed else None,
        data=whole,
    )


@lru_cache(maxsize=256)  # files of one kind share their key sets
def _keys(raw: tuple[bytes, ...] | None) -> frozenset[str] | None:
    return None if raw is None else frozenset(k.decode("utf-8", "replace") for k in raw)


def _refuse_non_finite(path: Path, display: str, lines: bool) -> None:
    """DuckDB accepts NaN and Infinity anywhere in JSON; standard JSON does not. Files with a
    bare N or I outside strings (the byte scan tells) get a strict parse to tell which."""
    import json

    def refuse(name: str) -> float:
        raise ValueError(f"{name} is not valid JSON (numbers must be finite)")

    with open_source(path, display) as stream:
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
