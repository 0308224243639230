"""tokenize_all: the same tokens as tokenize(), and ids equal exactly when texts are equal."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from reportgen.convergence import tokenize
from reportgen.convergence.tokens import tokenize_all

_TEXT = st.one_of(
    st.text(max_size=40),
    st.lists(
        st.sampled_from(
            ["ab", "AB", "abcdefg", "abcdefgh", "ABCDEFGHIJKLMNOPQ", "a\x00", "ÉÉ", "Σ"]
        ),
        max_size=8,
    ).map(" ".join),
    st.text(alphabet=" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0xyzXYZ\x00\x08", max_size=30),
)


def check(outputs: list[str]) -> None:
    tok = tokenize_all(outputs)
    ids: dict[str, int] = {}
    for r, text in enumerate(outputs):
        lo, hi = int(tok.offsets[r]), int(tok.offsets[r + 1])
        assert tok.texts(np.arange(lo, hi)) == tokenize(text)
        for k, word in zip(range(lo, hi), tokenize(text), strict=True):
            assert ids.setdefault(word, int(tok.ids[k])) == tok.ids[k]
    assert len(set(ids.values())) == len(ids)  # different texts, different ids
    assert tok.vocab_size == len(ids)


def test_edges() -> None:
    check(["", " ", "a", "A b\tc\nd", "x\x1cy\x1fz", "ΟΔΟΣ σας", "ends with space ", "k" * 30])
    check(["abcdefg", "abcdefgh", "abcdefg\x00", "exactly8 exactly8"])


@given(st.lists(_TEXT, max_size=12))
def test_matches_tokenize(outputs: list[str]) -> None:
    check(outputs)
