"""Render page contexts with Jinja2 (autoescape on, strict undefined) into files.

Charts travel as data, never as inline script: a small figure goes into a
``<script type="application/json">`` block (Jinja's ``tojson`` escapes ``<``, ``>`` and ``&``);
a big one into ``<page>.<chart>.js`` beside the page, loaded when it scrolls into view."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import posixpath
import re
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import orjson
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

from reportgen.resources import shipped_dir
from reportgen.site import fmt, glossary, paths, tablerows
from reportgen.site.context import Chart, Link, Page, PrunedPage
from reportgen.statistics.headline import NAMED_TASKS, named_tasks, task_name

#: Charts with more points than this are written beside the page and loaded lazily.
INLINE_POINTS = 300
#: No inline scripts, no network: scripts, styles, images and fonts from the site only.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; "
    "form-action 'none'"
)

#: A stand-in page of a pruned night (retention.py) has no script: its stylesheet only.
PRUNED_CSP = "default-src 'none'; style-src 'self'"


def files_fingerprint(*folders: Path) -> str:
    """A hash of every file under ``folders`` (caches and compiled modules aside): changing
    one re-renders every page."""
    digest = hashlib.sha256()
    for folder in folders:
        files = (
            p
            for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".so", ".c")
        )
        for file in sorted(files):
            digest.update(file.relative_to(folder).as_posix().encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


def _jsonable(value: Any) -> Any:
    """``json.dumps`` fallback: dataclasses as field dicts (shallow, json recurses; much
    faster than ``dataclasses.asdict``), anything else as its text."""
    if dataclasses.is_dataclass(value):
        return {name: getattr(value, name) for name in value.__dataclass_fields__}
    return str(value)


_HASHED = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def _inputs_json(inputs: Any) -> bytes:
    """A page's inputs as JSON, to be hashed: orjson (a year's build hashes some 45,000
    pages' inputs). It writes NaN and infinities as null, as it writes None; the site shows
    them alike (fmt's UNKNOWN, a gap in a chart), so a page whose value went from one to the
    other looks the same. What orjson cannot write (an integer past 64 bits) goes through
    ``json``."""
    try:
        return orjson.dumps(inputs, default=_jsonable, option=_HASHED)
    except TypeError:
        return json.dumps(inputs, sort_keys=True, default=_jsonable).encode("utf-8")


def chart_script(chart: Chart) -> str:
    """The text of a chart's data file: it registers the figure under the chart's id."""
    data = json.dumps(chart.figure, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    data = data.replace("</", "<\\/")
    key = json.dumps(chart.id)
    return f"window.RG_CHARTS=window.RG_CHARTS||{{}};window.RG_CHARTS[{key}]={data};\n"


#: The packages whose code turns archive rows into pages (declared, not guessed from file
#: names): run and pair pages are keyed by their inputs, so this code is part of the key.
PAGE_CODE = ("site", "divergence", "convergence", "iterations", "gating", "statistics")


@cache
def _page_code_fingerprint() -> str:
    """The fingerprint of PAGE_CODE, taken once per process (the code that runs is the code
    imported at start)."""
    package = Path(__file__).resolve().parent.parent
    return files_fingerprint(*(package / name for name in PAGE_CODE))


_SEPARATORS = re.compile(r"([/_.:-]+)(?=[^/_.:-])")


@lru_cache(maxsize=8192)
def wbr(text: object) -> Markup:
    """``text`` escaped, with a line-break opportunity (``<wbr>``) after each run of the
    separators / - _ . : inside it: a long id breaks there and never inside a word."""
    return Markup(_SEPARATORS.sub(r"\1<wbr>", str(escape(str(text)))))


def linked(headline: str, links: Sequence[Link], url: Callable[[str], str]) -> Markup:
    """The headline escaped, with the newly broken tasks it names ("2 tasks newly broken
    (migrate-db, review-pull-request)") each a link to its diff (``links``: the night's newly
    broken tasks and their pair pages, in the headline's order; ``url``: the page's href)."""
    if not links:
        return escape(headline)
    said = f"newly broken ({named_tasks([link.text for link in links])}"
    at = headline.find(said)
    if at < 0:
        return escape(headline)
    anchors = Markup(", ").join(
        Markup('<a class="nowrap" href="{}">{}</a>').format(url(link.href), task_name(link.text))
        for link in links[:NAMED_TASKS]
    )
    start = at + len("newly broken (")
    return escape(headline[:start]) + anchors + escape(headline[at + len(said) :])


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:T[\d:.]+Z?)?")


def dates_whole(text: object) -> Markup:
    """``text`` escaped, each date in it (``2026-11-28``) kept on one line: a heading wraps
    at its spaces, never inside a date at its hyphens."""
    escaped = str(escape(str(text)))
    return Markup(_DATE.sub(lambda m: f'<span class="nowrap">{m.group(0)}</span>', escaped))


def page_url(page: str) -> Callable[[str], str]:
    """The ``url`` of a page's template: ``paths.rel`` from ``page``. A target with a path
    depends on the page's folder only, so it is looked up by the folder (a build's thousands
    of pages share a few hundred folders and the same few links); only a bare ``#anchor``
    needs the page's own name."""
    in_folder = posixpath.join(posixpath.dirname(page), "_")  # any name in the page's folder

    def url(target: str) -> str:
        return paths.rel(target, in_folder if target.partition("#")[0] else page)

    return url


class Renderer:
    """The configured Jinja environment plus the fingerprint of the shipped front end."""

    def __init__(self) -> None:
        templates = shipped_dir("templates")
        self.env = Environment(
            loader=FileSystemLoader(templates),
            autoescape=True,
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            auto_reload=False,  # one build reads each template once: no stat per page
        )
        self.env.filters.update(fmt.FILTERS)
        self.env.globals.update(fmt.FILTERS)
        self.env.globals["number_cell"] = fmt.number_cell
        self.env.globals.update(
            task_run_rows=tablerows.run_rows, task_pair_rows=tablerows.pair_rows
        )
        # a term's markup is the same on every page of a build (typed: a Markup text and a
        # plain one that read alike are escaped differently)
        term = lru_cache(maxsize=1024, typed=True)(glossary.term)
        self.env.globals.update(
            term=term, metric_name=glossary.metric_name, define=glossary.definition
        )
        self.fingerprint = (
            files_fingerprint(templates, shipped_dir("static")) + _page_code_fingerprint()
        )
        self.env.filters["slug"] = lru_cache(maxsize=4096)(paths.slug)
        self.env.filters["wbr"] = wbr
        self.env.filters["linked"] = linked
        self.env.filters["dates_whole"] = dates_whole

    def page_hash(self, page: Page) -> str:
        """A hash of everything a page's bytes depend on: its data and the front end."""
        return self.inputs_hash(page.template, page)

    def inputs_hash(self, template: str, inputs: Any) -> str:
        """A hash of a page's template, its inputs (JSON-able data) and the front end."""
        digest = hashlib.sha256(f"{self.fingerprint}\n{template}\n".encode())
        digest.update(_inputs_json(inputs))
        return digest.hexdigest()

    def render(self, page: Page) -> dict[str, bytes]:
        """The page's HTML and its chart data files, keyed by site-relative path."""
        files: dict[str, bytes] = {}
        stem = posixpath.splitext(posixpath.basename(page.path))[0]
        folder = posixpath.dirname(page.path)
        slots = []
        for chart in page.charts:
            slot: dict[str, Any] = {
                "id": chart.id,
                "title": chart.title,
                "figure": None,
                "src": None,
            }
            if chart.points > INLINE_POINTS:
                name = f"{stem}.{paths.slug(chart.id)}.js"
                files[posixpath.join(folder, name)] = chart_script(chart).encode("utf-8")
                slot["src"] = name
            else:
                slot["figure"] = chart.figure
            slots.append(slot)
        csp = PRUNED_CSP if isinstance(page, PrunedPage) else CSP
        html = self.env.get_template(page.template).render(
            page=page, charts=slots, csp=Markup(csp), url=page_url(page.path)
        )
        files[page.path] = html.encode("utf-8")
        files.update(getattr(page, "data_files", None) or {})
        return files
