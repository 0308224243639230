"""``restore`` bounded and discreet: credentials in the URL are used, never shown; a server
that trickles or never ends, a data file that is a symlink to /dev/zero (or a table folder
linked elsewhere), a manifest naming a path out of the snapshot and a lost race to the same
--db each end in one error line (exit 1), within the deadline, leaving no archive."""

from __future__ import annotations

import base64
import contextlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from reportgen.archive import connect
from reportgen.archive.snapshot import write_snapshot
from reportgen.archive.snapshot_layout import part_file
from reportgen.ingest import ingest
from tests.conftest import make_run
from tests.hostile.conftest import ROOT, one_line, write_runs

Handler = Callable[[http.server.BaseHTTPRequestHandler, Path], None]
NIGHT = "2026-11-28"  # the batch of make_run's runs (the date they started)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A snapshot folder (what a site's data/ holds) of a small archive."""
    tmp = tmp_path_factory.mktemp("snapshot")
    db = tmp / "a.duckdb"
    ingest([write_runs(tmp / "in" / "runs.jsonl", [make_run("t1"), make_run("t2")])], db)
    con = connect(db, read_only=True)
    try:
        write_snapshot(con, tmp / "site" / "data")
    finally:
        con.close()
    return tmp / "site" / "data"


@pytest.fixture
def server(data: Path) -> Iterator[Callable[[Handler], str]]:
    """Start an in-process HTTP server whose GETs ``handle`` answers; returns its base URL."""
    started: list[http.server.ThreadingHTTPServer] = []

    def start(handle: Handler) -> str:
        class Answer(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    handle(self, data)

            def log_message(self, *args: object) -> None:
                pass

        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
        httpd.daemon_threads = True
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        started.append(httpd)
        return f"http://127.0.0.1:{httpd.server_address[1]}/"

    yield start
    for httpd in started:
        httpd.shutdown()
        httpd.server_close()


def _send_file(request: http.server.BaseHTTPRequestHandler, data: Path) -> None:
    path = data / request.path.partition("/data/")[2]  # a night file: /data/steps/<night>
    if not request.path.startswith("/data/") or ".." in request.path or not path.is_file():
        request.send_error(404)
        return
    body = path.read_bytes()
    request.send_response(200)
    request.send_header("Content-Length", str(len(body)))
    request.end_headers()
    request.wfile.write(body)


def _restore(*args: str, deadline: float | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if deadline is not None:
        env["REPORTGEN_RESTORE_DEADLINE_S"] = str(deadline)
    return subprocess.run(
        [sys.executable, "-m", "reportgen", "restore", *args],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
    )  # fmt: skip


def test_credentials_in_the_url_authenticate_and_are_never_shown(
    server: Callable[[Handler], str], tmp_path: Path
) -> None:
    wanted = "Basic " + base64.b64encode(b"reader:s3cr3t-T0KEN").decode()

    def guarded(request: http.server.BaseHTTPRequestHandler, data: Path) -> None:
        if request.headers.get("Authorization") != wanted:
            request.send_error(401)
            return
        _send_file(request, data)

    base = server(guarded)
    url = base.replace("http://", "http://reader:s3cr3t-T0KEN@")
    ok = _restore(url, "--db", str(tmp_path / "ok.duckdb"))
    assert ok.returncode == 0, ok.stderr
    assert "s3cr3t" not in ok.stdout + ok.stderr and "reader" not in ok.stdout
    bad = _restore(url.replace("T0KEN", "WRONG"), "--db", str(tmp_path / "bad.duckdb"))
    assert bad.returncode == 1
    line = one_line(bad.stderr, "HTTP 401")
    assert "s3cr3t" not in line and "WRONG" not in line and "reader" not in line
    assert not (tmp_path / "bad.duckdb").exists()


def test_a_trickling_server_is_given_up_at_the_deadline(
    server: Callable[[Handler], str], tmp_path: Path
) -> None:
    def trickle(request: http.server.BaseHTTPRequestHandler, data: Path) -> None:
        request.send_response(200)
        request.end_headers()
        for _ in range(600):  # a byte every 0.2 s: no read ever waits long enough to time out
            request.wfile.write(b" ")
            request.wfile.flush()
            time.sleep(0.2)

    begun = time.monotonic()
    result = _restore(server(trickle), "--db", str(tmp_path / "a.duckdb"), deadline=3)
    assert result.returncode == 1
    one_line(result.stderr, "manifest.json", "deadline")
    assert time.monotonic() - begun < 60
    assert not (tmp_path / "a.duckdb").exists()


def test_an_endless_data_file_stops_at_its_declared_size(
    server: Callable[[Handler], str], tmp_path: Path
) -> None:
    def endless(request: http.server.BaseHTTPRequestHandler, data: Path) -> None:
        if request.path.endswith("manifest.json"):
            _send_file(request, data)
            return
        request.send_response(200)
        request.end_headers()
        block = b"\0" * 65536
        for _ in range(100_000):  # 6.5 GB unless the reader stops
            request.wfile.write(block)

    result = _restore(server(endless), "--db", str(tmp_path / "a.duckdb"))
    assert result.returncode == 1
    one_line(result.stderr, ".parquet", "more than the")
    assert not (tmp_path / "a.duckdb").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".reportgen-restore-")]


def test_a_data_file_linked_to_dev_zero_is_refused(data: Path, tmp_path: Path) -> None:
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    night = part_file("steps", NIGHT)
    (copy / night).unlink()
    (copy / night).symlink_to("/dev/zero")
    result = _restore(str(copy), "--db", str(tmp_path / "a.duckdb"))
    assert result.returncode == 1
    one_line(result.stderr, night, "not a regular file")
    assert not (tmp_path / "a.duckdb").exists()


def test_a_table_folder_linked_elsewhere_is_refused(data: Path, tmp_path: Path) -> None:
    """data/steps -> another folder holding the same files: never read through."""
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    shutil.move(copy / "steps", tmp_path / "elsewhere")
    (copy / "steps").symlink_to(tmp_path / "elsewhere")
    result = _restore(str(copy), "--db", str(tmp_path / "a.duckdb"))
    assert result.returncode == 1
    one_line(result.stderr, "steps", "symlink")
    assert not (tmp_path / "a.duckdb").exists()


@pytest.mark.parametrize(
    "name",
    ["../outside.parquet", "steps/../../outside.parquet", "/etc/passwd", "steps/x.parquet",
     "steps/2026-11-28.parquet", "steps/sub/null.parquet", "secrets/null.parquet",
     "steps/null.parquet?x=1"],
)  # fmt: skip
def test_a_manifest_naming_another_path_is_refused_before_any_fetch(
    server: Callable[[Handler], str], data: Path, tmp_path: Path, name: str
) -> None:
    """Only names the snapshot writes are fetched: a manifest listing a path out of data/,
    or a night file not named after its night, is refused, and nothing else is asked for."""
    manifest = json.loads((data / "manifest.json").read_text())
    entry = dict(manifest["files"][part_file("steps", NIGHT)])
    manifest["files"][name] = entry | {"night": None}
    asked: list[str] = []

    def serve(request: http.server.BaseHTTPRequestHandler, _data: Path) -> None:
        asked.append(request.path)
        if request.path.endswith("manifest.json"):
            body = json.dumps(manifest).encode()
            request.send_response(200)
            request.send_header("Content-Length", str(len(body)))
            request.end_headers()
            request.wfile.write(body)
            return
        _send_file(request, data)

    result = _restore(server(serve), "--db", str(tmp_path / "a.duckdb"))
    assert result.returncode == 1
    one_line(result.stderr, "manifest.json", "not a file of a snapshot")
    assert asked == ["/data/manifest.json"]
    assert not (tmp_path / "a.duckdb").exists()


def test_two_restores_to_one_db_one_wins_the_other_says_so(data: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "a.duckdb")
    command = [sys.executable, "-m", "reportgen", "restore", str(data), "--db", db]
    both = [
        subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in both]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 1], results
    loser = next(err for code, err in results if code == 1)
    one_line(loser, "a.duckdb")
