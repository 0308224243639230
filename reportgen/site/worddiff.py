"""Word-level diffs of a modified step's input and output for the pair pages: JSON is
pretty-printed with sorted keys first (so a reordered object is not a change), the texts are
split into words, spaces and punctuation, and rapidfuzz's Indel opcodes (a longest common
subsequence, in C) mark what was removed and added. Long unchanged stretches fold to a line
that says how much is hidden; a text rewritten beyond recognition is said to be, not
diffed. Everything is escaped; only ``<del>``, ``<ins>`` and the fold
marker are markup."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import cast

from markupsafe import Markup
from rapidfuzz.distance import Indel

from reportgen.site.steps import pretty_json

#: Unchanged text kept on each side of a change; longer unchanged stretches fold.
CONTEXT = 80
#: Most tokens diffed per side; longer texts are not diffed (the pair page shows both).
MAX_TOKENS = 40_000
#: Most changed characters shown; the rest of the changes are summarised.
MAX_CHANGED = 4_000
#: Below this share of characters in common a text counts as rewritten: a word diff of it
#: would mark nearly everything, so the page says so instead (both sides are beside it).
REWRITTEN = 0.5

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)
_WORD = re.compile(r"\w+|[^\w\s]", re.UNICODE)  # the tokens that are not spaces


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


def tokens(text: str) -> list[str]:
    """Words, runs of whitespace and single punctuation marks, which join back to ``text``."""
    return _TOKEN.findall(text)


_FOLD = '<span class="fold">… {:,} unchanged characters …</span>'
_MORE = '<span class="fold">… more changes (open both sides)</span>'


def _esc(text: str) -> str:
    """Text for element content: ``&``, ``<`` and ``>`` as entities (faster than markupsafe's
    ``escape`` for the many short pieces of a diff; no attribute is ever built from it)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _fold(text: str, first: bool, last: bool) -> str:
    """An unchanged stretch as HTML: whole when short, else its ends beside changes and a fold."""
    if len(text) <= 2 * CONTEXT + 40:
        return _esc(text)
    head = "" if first else text[:CONTEXT]
    tail = "" if last else text[-CONTEXT:]
    hidden = len(text) - len(head) - len(tail)
    return _esc(head) + _FOLD.format(hidden) + _esc(tail)


def _word_share(before: str, after: str) -> float:
    """The share of words (spaces aside) the two texts keep in common, 0 to 1."""
    return float(Indel.normalized_similarity(_WORD.findall(before), _WORD.findall(after)))


#: What ``word_diff`` gives for a text rewritten beyond a useful word diff (compare with
#: ``is``): the pair page says "rewritten" beside the step instead of a diff.
REWRITE = Markup('<span class="fold">rewritten</span>')


def diff_texts(before: str | None, after: str | None) -> Markup | None:
    """Two payloads (JSON text) as a word diff of their readable forms (None: equal)."""
    if before == after:
        return None
    return word_diff(readable(before), readable(after))


@lru_cache(maxsize=4096)
def word_diff(before: str, after: str) -> Markup | None:
    """``before`` → ``after`` as HTML with removed words in ``<del>`` and added ones in
    ``<ins>``, unchanged stretches folded; None when the texts are equal. Built as plain
    strings (every piece of text through ``_esc``) and marked safe once: the build diffs
    every modified step. Cached: the same change recurs across nights and trials."""
    if before == after:
        return None
    if Indel.normalized_similarity(before, after) < REWRITTEN:  # cheap: characters, in C
        return REWRITE
    if _word_share(before, after) < REWRITTEN:
        return REWRITE
    a, b = tokens(before), tokens(after)
    if len(a) > MAX_TOKENS or len(b) > MAX_TOKENS:
        note = '<span class="fold">too long to diff word by word ({:,} and {:,} words)</span>'
        return Markup(note.format(len(a), len(b)))
    ops = cast(list[tuple[str, int, int, int, int]], Indel.opcodes(a, b).as_list())
    parts: list[str] = []
    shown = 0
    i, n = 0, len(ops)
    while i < n:
        tag, a0, a1, b0, b1 = ops[i]
        if tag == "equal":
            parts.append(_fold("".join(a[a0:a1]), i == 0, i == n - 1))
            i += 1
            continue
        removed, added = [], []
        while i < n and ops[i][0] != "equal":  # one change: its removals, then its additions
            _tag, a0, a1, b0, b1 = ops[i]
            removed += a[a0:a1]
            added += b[b0:b1]
            i += 1
        if shown > MAX_CHANGED:
            parts.append(_MORE)
            break
        old, new = "".join(removed), "".join(added)
        shown += len(old) + len(new)
        if old:
            parts.append("<del>" + _esc(old) + "</del>")
        if new:
            parts.append("<ins>" + _esc(new) + "</ins>")
    return Markup("".join(parts))
