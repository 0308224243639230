"""Case 11: bad bytes and lone surrogates are reported on the right line; a .json file holds
exactly one document; hostile file names cannot garble error lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reportgen.errors import InputError, show
from tests.conftest import make_run
from tests.hostile.conftest import cli, one_line
from tests.hostile.fingerprint import archive_fingerprint

RUN = json.dumps(make_run("t1", run_id="r1"))
RUN2 = json.dumps(make_run("t2", run_id="r2"))


@pytest.mark.parametrize(
    ("content", "where", "what"),
    [
        (RUN.replace('"t1"', '"\\udc80"').encode() + b"\n", ":1:", "lone surrogate"),
        (RUN.encode() + b"\n" + RUN2.replace('"t2"', '"\\udc80"').encode(), ":2:", "surrogate"),
        (RUN.replace("t1", "t\udcff").encode("utf-8", "surrogateescape"), ":1:", "not UTF-8"),
        (
            RUN.encode() + b"\n" + RUN2.replace("t2", "t\udcff").encode("utf-8", "surrogateescape"),
            ":2:",
            "not UTF-8",
        ),
    ],
)
def test_bad_text_is_reported_on_its_line(
    content: bytes, where: str, what: str, tmp_path: Path, archive: Path
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    before = archive_fingerprint(archive)
    result = cli("ingest", path, "--db", archive)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, f"{path}{where}", what)
    assert archive_fingerprint(archive) == before


@pytest.mark.parametrize(
    ("content", "line"), [(RUN + RUN2, 1), (RUN + "\n" + RUN2 + "\n", 2), (RUN + " [1]", 1)]
)
def test_json_file_with_two_documents_is_refused(
    content: str, line: int, tmp_path: Path, archive: Path
) -> None:
    path = tmp_path / "two.json"
    path.write_text(content)
    before = archive_fingerprint(archive)
    result = cli("ingest", path, "--db", archive)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, f"{path}:{line}:", "more than one JSON document")
    assert archive_fingerprint(archive) == before


def test_json_file_with_one_document_and_trailing_space_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(RUN + "\n\n  \n")
    result = cli("ingest", path, "--db", tmp_path / "a.duckdb", "-q")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("name", ["line\nbreak.jsonl", "red\x1b[31mtext.jsonl", "bell\x07.jsonl"])
def test_hostile_file_names_are_escaped(name: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_text("{bad json\n")
    result = cli("ingest", path, "--db", tmp_path / "a.duckdb")
    assert result.exit_code == 1, result.output
    text = one_line(result.stderr, show(str(path)))
    assert "\x1b" not in text and "\x07" not in text
    assert show(str(path)).startswith('"')


def test_show_rule() -> None:
    assert show("/tmp/plain name.json") == "/tmp/plain name.json"
    assert show('a\n"b\\.json') == '"a\\n\\"b\\\\.json"'
    assert show("x\x1b[0m") == '"x\\x1b[0m"'
    assert show("t\udcff.json") == '"t\\udcff.json"'
    assert str(InputError("a\nb", "bad\x1b", line=3, field="f")) == '"a\\nb":3: f: bad\\x1b'
