"""The Arrow shape of step rows that Python code hands to DuckDB (input/output as JSON text),
and the raw buffers of a text column, for compiled code that reads texts without a Python
str per row."""

from __future__ import annotations

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
    a NULL reads as an empty text."""
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    arr = arr.cast(pa.large_string())
    _, offsets, data = arr.buffers()
    off = np.zeros(1, np.int64) if offsets is None else np.frombuffer(offsets, dtype=np.int64)
    off = np.ascontiguousarray(off[arr.offset : arr.offset + len(arr) + 1])
    raw = np.zeros(0, np.uint8) if data is None else np.frombuffer(data, dtype=np.uint8)
    return off, raw
