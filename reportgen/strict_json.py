"""Strict JSON for machine output (``--json``): parsers such as jq reject ``NaN`` and
``Infinity``, which Python's json module writes by default.

``dumps_bytes`` and ``iter_json`` (every ``--json`` but ``converge``) encode with orjson, in C:
keys sorted, two-space indent, UTF-8 (non-ASCII is not escaped), floats in orjson's shortest
round-trip form (``0.00001`` where Python writes ``1e-05``: the same number). ``dumps_line``
writes one compact line (each pair of compare/gate ``--json``, given to ``iter_json`` as a
``LazyArray`` of lines), with the same number text. ``converge``
keeps ``StrictJSONEncoder`` (the stdlib's text, byte for byte as agent-convergence-scorer).

A non-finite float becomes ``null``: the contract's nullable numbers already mean "not
defined", and where a field has a sibling that says why (``cost_delta_note`` beside
``cost_delta_percentage``), the metrics fill it in themselves."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import orjson


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


_OPTIONS = (
    orjson.OPT_INDENT_2
    | orjson.OPT_SORT_KEYS
    | orjson.OPT_NON_STR_KEYS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)


def _default(obj: Any) -> Any:
    """What orjson cannot encode itself, as the stdlib encoder with ``default=str`` would
    write it: float and int subclasses (numpy scalars) as numbers, anything else as str."""
    if isinstance(obj, float):
        return float(obj)
    if isinstance(obj, int):
        return int(obj)
    return str(obj)


_LINE = _OPTIONS & ~orjson.OPT_INDENT_2


def dumps_line(obj: Any, raw: dict[str, bytes] | None = None) -> bytes:
    """``obj`` as compact (one-line), key-sorted strict JSON, encoded by orjson; ``raw``: values
    of ``obj`` given as JSON text already (compact), written as they are. What orjson refuses
    is written by the stdlib encoder, as in :func:`dumps_bytes` (``raw`` parsed first)."""
    value = obj if not raw else {**obj, **{k: orjson.Fragment(t) for k, t in raw.items()}}
    try:
        return orjson.dumps(value, default=_default, option=_LINE)
    except orjson.JSONEncodeError:
        if raw:
            value = {**obj, **{k: json.loads(t) for k, t in raw.items()}}
        encoder = StrictJSONEncoder(sort_keys=True, default=_default, separators=(",", ":"))
        return "".join(encoder.iterencode(value)).encode("ascii")


def dumps_bytes(obj: Any) -> bytes:
    """``obj`` as indented, key-sorted strict JSON (UTF-8), encoded by orjson. What orjson
    refuses (integers beyond 64 bits, lone surrogates, nesting past 254 levels) is written by
    the stdlib encoder instead: the same content, ASCII-escaped, in Python's float text."""
    try:
        return orjson.dumps(obj, default=_default, option=_OPTIONS)
    except orjson.JSONEncodeError:
        encoder = StrictJSONEncoder(indent=2, sort_keys=True, default=_default)
        return "".join(encoder.iterencode(obj)).encode("ascii")


class LazyArray:
    """A JSON array whose items are made while it is written (e.g. pairs whose steps are read
    batch by batch): ``iter_json`` writes it, as a value of the top-level dict, like a list.
    ``lines``: the items are compact JSON texts already (:func:`dumps_line`), written one per
    line as they are."""

    def __init__(
        self, items: Callable[[], Iterable[Any]], length: int, *, lines: bool = False
    ) -> None:
        self.items = items
        self.length = length
        self.lines = lines

    def __len__(self) -> int:
        return self.length


def iter_json(data: Any) -> Iterator[bytes]:
    """``dumps_bytes(data)`` in pieces: a dict's list values item by item, so a report of
    10,000 pairs is never one bytes object. The pieces join to exactly ``dumps_bytes(data)``
    (for orjson-encodable data): nested text is re-indented, as a JSON string never holds a
    raw newline. A ``LazyArray`` value is written item by item as it makes them (of
    ``lines``, each item on its own line, compact)."""
    if not isinstance(data, dict) or not data or not all(isinstance(k, str) for k in data):
        yield dumps_bytes(data)
        return
    for n, key in enumerate(sorted(data)):
        yield (b"{\n  " if n == 0 else b",\n  ") + orjson.dumps(key) + b": "
        value = data[key]
        if isinstance(value, list | tuple | LazyArray) and len(value):
            lines = isinstance(value, LazyArray) and value.lines
            items = value.items() if isinstance(value, LazyArray) else value
            for i, item in enumerate(items):
                text = item if lines else dumps_bytes(item).replace(b"\n", b"\n    ")
                yield (b"[\n    " if i == 0 else b",\n    ") + text
            yield b"\n  ]"
        elif isinstance(value, LazyArray):
            yield b"[]"
        else:
            yield dumps_bytes(value).replace(b"\n", b"\n  ")
    yield b"\n}"
