"""The shortcuts of detection give the answers of the plain way: a Marked pattern matches where
its regex does, the first record is parsed once and as json.loads would, and measure hashes
an uncompressed file in its one pass as hashlib would over the whole file."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.errors import InputError
from reportgen.formats import source
from reportgen.formats.base import Marked, first_record
from reportgen.formats.source import CHUNK, SourceFile, measure

PATTERNS = [rb'"steps"\s*:\s*\[', rb'"trace_id"\s*:', rb'"version"\s*:\s*\d']
pieces = st.sampled_from(
    [b'"steps"', b'"steps": [', b'"trace_id"', b" : ", b'"version": 1', b"{", b"x", b"\n", b'"']
)


@settings(max_examples=300, deadline=None)
@given(st.lists(pieces, max_size=12).map(b"".join), st.sampled_from(PATTERNS))
def test_marked_matches_where_its_regex_does(head: bytes, pattern: bytes) -> None:
    got = Marked(pattern).search(head)
    want = re.compile(pattern).search(head)
    assert (got and got.span()) == (want and want.span())


def test_marked_derives_the_leading_key() -> None:
    assert Marked(rb'"agent_info"\s*:').literal == b'"agent_info"'


def _source(tmp_path: Path, name: str, data: bytes) -> SourceFile:
    path = tmp_path / name
    path.write_bytes(data)
    return measure(path, name, 1 << 24)


def test_first_record_is_parsed_once_and_as_json_would(tmp_path: Path) -> None:
    source = _source(tmp_path, "a.json", json.dumps({"steps": [], "s": "\ud800"}).encode())
    record = first_record(source)
    assert record == json.loads(source.head)  # a lone surrogate: the json fallback
    assert first_record(source) is record


def test_first_record_of_a_truncated_head_is_none(tmp_path: Path) -> None:
    big = json.dumps({"steps": [{"output": "x" * 100} for _ in range(1000)]}).encode()
    assert first_record(_source(tmp_path, "big.json", big)) is None


def test_one_pass_hash_is_the_file_hash(tmp_path: Path) -> None:
    data = json.dumps({"steps": ["y" * 100] * (3 * CHUNK // 100)}).encode()
    assert _source(tmp_path, "h.json", data).content_hash == hashlib.sha256(data).hexdigest()
    packed = gzip.compress(data)
    assert _source(tmp_path, "h.json.gz", packed).content_hash == hashlib.sha256(packed).hexdigest()


def test_measure_all_keeps_file_order_and_each_error_in_its_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threads measure batches of files; the results (an InputError for a bad file) come back
    in the files' order, as measuring one file after another gives them."""
    monkeypatch.setattr(source, "MEASURE_THREADS", 2)
    monkeypatch.setattr(source, "MEASURE_BATCH", 3)
    found = []
    for i in range(40):
        path = tmp_path / f"f{i:02d}.json"
        path.write_bytes(b"" if i % 7 == 3 else json.dumps({"i": i, "steps": []}).encode())
        found.append((path, path.name))
    got = list(source.measure_all(found, 1 << 24))
    want: list[SourceFile | InputError] = []
    for path, name in found:
        try:
            want.append(measure(path, name, 1 << 24))
        except InputError as error:
            want.append(error)
    assert [type(g) for g in got] == [type(w) for w in want]
    for g, w in zip(got, want, strict=True):
        if isinstance(w, InputError):
            assert isinstance(g, InputError) and (g.path, g.message) == (w.path, w.message)
        else:
            assert g == w
