"""Fixtures: the demo archive and its site (built once per session), and a hostile archive."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from reportgen.demo import run_demo
from reportgen.ingest import ingest
from reportgen.site import BuildReport, build_site

BUILD_TIME = "2026-11-29T06:00:00Z"
XSS = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
TEXTAREA = "</textarea><b>bold?</b>"
JS_LINK = "javascript:alert(1)"


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db, _report, _summary = run_demo(tmp_path_factory.mktemp("demo"), site=False)
    return db


@pytest.fixture(scope="session")
def demo_site(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BuildReport]:
    out = tmp_path_factory.mktemp("sites") / "site"
    return out, build_site(demo_db, out, build_time=BUILD_TIME)


def hostile_run(label: str, trial: int = 0) -> dict[str, Any]:
    """A run whose every free-text field is an attack."""
    return {
        "run_id": f"2026-11-28/{XSS}/{label}/{trial}",
        "task_id": f"{XSS}{TEXTAREA}",
        "label": label,
        "suite": f"suite {IMG}",
        "trial": trial,
        "started_at": "2026-11-28T02:00:00Z",
        "output": f"{XSS}{IMG}{TEXTAREA}",
        "meta": {
            "notes": f"[click me]({JS_LINK}) and [safe](https://example.com) {XSS} {IMG}",
            "url": JS_LINK,
            "model": TEXTAREA,
        },
        "steps": [
            {"type": "tool", "action": XSS, "input": {"q": IMG}, "output": TEXTAREA, "status": "ok",
             "tokens_in": 10, "cost_usd": 0.001, "latency_ms": 10},
            {"type": "tool", "action": f"{JS_LINK}", "input": {"x": "</script><script>alert(4)</script>"},
             "output": JS_LINK, "status": "error" if label == "candidate" else "ok", "latency_ms": 5},
            {"type": "llm", "action": "answer", "output": f"{XSS}{IMG}{TEXTAREA}", "status": "ok"},
        ],
    }  # fmt: skip


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    traces = root / "traces.jsonl"
    runs = [hostile_run("baseline"), hostile_run("candidate")]
    traces.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    db = root / "hostile.duckdb"
    ingest([traces], db)
    out = root / "site"
    build_site(db, out, build_time=BUILD_TIME)
    return out


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


@pytest.fixture(scope="session")
def all_data_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The archive and site of every folder of the shared real data that an adapter reads,
    built with the default choice of comparisons (no --compare); built once per session."""
    from tests.site.shared_data import DATA, read_folders

    if not DATA.is_dir():
        pytest.skip(f"{DATA} is missing (the shared real data)")
    root = tmp_path_factory.mktemp("all-data")
    db = root / "all.duckdb"
    ingest(read_folders(DATA), db)
    site = root / "site"
    build_site(db, site, build_time="2026-12-01T00:00:00Z")
    return db, site


def archive_nights(db: Path) -> list[str]:
    """The nights (batches) of an archive's runs, oldest first."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return [r[0] for r in con.execute("SELECT DISTINCT batch FROM runs ORDER BY 1").fetchall()]
    finally:
        con.close()
