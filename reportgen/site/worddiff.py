"""Word-level diffs of a modified step's input and output for the pair pages: JSON is
pretty-printed with sorted keys first (so a reordered object is not a change), the texts are
split into words, spaces and punctuation, and rapidfuzz's Indel opcodes (a longest common
subsequence, in C) mark what was removed and added. Long unchanged stretches fold to a line
that says how much is hidden. Everything is escaped; only ``<del>``, ``<ins>`` and the fold
marker are markup."""

from __future__ import annotations

import json
import re
from functools import lru_cache

from markupsafe import Markup, escape
from rapidfuzz.distance import Indel

from reportgen.site.steps import pretty_json

#: Unchanged text kept on each side of a change; longer unchanged stretches fold.
CONTEXT = 80
#: Most tokens diffed per side; longer texts are not diffed (the pair page shows both).
MAX_TOKENS = 40_000
#: Most changed characters shown; the rest of the changes are summarised.
MAX_CHANGED = 4_000

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)


def readable(raw: str | None) -> str:
    """A payload (JSON text) as the diff compares it: strings bare, other values as indented
    JSON with sorted keys; text that is not JSON as it is."""
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


def _fold(text: str, first: bool, last: bool) -> Markup:
    """An unchanged stretch: kept whole when short, else its ends beside changes and a fold."""
    if len(text) <= 2 * CONTEXT + 40:
        return escape(text)
    head = "" if first else text[:CONTEXT]
    tail = "" if last else text[-CONTEXT:]
    hidden = len(text) - len(head) - len(tail)
    fold = Markup('<span class="fold">… {} unchanged characters …</span>').format(f"{hidden:,}")
    return escape(head) + fold + escape(tail)


@lru_cache(maxsize=4096)
def word_diff(before: str, after: str) -> Markup | None:
    """``before`` → ``after`` as HTML with removed words in ``<del>`` and added ones in
    ``<ins>``, unchanged stretches folded; None when the texts are equal. Cached: the same
    change recurs across nights and trials."""
    if before == after:
        return None
    a, b = tokens(before), tokens(after)
    if len(a) > MAX_TOKENS or len(b) > MAX_TOKENS:
        note = '<span class="fold">too long to diff word by word ({} and {} words)</span>'
        return Markup(note).format(f"{len(a):,}", f"{len(b):,}")
    ops = list(Indel.opcodes(a, b))
    parts: list[Markup] = []
    shown = 0
    i = 0
    while i < len(ops):
        op = ops[i]
        if op.tag == "equal":
            text = "".join(a[op.src_start : op.src_end])
            parts.append(_fold(text, i == 0, i == len(ops) - 1))
            i += 1
            continue
        removed, added = [], []
        while i < len(ops) and ops[i].tag != "equal":  # one change: removals, then additions
            removed += a[ops[i].src_start : ops[i].src_end]
            added += b[ops[i].dest_start : ops[i].dest_end]
            i += 1
        old, new = "".join(removed), "".join(added)
        if shown > MAX_CHANGED:
            parts.append(Markup('<span class="fold">… more changes (open both sides)</span>'))
            break
        shown += len(old) + len(new)
        if old:
            parts.append(Markup("<del>{}</del>").format(old))
        if new:
            parts.append(Markup("<ins>{}</ins>").format(new))
    return Markup("").join(parts)
