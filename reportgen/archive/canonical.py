"""Canonical JSON text of a stored payload, so that payloads compare as values.

Two payloads are equal when Python's ``==`` says their values are (AgentDiff compares them
so): key order does not count and a float equal to an integer is that integer (``1.0`` is
``1``). Booleans stay apart from numbers (docs/agentdiff-parity.md). The step payload hash
(step_hashes.sql) hashes this text; ``reportgen.divergence.reference.canonical_json`` is the
plain-Python definition the tests check it against."""

from __future__ import annotations

import json
import math
import re
import weakref
from typing import Any

import duckdb
import numpy as np
import orjson
import pyarrow as pa
from duckdb.func import PythonUDFType

from reportgen.archive._canonical import already_canonical
from reportgen.archive.arrow import strings, text_buffers, valid

#: Name of the DuckDB function (VARCHAR -> VARCHAR) that step_hashes.sql calls.
FUNCTION = "rg_canonical_json"


#: Where orjson's text may hold a float equal to an integer (``1.0``, ``1e+16``); a match
#: inside a string only costs the walk, never a wrong answer.
_MAYBE_INTEGRAL_FLOAT = re.compile(r"\d\.0(?![0-9])|\de")


def _canon(value: Any) -> Any:
    """Keys sorted (by orjson at dump time) and integral floats as ints, recursively."""
    kind = value.__class__
    if kind is dict:
        return {k: _canon(v) for k, v in value.items()}
    if kind is list:
        return [_canon(v) for v in value]
    if kind is float and math.isfinite(value) and value.is_integer():
        return int(value)
    return value


def canonical_text(text: str | None) -> str | None:
    """The canonical JSON text of a JSON text (None stays None; text that is not JSON is
    kept as it is: it can only equal itself)."""
    if text is None:
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        try:
            value = json.loads(text)  # integers beyond 64 bits
        except ValueError:
            return text
    try:
        out = orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # integers beyond 64 bits
        value = _canon(value)
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if _MAYBE_INTEGRAL_FLOAT.search(out) is None:
        return out  # no float that equals an integer (the common case: no walk)
    value = _canon(value)
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # a huge integral float (1e300) is a huge integer
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _batch(texts: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Canonical texts of a batch: those the compiled check finds canonical already are kept
    as they are (most stored payloads), only the others go through ``canonical_text``."""
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    offsets, data = text_buffers(texts)
    kept = np.frombuffer(already_canonical(data, offsets), dtype=bool)
    redo = ~kept
    if texts.null_count:  # nulls stay null
        redo = redo & valid(texts)
    if not redo.any():
        return texts
    values = texts.to_pylist()  # (not pyarrow.compute's replace_with_mask: ~30 ms to import)
    for i in np.flatnonzero(redo).tolist():
        values[i] = canonical_text(values[i])
    return strings(values, large=True)


_REGISTERED: weakref.WeakSet[duckdb.DuckDBPyConnection] = weakref.WeakSet()
"""The connections ``rg_canonical_json`` is known to be defined on, so that defining the step
hashes again (every chunk of pair metrics) costs nothing."""


def register_canonical(con: duckdb.DuckDBPyConnection) -> None:
    """Define ``rg_canonical_json`` on ``con`` (vectorised over Arrow batches); harmless to
    repeat. A connection that has it already refuses it again, which is how that is told:
    asking duckdb_functions() costs about 20 ms a connection."""
    if con in _REGISTERED:
        return
    try:
        con.create_function(FUNCTION, _batch, ["VARCHAR"], "VARCHAR", type=PythonUDFType.ARROW)
    except duckdb.NotImplementedException as exc:
        if "already created" not in str(exc):
            raise
    _REGISTERED.add(con)
