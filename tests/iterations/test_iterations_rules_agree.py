"""The SQL checks of iteration records and their JSON Schema agree: a record with one field
set to an arbitrary value is rejected by ingest exactly when the schema rejects it, and the
message names that field. Every property of the schema is drawn, `normaliser` included."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

import duckdb
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from reportgen.errors import InputError
from reportgen.formats.diagnose import _validator, load_schema
from reportgen.ingest import ingest

SCHEMA = load_schema("iteration-v1")
FIELDS = sorted(SCHEMA["properties"])
BASE: dict[str, Any] = {
    "run": "r",
    "iter": 1,
    "step": "s",
    "attempt": 1,
    "check": "go test ./...",
    "exit": 1,
    "failing": ["go:a::TestA"],
    "normaliser": "go",
    "tokens_in": 10,
    "usd": 0.5,
}
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.integers(2**31 - 2, 2**31 + 1),
    st.integers(2**62, 2**64),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "go", "pytest+ruff", "given"]),
    st.text(max_size=5),
    st.lists(st.sampled_from(["a", "b"]), max_size=2),
    st.lists(st.integers(0, 2), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def has_non_finite(value: Any) -> bool:
    """NaN or an infinity anywhere in the value (not JSON: refused before any schema)."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(has_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(has_non_finite(v) for v in value)
    return False


def schema_rejects(record: dict[str, Any]) -> bool:
    """Whether the shipped schema finds anything wrong with the record."""
    checker = _validator("iteration-v1")
    return any(True for _ in checker.iter_errors(record))


def ingest_one(record: dict[str, Any]) -> tuple[bool, str, dict[str, Any] | None]:
    """Ingest one record: (rejected, message, the stored row when accepted)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "it.jsonl"
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")
        db = Path(tmp) / "a.duckdb"
        try:
            ingest([path], db)
        except InputError as error:
            return True, str(error), None
        con = duckdb.connect(str(db), read_only=True)
        try:
            cursor = con.execute("SELECT * FROM iterations")
            names = [d[0] for d in cursor.description]
            row = cursor.fetchone()
        finally:
            con.close()
        assert row is not None
        return False, "", dict(zip(names, row, strict=True))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(FIELDS), value=values)
@example(field="normaliser", value=3)
@example(field="normaliser", value=["go"])
@example(field="normaliser", value=None)
def test_sql_checks_agree_with_schema(field: str, value: Any) -> None:
    record = {**BASE, field: value}
    expected_bad = has_non_finite(value) or schema_rejects(record)
    rejected, message, _ = ingest_one(record)
    assert rejected == expected_bad, (field, value, message)
    if rejected and not has_non_finite(value):
        assert field in message, message


def test_normaliser_is_kept_with_failing() -> None:
    row = ingest_one(BASE)[2]
    assert row is not None and row["normaliser"] == "go"
    row = ingest_one({**BASE, "normaliser": None})[2]
    assert row is not None and row["normaliser"] == "given"


def test_ingest_normalises_output_over_a_given_name() -> None:
    record = {k: v for k, v in BASE.items() if k != "failing"}
    record["normaliser"] = "pytest"
    record["output"] = "--- FAIL: TestA (0.00s)\nFAIL\texample.com/a\t0.01s\n"
    row = ingest_one(record)[2]
    assert row is not None
    assert (row["normaliser"], row["failing"]) == ("go", ["go:example.com/a::TestA"])
