"""The column-wise staging helper: payload encoding edge cases."""

from __future__ import annotations

import json

from reportgen.formats.adapters.rows import RawJson, json_text, to_json


def test_large_json_text_passes_through_unparsed() -> None:
    text = json.dumps([{"role": "user", "content": "x" * 3000}])
    assert json_text(text).__class__ is RawJson
    assert to_json(json_text(text)) == text


def test_small_json_text_is_parsed_for_its_keys() -> None:
    assert json_text('{"city": "Paris"}') == {"city": "Paris"}
    assert json_text("plain words") == "plain words"


def test_nan_becomes_null() -> None:
    assert to_json({"score": float("nan"), "ok": [1.0, float("inf")]}) == (
        '{"score": null, "ok": [1.0, null]}'
    )
