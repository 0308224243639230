"""Native runs for the spend tests: steps in, an in-memory archive out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from reportgen.archive import connect
from reportgen.ingest import ingest


def archive(
    tmp: Path, runs: dict[str, list[dict[str, Any]]], **meta: Any
) -> duckdb.DuckDBPyConnection:
    """An in-memory archive holding one native run per ``runs`` entry (run id -> steps)."""
    path = tmp / "runs.jsonl"
    lines = [
        json.dumps({"run_id": run_id, "task_id": "t", "label": "x", "steps": steps,
                    "meta": meta.get(run_id, {})})
        for run_id, steps in runs.items()
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    con = connect(None)
    ingest([path], con)
    return con


def llm(
    tokens_in: int,
    tokens_out: int = 10,
    cost: float | None = 0.01,
    *,
    at: str | None = None,
    model: str = "m-1",
    cache_write: int | None = None,
    latency: int = 0,
    cache_in_output: bool = False,
) -> dict[str, Any]:
    """A model call step; ``cache_write`` in its cache_write_tokens field, or (as the
    adapters wrote it before that column) in its output's usage."""
    step: dict[str, Any] = {"type": "llm", "action": model, "status": "ok",
                            "tokens_in": tokens_in, "tokens_out": tokens_out, "cost_usd": cost,
                            "latency_ms": latency}  # fmt: skip
    if at is not None:
        step["started_at"] = at
    if cache_write is not None and cache_in_output:
        step["output"] = {"usage": {"cache_write": cache_write}}
    elif cache_write is not None:
        step["cache_write_tokens"] = cache_write
    return step


def tool(
    action: str, parent: int | None, status: str = "ok", output: Any = "out", **inputs: Any
) -> dict[str, Any]:
    """A tool call step issued by step ``parent``."""
    return {"type": "tool", "action": action, "status": status, "input": inputs,
            "output": output, "parent": parent}  # fmt: skip
