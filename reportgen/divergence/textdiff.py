"""Word-level diffs of two texts as plain pieces, for any medium: the texts are split into
words, spaces and punctuation, and rapidfuzz's Indel opcodes (a longest common subsequence, in
C) mark what was removed and added. Long unchanged stretches fold to a piece that says how
much is hidden; a text rewritten beyond recognition, or too long to diff, is said to be, not
diffed. The pair page renders the pieces as HTML (:mod:`reportgen.site.worddiff`); the
"why" record keeps them for the two final answers (:mod:`reportgen.divergence.why`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
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
    changes were left out (``more``)."""

    kind: PieceKind
    text: str = ""
    hidden: int = 0


DiffKind = Literal["diff", "rewritten", "too_long"]
#: A piece's kind as one letter (WordDiff.marks).
MARKS: dict[PieceKind, str] = {"same": "s", "del": "d", "ins": "i", "fold": "f", "more": "m"}
_KINDS: dict[str, PieceKind] = {mark: kind for kind, mark in MARKS.items()}


class WordDiff:
    """A word diff: its pieces (``kind == "diff"``), or why there are none: the text was
    ``rewritten`` beyond a useful diff, or is ``too_long`` (``sizes``: words on each side).

    Immutable. The pieces are held as columns: ``marks``, each piece's kind as one letter
    (MARKS), and ``texts`` and ``hidden``, its text and folded characters. A site's pair pages
    hold hundreds of thousands of pieces, and an object per piece was work for the garbage
    collector; ``pieces`` makes them on demand."""

    __slots__ = ("hidden", "kind", "marks", "sizes", "texts")
    kind: DiffKind
    marks: str
    texts: tuple[str, ...]
    hidden: tuple[int, ...]
    sizes: tuple[int, int]

    def __init__(
        self, kind: DiffKind, pieces: Iterable[Piece] = (), sizes: tuple[int, int] = (0, 0)
    ) -> None:
        listed = tuple(pieces)
        marks = "".join(MARKS[p.kind] for p in listed)
        self._set(kind, marks, tuple(p.text for p in listed), tuple(p.hidden for p in listed))
        object.__setattr__(self, "sizes", sizes)

    def _set(
        self, kind: DiffKind, marks: str, texts: tuple[str, ...], hidden: tuple[int, ...]
    ) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "marks", marks)
        object.__setattr__(self, "texts", texts)
        object.__setattr__(self, "hidden", hidden)

    @classmethod
    def of_columns(cls, marks: str, texts: tuple[str, ...], hidden: tuple[int, ...]) -> WordDiff:
        """A diff (kind ``diff``) from its pieces' columns."""
        if not len(marks) == len(texts) == len(hidden):
            raise ValueError("a word diff's columns differ in length")
        diff = cls.__new__(cls)
        diff._set("diff", marks, texts, hidden)
        object.__setattr__(diff, "sizes", (0, 0))
        return diff

    @property
    def pieces(self) -> tuple[Piece, ...]:
        """The pieces in order."""
        return tuple(
            Piece(_KINDS[m], t, h)
            for m, t, h in zip(self.marks, self.texts, self.hidden, strict=True)
        )

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a WordDiff is immutable: cannot set {name}")

    def _key(self) -> tuple[object, ...]:
        return (self.kind, self.marks, self.texts, self.hidden, self.sizes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WordDiff):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"WordDiff(kind={self.kind!r}, pieces={self.pieces!r}, sizes={self.sizes!r})"


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
    # change: its removals, then its additions. The pieces go straight into their columns.
    blocks = Indel.opcodes(a, b).as_matching_blocks()
    marks: list[str] = []
    texts: list[str] = []
    hidden: list[int] = []
    shown = at_a = at_b = 0
    for block in blocks:
        x, y, size = block.a, block.b, block.size
        if x > at_a or y > at_b:
            if shown > MAX_CHANGED:
                marks.append("m")
                texts.append("")
                hidden.append(0)
                break
            old, new = "".join(a[at_a:x]), "".join(b[at_b:y])
            shown += len(old) + len(new)
            if old:
                marks.append("d")
                texts.append(old)
                hidden.append(0)
            if new:
                marks.append("i")
                texts.append(new)
                hidden.append(0)
        if size:
            at_a, at_b = x + size, y + size
            same = "".join(a[x:at_a])
            if len(same) <= _KEEP:
                marks.append("s")
                texts.append(same)
                hidden.append(0)
            else:
                last = at_a == len(a) and at_b == len(b)
                for piece in _fold(same, x == 0 and y == 0, last):
                    marks.append(MARKS[piece.kind])
                    texts.append(piece.text)
                    hidden.append(piece.hidden)
    return WordDiff.of_columns("".join(marks), tuple(texts), tuple(hidden))
