"""Machine output (``--json``) through orjson: the same content as the stdlib encoder wrote
before (same keys, sorted, same numbers), with floats in orjson's text and non-ASCII
unescaped; streamed in pieces that join to the one-shot encoding."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.strict_json import LazyArray, StrictJSONEncoder, dumps_bytes, dumps_line, iter_json

# (value, the exact text written): orjson's shortest round-trip form, pinned
AWKWARD_FLOATS = [
    (1e16, "1e+16"),
    (1e-05, "0.00001"),
    (2.5e-05, "0.000025"),
    (1e-07, "1e-7"),
    (0.1, "0.1"),
    (0.1 + 0.2, "0.30000000000000004"),
    (100.0, "100.0"),
    (-0.0, "-0.0"),
    (1e15, "1000000000000000.0"),
    (1.5e300, "1.5e+300"),
    (5e-324, "5e-324"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
    (123456789012345680.0, "1.2345678901234568e+17"),
    (math.inf, "null"),
    (-math.inf, "null"),
    (math.nan, "null"),
]


def _stdlib(obj: Any) -> str:
    """The encoding of every --json output before orjson (converge still uses it)."""
    return "".join(StrictJSONEncoder(indent=2, sort_keys=True, default=str).iterencode(obj))


def _same(a: Any, b: Any) -> bool:
    """Equal values, floats compared bit for bit (so 0.0 and -0.0 differ)."""
    if isinstance(a, float) or isinstance(b, float):
        return (
            isinstance(a, float)
            and isinstance(b, float)
            and struct.pack("<d", a) == struct.pack("<d", b)
        )
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize(("value", "text"), AWKWARD_FLOATS)
def test_awkward_float_text_is_pinned(value: float, text: str) -> None:
    assert dumps_bytes(value).decode() == text
    assert dumps_bytes({"x": [value]}).decode() == f'{{\n  "x": [\n    {text}\n  ]\n}}'


@pytest.mark.parametrize(("value", "text"), AWKWARD_FLOATS)
def test_one_line_json_writes_floats_as_the_indented(value: float, text: str) -> None:
    """A pair of compare --json is one compact line: reportgen's numbers in the same text."""
    assert dumps_line({"x": [value]}).decode() == f'{{"x":[{text}]}}'


def test_one_line_json_writes_large_integers_exactly() -> None:
    assert dumps_line({"a": 2**63 - 1, "b": -(2**63)}) == (
        b'{"a":9223372036854775807,"b":-9223372036854775808}'
    )


def test_one_line_json_sorts_keys_and_keeps_raw_text() -> None:
    line = dumps_line({"b": 1, "a": {"z": 0, "y": 1.5}}, {"c": b'[{"q":2,"p":1}]'})
    assert line == b'{"a":{"y":1.5,"z":0},"b":1,"c":[{"q":2,"p":1}]}'


def test_one_line_json_falls_back_to_the_stdlib_with_raw_text_parsed() -> None:
    line = dumps_line({"n": 10**30, "f": math.nan}, {"r": b"[1.0]"})
    assert line == b'{"f":null,"n":1000000000000000000000000000000,"r":[1.0]}'


def test_lines_of_a_lazy_array_are_written_one_per_line() -> None:
    data = {"pairs": LazyArray(lambda: [b'{"a":1}', b'{"b":[2]}'], 2, lines=True), "z": [1]}
    text = b"".join(iter_json(data))
    assert text == b'{\n  "pairs": [\n    {"a":1},\n    {"b":[2]}\n  ],\n  "z": [\n    1\n  ]\n}'
    assert json.loads(text) == {"pairs": [{"a": 1}, {"b": [2]}], "z": [1]}
    assert b"".join(iter_json({"p": LazyArray(lambda: [], 0, lines=True)})) == b'{\n  "p": []\n}'


@pytest.mark.parametrize(("value", "_text"), AWKWARD_FLOATS)
def test_awkward_floats_parse_to_the_same_value_as_before(value: float, _text: str) -> None:
    assert _same(json.loads(dumps_bytes(value)), json.loads(_stdlib(value)))


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_same_content_as_the_stdlib_encoder(value: Any) -> None:
    assert _same(json.loads(dumps_bytes(value)), json.loads(_stdlib(value)))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=6), json_values, max_size=5))
def test_streamed_pieces_join_to_the_one_shot_text(value: dict[str, Any]) -> None:
    assert b"".join(iter_json(value)) == dumps_bytes(value)


def test_layout_is_the_stdlib_indent_2_for_ascii_data() -> None:
    data = {"b": [1, {}, []], "a": {"y": None, "x": True}, "c": "text"}
    assert dumps_bytes(data).decode() == _stdlib(data)
    assert b"".join(iter_json(data)).decode() == _stdlib(data)


def test_non_ascii_is_written_as_utf8_not_escaped() -> None:
    assert dumps_bytes({"k": "é\u2028✓"}) == '{\n  "k": "é\u2028✓"\n}'.encode()


def test_what_orjson_refuses_falls_back_to_the_stdlib_encoder() -> None:
    big = {"n": 10**30, "f": math.inf}
    assert dumps_bytes(big).decode() == _stdlib(big)
    surrogate = {"s": "\ud800"}
    assert json.loads(dumps_bytes(surrogate)) == surrogate


def test_numpy_scalars_and_other_objects_as_before() -> None:
    data = {"f": np.float64(0.5), "i": np.int64(3), "p": Path("a/b"), "n": np.float64("nan")}
    # np.float64 is a float (a number, as before); np.int64 is not an int: str, as before
    assert json.loads(dumps_bytes(data)) == json.loads(_stdlib(data))
    assert json.loads(dumps_bytes(data)) == {"f": 0.5, "i": "3", "p": "a/b", "n": None}


def test_cli_json_has_the_content_of_the_stdlib_encoding(tmp_path: Path) -> None:
    """compare --json of the demo archive: the exact values the stdlib encoder wrote."""
    from reportgen.archive import connect
    from reportgen.demo import run_demo
    from reportgen.evaluation import evaluate_labels

    db, _report, _summary = run_demo(tmp_path / "demo", site=False)
    result = CliRunner().invoke(app, ["compare", "--db", str(db), "--json"])
    assert result.exit_code in (0, 3), result.output
    con = connect(db, read_only=True)
    try:
        comparison = evaluate_labels(con, "baseline", "candidate")
        expected = _stdlib(comparison.to_json())
    finally:
        con.close()
    assert _same(json.loads(result.stdout), json.loads(expected))
