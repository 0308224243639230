"""Helpers of the hostile-input tests: hostile agent text and archives for the output-safety
tests, a small archive, the CLI, and the one-line error rule for the input-safety tests."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from reportgen.cli import app
from reportgen.ingest import ingest
from tests.conftest import make_run

#: Agent text that tries to become markup, a link, an image, a CI command or a terminal escape.
HOSTILE = (
    "![x](http://evil.example/p.gif)",
    "[click](http://evil.example)",
    "see http://evil.example/x and www.evil.example",
    "mail x@evil.example",
    "<img src=x onerror=alert(1)>",
    "<script>alert(2)</script>",
    "javascript:alert(3)",
    "::add-mask::secret",
    "a\n::error::pwned",
    "b\r\n  ::set-env name=X::y",
    "\x1b[31mred\x1b]8;;http://evil.example\x07link\x1b]8;;\x07",
    "c\u2028::warning::sep",
    "*bold* _it_ `code` | pipe \\ back ~strike~ $x$",
    '<a href="http://evil.example">link</a>',
)


def _step(action: str, status: str = "ok") -> dict[str, Any]:
    return {
        "type": "tool",
        "action": action,
        "status": status,
        "input": {"q": action},
        "output": action,
        "latency_ms": 10,
        "tokens_in": 5,
        "tokens_out": 5,
        "cost_usd": 0.001,
    }


def hostile_runs(label: str) -> list[dict[str, Any]]:
    """One run per hostile text, used as task id, run id part and step action."""
    runs = []
    for i, text in enumerate(HOSTILE):
        steps = [_step(text), _step(f"{text} again", "error" if label == "candidate" else "ok")]
        if label == "candidate":
            steps.append(_step(f"extra {text}"))
        runs.append(
            {
                "run_id": f"{label}/{i}/{text}",
                "task_id": text,
                "label": label,
                "suite": "hostile",
                "batch": "2026-11-28",
                "started_at": "2026-11-28T02:00:00Z",
                "steps": steps,
            }
        )
    if label == "candidate":
        runs.append(
            {
                "run_id": "unpaired ::error::x\n::add-mask::y",
                "task_id": "only here ![p](http://evil.example/q.gif) ::notice::z",
                "label": label,
                "suite": "hostile",
                "batch": "2026-11-28",
                "started_at": "2026-11-28T02:00:00Z",
                "steps": [_step("x")],
            }
        )
    return runs


@pytest.fixture
def hostile_folders(tmp_path: Path) -> tuple[Path, Path]:
    """A baseline and a candidate folder of hostile runs."""
    base = write_runs(tmp_path / "base" / "runs.jsonl", hostile_runs("baseline"))
    cand = write_runs(tmp_path / "cand" / "runs.jsonl", hostile_runs("candidate"))
    return base.parent, cand.parent


@pytest.fixture
def hostile_db(tmp_path: Path, hostile_folders: tuple[Path, Path]) -> Path:
    """An archive with the hostile runs of both labels."""
    db = tmp_path / "hostile.duckdb"
    ingest(list(hostile_folders), db)
    return db


#: Markup Plotly would draw as a live link, and script-running attempts.
LINK = '<a href="javascript:alert(7)">click</a>'
EVIL_LINK = '<a href="http://evil.example/">evil</a>'


def chart_runs() -> list[dict[str, Any]]:
    """Runs whose labels, nights, task ids and actions are markup, over two nights."""
    runs = []
    for night in ("2026-11-27", f"2026-11-28{EVIL_LINK}"):
        for label in ("baseline", "candidate", f"third {LINK}"):
            runs.append(
                {
                    "run_id": f"{night}/{label}",
                    "task_id": f"task {LINK}",
                    "label": label,
                    "suite": f"suite {EVIL_LINK}",
                    "batch": night,
                    "started_at": "2026-11-28T02:00:00Z",
                    "steps": [_step(f"act {LINK}"), _step(f"act2 {EVIL_LINK}", "error")],
                }
            )
    return runs


def site_files(site: Path) -> dict[str, bytes]:
    """Every file of a site folder by relative path (symlinks not followed)."""
    return {
        p.relative_to(site).as_posix(): p.read_bytes()
        for p in sorted(site.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def assert_whole(site: Path, user_files: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The site's manifest lists exactly the files present (besides ``user_files``) and every
    file's SHA-256 matches; returns the manifest."""
    import hashlib

    manifest = json.loads((site / ".reportgen-manifest.json").read_text(encoding="utf-8"))
    files = site_files(site)
    listed = manifest["files"]
    assert set(files) - {".reportgen-manifest.json"} - user_files == set(listed)
    for rel, digest in listed.items():
        assert hashlib.sha256(files[rel]).hexdigest() == digest, rel
    return dict(manifest)


@pytest.fixture(scope="session")
def two_archives(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The demo archive, and a copy whose runs all cost more (same pages, other content)."""
    import shutil

    import duckdb

    from reportgen.demo import run_demo

    root = tmp_path_factory.mktemp("archives")
    db_a, _report, _summary = run_demo(root / "a", site=False)
    db_b = root / "b.duckdb"
    shutil.copyfile(db_a, db_b)
    con = duckdb.connect(str(db_b))
    con.execute("UPDATE runs SET cost_usd = coalesce(cost_usd, 0) + 1")
    con.execute("UPDATE steps SET cost_usd = coalesce(cost_usd, 0) + 0.5")
    con.close()
    return db_a, db_b


@pytest.fixture(scope="session")
def reference_sites(
    two_archives: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The files of a clean build of each archive."""
    from reportgen.site import build_site

    root = tmp_path_factory.mktemp("refs")
    refs = []
    for name, db in zip("ab", two_archives, strict=True):
        build_site(db, root / name, build_time="2026-11-29T06:00:00Z")
        refs.append(site_files(root / name))
    return refs[0], refs[1]


runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str | Path) -> Result:
    """Run the CLI in this process."""
    return runner.invoke(app, [str(a) for a in args])


def cli_process(
    *args: str | Path, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m reportgen`` in a subprocess (for locks, signals and real stdio)."""
    return subprocess.run(
        [sys.executable, "-m", "reportgen", *(str(a) for a in args)],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        timeout=timeout,
    )


def one_line(stderr: str, *needles: str) -> str:
    """The single error line on stderr, checked to be one line, no traceback, with needles."""
    text = stderr.strip()
    assert "Traceback" not in text, text
    assert text.count("\n") == 0, text
    assert text.startswith("error: "), text
    for needle in needles:
        assert needle in text, (needle, text)
    return text


def write_runs(path: Path, runs: Sequence[dict[str, Any]]) -> Path:
    """Write runs as JSON Lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    return path


@pytest.fixture
def good_file(tmp_path: Path) -> Path:
    """A valid trace file with two runs."""
    return write_runs(
        tmp_path / "in" / "good.jsonl",
        [make_run("t1", run_id="good-1"), make_run("t2", run_id="good-2")],
    )


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """An archive holding one baseline and one candidate run of one task."""
    db = tmp_path / "archive.duckdb"
    base = write_runs(tmp_path / "seed" / "baseline" / "b.jsonl", [make_run("t", run_id="b1")])
    cand = write_runs(
        tmp_path / "seed" / "candidate" / "c.jsonl", [make_run("t", run_id="c1", n_steps=4)]
    )
    result = cli("ingest", base, cand, "--db", db, "-q")
    assert result.exit_code == 0, result.output
    return db


@pytest.fixture
def make_file(tmp_path: Path) -> Callable[[str, bytes], Path]:
    """Write raw bytes to a file under tmp_path."""

    def make(name: str, content: bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        return path

    return make


def start_build(
    db: Path, out: Path, build_time: str, *, stdout: int = subprocess.PIPE
) -> subprocess.Popen[bytes]:
    """``reportgen build`` in a child process (to race it, or kill it)."""
    return subprocess.Popen(
        [sys.executable, "-m", "reportgen", "build", "--db", str(db), "--out", str(out),
         "--build-time", build_time],
        stdout=stdout, stderr=subprocess.PIPE,
    )  # fmt: skip
