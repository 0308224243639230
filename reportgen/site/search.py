"""The site's search index: every word of every step and run, split into small script files
under ``search/`` that the index page's search box loads on demand (a ``<script src>`` works
from ``file://``, where ``fetch()`` of a local file does not), so a large site never loads
the whole index.

Files: ``search/meta.js`` (shard names and sizes), ``search/w-<xx>.js`` (the words starting
with ``xx`` and their postings, packed as the step data is: stepdata.pack_json), ``search/runs-<k>.js`` (each run's page, title, trial and id, in
chunks of ``RUNS_PER_CHUNK``) and ``search/docs-<k>.js`` (the text a run's hit shows a snippet
of, in chunks of ``DOCS_PER_CHUNK`` runs). A step's hit shows a snippet of the step's text
from its run's step data script (``<run>.steps.js``, stepdata.py), written once for the run
and pair pages, so the index holds no copy of the steps' text. A posting is
``run_no * 1000000 + idx + 1`` (0: the run itself); runs are numbered newest night first, so
postings in order list the newest night's hits first. The words come from the read-only session the site is built from, so redaction
(site/redaction.py) applies to the index as to every page."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import duckdb
import orjson
import pyarrow as pa

from reportgen._sql import load_sql
from reportgen.site import paths
from reportgen.site.stepdata import pack_json

RUNS_PER_CHUNK = 500
DOCS_PER_CHUNK = 20  # runs per docs file: a page of hits loads a few small files
STEP_CODE = 1_000_000  # a run has fewer steps than this (the posting's idx part)


def _script(call: str, *args: Any) -> bytes:
    """``window.<call>(args...)`` as a script file (JSON arguments, so data never runs)."""
    body = b",".join(orjson.dumps(a) for a in args)
    return b"window." + call.encode() + b"(" + body + b");\n"


def search_files(
    con: duckdb.DuckDBPyConnection,
    runs: list[dict[str, Any]],
    with_steps: list[dict[str, Any]] | None = None,
) -> dict[str, bytes]:
    """Every file of the search index (path -> bytes) for the site's ``runs``; steps are
    indexed only for the runs of ``with_steps`` (default all: those with a step page)."""
    ordered = sorted(runs, key=lambda r: r["run_id"])
    ordered.sort(key=lambda r: r["batch"] or "", reverse=True)  # newest night first
    stepped = {r["run_id"] for r in (runs if with_steps is None else with_steps)}
    table = pa.table(
        {
            "run_no": pa.array(range(len(ordered)), pa.int64()),
            "run_id": pa.array([r["run_id"] for r in ordered], pa.string()),
            "steps": pa.array([r["run_id"] in stepped for r in ordered], pa.bool_()),
        }
    )
    con.register("rg_search_runs_arrow", table)
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE rg_search_runs AS FROM rg_search_runs_arrow")
        words = con.sql(load_sql("site_search")).to_arrow_table()
        docs = con.sql(load_sql("site_search_docs")).fetchall()
    finally:
        con.unregister("rg_search_runs_arrow")
        con.execute("DROP TABLE IF EXISTS rg_search_runs")
    shards: dict[str, dict[str, list[int]]] = defaultdict(dict)
    for word, postings in zip(
        words.column("word").to_pylist(), words.column("postings").to_pylist(), strict=True
    ):
        shards[word[:2]][word] = postings
    files = {f"search/w-{name}.js": _script("RG_SEARCH_SHARD", name, pack_json(shard).decode())
             for name, shard in shards.items()}  # fmt: skip
    for start in range(0, len(ordered), RUNS_PER_CHUNK):
        chunk = [
            [
                paths.run_path(r["suite"], r["task_id"], r["run_id"]),
                f"{r['suite']} · {r['task_id']} · {r['label']} · {r['batch']}",
                r.get("trial"),
                r["run_id"],
            ]
            for r in ordered[start : start + RUNS_PER_CHUNK]
        ]
        files[f"search/runs-{start // RUNS_PER_CHUNK}.js"] = _script(
            "RG_SEARCH_RUNS", start // RUNS_PER_CHUNK, chunk
        )
    chunks: dict[int, dict[str, list[str | None]]] = defaultdict(dict)
    for run_no, idx, action, status, text in docs:
        posting = run_no * STEP_CODE + idx + 1
        chunks[run_no // DOCS_PER_CHUNK][str(posting)] = [action, status, text or ""]
    for k, texts in chunks.items():
        files[f"search/docs-{k}.js"] = _script("RG_SEARCH_DOCS", k, texts)
    meta = {
        "shards": {name: len(shard) for name, shard in sorted(shards.items())},
        "runs": len(ordered),
        "runs_per_chunk": RUNS_PER_CHUNK,
        "docs_per_chunk": DOCS_PER_CHUNK,
        "step_code": STEP_CODE,
    }
    files["search/meta.js"] = _script("RG_SEARCH_META", meta)
    return files
