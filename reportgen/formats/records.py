"""The records of JSON files as Arrow tables, for DuckDB to parse in one scan.

A ``.json`` document is one record (or, when it is an array, a record per item: ``many``);
each non-blank line of a ``.jsonl`` file is another. Python reads the bytes (gzip inflated;
a small file's bytes are kept from its measure) and numpy cuts the lines, so DuckDB never
opens the files one at a time: ``read_json`` over a list of small files spends about half a
millisecond on each."""

from __future__ import annotations

import io
import zlib
from collections.abc import Iterator
from typing import BinaryIO

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from reportgen.archive import arrow
from reportgen.errors import InputError
from reportgen.formats.source import SourceFile, open_source

CHUNK_BYTES = 32 << 20
"""About how many bytes of records one table holds (a file's block is never split). A load
holds one such table (and its file's block) at a time, beside DuckDB's memory limit: at
64 MB ingest of 1 GB peaked about 60 MB higher, and no faster (bench/memory.py)."""

RECORDS_SCHEMA = pa.schema(
    [
        ("source_file", pa.string()),
        ("many", pa.bool_()),
        ("typed", pa.bool_()),
        ("content", pa.large_string()),
        ("head", pa.large_string()),
    ]
)
_BLANK = np.zeros(256, dtype=bool)
_BLANK[[9, 10, 13, 32]] = True


def empty_records() -> pa.Table:
    """A table of no records (``Schema.empty_table`` would import pandas when installed)."""
    none = arrow.numbers([], pa.bool_())
    return pa.Table.from_arrays(
        [arrow.strings([]), none, none, *[arrow.strings([], large=True)] * 2],
        schema=RECORDS_SCHEMA,
    )


def record_batches(sources: list[SourceFile], chunk_bytes: int = CHUNK_BYTES) -> Iterator[pa.Table]:
    """Tables of columns ``source_file`` (the path as DuckDB's ``filename`` gives it),
    ``many`` (a document that is an array), ``typed`` (its file's ``typed_steps``) and
    ``content`` (one record's JSON text) and ``head`` (a typed document's text with its steps
    list emptied, from its ``steps_span``: its run fields parse from a few hundred bytes;
    NULL for other records), in file order, each holding about ``chunk_bytes`` of text."""
    batch = _Batch()
    for source in sources:
        for block in _blocks(source, chunk_bytes):
            batch.add(source, block)
            del block
            if batch.size >= chunk_bytes:
                table, batch = batch.table(), _Batch()  # its blocks freed before the yield
                yield table
                del table  # not kept while the next table is built
    if batch.size:
        yield batch.table()


class _Batch:
    """Blocks of whole records gathered into one Arrow table."""

    def __init__(self) -> None:
        self.blocks: list[bytes] = []
        self.starts: list[np.ndarray] = []
        self.files: list[str] = []
        self.counts: list[int] = []
        self.many: list[bool] = []
        self.typed: list[bool] = []
        self.heads: list[bytes | None] = []
        self.size = 0

    def add(self, source: SourceFile, block: bytes) -> None:
        starts = _line_starts(block) if source.lines else _document(block)
        if starts.size <= 1:
            return
        self.starts.append(starts[:-1] + self.size)
        self.blocks.append(block)
        self.files.append(str(source.path))
        self.counts.append(starts.size - 1)
        self.many.append(not source.lines and block.lstrip()[:1] == b"[")
        self.typed.append(source.typed_steps)  # never so for a document of many runs
        self.heads += [_head(block, source.steps_span)] * (starts.size - 1)
        self.size += len(block)

    def table(self) -> pa.Table:
        offsets = np.concatenate([*self.starts, np.array([self.size], dtype=np.int64)])
        # one block (a large file's) is used as is: a join would copy it
        data = pa.py_buffer(self.blocks[0] if len(self.blocks) == 1 else b"".join(self.blocks))
        self.blocks = []
        content = pa.LargeStringArray.from_buffers(
            len(offsets) - 1, pa.py_buffer(offsets.astype(np.int64)), data
        )
        counts = np.array(self.counts, dtype=np.int64)
        # (numpy's repeat, not Array.take: that imports pyarrow.compute, ~30 ms a process)
        files = _repeated(self.files, counts)
        many = arrow.numbers(np.repeat(np.array(self.many, dtype=bool), counts), pa.bool_())
        typed = arrow.numbers(np.repeat(np.array(self.typed, dtype=bool), counts), pa.bool_())
        heads = (
            arrow.utf8(self.heads, large=True)
            if any(h is not None for h in self.heads)
            else pa.nulls(len(self.heads), pa.large_string())
        )
        table = pa.Table.from_arrays([files, many, typed, content, heads], schema=RECORDS_SCHEMA)
        blank = _blank_records(np.frombuffer(data, dtype=np.uint8), offsets)
        table = table.filter(arrow.numbers(~blank, pa.bool_())) if blank.any() else table
        # record batches of about a megabyte: DuckDB's threads share a table's batches
        rows = max(1, int(table.num_rows * (1 << 20) // max(1, self.size)))
        return pa.Table.from_batches(table.to_batches(max_chunksize=rows), RECORDS_SCHEMA)


def _repeated(texts: list[str], counts: npt.NDArray[np.int64]) -> pa.Array:
    """A text column of ``texts[k]`` repeated ``counts[k]`` times, built from its buffers
    (a Python string per row would cost a few hundred thousand objects a batch)."""
    encoded = [t.encode("utf-8") for t in texts]
    lengths = np.repeat(np.array([len(e) for e in encoded], dtype=np.int64), counts)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = b"".join(e * int(c) for e, c in zip(encoded, counts.tolist(), strict=True))
    return pa.StringArray.from_buffers(len(lengths), pa.py_buffer(offsets), pa.py_buffer(data))


def _head(block: bytes, span: tuple[int, int] | None) -> bytes | None:
    """A document's text with its steps list (at ``span``) written as ``[]``."""
    if span is None:
        return None
    start, end = span
    return b"".join((block[:start], b"[]", block[end:]))


def _document(block: bytes) -> np.ndarray:
    """Record starts (and the end) of one document."""
    return np.array([0, len(block)], dtype=np.int64)


def _line_starts(block: bytes) -> np.ndarray:
    """Line starts (and the end) of a block of whole lines."""
    ends = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10) + 1
    if ends.size == 0 or ends[-1] != len(block):
        ends = np.append(ends, len(block))
    return np.concatenate([[0], ends]).astype(np.int64)


def _blank_records(data: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Which records hold only white space (blank lines, skipped as read_json skips them):
    only records that are empty or start with white space are looked at whole."""
    starts, ends = offsets[:-1], offsets[1:]
    blank = starts == ends
    maybe = np.flatnonzero(~blank)
    maybe = maybe[_BLANK[data[starts[maybe]]]]
    for i in maybe.tolist():
        blank[i] = not data[starts[i] : ends[i]].tobytes().strip()
    return np.asarray(blank, dtype=bool)


def _blocks(source: SourceFile, chunk_bytes: int) -> Iterator[bytes]:
    """A document whole; a JSON Lines file in blocks of whole lines of ``chunk_bytes`` or so
    (from the bytes the file's measure kept, else from the file)."""
    kept = source.data
    opened = open_source(source.path, source.display) if kept is None else io.BytesIO(kept)
    with opened as stream:
        if not source.lines:
            yield _read(stream, -1, source)
            return
        while block := _read(stream, chunk_bytes, source):
            if block[-1:] != b"\n":  # to the end of its last line (measure bounded lines)
                block += _read_line(stream, source)
            yield block
            del block  # not kept while the next is read


def _read_line(stream: BinaryIO, source: SourceFile) -> bytes:
    try:
        return stream.readline()
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(source.display, f"cannot read: {exc}") from None


def _read(stream: BinaryIO, size: int, source: SourceFile) -> bytes:
    try:
        return stream.read(size)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(source.display, f"cannot read: {exc}") from None
