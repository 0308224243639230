"""Markdown notes from traces (``meta.notes``), rendered safely.

CommonMark (plus GitHub-style tables) with raw HTML off, images off (they would fetch from the network), and links only
to http(s), mailto or anchors in the page; never ``javascript:``, ``data:`` or ``vbscript:``,
and never a relative path (it names a file beside the README, which the site does not hold):
those show as text."""

from __future__ import annotations

import re
from functools import cache

from markdown_it import MarkdownIt
from markupsafe import Markup

_SCHEME = re.compile(r"^\s*([a-zA-Z][a-zA-Z0-9+.-]*):")
_SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_CONTROL = re.compile(r"[\x00-\x20\x7f]")


def safe_link(url: str) -> bool:
    """True for links the site may render: http(s), mailto and in-page anchors (``#part``)."""
    cleaned = _CONTROL.sub("", url)
    match = _SCHEME.match(cleaned)
    if match is None:
        return cleaned.startswith("#")
    return match.group(1).lower() in _SAFE_SCHEMES


@cache
def _parser() -> MarkdownIt:
    """The one configured parser (building it is not free, so it is cached)."""
    md = MarkdownIt("commonmark", {"html": False, "linkify": False})
    md.disable(["image", "html_block", "html_inline"])
    md.enable("table")  # GitHub-style tables, as READMEs write them
    md.validateLink = safe_link  # type: ignore[method-assign]
    return md


def render_notes(text: str | None) -> Markup | None:
    """HTML for a Markdown note, or None when there is no note.

    The result is Markup because markdown-it escapes every piece of the source it emits; the
    tests feed it hostile text to keep that true."""
    if text is None or not str(text).strip():
        return None
    return Markup(_parser().render(str(text)))
