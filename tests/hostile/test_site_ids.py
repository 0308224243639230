"""Ids that used to crash every later build: "~" in a task id, deeply nested payloads, and ids
whose page names collided. Two ids never share one page, by construction."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path
from typing import Any

from reportgen.ingest import ingest
from reportgen.site import build_site, paths
from reportgen.site.steps import MAX_DEPTH, payload_text, pretty_json
from tests.hostile.conftest import write_runs

BUILD_TIME = "2026-11-29T06:00:00Z"


def _run(run_id: str, label: str, **fields: Any) -> dict[str, Any]:
    run = {
        "run_id": run_id,
        "task_id": "t",
        "label": label,
        "suite": "s",
        "batch": "2026-11-28",
        "started_at": "2026-11-28T02:00:00Z",
        "steps": [{"type": "tool", "action": "a", "status": "ok", "latency_ms": 1}],
    }
    run.update(fields)
    return run


def _short_clash() -> tuple[str, str]:
    """Two ids with the same lowered form and the same six-digit hash."""
    seen: dict[str, str] = {}
    for i, j in itertools.product(range(400), repeat=2):
        text = f"T{'!' * i}{'?' * j}"
        digest = hashlib.sha1(text.encode()).hexdigest()[:6]
        if digest in seen:
            return seen[digest], text
        seen[digest] = text
    raise AssertionError("no clash found")


def _build(tmp_path: Path, runs: list[dict[str, Any]]) -> Path:
    db = tmp_path / "a.duckdb"
    ingest([write_runs(tmp_path / "in" / "runs.jsonl", runs)], db)
    out = tmp_path / "site"
    build_site(db, out, build_time=BUILD_TIME)
    return out


def test_made_names_never_equal_kept_ids() -> None:
    made = paths.slug("Foo")
    assert made.startswith("foo-") and paths.slug(made) != made
    assert paths.slug("index.html") != "index.html"
    assert paths.slug("x-t1") != "x-t1" and paths.slug("x-dup2") != "x-dup2"
    assert paths.slug("2026-11-28") == "2026-11-28" and paths.slug("fix-login") == "fix-login"
    a, b = _short_clash()
    assert paths.slug(a) == paths.slug(b)  # without knowing both ...
    with paths.known_ids([a, b, "other"]):
        assert paths.slug(a) != paths.slug(b)  # ... both get the long hash
        assert len(paths.slug(a)) == len("t-") + 64
        assert paths.slug("other") == "other"


def test_hostile_ids_each_get_their_own_page(tmp_path: Path) -> None:
    a, b = _short_clash()
    foo_made = paths.slug("Foo")
    runs = []
    for label in ("baseline", "candidate"):
        runs += [
            _run(f"{label}/Foo", label, task_id="Foo"),
            _run(f"{label}/{foo_made}", label, task_id=foo_made),
            _run(f"{label}/{a}", label, task_id=a),
            _run(f"{label}/{b}", label, task_id=b),
            _run(f"{label}/tilde", label, task_id="fix~login"),
            _run(f"{label}/tilde2", label, task_id="fix~2"),
            _run(f"{label}/n-t1", label, task_id="trials", batch="n-t1"),
            _run(f"{label}/n1", label, task_id="trials", batch="n", trial=1),
            _run(f"{label}/idx", label, suite="index.html"),
            _run(f"{label}/dup-a", label, task_id="dup", batch="b~2"),
            _run(f"{label}/dup-b", label, task_id="dup", batch="b"),
            _run(f"{label}/dup-c", label, task_id="dup", batch="b"),
        ]
    out = _build(tmp_path, runs)
    run_pages = list(out.glob("runs/**/*.html"))
    assert len(run_pages) == len(runs)
    ids = [str(r.get(k)) for r in runs for k in ("run_id", "suite", "label", "task_id", "batch")]
    with paths.known_ids(ids):
        for run in runs:
            page = out / paths.run_path(run["suite"], run["task_id"], run["run_id"])
            assert page.is_file(), run["run_id"]
    task_pages = list(out.glob("tasks/**/*.html"))
    assert len(task_pages) == len({(r["suite"], r["task_id"]) for r in runs})
    pair_pages = [p for p in out.glob("compare/*/*/**/*.html")]
    assert len(pair_pages) == len(runs) // 2


def _deep_run(depth: int) -> str:
    """A candidate run whose meta and step input and output nest ``depth`` arrays deep."""
    deep = "[" * depth + "]" * depth
    run = _run(f"c{depth}", "candidate", task_id=f"t{depth}", meta={"k": "@"})
    run["steps"][0].update(input={"k": "@"}, output={"k": "@"})
    return json.dumps(run).replace('"@"', deep)


def test_deeply_nested_payload_does_not_crash_the_build(tmp_path: Path) -> None:
    """As deep as ingest accepts (deeper records are refused there: test_ingest_nesting)."""
    lines = [json.dumps(_run("b", "baseline")), _deep_run(100), _deep_run(190)]
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "runs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = tmp_path / "a.duckdb"
    ingest([tmp_path / "in"], db)
    out = tmp_path / "site"
    build_site(db, out, build_time=BUILD_TIME)
    for depth in (100, 190):
        assert (out / paths.run_path("s", f"t{depth}", f"c{depth}")).is_file()
    assert "\u2026" in (out / paths.run_path("s", "t100", "c100")).read_text(encoding="utf-8")


def test_pretty_json_cuts_deep_nesting() -> None:
    value: Any = "leaf"
    for _ in range(MAX_DEPTH + 50):
        value = [value]
    shown = pretty_json(value)
    assert "\u2026" in shown and "leaf" not in shown
    assert pretty_json({"a": [1, 2]}) == json.dumps({"a": [1, 2]}, indent=2)
    assert payload_text("[" * 5000 + "]" * 5000, 100).startswith("[[[")
