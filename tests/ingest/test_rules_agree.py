"""The fast SQL checks and the JSON Schema (which the error messages come from) agree: a run
with one field set to an arbitrary value is rejected by ingest exactly when the schema (plus the
parent rule) rejects it, and the message names that field."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from reportgen.errors import InputError
from reportgen.ingest import ingest
from tests.conftest import make_run

RUN_FIELDS = [
    "task_id",
    "run_id",
    "label",
    "suite",
    "batch",
    "trial",
    "started_at",
    "meta",
    "output",
    "success",
    "reward",
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "latency_ms",
    "steps",
]
STEP_FIELDS = [
    "type",
    "action",
    "status",
    "input",
    "output",
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "latency_ms",
    "started_at",
    "parent",
]
TIMESTAMPS = [
    "2026-11-28T02:00:00Z",
    "2026-11-28T02:00:00",
    "2026-11-28 02:00:00+02:00",
    "2026-11-28T02:00:00.123456Z",
    "2026-11-28",
    "yesterday",
    "2026-13-01T00:00:00Z",
    "",
]
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.integers(2**62, 2**64),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(TIMESTAMPS),
    st.sampled_from(["ok", "success", "error", "retry", "abandoned", "done", "OK"]),
    st.text(max_size=5),
    st.lists(st.integers(0, 2), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def schema_rejects(run: dict[str, Any]) -> bool:
    from reportgen.formats.diagnose import _validator, parents_precede

    checker = _validator("trace-v1")
    if any(True for _ in checker.iter_errors(run)):
        return True
    return parents_precede(run) is not None


def has_non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(has_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(has_non_finite(v) for v in value)
    return False


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(where=st.sampled_from(["run", "step"]), data=st.data())
@example(where="step", data=None)
def test_sql_checks_agree_with_schema(where: str, data: st.DataObject | None) -> None:
    run = make_run("t", run_id="r", n_steps=3)
    if data is None:  # a fixed case: parent pointing at itself
        field, value = "parent", 2
    else:
        field = data.draw(st.sampled_from(RUN_FIELDS if where == "run" else STEP_FIELDS))
        value = data.draw(values)
    target = run if where == "run" else run["steps"][2]
    target[field] = value
    text = json.dumps(run)
    expected_bad = has_non_finite(value) or schema_rejects(
        json.loads(text) if not has_non_finite(value) else run
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.jsonl"
        path.write_text(text + "\n", encoding="utf-8")
        try:
            ingest([path], Path(tmp) / "a.duckdb")
            rejected, message = False, ""
        except InputError as error:
            rejected, message = True, str(error)
    assert rejected == expected_bad, (field, value, message)
    if rejected and not has_non_finite(value):
        assert field in message, message


@pytest.mark.parametrize("stamp", TIMESTAMPS)
def test_timestamp_rule_matches_duckdb(stamp: str, tmp_path: Path) -> None:
    run = make_run("t", run_id="r", started_at=stamp)
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(run) + "\n")
    bad = schema_rejects(run)
    if bad:
        with pytest.raises(InputError, match="started_at"):
            ingest([path], tmp_path / "a.duckdb")
    else:
        ingest([path], tmp_path / "a.duckdb")
