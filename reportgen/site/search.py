"""The site's search index: every word of every step and run, split into small script files
under ``search/`` that the index page's search box loads on demand (a ``<script src>`` works
from ``file://``, where ``fetch()`` of a local file does not), so a large site never loads
the whole index.

The index is made of units, each written on its own: a night whose steps are indexed (the
kept nights, retention.py) is a unit, and the older nights, whose runs alone are indexed, go
in blocks of ``BLOCK_NIGHTS`` nights counted from the oldest (so a new night, and the night
that leaves the kept window, change only the newest block; a query loads a shard of each
unit, about 40 for a year, not 366). A unit's files depend only on its runs and steps: each
is written through the SiteWriter's page mechanism under a key (site_search_keys.sql:
DuckDB's row hashes of its runs and of its steps' columns and stored step hashes, with the
run pages, the redaction policy, DuckDB's version and this code), so a nightly build
computes the words of the new night and of the newest block only, and links the rest from
the previous site.

Files: ``search/meta.js`` (every night, newest first, with its number of runs and its unit,
and each unit's word prefixes), per unit ``U``: ``search/w-<x>.U.js`` (the words starting
with ``x``, ``PREFIX`` characters, and their postings, packed as the step data is:
stepdata.pack_json; a query loads one per unit, so they are coarse: two-character shards
would make a year's index 6,400 files),
``search/runs-U-<k>.js`` (each run's page, title, trial and id, in chunks of
``RUNS_PER_CHUNK``) and ``search/docs-U-<k>.js`` (the text a run's hit shows a snippet of, in
chunks of ``DOCS_PER_CHUNK`` runs). A step's hit shows a snippet of the step's text from its
run's step data script (``<run>.steps.js``, stepdata.py), written once for the run and pair
pages, so the index holds no copy of the steps' text. A posting is ``run_no * 1000000 + idx
+ 1`` (0: the run itself), ``run_no`` the run's number within its unit, whose runs are
numbered as the whole site's: nights newest first, then by run id. The page turns it into
the site's number (the runs of the newer nights before it, from meta.js), so postings in
order list the newest night's hits first. The words come from the read-only session the
site is built from, so redaction (site/redaction.py) applies to the index as to every
page."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import duckdb
import orjson
import pyarrow as pa

from reportgen._sql import load_sql
from reportgen.archive import arrow
from reportgen.site import paths
from reportgen.site.stepdata import pack_json

RUNS_PER_CHUNK = 500
DOCS_PER_CHUNK = 20  # runs per docs file: a page of hits loads a few small files
STEP_CODE = 1_000_000  # a run has fewer steps than this (the posting's idx part)
BLOCK_NIGHTS = 32  # older nights (runs only) per unit
PREFIX = 1  # a unit's words are sharded by their first character (a query loads a shard per unit)
SEARCH_FORMAT = 2
#: The code a unit's files are made by (its key hashes these files).
_CODE = (
    "search.py",
    "stepdata.py",
    "paths.py",
    "sql/site_search.sql",
    "sql/site_search_docs.sql",
    "sql/site_search_keys.sql",
)


_VIEWS = ("rg_search_run_rows", "rg_search_steps")


class Writer(Protocol):
    """What the index needs of the SiteWriter (reportgen/site/writer.py)."""

    previous: dict[str, Any]
    entries: dict[str, dict[str, Any]]
    written: int
    skipped: int

    def page(self, path: str, digest: str, render: Callable[[], dict[str, bytes]]) -> None: ...

    def file(self, rel: str, data: bytes) -> None: ...


def _script(call: str, *args: Any) -> bytes:
    """``window.<call>(args...)`` as a script file (JSON arguments, so data never runs)."""
    body = b",".join(orjson.dumps(a) for a in args)
    return b"window." + call.encode() + b"(" + body + b");\n"


def _code_hash() -> str:
    folder = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in _CODE:
        digest.update(name.encode() + b"\n" + (folder / name).read_bytes())
    return digest.hexdigest()


def _night(run: dict[str, Any]) -> str:
    return str(run["batch"] or "")


def units(
    runs: list[dict[str, Any]], stepped: set[str]
) -> tuple[list[tuple[str, int, str]], dict[str, list[dict[str, Any]]]]:
    """The nights, newest first, as (night, its number of runs, its unit), and each unit's
    runs in the site's order (nights newest first, then by run id). A night with a stepped
    run is a unit of its own (``n`` and a hash of its name); the others go, oldest first, in
    blocks of ``BLOCK_NIGHTS`` (``b<k>``)."""
    ordered = sorted(runs, key=lambda r: r["run_id"])
    ordered.sort(key=_night, reverse=True)  # newest night first
    by_night: dict[str, list[dict[str, Any]]] = {}
    for run in ordered:
        by_night.setdefault(_night(run), []).append(run)
    plain = [n for n in by_night if not any(r["run_id"] in stepped for r in by_night[n])]
    block = {night: f"b{k // BLOCK_NIGHTS}" for k, night in enumerate(reversed(plain))}
    nights = []
    members: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for night, night_runs in by_night.items():
        unit = block.get(night) or "n" + hashlib.sha256(night.encode()).hexdigest()[:12]
        nights.append((night, len(night_runs), unit))
        members[unit] += night_runs
    return nights, dict(members)


def _run_row(run: dict[str, Any]) -> list[Any]:
    return [
        paths.run_path(run["suite"], run["task_id"], run["run_id"]),
        f"{run['suite']} · {run['task_id']} · {run['label']} · {run['batch']}",
        run.get("trial"),
        run["run_id"],
    ]


class _Index:
    """The units of one build: their keys, and their files computed together for the units
    that need them (the others are linked from the previous site)."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        members: dict[str, list[dict[str, Any]]],
        stepped: set[str],
    ) -> None:
        self.con = con
        self.members = members
        self.stepped = stepped
        self.files: dict[str, dict[str, bytes]] = {}
        self.prefixes: dict[str, str] = {}

    def _with_runs(self, names: Iterable[str], query: str) -> Any:
        """Run ``query`` with temp table rg_search_runs holding the runs of units ``names``
        and temp view rg_search_steps the steps of those whose steps are indexed."""
        unit, run_no, run_id, steps = [], [], [], []
        for name in names:
            for k, run in enumerate(self.members[name]):
                unit.append(name)
                run_no.append(k)
                run_id.append(run["run_id"])
                steps.append(run["run_id"] in self.stepped)
        table = arrow.table(  # from buffers: pa.array would import pandas (0.3 s)
            {
                "unit": arrow.strings(unit),
                "run_no": arrow.numbers(run_no, pa.int64()),
                "run_id": arrow.strings(run_id),
                "steps": arrow.numbers(steps, pa.bool_()),
            }
        )
        self.con.register("rg_search_runs_arrow", table)
        try:
            self.con.execute(
                "CREATE OR REPLACE TEMP TABLE rg_search_runs AS FROM rg_search_runs_arrow"
            )
            self._views()
            return self.con.sql(load_sql(query)).to_arrow_table()
        finally:
            self.con.unregister("rg_search_runs_arrow")
            for view in _VIEWS:
                self.con.execute(f"DROP VIEW IF EXISTS {view}")
            self.con.execute("DROP TABLE IF EXISTS rg_search_runs")

    def _views(self) -> None:
        """Temp views rg_search_run_rows and rg_search_steps: the rows of rg_search_runs'
        runs, and the steps of those whose steps are indexed, as the session sees them
        (redacted: redaction.py). Their run ids are a list in a session variable, a filter
        that reaches the stored tables through the redacted views (a join would redact every
        row of the archive before keeping a night's)."""
        con = self.con
        for name, where in (("rg_search_all", ""), ("rg_search_stepped", " WHERE steps")):
            con.execute(
                f"SET VARIABLE {name} = (SELECT coalesce(list(run_id), []) FROM rg_search_runs{where})"
            )
        con.execute(
            "CREATE TEMP VIEW rg_search_run_rows AS SELECT * FROM runs "
            "WHERE list_contains(getvariable('rg_search_all'), run_id)"
        )
        con.execute(
            "CREATE TEMP VIEW rg_search_steps AS SELECT * FROM steps "
            "WHERE list_contains(getvariable('rg_search_stepped'), run_id)"
        )

    def keys(self, salt: str) -> dict[str, str]:
        """Each unit's key: everything its files are made from."""
        rows = self._with_runs(self.members, "site_search_keys").to_pylist()
        sql = {row["unit"]: row for row in rows}
        keys = {}
        for name, runs in self.members.items():
            said = [
                SEARCH_FORMAT,
                salt,
                duckdb.__version__,
                name,
                [[_night(r), r["run_id"] in self.stepped, *_run_row(r)] for r in runs],
                sql.get(name),
            ]
            keys[name] = hashlib.sha256(orjson.dumps(said)).hexdigest()
        return keys

    def compute(self, names: list[str]) -> None:
        """The files of units ``names`` (all their words in one query)."""
        if not names:
            return
        words = self._with_runs(names, "site_search")
        docs = self._with_runs(names, "site_search_docs")
        shards: dict[str, dict[str, dict[str, list[int]]]] = {n: defaultdict(dict) for n in names}
        for unit, word, postings in zip(
            words.column("unit").to_pylist(),
            words.column("word").to_pylist(),
            words.column("postings").to_pylist(),
            strict=True,
        ):
            shards[unit][word[:PREFIX]][word] = postings
        texts: dict[str, dict[int, dict[str, list[str | None]]]] = {
            n: defaultdict(dict) for n in names
        }
        for unit, run_no, idx, action, status, text in zip(
            *(docs.column(c).to_pylist() for c in docs.column_names), strict=True
        ):
            posting = run_no * STEP_CODE + idx + 1
            texts[unit][run_no // DOCS_PER_CHUNK][str(posting)] = [action, status, text or ""]
        for name in names:
            files = {
                f"search/w-{prefix}.{name}.js": _script(
                    "RG_SEARCH_SHARD", f"{prefix}.{name}", pack_json(shard).decode()
                )
                for prefix, shard in shards[name].items()
            }
            runs = self.members[name]
            for start in range(0, len(runs), RUNS_PER_CHUNK):
                k = start // RUNS_PER_CHUNK
                chunk = [_run_row(r) for r in runs[start : start + RUNS_PER_CHUNK]]
                files[f"search/runs-{name}-{k}.js"] = _script("RG_SEARCH_RUNS", name, k, chunk)
            for k, chunk_texts in texts[name].items():
                files[f"search/docs-{name}-{k}.js"] = _script(
                    "RG_SEARCH_DOCS", name, k, chunk_texts
                )
            self.files[name] = files

    def render(self, name: str) -> dict[str, bytes]:
        if name not in self.files:  # the previous site lacked a file: compute it now
            self.compute([name])
        return self.files.pop(name)


def _prefixes(files: Iterable[str], name: str) -> str:
    """A unit's word prefixes, concatenated (each ``PREFIX`` characters), from its file names."""
    tail = f".{name}.js"
    return "".join(sorted(f[len("search/w-") : -len(tail)] for f in files if f.endswith(tail)))


def write_search(
    con: duckdb.DuckDBPyConnection,
    writer: Writer,
    runs: list[dict[str, Any]],
    with_steps: list[dict[str, Any]] | None = None,
    policy: object = None,
) -> None:
    """Write the search index of the site's ``runs`` through ``writer``; steps are indexed
    only for the runs of ``with_steps`` (default all: those with a step page). A unit whose
    key (see the module's docstring) is that of the previous site is linked from it.
    ``policy``: the redaction policy the session's views apply (its repr keys every unit).
    The units are not pages: the writer's page counts (written, skipped, removed) leave
    them out."""
    stepped = {r["run_id"] for r in (runs if with_steps is None else with_steps)}
    nights, members = units(runs, stepped)
    index = _Index(con, members, stepped)
    keys = index.keys(f"{_code_hash()}\n{policy!r}")
    page = {name: f"search/{name}" for name in members}
    stale = [
        name
        for name, key in keys.items()
        if not (
            isinstance(prev := writer.previous.get(page[name]), dict) and prev.get("hash") == key
        )
    ]
    index.compute(stale)
    written, skipped = writer.written, writer.skipped
    prefixes = {}
    for name in members:
        writer.page(page[name], keys[name], partial(index.render, name))
        prefixes[name] = _prefixes(writer.entries[page[name]]["files"], name)
    writer.written, writer.skipped = written, skipped
    for gone in [p for p in writer.previous if p.startswith("search/") and p not in writer.entries]:
        del writer.previous[gone]  # a unit that went away is no page removed
    meta = {
        "nights": [list(n) for n in nights],
        "units": prefixes,
        "prefix": PREFIX,
        "runs_per_chunk": RUNS_PER_CHUNK,
        "docs_per_chunk": DOCS_PER_CHUNK,
        "step_code": STEP_CODE,
    }
    writer.file("search/meta.js", _script("RG_SEARCH_META", meta))
