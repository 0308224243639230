"""Word-level diffs of two texts as plain pieces, for any medium: the texts are split into
words, spaces and punctuation, and rapidfuzz's Indel opcodes (a longest common subsequence, in
C) mark what was removed and added. Long unchanged stretches fold to a piece that says how
much is hidden; a text rewritten beyond recognition, or too long to diff, is said to be, not
diffed. The pair page renders the pieces as HTML (:mod:`reportgen.site.worddiff`); the
"why" record keeps them for the two final answers (:mod:`reportgen.divergence.why`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import filterfalse
from typing import Literal, NamedTuple

from rapidfuzz.distance import Indel

#: Unchanged text kept on each side of a change; longer unchanged stretches fold.
CONTEXT = 80
#: Most tokens diffed per side; longer texts are not diffed (both are shown instead).
MAX_TOKENS = 40_000
#: Most changed characters shown; the rest of the changes are summarised.
MAX_CHANGED = 4_000
#: Below this share of characters in common a text counts as rewritten: a word diff of it
#: would mark nearly everything, so it is said instead (both sides are shown beside it).
REWRITTEN = 0.5

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)
_WORD = re.compile(r"\w+|[^\w\s]", re.UNICODE)  # the tokens that are not spaces

PieceKind = Literal["same", "del", "ins", "fold", "more"]


class Piece(NamedTuple):
    """One stretch of a diff: unchanged (``same``), removed (``del``), added (``ins``), an
    unchanged stretch folded (``fold``: ``hidden`` characters) or the mark that further
    changes were left out (``more``). A named tuple: a page's diffs make hundreds of
    thousands of them."""

    kind: PieceKind
    text: str = ""
    hidden: int = 0


@dataclass(frozen=True, slots=True)
class WordDiff:
    """A word diff: its pieces (``kind == "diff"``), or why there are none: the text was
    ``rewritten`` beyond a useful diff, or is ``too_long`` (``sizes``: words on each side)."""

    kind: Literal["diff", "rewritten", "too_long"]
    pieces: tuple[Piece, ...] = ()
    sizes: tuple[int, int] = (0, 0)


def tokens(text: str) -> list[str]:
    """Words, runs of whitespace and single punctuation marks, which join back to ``text``."""
    return _TOKEN.findall(text)


def _words(parts: list[str]) -> list[str]:
    """The tokens that are not spaces: what ``_WORD`` finds in the text (a token is a run of
    whitespace or has none, and ``str.isspace`` is the ``\\s`` of a ``str`` pattern)."""
    return list(filterfalse(str.isspace, parts))


#: An unchanged stretch this long or shorter is kept whole; a longer one folds.
_KEEP = 2 * CONTEXT + 40


def _fold(text: str, first: bool, last: bool) -> list[Piece]:
    """An unchanged stretch: whole when short, else its ends beside changes and a fold."""
    if len(text) <= _KEEP:
        return [Piece("same", text)]
    head = "" if first else text[:CONTEXT]
    tail = "" if last else text[-CONTEXT:]
    hidden = len(text) - len(head) - len(tail)
    out = [Piece("same", head)] if head else []
    out.append(Piece("fold", hidden=hidden))
    return out + ([Piece("same", tail)] if tail else [])


def word_pieces(before: str, after: str) -> WordDiff | None:
    """``before`` → ``after`` as a word diff; None when the texts are equal."""
    if before == after:
        return None
    if Indel.normalized_similarity(before, after) < REWRITTEN:  # cheap: characters, in C
        return WordDiff("rewritten")
    a, b = _TOKEN.findall(before), _TOKEN.findall(after)  # tokenised once for both checks
    if Indel.normalized_similarity(_words(a), _words(b)) < REWRITTEN:
        return WordDiff("rewritten")
    if len(a) > MAX_TOKENS or len(b) > MAX_TOKENS:
        return WordDiff("too_long", sizes=(len(a), len(b)))
    # the unchanged stretches (Indel's matching blocks, in C); between two of them is one
    # change: its removals, then its additions
    blocks = Indel.opcodes(a, b).as_matching_blocks()
    parts: list[Piece] = []
    shown = at_a = at_b = 0
    for block in blocks:
        x, y, size = block.a, block.b, block.size
        if x > at_a or y > at_b:
            if shown > MAX_CHANGED:
                parts.append(Piece("more"))
                break
            old, new = "".join(a[at_a:x]), "".join(b[at_b:y])
            shown += len(old) + len(new)
            if old:
                parts.append(Piece("del", old))
            if new:
                parts.append(Piece("ins", new))
        if size:
            at_a, at_b = x + size, y + size
            same = "".join(a[x:at_a])
            if len(same) <= _KEEP:
                parts.append(Piece("same", same))
            else:
                last = at_a == len(a) and at_b == len(b)
                parts += _fold(same, x == 0 and y == 0, last)
    return WordDiff("diff", tuple(parts))
