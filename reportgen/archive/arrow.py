"""The Arrow shape of step rows that Python code hands to DuckDB (input/output as JSON text),
and the raw buffers of a text column, for compiled code that reads texts without a Python
str per row."""

from __future__ import annotations

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
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
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
