"""The Arrow shape of step rows that Python code hands to DuckDB (input/output as JSON text),
and the raw buffers of a text column, for compiled code that reads texts without a Python
str per row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

#: Columns of one step row, as the steps table has them (schema.sql); the hashes are computed
#: by the insert (step_hashes.sql), started_at and parent are added by the adapters.
STEP_ROWS = pa.schema(
    [
        ("run_id", pa.string()),
        ("idx", pa.int32()),
        ("type", pa.string()),
        ("action", pa.string()),
        ("input", pa.string()),
        ("input_keys", pa.list_(pa.string())),
        ("output", pa.string()),
        ("status", pa.string()),
        ("tokens_in", pa.int64()),
        ("tokens_out", pa.int64()),
        ("cost_usd", pa.float64()),
        ("latency_ms", pa.float64()),
    ]
)


def text_buffers(
    column: pa.Array | pa.ChunkedArray,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """A text column as its offsets (int64: text k is ``data[off[k]:off[k + 1]]``) and bytes;
    a NULL reads as an empty text. Read from the buffers, not cast: a cast imports
    pyarrow.compute (~30 ms a process)."""
    arr = combined(column) if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_string(arr.type) or pa.types.is_binary(arr.type):
        width: type[np.signedinteger[Any]] = np.int32
    else:
        if not (pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)):
            arr = arr.cast(pa.large_string())
        width = np.int64
    _, offsets, data = arr.buffers()
    off = np.zeros(1, width) if offsets is None else np.frombuffer(offsets, dtype=width)
    off = off[arr.offset : arr.offset + len(arr) + 1].astype(np.int64)
    raw = np.zeros(0, np.uint8) if data is None else np.frombuffer(data, dtype=np.uint8)
    return off, raw


def valid(column: pa.Array) -> npt.NDArray[np.bool_]:
    """Which rows of ``column`` are not NULL, from its validity bitmap (``is_valid()`` is a
    pyarrow.compute function)."""
    bitmap = column.buffers()[0]
    if column.null_count == 0 or bitmap is None:
        return np.ones(len(column), dtype=bool)
    bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), bitorder="little")
    return bits[column.offset : column.offset + len(column)].astype(bool)


def strings(values: Sequence[str | None], *, large: bool = False) -> pa.Array:
    """A text column from Python strings (None: NULL), built from its buffers: ``pa.array``
    on Python objects imports pandas when it is installed (about 0.3 s a process)."""
    return utf8([None if v is None else v.encode("utf-8") for v in values], large=large)


def utf8(values: Sequence[bytes | None], *, large: bool = False) -> pa.Array:
    """A text column from UTF-8 bytes (None: NULL), as ``strings`` builds it."""
    offsets = np.zeros(len(values) + 1, dtype=np.int64 if large else np.int32)
    np.cumsum([0 if v is None else len(v) for v in values], out=offsets[1:])
    missing = [v is None for v in values]
    kind = pa.LargeStringArray if large else pa.StringArray
    return kind.from_buffers(
        len(values),
        pa.py_buffer(offsets),
        pa.py_buffer(b"".join(v for v in values if v is not None)),
        _bitmap(np.logical_not(missing)) if any(missing) else None,
        sum(missing),
    )


def numbers(values: npt.ArrayLike, kind: pa.DataType) -> pa.Array:
    """A column of ``kind`` (an integer, float or boolean type) from numbers without NULLs,
    through numpy (``pa.array`` would import pandas; see ``strings``)."""
    if pa.types.is_boolean(kind):
        flags = np.asarray(values, dtype=bool)
        return pa.Array.from_buffers(kind, len(flags), [None, _bitmap(flags)])
    data = np.ascontiguousarray(values, dtype=kind.to_pandas_dtype())
    return pa.Array.from_buffers(kind, len(data), [None, pa.py_buffer(data)])


def table(columns: dict[str, pa.Array], schema: pa.Schema | None = None) -> pa.Table:
    """A table of Arrow columns (``pa.table`` is fine on arrays; this keeps call sites plain)."""
    if schema is None:
        return pa.Table.from_arrays(list(columns.values()), names=list(columns))
    return pa.Table.from_arrays([columns[name] for name in schema.names], schema=schema)


def _bitmap(flags: npt.NDArray[np.bool_]) -> pa.Buffer:
    return pa.py_buffer(np.packbits(flags, bitorder="little"))


def combined(column: pa.ChunkedArray) -> pa.Array:
    """The column's chunks as one array (``combine_chunks`` imports pandas when installed)."""
    chunks = column.chunks
    return pa.concat_arrays(chunks) if chunks else pa.nulls(0, column.type)


def to_numpy(column: pa.Array | pa.ChunkedArray, fill: Any = 0) -> npt.NDArray[Any]:
    """An integer, float or boolean column as numpy, NULLs as ``fill``, read from its buffers
    (``to_numpy`` and ``fill_null`` import pandas when it is installed; see ``strings``)."""
    arr = combined(column) if isinstance(column, pa.ChunkedArray) else column
    data = arr.buffers()[1]
    if pa.types.is_boolean(arr.type):
        raw = np.zeros(0, np.uint8) if data is None else np.frombuffer(data, dtype=np.uint8)
        bits = np.unpackbits(raw, bitorder="little")
        values: npt.NDArray[Any] = bits[arr.offset : arr.offset + len(arr)].astype(bool)
    elif pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type):
        dtype = np.dtype(arr.type.to_pandas_dtype())
        raw = np.zeros(0, dtype) if data is None else np.frombuffer(data, dtype=dtype)
        values = raw[arr.offset : arr.offset + len(arr)]
    else:
        raise TypeError(f"not a numeric or boolean column: {arr.type}")
    if arr.null_count:
        values = np.where(valid(arr), values, np.asarray(fill).astype(values.dtype))
    return values
