"""``build_site``: read the archive, build every page's context, render what changed, publish
the tables as Parquet, vendor the assets, and swap the new site in."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from reportgen.archive import connect
from reportgen.archive.snapshot import write_snapshot
from reportgen.errors import UsageError
from reportgen.resources import shipped_dir
from reportgen.site import paths
from reportgen.site.choose import Choice, choose
from reportgen.site.context import LazyPage, Link, Page
from reportgen.site.data import Comparison, SiteData, archive_ids, load_site_data
from reportgen.site.evalcache import EvaluationCache, cache_salt
from reportgen.site.feed import FEED, feed_xml
from reportgen.site.pages_compare import (
    NightStats,
    Verdicts,
    compare_page,
    night_statistics,
    pair_pages,
)
from reportgen.site.pages_convergence import convergence_pages
from reportgen.site.pages_iterations import iteration_pages
from reportgen.site.pages_matrix import MATRIX, matrix_column, matrix_page
from reportgen.site.pages_overview import history_pages, index_page, suite_change_points
from reportgen.site.pages_runs import run_pages, task_pages
from reportgen.site.pages_suites import NAV_SUITES, suites_page
from reportgen.site.redaction import Redaction, redact_archive
from reportgen.site.render import Renderer
from reportgen.site.retention import (
    DEFAULT_KEEP_NIGHTS,
    kept_nights,
    newest_nights,
    pruned_pairs,
    pruned_runs,
    with_retention,
)
from reportgen.site.search import write_search
from reportgen.site.writer import SiteWriter, write_error


@dataclass(frozen=True)
class BuildReport:
    """What a build did: pages written and skipped (unchanged), and where the index is."""

    out: Path
    index: Path
    pages: int
    written: int
    skipped: int
    removed: int
    build_time: str
    redacted: int = 0
    size_bytes: int = 0
    files: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON form ``reportgen build --json`` prints."""
        return {
            "out": str(self.out),
            "index": str(self.index),
            "pages": self.pages,
            "written": self.written,
            "skipped": self.skipped,
            "removed": self.removed,
            "build_time": self.build_time,
            "redacted": self.redacted,
            "size_bytes": self.size_bytes,
            "files": self.files,
        }


def resolve_build_time(build_time: str | None) -> str:
    """The build's one time stamp: ``build_time``, else SOURCE_DATE_EPOCH, else now (UTC).
    A value that is not a time in years 1 to 9999 (UTC) is a usage error naming its source."""
    if build_time is not None:
        try:
            moment = datetime.fromisoformat(build_time.replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            moment = moment.astimezone(UTC)
        except (ValueError, OverflowError):
            raise UsageError(
                f"--build-time {build_time!r} is not an ISO 8601 time in years 1 to 9999"
            ) from None
    elif os.environ.get("SOURCE_DATE_EPOCH", "").strip():
        raw = os.environ["SOURCE_DATE_EPOCH"]
        try:
            moment = datetime.fromtimestamp(int(raw), UTC)
        except (ValueError, OverflowError, OSError):
            raise UsageError(
                f"SOURCE_DATE_EPOCH {raw.strip()[:40]!r} is not a whole number of seconds "
                "since 1970 in years 1 to 9999"
            ) from None
    else:
        moment = datetime.now(UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def compared(data: SiteData) -> list[Comparison]:
    """The comparisons that have pairs (those that get pages)."""
    return [c for c in data.comparisons if c.pairs]


def comparison_links(data: SiteData) -> list[Link]:
    """A link to each comparison's index."""
    return [
        Link(
            f"{c.baseline_label} vs {c.candidate_label}",
            paths.compare_index_path(c.baseline_label, c.candidate_label),
        )
        for c in compared(data)
    ]


def _nav(data: SiteData) -> list[Link]:
    """The navigation bar every page shares: with several comparisons, one link to the
    matrix of them instead of one per comparison."""
    nav = [Link("Overview", "index.html")]
    if len(data.suites) > NAV_SUITES:
        nav.append(Link(f"Suites ({len(data.suites)})", "suites.html"))
    else:
        nav += [Link(f"History: {s}", paths.history_path(s)) for s in data.suites]
    links = comparison_links(data)
    if len(links) > 1:
        nav.append(Link(f"Comparisons ({len(links)})", MATRIX))
    else:
        nav += links
    return nav


def all_pages(
    data: SiteData,
    build_time: str,
    verdicts: Verdicts | None = None,
    keep_nights: int = DEFAULT_KEEP_NIGHTS,
    nights: NightStats | None = None,
) -> Iterable[Page | LazyPage]:
    """Every page of the site, in a fixed order (run and pair pages as lazy pages; those of
    nights older than the ``keep_nights`` newest as small stand-ins, see retention.py).
    ``nights``: the label-level verdicts per night (night_statistics), when already known."""
    nav = _nav(data)
    cps = suite_change_points(data)
    kept = kept_nights(data, keep_nights)
    pruned = pruned_runs(data, kept, keep_nights) if kept is not None else {}
    if nights is None:
        nights = night_statistics(data)
    views = []
    for comparison in compared(data):  # each comparison's statistics, once
        view = data.for_comparison(comparison)
        stats = nights if comparison is data.comparisons[0] else night_statistics(view)
        views.append((view, stats, matrix_column(view, stats)))
    columns = [column for _, _, column in views]
    index = index_page(data, nav, cps, build_time, nights)
    index.comparisons = comparison_links(data)
    index.comparison_rows = columns
    index.chosen_by = data.chosen_by
    index.matrix = Link("all comparisons side by side", MATRIX) if len(columns) > 1 else None
    yield index
    yield suites_page(data, nav, nights)
    yield from history_pages(data, nav, cps, nights)
    for view, stats, _ in views:
        gone = pruned_pairs(view, kept, keep_nights) if kept is not None else {}
        yield compare_page(view, nav, stats, kept)
        yield from with_retention(pair_pages(view, nav, verdicts), gone)
    if len(columns) > 1:
        yield matrix_page(data, nav, columns)
    yield from task_pages(data, nav, kept)
    yield from with_retention(run_pages(data, nav), pruned)
    yield from iteration_pages(data, nav)
    yield from convergence_pages(data, nav)


def _render_lazy(renderer: Renderer, lazy: LazyPage) -> dict[str, bytes]:
    """Build a lazy page's context and render it."""
    page = lazy.build()
    if page.path != lazy.path or page.template != lazy.template:
        raise RuntimeError(f"lazy page {lazy.path} built {page.path} ({page.template})")
    return renderer.render(page)


def _assets(writer: SiteWriter) -> None:
    """Copy the shipped static files under assets/ (the site's CSS and JS, and Plotly's
    cartesian bundle, vendored from npm's plotly.js-cartesian-dist-min), and add .nojekyll."""
    for file in sorted(shipped_dir("static").iterdir()):
        if file.is_file() and not file.name.startswith("."):
            writer.copy(f"assets/{file.name}", file)
    writer.file(".nojekyll", b"")


def build_site(
    db: Path,
    out: Path,
    *,
    build_time: str | None = None,
    baseline_label: str = "baseline",
    candidate_label: str = "candidate",
    verdicts: Verdicts | None = None,
    redaction: Redaction | None = None,
    site_url: str | None = None,
    keep_nights: int = DEFAULT_KEEP_NIGHTS,
    compare: Sequence[str] = (),
    compare_source: str = "--compare",
) -> BuildReport:
    """Build the static site for the archive ``db`` into ``out``, re-rendering only changed
    pages; ``verdicts`` (a pair's metrics -> {metric: passed}) adds gate verdicts. Secrets are
    redacted from every page and data file unless ``redaction`` says otherwise; ``site_url``
    (where the site is published) makes the feed's links absolute. ``compare``: the
    comparisons (``BASE..CAND``, from ``compare_source``); without them, labels other than the
    default ones compare those two, else the archive's labels decide (choose.py)."""
    stamp = resolve_build_time(build_time)
    policy = Redaction() if redaction is None else redaction
    renderer = Renderer()
    con = connect(db, read_only=True)
    writer = SiteWriter(out)
    try:
        redacted = redact_archive(con, policy)
        choice = _choice(con, compare, compare_source, baseline_label, candidate_label)
        ids = [*archive_ids(con), *(label for pair in choice.pairs for label in pair)]
        seen: set[str] = set()
        cache = EvaluationCache.beside(out, cache_salt(con, policy))
        with paths.known_ids(ids):
            step_nights = newest_nights(con, keep_nights)
            data = load_site_data(
                con,
                baseline_label,
                candidate_label,
                step_nights,
                compare=choice.pairs,
                chosen_by=choice.said,
                cache=cache,
            )
            data.redact_notes = policy.pattern is not None
            nights = night_statistics(data)  # label-level verdicts per night, computed once
            for page in all_pages(data, stamp, verdicts, keep_nights, nights):
                if page.path in seen:
                    raise RuntimeError(f"two pages want the same path: {page.path}")
                seen.add(page.path)
                if isinstance(page, LazyPage):
                    digest = renderer.inputs_hash(page.template, page.inputs)
                    writer.page(page.path, digest, partial(_render_lazy, renderer, page))
                else:
                    digest = renderer.page_hash(page)
                    writer.page(page.path, digest, partial(renderer.render, page))
            if data.pairs:
                writer.file(FEED, feed_xml(data, nights, stamp, site_url))
            kept = kept_nights(data, keep_nights)
            searched = [r for r in data.runs if kept is None or r["batch"] in kept]
            write_search(con, writer, data.runs, searched, policy)
        write_snapshot(
            con,
            writer.tmp / "data",
            published={"redacted": policy.pattern is not None, "payloads": policy.payloads},
            previous=writer.out / "data",
        )
        _assets(writer)
        writer.commit()
        cache.save()
    except OSError as error:  # a full disk, no permission: one line, the old site untouched
        writer.abort()
        raise write_error(out, error) from None
    except BaseException:
        writer.abort()
        raise
    finally:
        con.close()
    size, files = _site_size(out)
    return BuildReport(
        out,
        out / "index.html",
        len(seen),
        writer.written,
        writer.skipped,
        writer.removed,
        stamp,
        redacted,
        size,
        files,
    )


def _choice(
    con: Any, compare: Sequence[str], source: str, baseline_label: str, candidate_label: str
) -> Choice:
    """The comparisons asked for, else the two labels given, else the archive's choice."""
    if compare:
        return choose(con, compare, source)
    if (baseline_label, candidate_label) != ("baseline", "candidate"):
        return Choice(
            [(baseline_label, candidate_label)],
            f"Compared: {baseline_label}..{candidate_label} (--baseline-label, --candidate-label).",
        )
    return choose(con)


def _site_size(out: Path) -> tuple[int, int]:
    """Bytes and number of files of the published site (what GitHub Pages counts)."""
    size = files = 0
    for folder, _dirs, names in os.walk(out):
        for name in names:
            size += os.stat(os.path.join(folder, name)).st_size
            files += 1
    return size, files
