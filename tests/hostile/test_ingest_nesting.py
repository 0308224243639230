"""Case 9: records nested deeper than MAX_DEPTH are refused at ingest (file and line), so no
later step (diagnosis, schema checks, the site build) can hit a RecursionError."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reportgen.convergence import reading
from reportgen.convergence.reading import BadInput, load_json
from reportgen.formats.nesting import MAX_DEPTH, NestingScanner
from tests.conftest import make_run
from tests.hostile.conftest import cli, one_line
from tests.hostile.fingerprint import archive_fingerprint


def nested_run(depth: int) -> str:
    """A valid trace run whose whole record nests ``depth`` levels (run, steps, step, input)."""
    inner = depth - 3  # the run object, its steps array, the step object
    value = "[" * inner + "]" * inner
    return (
        '{"task_id": "deep", "steps": [{"type": "tool", "action": "a", "status": "ok", '
        f'"input": {value}}}]}}'
    )


def test_hundred_thousand_deep_json_document(tmp_path: Path, archive: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    before = archive_fingerprint(archive)
    result = cli("ingest", path, "--db", archive)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, f"{path}:1:", f"nested more than {MAX_DEPTH} levels")
    assert archive_fingerprint(archive) == before


def test_thousand_deep_jsonl_line_names_its_line(tmp_path: Path, archive: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(make_run("ok")) + "\n" + nested_run(1000) + "\n")
    before = archive_fingerprint(archive)
    result = cli("ingest", path, "--db", archive)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, f"{path}:2:", "nested more than")
    assert archive_fingerprint(archive) == before


def test_deep_gzip_line_refused_too(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "deep.jsonl.gz"
    path.write_bytes(gzip.compress((nested_run(MAX_DEPTH + 1) + "\n").encode()))
    result = cli("ingest", path, "--db", tmp_path / "a.duckdb")
    assert result.exit_code == 1, result.output
    one_line(result.stderr, f"{path}:1:", "nested more than")


def test_the_deepest_accepted_record_ingests_and_builds(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    folder = tmp_path / "runs" / "baseline"
    folder.mkdir(parents=True)
    (folder / "deep.jsonl").write_text(nested_run(MAX_DEPTH) + "\n")
    result = cli("ingest", folder, "--db", db, "-q")
    assert result.exit_code == 0, result.output
    result = cli("build", "--out", tmp_path / "site", "--db", db)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("text", "deepest_ok"),
    [
        ('{"a": "[[[[[[[[[["}', True),  # brackets inside strings do not count
        ('{"a": "\\"[[[[[[[[[["}', True),  # nor after an escaped quote
        ('{"a": "\\\\"}', True),
        ('{"a": [[[[[[[[[[]]]]]]]]]]}', False),
    ],
)
def test_scanner_ignores_strings(text: str, deepest_ok: bool) -> None:
    for chunk in (1, 3, len(text)):
        scanner = NestingScanner(lines=False, max_depth=5)
        problems = [scanner.feed(text[i : i + chunk].encode()) for i in range(0, len(text), chunk)]
        assert (not any(problems)) == deepest_ok, (text, chunk)


def test_converge_cli_on_deep_input(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    result = cli("converge", path)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(path), "nested more than")


def test_converge_reader_refuses_deep_input(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    path.write_text('{"runs": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(BadInput, match=f"{path} is not valid JSON: line 1: nested more than"):
        load_json(str(path))


def test_converge_reader_refuses_unbounded_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "MAX_INPUT_BYTES", 4 << 20)
    with pytest.raises(BadInput, match="/dev/zero is over the 4 MB converge reads"):
        load_json("/dev/zero")


def test_converge_reader_reads_ordinary_input(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    path.write_text(json.dumps({"runs": ["a b", "a c"]}))
    assert load_json(str(path)) == {"runs": ["a b", "a c"]}
    with pytest.raises(BadInput, match="no such file"):
        load_json(str(tmp_path / "missing.json"))
    (tmp_path / "bad.json").write_bytes(b'["\xff"]')
    with pytest.raises(BadInput, match="not readable text"):
        load_json(str(tmp_path / "bad.json"))


def test_deep_member_of_an_inspect_eval_zip(tmp_path: Path) -> None:
    import zipfile

    header = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m"}}
    log = tmp_path / "log.eval"
    with zipfile.ZipFile(log, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(header))
        archive.writestr(
            "samples/1_epoch_1.json", '{"id": 1, "x": ' + "[" * 5000 + "]" * 5000 + "}"
        )
    result = cli("ingest", log, "--db", tmp_path / "a.duckdb")
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(log), "nested more than")
