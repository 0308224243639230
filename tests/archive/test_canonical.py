"""The compiled check of canonical JSON (``_canonical.already_canonical``) never keeps a text
that ``canonical_text`` would change, keeps the usual stored payloads as they are, and the
batch function gives exactly the plain definition's texts."""

from __future__ import annotations

import contextlib
import json

import duckdb
import numpy as np
import orjson
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.archive import canonical
from reportgen.archive._canonical import already_canonical
from reportgen.archive.canonical import _batch, canonical_text, register_canonical

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(codec="utf-8"), max_size=8)
    | st.sampled_from(["a\nb", 'q"', "back\\slash", "\x01", "é", "\u2028", "/"])
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(alphabet='abAB_é\\"', max_size=3), inner, max_size=4)
    ),
    max_leaves=12,
)


def _texts(value: object) -> list[str]:
    """``value`` written the ways payloads arrive: sorted or not, spaced or not, escaped."""
    out = [json.dumps(value), json.dumps(value, separators=(",", ":"), ensure_ascii=False)]
    with contextlib.suppress(TypeError):  # integers beyond 64 bits
        out += [
            orjson.dumps(value).decode(),
            orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode(),
        ]
    return out


def _flags(texts: list[str]) -> list[bool]:
    raw = [t.encode() for t in texts]
    offsets = np.cumsum([0, *map(len, raw)]).astype(np.int64)
    return [bool(f) for f in already_canonical(np.frombuffer(b"".join(raw), np.uint8), offsets)]


@settings(max_examples=400, deadline=None)
@given(values)
def test_kept_texts_are_canonical_and_batches_match_the_definition(value: object) -> None:
    texts = _texts(value)
    for text, kept in zip(texts, _flags(texts), strict=True):
        if kept:
            assert canonical_text(text) == text
    assert _batch(pa.array([*texts, None])).to_pylist() == [*map(canonical_text, texts), None]


def test_usual_payloads_are_kept_and_others_are_not() -> None:
    kept = ['{"path":"src/m1.py","query":"xx"}', '"a\\nb"', "[1,true,null]", "{}", '{"a":{"b":[]}}']
    redone = ['{"b":1,"a":2}', '{"a":1.0}', '{"a": 1}', "-0", '{"a":1,"a":2}', '"\\u00e9"', "1e5"]
    assert _flags(kept) == [True] * len(kept)
    assert _flags(redone) == [False] * len(redone)
    assert _flags([""]) == [False]


def test_registering_again_is_harmless_on_a_connection_that_has_it() -> None:
    con = duckdb.connect()
    register_canonical(con)
    canonical._REGISTERED.discard(con)  # as a connection first seen here, defined elsewhere
    register_canonical(con)
    assert con.execute('SELECT rg_canonical_json(\'{"b": 1.0, "a": 2}\')').fetchone() == (
        '{"a":2,"b":1}',
    )
