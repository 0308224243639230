"""Secrets never published, whatever their disguise or column: a key JSON-escaped, in an env
list, URL-encoded, split by a zero-width character or wrapped in base64 (a Basic authorization
header, a base64 blob that decodes to a key), in a step's free-text ``type``, in its
input keys and in an iteration's failing check ids (lists of text) never reaches a page or
``data/``; outside a build, a secret in a task id never reaches the PR comment
(``--markdown``), ``gate``'s error line or ``--explain``."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import pytest

from reportgen.ingest import ingest
from reportgen.site import build_site
from tests.hostile.conftest import ROOT, cli, write_runs
from tests.site.published import published_text

# Built by concatenation so that no secret scanner flags this file.
AWS = "e" * 40
DISGUISED = {
    "json-escaped": '{"env": "AWS_SECRET_ACCESS_KEY=\\"' + AWS + '\\""}',
    "env list": '{"name": "AWS_SECRET_ACCESS_KEY", "value": "' + "f" * 40 + '"}',
    "url-encoded": "aws_secret_access_key%3D" + "g" * 40,
    "zero-width": "sk-ant-\u200b" + "Q" * 40,
}
WRAPPED = {  # base64 text of a secret: the needle is the base64 itself
    "basic auth": "admin:" + "h" * 24,
    "base64 key": "token sk-ant-api03-" + "B" * 40,
    "base64 aws": '{"aws_secret_access_key": "' + "i" * 40 + '"}',
}
ENCODED = {name: base64.b64encode(text.encode()).decode() for name, text in WRAPPED.items()}
DISGUISED |= {
    "basic auth": '{"headers": {"Authorization": "Basic ' + ENCODED["basic auth"] + '"}}',
    "base64 key": "blob " + ENCODED["base64 key"] + " end",
    "base64 aws": "config=" + ENCODED["base64 aws"],
}
NEEDLES = [AWS, "f" * 40, "g" * 40, "Q" * 40, "K" * 36, "T" * 36, "F" * 36, *ENCODED.values()]
KEY_AS_NAME = "ghp_" + "K" * 36  # an input key
TYPE_TEXT = "ghp_" + "T" * 36  # a step type
FAILING_ID = "ghp_" + "F" * 36  # an iteration's failing check


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("disguised")
    runs = [
        {
            "task_id": f"task-{name.replace(' ', '-')}",
            "label": label,
            "suite": "s",
            "started_at": "2026-11-28T02:00:00Z",
            "steps": [
                {
                    "type": "tool",
                    "action": "call",
                    "input": {"q": 1},
                    "output": text,
                    "status": "ok",
                },
                {
                    "type": TYPE_TEXT,
                    "action": "other",
                    "input": {KEY_AS_NAME: 1},
                    "output": "x",
                    "status": "ok",
                },
            ],
        }
        for name, text in DISGUISED.items()
        for label in ("baseline", "candidate")
    ]
    sample = ROOT / "sample_runs" / "iterations" / "backlog-thrashing.jsonl"
    records = [json.loads(line) for line in sample.read_text().splitlines() if line.strip()]
    for record in records:
        record["failing"] = [*record.get("failing", []), FAILING_ID]
    iterations = root / "iterations" / "loop.jsonl"
    iterations.parent.mkdir()
    iterations.write_text("".join(json.dumps(r) + "\n" for r in records))
    db = root / "a.duckdb"
    ingest([write_runs(root / "runs" / "runs.jsonl", runs), iterations], db)
    return db


def test_no_disguised_secret_reaches_the_site(archive: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(archive, site, build_time="2026-11-29T06:00:00Z")
    text = published_text(site)
    assert [n for n in NEEDLES if n in text] == []
    assert "[REDACTED]" in text


def test_a_secret_task_id_stays_out_of_comments_and_logs(tmp_path: Path) -> None:
    secret = "ghp_" + "S" * 36
    runs = {
        side: [
            {
                "task_id": f"deploy {secret}",
                "label": side,
                "suite": "s",
                "steps": [{"type": "tool", "action": "a", "status": "ok"}] * (1 + i),
            }
        ]
        for i, side in enumerate(("baseline", "candidate"))
    }
    folders = [write_runs(tmp_path / side / "r.jsonl", runs[side]).parent for side in runs]
    markdown = cli("compare", *folders, "--markdown")
    explained = cli("compare", *folders, "--explain")
    gate = cli("compare", *folders, "--max-divergence", "0")
    assert gate.exit_code == 3
    for result in (markdown, explained, gate):
        assert "S" * 36 not in result.stdout + result.stderr
    assert "REDACTED" in markdown.stdout and "REDACTED" in gate.stderr


@pytest.mark.parametrize(
    "text",
    ["task-0001-" + "x" * 30, "desk_live_" + "a" * 20, "pathf_" + "b" * 40, "NASIA" + "C" * 16],
)
def test_ordinary_ids_holding_a_prefix_are_not_secrets(text: str) -> None:
    """A key's prefix must start a word: an id that merely holds ``sk-`` is shown whole."""
    from reportgen.secrets import redact_text

    assert redact_text(text) == text


def test_a_readme_note_cannot_reassemble_a_key_by_rendering(tmp_path: Path) -> None:
    """A README note that writes a key with Markdown escapes, an entity or percent-encoding
    in a link: the archive's redaction cannot see it in the source, rendering reassembles
    it; it is redacted after rendering, and published nowhere."""
    key = "sk-ant-api03-" + "W" * 40
    folder = tmp_path / "suite"
    note = (
        "# Notes\n\n"
        f"escaped: {key.replace('-', chr(92) + '-')}\n\n"
        f"entity: {key.replace('-', '&#45;')}\n\n"
        f"<https://example.com/{key.replace('-', '%2D')}>\n"
    )
    folder.mkdir()
    (folder / "README.md").write_text(note)
    run = {"task_id": "t", "suite": "s", "steps": [{"type": "tool", "action": "a", "status": "ok"}]}
    write_runs(
        folder / "runs.jsonl", [dict(run, label=label) for label in ("baseline", "candidate")]
    )
    db = tmp_path / "a.duckdb"
    ingest([folder], db)
    site = tmp_path / "site"
    build_site(db, site, build_time="2026-11-29T06:00:00Z")
    text = published_text(site)
    assert "W" * 40 not in text
    assert "[REDACTED]" in text


@pytest.mark.parametrize("name", sorted(DISGUISED))
def test_redact_text_hides_each_disguise_outside_a_build(name: str) -> None:
    """The PR comment, the terminal and CI logs: the same disguises, base64 included."""
    from reportgen.escape import md_text, term_text
    from reportgen.secrets import redact_text

    for shown in (
        redact_text(DISGUISED[name]),
        md_text(DISGUISED[name]),
        term_text(DISGUISED[name]),
    ):
        assert [n for n in NEEDLES if n in shown] == [], shown
        assert "REDACTED" in shown


@pytest.mark.parametrize(
    "wrapped",
    [
        "user:ghp_" + "G" * 36,  # a short prefix: found by decoding the run
        "xoxb-" + "1234567890-abcdef",
        "AKIA" + "D" * 16,
        "sk-ant-api03-" + "Z" * 40,
    ],
)
@pytest.mark.parametrize("before", ["", "x=", "Basic ", "abc"])
def test_a_base64_run_that_decodes_to_a_key_is_redacted(wrapped: str, before: str) -> None:
    """Whatever the run's alignment in the text (it may start inside a word)."""
    from reportgen.secrets import redact_text

    encoded = base64.b64encode(wrapped.encode()).decode()
    shown = redact_text(f"{before}{encoded} trailing")
    assert encoded[4:-4] not in shown and "REDACTED" in shown and shown.endswith(" trailing")


@pytest.mark.parametrize(
    "text",
    [
        base64.b64encode(b"just an ordinary sentence, nothing secret in it").decode(),
        "sha256:" + "a3f9" * 16,
        "0123456789abcdef0123456789abcdef01234567",
        "src/module/path/to/some/deeply/nested/file_name.py",
        "The basic configuration works; authorization is basic here",
    ],
)
def test_ordinary_base64_and_hashes_are_not_secrets(text: str) -> None:
    from reportgen.secrets import redact_text

    assert redact_text(text) == text


def test_looking_for_base64_keys_costs_little_on_ordinary_text() -> None:
    """Only base64 runs of 24 characters or more are decoded: a MB of log-like text with
    hashes and paths is redacted in well under a second (about 0.05 s here)."""
    from reportgen.secrets import redact_text

    line = "2026-12-05 step 12 read src/reportgen/m12.py sha " + "9f" * 20 + " ok\n"
    text = line * (1_000_000 // len(line))
    started = time.process_time()
    assert redact_text(text) == text
    assert time.process_time() - started < 1.0
