"""A run's meta is parsed with orjson where orjson reads it as json does, else with json: the
dict is json's for any meta (run_text.parse_meta)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.divergence.run_text import _parsed

values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False) | st.text(max_size=8)
    | st.integers(-(2**70), 2**70),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)  # fmt: skip


def _json(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=6), values, max_size=4) | values)
def test_meta_parses_as_json_reads_it(meta: Any) -> None:
    raw = json.dumps(meta)
    assert _parsed(raw) == _json(raw)
    assert repr(_parsed(raw)) == repr(_json(raw))  # ints stay ints, floats floats


def test_text_json_reads_and_orjson_refuses() -> None:
    assert repr(_parsed('{"a": NaN, "b": 12345678901234567890123}')) == repr(
        {"a": float("nan"), "b": 12345678901234567890123}
    )
    assert _parsed("not json") == {} and _parsed("[1]") == {} and _parsed(None) == {}
