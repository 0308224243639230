"""What the compiled byte scan notes besides nesting (``_scan.Scan``), checked against Python's
own parse on random documents cut into random blocks: the first record's top-level keys, the
keys of its ``steps`` objects, the first repeated top-level key, bare NaN/Infinity, and where
a document's ``steps`` list lies."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.formats._scan import Scan

keys = st.sampled_from(["run_id", "task_id", "steps", "meta", "é", 'q"x', "a\\b", "k" * 70])
leaf = st.none() | st.integers() | st.text(max_size=5) | st.sampled_from(["{", "]", '"', "\n"])
value = st.recursive(
    leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)
step = st.dictionaries(keys, value, max_size=4) | leaf
record = st.dictionaries(keys, value, max_size=5).flatmap(
    lambda r: st.lists(step, max_size=4).map(lambda s: {**r, "steps": s}) | st.just(r)
)


def _pairs(text: str) -> list[tuple[str, Any]]:
    """The top-level (key, value) pairs of a record, repeats kept."""
    found: list[list[tuple[str, Any]]] = []
    json.loads(text, object_pairs_hook=lambda p: found.append(p) or dict(p))
    return found[-1]


def _scan(data: bytes, lines: bool, cuts: list[int]) -> Scan:
    scan = Scan(lines, 200)
    at = 0
    for cut in [*sorted({min(c, len(data)) for c in cuts}), len(data)]:
        assert scan.feed(data[at:cut])[0] == 0
        at = cut
    return scan


def _raw(key: str) -> bytes:
    return json.dumps(key, ensure_ascii=False).encode()[1:-1]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(record, min_size=1, max_size=3),
    st.booleans(),
    st.booleans(),
    st.lists(st.integers(0, 400), max_size=4),
)
def test_keys_seen_as_python_sees_them(
    records: list[dict[str, Any]], lines: bool, spaced: bool, cuts: list[int]
) -> None:
    texts = [
        json.dumps(r, ensure_ascii=False, indent=None if lines or not spaced else 1)
        for r in records
    ]
    if not lines:
        texts = texts[:1]
    scan = _scan("\n".join(texts).encode() + b"\n", lines, cuts)
    first = records[0]
    want_top = tuple(_raw(k) for k in first)
    got_top = scan.first_keys()
    assert (got_top is None and any(len(_raw(k)) > 64 for k in first)) or got_top == want_top
    steps = first.get("steps")
    got_steps = scan.step_keys()
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        assert got_steps is None
    elif got_steps is not None:
        assert set(got_steps) == {_raw(k) for s in steps for k in s}
    else:
        assert any(len(_raw(k)) > 64 for s in steps for k in s)
    assert scan.duplicate is None and not scan.non_finite


@settings(max_examples=300, deadline=None)
@given(record, st.booleans(), st.lists(st.integers(0, 400), max_size=4))
def test_steps_span_is_where_the_steps_list_lies(
    run: dict[str, Any], spaced: bool, cuts: list[int]
) -> None:
    data = json.dumps(run, ensure_ascii=False, indent=1 if spaced else None).encode()
    span = _scan(b" " + data + b"\n", False, cuts).steps_span
    if not isinstance(run.get("steps"), list):
        assert span is None
        return
    assert span is not None
    start, end = span[0] - 1, span[1] - 1  # the leading space
    assert json.loads(data[start:end]) == run["steps"]
    assert json.loads(data[:start] + b"[]" + data[end:]) == {**run, "steps": []}
    assert _scan(data + b"\n", True, cuts).steps_span is None  # JSON Lines: never


def test_repeated_top_level_key_and_bare_nan_are_noted() -> None:
    scan = _scan(b'{"a": 1}\n{"b": {"b": 1}, "c": NaN, "b": 2}\n', True, [9])
    assert scan.duplicate == (2, b"b") and scan.non_finite
    scan = _scan(b'{"a": "NaN Infinity", "b": {"a": 1, "a": 2}}', False, [])
    assert scan.duplicate is None and not scan.non_finite
    assert _pairs('{"a": 1, "a": 2}') == [("a", 1), ("a", 2)]
