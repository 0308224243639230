"""Suite notes (README.md in an ingested folder): a symlinked README.md is never read, so the
file it points to is never published; hostile Markdown runs nothing in Chromium."""

from __future__ import annotations

import json
from pathlib import Path

from reportgen.ingest import ingest
from reportgen.ingest.suite_notes import find_notes
from reportgen.site import build_site
from tests.site.browser_pages import chromium_page
from tests.site.published import published_text

SECRET = "AWS_SECRET_ACCESS_KEY=hunter2-very-secret"
BUILD_TIME = "2026-11-29T06:00:00Z"


def _run(suite: str) -> str:
    step = {"type": "tool", "action": "a", "status": "ok", "latency_ms": 1}
    run = {"run_id": f"r-{suite}", "task_id": "t", "suite": suite, "steps": [step]}
    return json.dumps(run) + "\n"


def test_symlinked_notes_are_not_published(tmp_path: Path) -> None:
    secret = tmp_path / "outside" / ".env"
    secret.parent.mkdir()
    secret.write_text(SECRET + "\n")
    root = tmp_path / "in"
    (root / "a").mkdir(parents=True)
    (root / "a" / "runs.jsonl").write_text(_run("a"))
    (root / "a" / "README.md").symlink_to(secret)  # a symlinked note
    (root / "b").mkdir()
    (root / "b" / "runs.jsonl").write_text(_run("b"))
    (root / "b" / "README.md").write_text("# Suite b\n\nplain notes\n")
    (root / "c").symlink_to(secret.parent, target_is_directory=True)  # a symlinked folder
    (secret.parent / "README.md").symlink_to(".env")
    assert find_notes([root]) == [root / "b" / "README.md"]
    db = tmp_path / "a.duckdb"
    ingest([root], db)
    out = tmp_path / "site"
    build_site(db, out, build_time=BUILD_TIME)
    text = published_text(out)
    assert SECRET not in text and "hunter2" not in text
    assert "plain notes" in text


def test_hostile_notes_run_nothing_in_chromium(tmp_path: Path) -> None:
    root = tmp_path / "in"
    root.mkdir()
    (root / "runs.jsonl").write_text(_run("s"))
    (root / "README.md").write_text(
        "# Notes\n\n<script>alert(1)</script> <img src=x onerror=alert(2)>\n\n"
        "[click](javascript:alert(3)) ![pixel](http://evil.example/p.gif)\n\n"
        '<a href="javascript:alert(4)">a</a> <iframe src="javascript:alert(5)"></iframe>\n'
    )
    db = tmp_path / "a.duckdb"
    ingest([root], db)
    out = tmp_path / "site"
    build_site(db, out, build_time=BUILD_TIME)
    with chromium_page() as checked:
        page = checked.open(out / "history" / "s.html")
        injected = page.evaluate(
            """() => ({
              script: Array.from(document.scripts).filter(s => !s.src && s.type !== 'application/json').length,
              img: document.querySelectorAll('img').length,
              iframe: document.querySelectorAll('iframe').length,
              js: Array.from(document.querySelectorAll('[href],[src]')).filter(
                    e => /^\\s*javascript:/i.test(e.getAttribute('href') || e.getAttribute('src') || '')).length,
              on: Array.from(document.querySelectorAll('*')).filter(
                    e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length,
            })"""
        )
        assert injected == {"script": 0, "img": 0, "iframe": 0, "js": 0, "on": 0}, injected
        assert "<script>alert(1)</script>" in page.inner_text("body")  # shown, as text
        assert checked.problems == [], checked.problems
