"""The run page's token breakdown (input with its cache reads and writes, output with its
reasoning) and its cost as reported beside the cost recomputed at ingest."""

from __future__ import annotations

import json
from pathlib import Path

from reportgen.ingest import ingest
from reportgen.site import build_site
from reportgen.site import paths as site_paths
from tests.site.html import parse

M = 1e6


def test_run_page_shows_breakdown_and_recomputed_cost(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    step = {
        "type": "llm",
        "action": "gpt-5",
        "status": "ok",
        "tokens_in": 100_000,
        "tokens_out": 5_000,
        "cache_read_tokens": 80_000,
        "reasoning_tokens": 3_000,
        "cost_usd": 0.1,
        "started_at": "2026-11-01T00:00:00Z",
    }
    plain = {"type": "llm", "action": "think", "status": "ok", "tokens_in": 10}
    runs = [
        {"run_id": "r1", "task_id": "t1", "label": "a", "batch": "n1", "steps": [step]},
        {"run_id": "r2", "task_id": "t2", "label": "a", "batch": "n1", "steps": [plain]},
    ]
    (folder / "runs.jsonl").write_text("\n".join(json.dumps(r) for r in runs) + "\n")
    db = tmp_path / "a.duckdb"
    ingest([folder], db=db)
    site = tmp_path / "site"
    build_site(db, site, build_time="2026-12-01T00:00:00Z")

    page = parse(site / site_paths.run_path("default", "t1", "r1"))
    tokens = page.one("div", class_="tokens").one("small", class_="breakdown").text
    assert " ".join(tokens.split()) == (
        "in 100,000 (cache read 80,000) · out 5,000 (reasoning 3,000)"
    )
    # gpt-5: $1.25 input, $10 output, $0.125 cached input per million
    recomputed = (20_000 * 1.25 + 80_000 * 0.125 + 5_000 * 10) / M  # $0.0850
    cost = page.one("div", class_="cost").one("small", class_="recomputed").text
    assert cost == f"recomputed ${recomputed:.4f} ({(recomputed - 0.1) / 0.1 * 100:+.1f}%)"

    other = parse(site / site_paths.run_path("default", "t2", "r2"))
    card = other.one("div", class_="tokens")
    assert card.one("small", class_="breakdown").text == "in 10 · out \u2013"  # out unknown
    assert not other.one("div", class_="cost").select("small")  # an unknown model: no recompute
