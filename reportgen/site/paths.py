"""Stable, human-readable, safe relative paths for every page of the site.

Ids come from agent traces and are hostile. Two ids never share a page, by construction:

- an id that is already a safe segment (``[a-z0-9._-]``) is used as it is, unless it ends like
  a name this module makes (``-`` plus 6 or 64 hex digits, ``-t<n>``, ``-dup<n>``) or in
  ``.html`` (a folder named like the page beside it);
- any other id is lower-cased, reduced to ``[a-z0-9._-]`` and given ``-`` plus 6 hex digits
  of its SHA-1, so it always ends like a made name and never equals a kept id;
- two ids whose 6-digit names would still clash (``known_ids`` gets every id of the build)
  both get the 64 hex digits of their SHA-256 instead;
- a pair page's name adds ``-t<trial>`` and ``-dup<n>``, which no segment ends with.

The same id gets the same path from build to build unless a clashing id arrives."""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache, lru_cache

_UNSAFE = re.compile(r"[^a-z0-9._-]+")
_MAX_SEGMENT = 60
#: Endings of the names this module makes (and ``.html``, so that no folder is named like a
#: page beside it); an id ending so is never used as it is.
_MADE = re.compile(r"-(?:[0-9a-f]{6}|[0-9a-f]{64}|t\d+|dup\d+)$|\.html$")
#: Ids of the current build whose short names clash: they get the long hash.
_LONG: ContextVar[frozenset[str]] = ContextVar("reportgen_long_names", default=frozenset())


def _short_hash(text: str) -> str:
    """Six hex digits of a SHA-1 of ``text``: enough to tell ids apart, short enough to read."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:6]


def _hash(text: str, long: frozenset[str]) -> str:
    """The id's hash suffix: 6 hex digits, or 64 (SHA-256) when its short name clashes
    (``long``: the build's clashing ids)."""
    if text in long:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
    return _short_hash(text)


def _lowered(text: str) -> str:
    return _UNSAFE.sub("-", text.lower()).strip("-._")[:_MAX_SEGMENT].strip("-._")


def _kept(text: str) -> bool:
    """True when ``text`` is used as its own segment."""
    return bool(text) and _lowered(text) == text and not _MADE.search(text)


def slug(text: str) -> str:
    """One safe path segment for ``text``; ``text`` itself when it is already safe."""
    return _slug(text, _LONG.get())


@lru_cache(maxsize=1 << 17)  # a year of nightlies names a page after ~10^5 ids, many times
def _slug(text: str, long: frozenset[str]) -> str:
    if _kept(text):
        return text
    lowered = _lowered(text)
    return f"{lowered}-{_hash(text, long)}" if lowered else f"id-{_hash(text, long)}"


def clashing_ids(ids: Iterable[str]) -> frozenset[str]:
    """The ids whose short names (as ``slug`` or as a coding-loop run segment) are shared
    with another id: those get the 64-digit hash."""
    names: dict[str, set[str]] = defaultdict(set)
    token = _LONG.set(frozenset())
    try:
        for text in set(ids):
            names[slug(text)].add(text)
            names[_run_segment(text)].add(text)
    finally:
        _LONG.reset(token)
    return frozenset(t for group in names.values() if len(group) > 1 for t in group)


@contextmanager
def known_ids(ids: Iterable[str]) -> Iterator[frozenset[str]]:
    """Name pages, within the block, knowing every id of the build, so that no two short
    names clash (per thread and task: concurrent builds do not see each other's ids)."""
    long = clashing_ids(ids)
    token = _LONG.set(long)
    try:
        yield long
    finally:
        _LONG.reset(token)


def _file(*segments: str) -> str:
    """Join already-safe segments into a site-relative path."""
    return "/".join(segments)


def run_path(suite: str, task_id: str, run_id: str) -> str:
    """The run page: ``runs/<suite>/<task>/<run>.html``."""
    return _file("runs", slug(suite), slug(task_id), f"{slug(run_id)}.html")


def task_path(suite: str, task_id: str) -> str:
    """The task page: ``tasks/<suite>/<task>.html``."""
    return _file("tasks", slug(suite), f"{slug(task_id)}.html")


def history_path(suite: str) -> str:
    """The history page of one suite: ``history/<suite>.html``."""
    return _file("history", f"{slug(suite)}.html")


def compare_dir(baseline_label: str, candidate_label: str) -> str:
    """The folder of one comparison: ``compare/<baseline>..<candidate>``."""
    return _file("compare", f"{slug(baseline_label)}..{slug(candidate_label)}")


def compare_index_path(baseline_label: str, candidate_label: str) -> str:
    """The comparison's index page."""
    return _file(compare_dir(baseline_label, candidate_label), "index.html")


def pair_path(
    baseline_label: str,
    candidate_label: str,
    suite: str,
    task_id: str,
    batch: str,
    trial: int,
    duplicate: int = 1,
) -> str:
    """One pair's page: ``compare/<b>..<c>/<suite>/<task>/<batch>[-t<trial>][-dup<n>].html``
    (no segment ends in ``-t<n>`` or ``-dup<n>``, so the name is never another pair's)."""
    name = (
        slug(batch)
        + (f"-t{trial}" if trial else "")
        + (f"-dup{duplicate}" if duplicate > 1 else "")
    )
    return _file(
        compare_dir(baseline_label, candidate_label), slug(suite), slug(task_id), f"{name}.html"
    )


@cache
def rel(target: str, page: str) -> str:
    """The relative URL from the page at ``page`` to ``target`` (both site-relative paths).

    A target ending in ``/`` names a folder and keeps its slash; ``#anchor`` suffixes survive."""
    path, hash_, anchor = target.partition("#")
    start = posixpath.dirname(page) or "."
    url = posixpath.relpath(path, start) if path else posixpath.basename(page)
    if path.endswith("/") and not url.endswith("/"):
        url += "/"
    return url + hash_ + anchor


def _run_segment(run_id: str) -> str:
    """``slug`` of a coding-loop run id, never containing ``..`` (which separates the two runs
    of a side-by-side page)."""
    segment = slug(run_id)
    if ".." in segment:
        segment = f"{segment.replace('.', '-')}-{_hash(run_id, _LONG.get())}"
    return segment


def iterations_path(run_id: str) -> str:
    """A coding-loop run's iteration page: ``iterations/<run>.html``."""
    return _file("iterations", f"{_run_segment(run_id)}.html")


def iterations_compare_path(run_a: str, run_b: str) -> str:
    """Two coding-loop runs on the same backlog side by side: ``iterations/<a>..<b>.html``."""
    return _file("iterations", f"{_run_segment(run_a)}..{_run_segment(run_b)}.html")


def convergence_path(suite: str, label: str, task_id: str, batch: str) -> str:
    """One group's convergence page: ``convergence/<suite>/<task>/<label>/<batch>.html``."""
    return _file("convergence", slug(suite), slug(task_id), slug(label), f"{slug(batch)}.html")
