"""Retention: step-level pages (runs and pairs) only for the latest nights, so a year of
nightlies stays within what GitHub Pages serves (1 GB). Older runs and pairs keep a small
page at the same address (links never break) saying where their steps are: in ``data/``,
which always holds every night. Summary rows, task pages and history cover every night."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import duckdb

from reportgen._sql import load_sql
from reportgen.site import paths
from reportgen.site.context import LazyPage, Link, Page, PrunedPage
from reportgen.site.data import SiteData

DEFAULT_KEEP_NIGHTS = 30


def newest_nights(con: duckdb.DuckDBPyConnection, keep: int) -> frozenset[str] | None:
    """The same nights as ``kept_nights``, asked of the archive before the site data is
    loaded (so steps are read only for the runs that get a step page)."""
    if keep <= 0:
        return None
    rows = con.execute(load_sql("site_newest_nights"), {"keep": keep}).fetchall()
    return frozenset(str(r[0]) for r in rows)


def kept_nights(data: SiteData, keep: int) -> frozenset[str] | None:
    """The newest ``keep`` nights (batches) of the archive; None keeps every night (0)."""
    if keep <= 0:
        return None
    return frozenset(sorted({r["batch"] for r in data.runs}, reverse=True)[:keep])


def pruned_runs(data: SiteData, kept: frozenset[str], keep: int) -> dict[str, Page]:
    """The small page standing at the address of each run of an older night. It shows no
    header (pruned.html): its inputs hold no navigation, so a change there (a new suite, a
    new comparison) leaves the tens of thousands of stand-ins of a year as they are."""
    pages: dict[str, Page] = {}
    for run in data.runs:
        if run["batch"] in kept:
            continue
        path = paths.run_path(run["suite"], run["task_id"], run["run_id"])
        task = paths.task_path(run["suite"], run["task_id"])
        trial = f" · trial {run['trial']}" if run["trial"] else ""
        pages[path] = PrunedPage(
            path=path, title=f"{run['task_id']} · {run['label']} · {run['batch']}{trial}",
            nav=[], batch=run["batch"], kept_nights=keep,
            related=[Link(f"All runs of {run['task_id']}", task)],
        )  # fmt: skip
    return pages


def pruned_pairs(data: SiteData, kept: frozenset[str], keep: int) -> dict[str, Page]:
    """The small page standing at the address of each pair of ``data``'s comparison of an
    older night (see :func:`pruned_runs`)."""
    pages: dict[str, Page] = {}
    compare = paths.compare_index_path(data.baseline_label, data.candidate_label)
    for pair in data.pairs:
        if pair.batch in kept:
            continue
        pages[pair.path] = PrunedPage(
            path=pair.path,
            title=f"{pair.task_id} · {data.baseline_label} vs {data.candidate_label} · {pair.batch}",
            nav=[], batch=pair.batch, kept_nights=keep,
            related=[Link(f"All runs of {pair.task_id}", paths.task_path(pair.suite, pair.task_id)),
                     Link("The comparison, night by night", compare)],
        )  # fmt: skip
    return pages


def with_retention(
    pages: Iterable[Page | LazyPage], pruned: dict[str, Page]
) -> Iterator[Page | LazyPage]:
    """``pages`` with each pruned address's page swapped for its small stand-in."""
    for page in pages:
        yield pruned.get(page.path, page)
