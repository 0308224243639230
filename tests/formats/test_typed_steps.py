"""The byte scan's ``typed`` (steps whose fields need no type checks in SQL) against a slower
reference over Python's parse, and ingest with it against ingest without it: the same rows,
or the same error, for valid and broken traces alike."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.archive import connect
from reportgen.errors import InputError
from reportgen.formats._scan import Scan
from reportgen.ingest import loader
from reportgen.ingest.loader import ingest

STATUSES = ("ok", "success", "error", "retry", "abandoned")
COUNTS = ("tokens_in", "tokens_out", "parent")
AMOUNTS = ("cost_usd", "latency_ms")


def _raw(value: Any) -> str:
    """The text json.dumps writes for ``value`` (what the scan sees)."""
    return json.dumps(value, ensure_ascii=False)


def _count_ok(value: Any) -> bool:
    if value is None:
        return True
    text = _raw(value)
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and text.isdigit()
        and len(text) <= 15
    )


def _amount_ok(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    text = _raw(value)
    mantissa, _, exponent = text.lower().partition("e")
    digits = mantissa.replace(".", "")
    longest = 300 if "." in mantissa or exponent else 18
    return (
        digits.isdigit() and len(digits) <= longest and len(exponent.lstrip("+-")) <= 2
        and math.isfinite(value)
    )  # fmt: skip


def _step_ok(step: Any) -> bool:
    if not isinstance(step, dict):
        return False
    for name in ("type", "action"):
        if not isinstance(step.get(name), str) or step[name] == "":
            return False
    if step.get("status") not in STATUSES or "status" not in step:
        return False
    if _raw(step["status"])[1:-1] != step["status"]:
        return False
    if not all(_count_ok(step.get(k)) for k in COUNTS):
        return False
    if not all(_amount_ok(step.get(k)) for k in AMOUNTS):
        return False
    return all(step.get(k) is None or isinstance(step[k], str) for k in ("started_at", "error"))


def typed_reference(records: list[Any]) -> bool:
    """``Scan.typed`` the slow way, on the parsed records."""
    return bool(records) and all(
        isinstance(r, dict)
        and isinstance(r.get("run_id"), str)
        and isinstance(r.get("steps"), list)
        and all(_step_ok(s) for s in r["steps"])
        for r in records
    )


def _typed(text: str, lines: bool, cuts: tuple[int, ...] = ()) -> bool:
    scan = Scan(lines, 200)
    data = text.encode()
    at = 0
    for cut in [*sorted({min(c, len(data)) for c in cuts}), len(data)]:
        scan.feed(data[at:cut])
        at = cut
    return bool(scan.typed)


GOOD = {
    "type": "tool", "action": "read", "status": "ok", "input": {"path": "a", "n": [1, {"x": 2}]},
    "output": "text", "tokens_in": 12, "tokens_out": 0, "cost_usd": 1.5e-05, "latency_ms": 250,
    "started_at": "2026-11-28T02:00:00Z", "parent": None, "error": None,
}  # fmt: skip


def _run(**step_changes: Any) -> dict[str, Any]:
    step = {**GOOD, **step_changes}
    return {"run_id": "r1", "task_id": "t", "steps": [step]}


def test_a_plain_trace_is_typed() -> None:
    assert _typed(json.dumps(_run()), lines=False)
    assert _typed(json.dumps(_run()) + "\n" + json.dumps(_run()) + "\n", lines=True)
    assert _typed(json.dumps(_run()) + "\n\n" + json.dumps(_run()), lines=True)  # no last newline


@pytest.mark.parametrize(
    "change",
    [
        {"status": "fine"},
        {"status": "\u006fk\u00e9"},
        {"type": ""},
        {"action": None},
        {"tokens_in": 1.5},
        {"tokens_in": -1},
        {"tokens_in": 10**16},
        {"tokens_out": "12"},
        {"tokens_in": True},
        {"cost_usd": -0.5},
        {"cost_usd": 1e300},
        {"latency_ms": "1"},
        {"started_at": 5},
        {"error": 5},
        {"parent": 0.0},
    ],
    ids=str,
)
def test_a_field_not_as_typed_says_is_not(change: dict[str, Any]) -> None:
    assert not _typed(json.dumps(_run(**change)), lines=False)


def test_a_record_without_run_id_or_steps_list_or_object_is_not_typed() -> None:
    run = _run()
    assert not _typed(json.dumps({k: v for k, v in run.items() if k != "run_id"}), lines=False)
    assert not _typed(json.dumps({**run, "run_id": 7}), lines=False)
    assert not _typed(json.dumps({**run, "steps": {"a": 1}}), lines=False)
    assert not _typed(json.dumps({**run, "steps": [1]}), lines=False)
    assert not _typed(json.dumps([run]), lines=False)  # a document of many runs
    assert not _typed(json.dumps(run) + "\n[1]\n", lines=True)
    no_status = {**run, "steps": [{k: v for k, v in GOOD.items() if k != "status"}]}
    assert not _typed(json.dumps(no_status), lines=False)


def test_a_value_cut_by_a_block_end_is_not_typed_a_key_is_fine() -> None:
    text = json.dumps(_run())
    inside_status = text.index('"ok"') + 2
    assert not _typed(text, lines=False, cuts=(inside_status,))
    inside_key = text.index('"status"') + 3
    assert _typed(text, lines=False, cuts=(inside_key,))


scalars = (
    st.none() | st.booleans() | st.integers(-5, 10**17)
    | st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(["", "x", "é", 'q"'])
)  # fmt: skip
payloads = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2)
    ),
    max_leaves=4,
)
valid_steps = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["tool", "llm"]),
        "action": st.sampled_from(["read", "é\\n"]),
        "status": st.sampled_from(STATUSES),
    },
    optional={
        "input": payloads,
        "output": payloads,
        "tokens_in": st.integers(0, 10**6) | st.none(),
        "tokens_out": st.integers(0, 10**6) | st.none(),
        "cost_usd": st.floats(0, 10) | st.integers(0, 100) | st.none(),
        "latency_ms": st.floats(0, 1e5) | st.integers(0, 10**5) | st.none(),
        "started_at": st.sampled_from(["2026-11-28T02:00:00Z", "not a time"]) | st.none(),
        "parent": st.integers(0, 3) | st.none(),
        "error": st.sampled_from(["boom", ""]) | st.none(),
        "x": scalars,
    },
)
FIELDS = ("type", "action", "status", "tokens_in", "tokens_out", "cost_usd", "latency_ms",
          "started_at", "parent", "error")  # fmt: skip


@st.composite
def broken_steps(draw: st.DrawFn) -> dict[str, Any]:
    """A valid step with one field given another value, or a required field dropped."""
    step = dict(draw(valid_steps))
    name = draw(st.sampled_from(FIELDS))
    if draw(st.booleans()) and name in ("type", "action", "status"):
        del step[name]
    else:
        step[name] = draw(scalars | st.integers(10**14, 10**17) | st.sampled_from(["ok\n", "1"]))
    return step


# mostly valid steps, so that most runs are typed and a few are not, by one field
steps = st.integers(0, 13).flatmap(
    lambda k: valid_steps if k < 12 else broken_steps() if k == 12 else scalars
)
runs = st.fixed_dictionaries(
    {"task_id": st.sampled_from(["t1", "t2"]), "steps": st.lists(steps, max_size=4)},
    optional={"meta": st.just({"a": [1]})},
).flatmap(
    lambda run: st.integers(0, 7).flatmap(
        lambda k: (
            st.just(run)
            if k == 7
            else (scalars if k == 6 else st.sampled_from(["r1", "r2"])).map(
                lambda rid: {"run_id": rid, **run}
            )
        )
    )
)


@settings(max_examples=500, deadline=None)
@given(st.lists(runs, min_size=1, max_size=3), st.booleans(), st.booleans())
def test_typed_agrees_with_the_reference(records: list[Any], lines: bool, ascii_only: bool) -> None:
    texts = [json.dumps(r, ensure_ascii=ascii_only) for r in records]
    if lines:
        assert _typed("\n".join(texts) + "\n", lines=True) == typed_reference(records)
    else:
        assert _typed(texts[0], lines=False) == typed_reference(records[:1])


def _load(path: Path, typed: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The rows one file's ingest stores (or its one-line error), with the scan's ``typed``
    used or ignored (every step then checked field by field in SQL)."""
    measure_all = loader.measure_all

    def measured(found: Any, limit: int) -> Any:
        for source in measure_all(found, limit):
            if not typed and not isinstance(source, InputError):
                source = dataclasses.replace(source, typed_steps=False)
            yield source

    with monkeypatch.context() as patch:
        patch.setattr(loader, "measure_all", measured)
        con = connect(None)
        try:
            ingest([path], con)
            return {
                t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                for t in ("runs", "steps")
            }
        except InputError as error:
            return str(error)
        finally:
            con.close()


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(runs, min_size=1, max_size=3), st.booleans())
def test_ingest_stores_the_same_with_or_without_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, records: list[Any], lines: bool
) -> None:
    path = tmp_path / ("runs.jsonl" if lines else "run.json")
    texts = [json.dumps(r) for r in records]
    path.write_text("\n".join(texts) + "\n" if lines else texts[0])
    assert _load(path, True, monkeypatch) == _load(path, False, monkeypatch)
