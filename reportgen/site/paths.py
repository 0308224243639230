"""Stable, human-readable, safe relative paths for every page of the site.

Ids come from agent traces and are hostile: each path segment is lower-cased and reduced to
``[a-z0-9._-]``; whenever that loses information a short hash of the original id is appended,
so two ids never share a path and the same id always gets the same path."""

from __future__ import annotations

import hashlib
import posixpath
import re
from functools import cache

_UNSAFE = re.compile(r"[^a-z0-9._-]+")
_MAX_SEGMENT = 60


def _short_hash(text: str) -> str:
    """Six hex digits of a SHA-1 of ``text``: enough to tell ids apart, short enough to read."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:6]


def slug(text: str) -> str:
    """One safe path segment for ``text``; ``text`` itself when it is already safe."""
    lowered = _UNSAFE.sub("-", text.lower()).strip("-._")[:_MAX_SEGMENT].strip("-._")
    if lowered == text and text:
        return text
    return f"{lowered}-{_short_hash(text)}" if lowered else f"id-{_short_hash(text)}"


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
    """One pair's page: ``compare/<b>..<c>/<suite>/<task>/<batch>[-t<trial>][-<n>].html``."""
    name = (
        slug(batch) + (f"-t{trial}" if trial else "") + (f"-{duplicate}" if duplicate > 1 else "")
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
        segment = f"{segment.replace('.', '-')}-{_short_hash(run_id)}"
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
