"""Markdown notes from traces (``meta.notes``), rendered safely.

CommonMark (plus GitHub-style tables) with raw HTML off, images off (they would fetch from the network), and links only
to http(s), mailto or anchors in the page; never ``javascript:``, ``data:`` or ``vbscript:``,
and never a relative path (it names a file beside the README, which the site does not hold):
those show as text."""

from __future__ import annotations

import re
from functools import cache
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markupsafe import Markup

from reportgen.secrets import redact_text

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


def render_notes(text: str | None, redact: bool = True) -> Markup | None:
    """HTML for a Markdown note, or None when there is no note.

    The result is Markup because markdown-it escapes every piece of the source it emits; the
    tests feed it hostile text to keep that true. ``redact``: the built-in secret shapes are
    replaced in the rendered HTML too, since rendering can reassemble a key the source hid
    from the archive's redaction (``sk\\-ant\\-…``, ``&#45;``, ``%2D`` in a link)."""
    if text is None or not str(text).strip():
        return None
    html = _parser().render(str(text))
    return Markup(_redacted(html) if redact else html)


def _redacted(html: str) -> str:
    """``html`` with its secrets replaced, a percent-encoded one (in a link) included."""
    shown = redact_text(html)
    decoded = unquote(shown)
    if decoded != shown and redact_text(decoded) != decoded:
        return redact_text(decoded)
    return shown
