"""The raw buffers of a text column (``text_buffers``) and its validity (``valid``) read as
pyarrow itself reads the column, for every text type, sliced or in chunks, with NULLs."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.archive.arrow import text_buffers, valid

texts = st.lists(st.none() | st.text(max_size=6), max_size=20)
types = st.sampled_from([pa.string(), pa.large_string(), pa.binary(), pa.large_binary()])


@settings(max_examples=200, deadline=None)
@given(texts, types, st.integers(0, 5), st.integers(0, 20), st.booleans())
def test_buffers_and_validity_as_pyarrow_reads_them(
    values: list[str | None], kind: pa.DataType, start: int, length: int, chunked: bool
) -> None:
    binary = pa.types.is_binary(kind) or pa.types.is_large_binary(kind)
    raw = [v.encode() if binary and v is not None else v for v in values]
    column: pa.Array | pa.ChunkedArray = pa.array(raw, kind).slice(start, length)
    expected = column.to_pylist()
    if chunked and len(column) > 1:
        half = len(column) // 2
        column = pa.chunked_array([column.slice(0, half), column.slice(half)])
    off, data = text_buffers(column)
    assert len(off) == len(expected) + 1
    got = [data[off[k] : off[k + 1]].tobytes() for k in range(len(expected))]
    want = [b"" if v is None else (v if isinstance(v, bytes) else v.encode()) for v in expected]
    assert got == want
    flat = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    assert valid(flat).tolist() == [v is not None for v in expected]
