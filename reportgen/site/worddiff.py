"""Word-level diffs of a modified step's input and output for the pair pages: JSON is
pretty-printed with sorted keys first (so a reordered object is not a change), then the texts
are diffed word by word (:mod:`reportgen.divergence.textdiff`: rapidfuzz's Indel opcodes,
long unchanged stretches folded, a text rewritten beyond recognition said to be). Everything
is escaped; only ``<del>``, ``<ins>`` and the fold marker are markup."""

from __future__ import annotations

import json
from functools import lru_cache

from markupsafe import Markup

from reportgen.divergence.textdiff import REWRITTEN, WordDiff, tokens, word_pieces
from reportgen.site.steps import pretty_json

__all__ = [
    "REWRITE",
    "REWRITTEN",
    "payload_diff",
    "readable",
    "render",
    "text_diff",
    "tokens",
    "word_diff",
]


@lru_cache(maxsize=1 << 16)
def readable(raw: str | None) -> str:
    """A payload (JSON text) as the diff compares it: strings bare, other values as indented
    JSON with sorted keys; text that is not JSON as it is. Cached: payloads recur."""
    if raw is None:
        return ""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return raw
    return value if isinstance(value, str) else pretty_json(value, sort_keys=True)


_FOLD = '<span class="fold">… {:,} unchanged characters …</span>'
_MORE = '<span class="fold">… more changes (open both sides)</span>'
_TOO_LONG = '<span class="fold">too long to diff word by word ({:,} and {:,} words)</span>'


def _esc(text: str) -> str:
    """Text for element content: ``&``, ``<`` and ``>`` as entities (faster than markupsafe's
    ``escape`` for the many short pieces of a diff; no attribute is ever built from it)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


#: What ``word_diff`` gives for a text rewritten beyond a useful word diff (compare with
#: ``is``): the pair page says "rewritten" beside the step instead of a diff.
REWRITE = Markup('<span class="fold">rewritten</span>')


@lru_cache(maxsize=4096)
def text_diff(before: str, after: str) -> WordDiff | None:
    """``before`` → ``after`` as a word diff (None: equal). Cached: the same change recurs
    across nights and trials."""
    return word_pieces(before, after)


def payload_diff(before: str | None, after: str | None) -> WordDiff | None:
    """Two payloads (JSON text) as a word diff of their readable forms (None: equal): what a
    pair page's step table draws from its data (pairrows.py)."""
    if before == after:
        return None
    return text_diff(readable(before), readable(after))


def render(diff: WordDiff) -> Markup:
    """A word diff as HTML: removed words in ``<del>``, added ones in ``<ins>``, folds and
    notes as ``<span class="fold">``. Built as plain strings (every piece of text through
    ``_esc``) and marked safe once: the build diffs every modified step."""
    if diff.kind == "rewritten":
        return REWRITE
    if diff.kind == "too_long":
        return Markup(_TOO_LONG.format(*diff.sizes))
    parts: list[str] = []
    for mark, text, hidden in zip(diff.marks, diff.texts, diff.hidden, strict=True):
        if mark == "s":
            parts.append(_esc(text))
        elif mark == "d":
            parts.append("<del>" + _esc(text) + "</del>")
        elif mark == "i":
            parts.append("<ins>" + _esc(text) + "</ins>")
        elif mark == "f":
            parts.append(_FOLD.format(hidden))
        else:
            parts.append(_MORE)
    return Markup("".join(parts))


@lru_cache(maxsize=4096)
def word_diff(before: str, after: str) -> Markup | None:
    """``before`` → ``after`` as HTML (see ``render``); None when the texts are equal, REWRITE
    when rewritten beyond a useful diff. Cached: the same change recurs across nights and
    trials."""
    diff = text_diff(before, after)
    return None if diff is None else render(diff)
