"""Redaction is on by default for published output: no fake secret of any built-in kind, put
in step input and output, run meta, a task id and a README note, reaches any page or data
file; ``--no-redact`` publishes them raw; ``--redact`` adds patterns; ``--no-payloads`` drops
the free text."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from reportgen.ingest import ingest
from reportgen.site import build_site
from reportgen.site.redaction import SECRET_PATTERNS, Redaction
from tests.site.published import published_text

# Built by concatenation so that no secret scanner flags this file.
FAKE = {
    "anthropic/openai key": "sk-" + "ant-api03-" + "Q" * 40,
    "google api key": "AIza" + "B" * 35,
    "github token": "ghp_" + "c" * 36,
    "aws access key id": "AKIA" + "D" * 16,
    "aws secret key": "aws_secret_access_key=" + "e" * 40,
    "slack token": "xoxb-" + "1234567890-abcdef",
    "stripe key": "sk_live_" + "f" * 24,
    "hugging face token": "hf_" + "g" * 34,
    "bearer token": "Bearer " + "h" * 32,
    "private key block": "-----BEGIN RSA PRIVATE KEY-----\nMIIE" + "i" * 40
    + "\n-----END RSA PRIVATE KEY-----",
    "password in url": "postgres://admin:" + "hunter2hunter2" + "@db.example.com/app",
    "basic auth credentials": "Authorization: Basic " + base64.b64encode(b"admin:jjjjjjjjjjjj").decode(),
    "base64-wrapped key": base64.b64encode(b"key sk-ant-api03-" + b"k" * 40).decode(),
}  # fmt: skip
#: What must not appear anywhere: a distinctive part of each secret.
NEEDLES = {
    "anthropic/openai key": "Q" * 40, "google api key": "B" * 35, "github token": "c" * 36,
    "aws access key id": "AKIA" + "D" * 16, "aws secret key": "e" * 40,
    "slack token": "1234567890-abcdef", "stripe key": "f" * 24, "hugging face token": "g" * 34,
    "bearer token": "h" * 32, "private key block": "i" * 40, "password in url": "hunter2hunter2",
    "basic auth credentials": base64.b64encode(b"admin:jjjjjjjjjjjj").decode(),
    "base64-wrapped key": base64.b64encode(b"key sk-ant-api03-" + b"k" * 40).decode(),
}  # fmt: skip


def test_every_built_in_kind_has_a_fake() -> None:
    assert set(FAKE) == set(SECRET_PATTERNS) == set(NEEDLES)


@pytest.fixture(scope="module")
def secret_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("secrets")
    folder = root / "suite"
    folder.mkdir()
    all_secrets = " ".join(FAKE.values())
    runs = []
    for name, secret in FAKE.items():
        for label in ("baseline", "candidate"):
            runs.append({
                "task_id": f"task {secret}", "label": label, "suite": "s",
                "started_at": "2026-11-28T02:00:00Z", "output": f"finalpayload {secret}",
                "meta": {"note": f"meta {secret}", "kind": name},
                "steps": [
                    {"type": "tool", "action": "call", "input": {"headers": secret},
                     "output": f"gotpayload {secret}", "status": "ok"},
                    {"type": "llm", "action": "answer", "input": {"prompt": all_secrets},
                     "output": {"text": secret}, "status": "error" if label == "candidate" else "ok"},
                ],
            })  # fmt: skip
    (folder / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    (folder / "README.md").write_text(f"# Notes\n\nThe key is `{all_secrets}`.\n")
    db = root / "a.duckdb"
    ingest([folder], db)
    return db


def test_no_secret_reaches_any_published_file(secret_archive: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    report = build_site(secret_archive, site, build_time="2026-11-29T06:00:00Z")
    text = published_text(site)
    leaked = [name for name, needle in NEEDLES.items() if needle in text]
    assert leaked == []
    assert "[REDACTED]" in text and report.redacted >= 11 * 2 * 6
    manifest = json.loads((site / "data" / "manifest.json").read_text())
    assert manifest["published"] == {"redacted": True, "payloads": True}


def test_no_redact_publishes_raw(secret_archive: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "reportgen", "build", "--db", str(secret_archive),
         "--out", str(site), "--no-redact", "--json"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["redacted"] == 0
    text = published_text(site)
    assert all(needle in text for needle in NEEDLES.values())


def test_user_pattern_and_no_payloads(secret_archive: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    policy = Redaction.from_options(patterns=(r"finalpayload",))
    build_site(secret_archive, site, build_time="2026-11-29T06:00:00Z", redaction=policy)
    text = published_text(site)
    assert "finalpayload" not in text and "gotpayload" in text
    policy = Redaction.from_options(payloads=False)
    build_site(secret_archive, site, build_time="2026-11-29T06:00:00Z", redaction=policy)
    text = published_text(site)
    assert "gotpayload" not in text and "finalpayload" not in text  # payload text is gone
    con = duckdb.connect()
    steps = con.execute(
        f"SELECT count(*) FILTER (WHERE input IS NOT NULL OR output IS NOT NULL), count(*) "
        f"FROM read_parquet('{site / 'data' / 'steps' / '*.parquet'}')"
    ).fetchone()
    assert steps == (0, 4 * len(FAKE))  # two steps per run, a run per label per kind


def test_a_bad_user_pattern_is_a_usage_error(secret_archive: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "reportgen", "build", "--db", str(secret_archive),
         "--out", str(tmp_path / "site"), "--redact", "(unclosed"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2 and "--redact '(unclosed'" in done.stderr
    assert not (tmp_path / "site").exists()


def _ingested(root: Path, task_id: str) -> Path:
    folder = root / "suite"
    folder.mkdir()
    run = {
        "task_id": task_id, "label": "baseline", "suite": "s",
        "started_at": "2026-11-28T02:00:00Z", "output": "done",
        "steps": [{"type": "tool", "action": "call", "input": {"a": 1},
                   "output": f"got {FAKE['github token']}", "status": "ok"}],
    }  # fmt: skip
    (folder / "runs.jsonl").write_text(json.dumps(run) + "\n")
    db = root / "a.duckdb"
    ingest([folder], db)
    return db


def _view(con: duckdb.DuckDBPyConnection, table: str) -> str:
    return str(
        con.execute("SELECT sql FROM duckdb_views() WHERE view_name = ?", [table]).fetchall()
    )


def test_ids_without_a_secret_are_kept_as_stored(tmp_path: Path) -> None:
    """No id holds a secret: the views keep every id column as stored (a filter on a run id
    reaches the table), and the text is still redacted. (DuckDB keeps a view's SQL with
    quotes dropped: a redacted id shows as ``md5(run_id)``, the hash it keeps.)"""
    from reportgen.archive import connect
    from reportgen.site.redaction import redact_archive

    con = connect(_ingested(tmp_path, "plain-task"), read_only=True)
    stored = con.execute("SELECT run_id, task_id FROM main.runs").fetchall()
    assert redact_archive(con, Redaction()) == 1
    assert con.execute("SELECT run_id, task_id FROM runs").fetchall() == stored
    for table in ("runs", "steps"):  # no id among the view's replaced columns
        assert "md5(run_id)" not in _view(con, table) and "regexp_replace" in _view(con, table)
    assert "md5(task_id)" not in _view(con, "runs")
    assert NEEDLES["github token"] not in str(con.execute("SELECT output FROM steps").fetchall())


def test_a_secret_in_one_id_redacts_the_ids_of_every_table(tmp_path: Path) -> None:
    """One task id holds a secret: ids are redacted in every table alike, so they still join."""
    from reportgen.archive import connect
    from reportgen.site.redaction import redact_archive

    con = connect(_ingested(tmp_path, f"task {FAKE['github token']}"), read_only=True)
    redact_archive(con, Redaction())
    assert "md5(run_id)" in _view(con, "steps")  # a redacted id keeps a hash of itself
    (task,) = con.execute("SELECT task_id FROM runs").fetchall()[0]
    assert NEEDLES["github token"] not in task and "~" in task
    joined = con.execute("SELECT count(*) FROM steps JOIN runs USING (run_id)").fetchall()
    assert joined == [(1,)]
