"""The raw buffers of a text column (``text_buffers``) and its validity (``valid``) read as
pyarrow itself reads the column, for every text type, sliced or in chunks, with NULLs; the
arrays built from buffers (``strings``, ``numbers``) and read back (``to_numpy``) are those
pyarrow builds and reads, without importing pandas."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.archive.arrow import numbers, strings, table, text_buffers, to_numpy, valid

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


@settings(max_examples=200, deadline=None)
@given(texts, st.booleans())
def test_strings_are_the_arrays_pyarrow_builds(values: list[str | None], large: bool) -> None:
    built = strings(values, large=large)
    built.validate(full=True)
    assert built.equals(pa.array(values, pa.large_string() if large else pa.string()))


numeric = st.sampled_from(
    [(pa.int32(), st.integers(-(2**31), 2**31 - 1)), (pa.int64(), st.integers(-(2**63), 2**63 - 1)),
     (pa.uint64(), st.integers(0, 2**64 - 1)), (pa.float64(), st.floats(allow_nan=False)),
     (pa.bool_(), st.booleans())]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(numeric.flatmap(lambda k: st.tuples(st.just(k[0]), st.lists(st.none() | k[1], max_size=40))),
       st.integers(0, 5), st.booleans())  # fmt: skip
def test_numbers_and_to_numpy_are_pyarrows(
    case: tuple[pa.DataType, list[object]], start: int, chunked: bool
) -> None:
    kind, values = case
    given_values = [v for v in values if v is not None]
    built = numbers(np.array(given_values, dtype=kind.to_pandas_dtype()), kind)
    built.validate(full=True)
    assert built.equals(pa.array(given_values, kind))
    column: pa.Array | pa.ChunkedArray = pa.array(values, kind).slice(start)
    fill = 7 if not pa.types.is_boolean(kind) else True
    expected = [fill if v is None else v for v in column.to_pylist()]
    if chunked and len(column) > 1:
        column = pa.chunked_array([column.slice(0, 1), column.slice(1)])
    got = to_numpy(column, fill)
    assert got.dtype == np.dtype(kind.to_pandas_dtype()) and got.tolist() == expected


def test_tables_and_to_numpy_of_other_types() -> None:
    made = table({"b": strings(["x"]), "a": numbers([1], pa.int64())})
    assert made.column_names == ["b", "a"] and made.to_pylist() == [{"b": "x", "a": 1}]
    schema = pa.schema([("a", pa.int64()), ("b", pa.string())])
    assert table({"b": strings(["x"]), "a": numbers([1], pa.int64())}, schema).schema == schema
    with pytest.raises(TypeError, match="not a numeric"):
        to_numpy(strings(["x"]))


def test_the_commands_users_run_never_import_pandas(tmp_path: Path) -> None:
    """pyarrow imports pandas, when installed, on its first Python-object conversion (about
    0.3 s a process): ingest, compare and gate build their Arrow data without one."""
    pytest.importorskip("pandas")
    archive = tmp_path / "a.duckdb"
    runs = Path(__file__).parents[2] / "sample_runs"
    night = runs / "nightly" / "2026-11-23"
    for argv in (
        ["ingest", str(runs), "--db", str(archive), "--quiet"],
        ["compare", str(night / "baseline.jsonl.gz"), str(night / "candidate.jsonl"), "--json"],
        ["gate", "--db", str(archive), "--json"],
        ["compare", "--db", str(archive), "--json"],
    ):
        probe = (
            "import sys\nfrom reportgen.cli import main\nsys.argv = ['reportgen', *sys.argv[1:]]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('PANDAS', 'pandas' in sys.modules, file=sys.stderr)"
        )
        done = subprocess.run(
            [sys.executable, "-c", probe, *argv], capture_output=True, text=True, check=False
        )
        assert done.stderr.endswith("PANDAS False\n"), (argv, done.stderr[-2000:])
        assert done.returncode in (0, 3), (argv, done.stderr[-2000:])  # ran (a gate may fail)
