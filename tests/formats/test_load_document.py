"""``load_document`` (orjson over the bytes a file's measure kept) reads every document as
``parse_document`` (json) does, and fails with the same words where it fails."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from reportgen.errors import InputError
from reportgen.formats.adapters.rows import load_document, parse_document
from reportgen.formats.source import measure

DOCUMENTS = (
    b'{"a": 1, "b": [1.5, -0.0, 1e5, 0.0025249999999999995], "c": "\\u00e9\\u0000"}',
    b'{"a": 1, "b": 2, "a": 3}',
    b'{"big": 123456789012345678901234567890, "neg": -9999999999999999999}',
    b'{"u64": 18446744073709551615, "i64": -9223372036854775808}',
    b'{"exp": 1e00000000000000000001, "id": "12345678901234567890"}',
    b'{"surrogate": "\\ud800"}',
    b"12345678901234567890123",
    b'["x", {"y": null, "z": true}]',
)


@pytest.mark.parametrize("raw", DOCUMENTS)
def test_same_values_and_types_as_json(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(raw)
    source = measure(path, str(path), 1 << 26)
    fast, plain = load_document(source, "a test"), parse_document(source, "a test")
    assert fast == plain
    assert repr(fast) == repr(plain)  # 1 and 1.0 compare equal; their reprs do not


@pytest.mark.parametrize("raw", [b'{"a": 1', b'{"a": NaN}', b'{"a": 1} x', b"\xff{}"])
def test_same_errors_as_json(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(raw)
    try:
        source = measure(path, str(path), 1 << 26)
    except InputError:
        return  # measure refuses it before any adapter parses it
    with pytest.raises(InputError) as plain:
        parse_document(source, "a test")
    with pytest.raises(InputError) as fast:
        load_document(source, "a test")
    assert str(fast.value) == str(plain.value)


def _number(rng: random.Random, longest: int) -> str:
    whole = str(int("".join(rng.choices("0123456789", k=rng.randint(1, longest)))))
    fraction = "".join(rng.choices("0123456789", k=rng.randint(0, 20)))
    exponent = f"e{rng.randint(-330, 300)}" if rng.random() < 0.4 else ""
    return rng.choice(("", "-")) + whole + (f".{fraction}" if fraction else "") + exponent


def test_random_numbers_read_as_json_reads_them(tmp_path: Path) -> None:
    """Decimals and exponents as orjson reads them (no guard in the way: whole parts of up
    to 18 digits); then integers of any length, one a file, the guard deciding."""
    rng = random.Random(19)
    path = tmp_path / "numbers.json"
    path.write_text("[" + ",".join(_number(rng, 18) for _ in range(3000)) + "]")
    source = measure(path, str(path), 1 << 26)
    assert repr(load_document(source, "a test")) == repr(parse_document(source, "a test"))
    for _ in range(300):
        number = _number(rng, 25)
        path.write_text(f'{{"n": {number}}}')
        source = measure(path, str(path), 1 << 26)
        assert repr(load_document(source, "a")) == repr(parse_document(source, "a")), number
