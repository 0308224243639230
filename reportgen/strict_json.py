"""Strict JSON for machine output (``--json``): parsers such as jq reject ``NaN`` and
``Infinity``, which Python's json module writes by default.

A non-finite float becomes ``null``: the contract's nullable numbers already mean "not
defined", and where a field has a sibling that says why (``cost_delta_note`` beside
``cost_delta_percentage``), the metrics fill it in themselves."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any


def strict_json_value(obj: Any) -> Any:
    """A copy of ``obj`` (dicts, lists, tuples, scalars) with every non-finite float replaced
    by None. Iterative, so deeply nested agent payloads cannot exhaust the stack."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if not isinstance(obj, dict | list | tuple):
        return obj
    root: list[Any] = [None]
    # (container to fill, key or index in it, value to convert)
    stack: list[tuple[Any, Any, Any]] = [(root, 0, obj)]
    while stack:
        parent, key, value = stack.pop()
        if isinstance(value, float):
            parent[key] = value if math.isfinite(value) else None
        elif isinstance(value, dict):
            copy: dict[Any, Any] = dict.fromkeys(value)
            parent[key] = copy
            stack.extend((copy, k, v) for k, v in value.items())
        elif isinstance(value, list | tuple):
            items: list[Any] = [None] * len(value)
            parent[key] = items
            stack.extend((items, i, v) for i, v in enumerate(value))
        else:
            parent[key] = value
    return root[0]


class StrictJSONEncoder(json.JSONEncoder):
    """A JSONEncoder that writes non-finite floats as null (never NaN or Infinity), in the one
    pass that encodes: the stdlib's own encoding loop with a float formatter of ours, so
    finite numbers are written exactly as ``json.dumps`` writes them and nothing is copied."""

    def iterencode(self, o: Any, _one_shot: bool = False) -> Iterator[str]:
        def floatstr(value: float) -> str:
            return float.__repr__(value) if math.isfinite(value) else "null"

        encode = (
            json.encoder.encode_basestring_ascii
            if self.ensure_ascii
            else json.encoder.encode_basestring
        )
        iterencode = json.encoder._make_iterencode(  # type: ignore[attr-defined]
            {} if self.check_circular else None,
            self.default,
            encode,
            self.indent,
            floatstr,
            self.key_separator,
            self.item_separator,
            self.sort_keys,
            self.skipkeys,
            _one_shot,
        )
        return iterencode(o, 0)  # type: ignore[no-any-return]


def strict_dumps(obj: Any, **options: Any) -> str:
    """``json.dumps(obj, **options)`` with non-finite floats written as null."""
    return "".join(StrictJSONEncoder(**options).iterencode(obj))
