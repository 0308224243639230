"""score_groups (all groups at once, numpy) gives exactly what score_runs gives per group."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.convergence import exact, pairs, score_runs
from reportgen.convergence.vectorised import score_groups


def scored(groups: list[list[str]], **kwargs: int) -> list[dict[str, Any]]:
    flat = [o for g in groups for o in g]
    return score_groups(flat, [len(g) for g in groups], **kwargs).records()


def test_issue_cases() -> None:
    a, b, c, d = scored([["A", "A", "B"], ["alpha beta", "alpha"], ["", ""], ["only"]])
    assert a["exact_match_rate"] == 0.333 and a["convergence_score"] == 0.266
    assert b["convergence_score"] == 0.25
    assert b["divergence_point"] == {
        "diverges_at_token": None,
        "token_position": 1,
        "num_tokens_to_divergence": 1,
    }
    assert c["exact_match_rate"] == c["convergence_score"] == 1.0
    assert c["token_metrics"] == {"avg_overlap": 1.0, "jaccard": 1.0}
    assert d == score_runs(["only"])


def test_hand_worked_group() -> None:
    # tokens: {the,cat,sat}, {the,cat,ran}, {the,dog}; Jaccards 2/4, 1/4, 1/4 -> mean 1/3
    (got,) = scored([["The cat sat", "the cat ran", "the dog"]])
    assert got["exact_match_rate"] == 0.0
    assert got["token_metrics"] == {"avg_overlap": 0.333, "jaccard": 0.5}
    # diverges at token 1 ("cat" vs "dog"), longest run 3: 0.3 * 0.333 + 0.2 * 1/3
    assert got["divergence_point"]["diverges_at_token"] == "cat"
    assert got["divergence_point"]["token_position"] == 1
    assert got["convergence_score"] == round(0.3 * 0.333 + 0.2 * (1 / 3), 3)


def test_unicode_and_control_bytes() -> None:
    groups = [
        ["ΟΔΟΣ ΣΑΣ", "οδος σας", "İx ß"],
        ["a\x00b c", "a\x00b  c", "A\x00B\x1cC"],
        ["x\u00a0y\u2003z", "x y z"],
        ["averyveryverylongtoken tail", "AVERYVERYVERYLONGTOKEN tail2"],
    ]
    assert scored(groups) == [score_runs(g) for g in groups]


_WORDS = st.sampled_from(
    [
        "the",
        "The",
        "THE",
        "cat",
        "cat.",
        "sat",
        "ΟΔΟΣ",
        "Σ",
        "İ",
        "ß",
        "é",
        "a\x00",
        "\x7f",
        "supercalifragilistic",
        "Supercalifragilistic",
        "exactly8",
        "sixsix",
        "w1234567",
    ]
)
_SEPS = st.sampled_from([" ", " ", "  ", "\t", "\n", "\x0b", "\x1c", "\x1f", "\u00a0", "\u3000"])
_OUTPUT = st.one_of(
    st.lists(st.tuples(_WORDS, _SEPS), max_size=10).map(lambda ps: "".join(a + b for a, b in ps)),
    st.lists(_WORDS, max_size=8).map(" ".join),
    st.sampled_from(["", " ", "\t\n", " lead", "trail "]),
    st.text(max_size=12),
)
_GROUPS = st.lists(st.lists(_OUTPUT, min_size=1, max_size=7), min_size=1, max_size=8).map(
    lambda gs: [g + g[: len(g) // 2] for g in gs]  # repeats: exact matches, shared prefixes
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_GROUPS, st.sampled_from([1 << 20, 64, 1]), st.sampled_from([1, 2]))
def test_matches_score_runs(groups: list[list[str]], chunk: int, workers: int) -> None:
    assert scored(groups, chunk_bytes=chunk, workers=workers) == [score_runs(g) for g in groups]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_GROUPS)
def test_pair_listing_path_matches(groups: list[list[str]]) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pairs, "MAX_MASK_CELLS", 0)  # force listing pairs inside token sets
        assert scored(groups) == [score_runs(g) for g in groups]


def test_big_group_beyond_bitmasks() -> None:
    group = [f"shared words {k % 7} tail{k % 3}" for k in range(70)]
    assert scored([group, ["x y", "x y z"]]) == [score_runs(group), score_runs(["x y", "x y z"])]


def test_pair_jaccard_matrix_order() -> None:
    result = score_groups(["a b", "a c", "a b"], [3])
    assert result.pairs.i.tolist() == [0, 0, 1] and result.pairs.j.tolist() == [1, 2, 2]
    assert result.pair_jaccard.tolist() == [1 / 3, 1.0, 1 / 3]


def test_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError):
        score_groups(["a", "b"], [1])
    with pytest.raises(ValueError):
        score_groups(["a"], [0, 1])


def test_many_tiny_groups_are_chunked() -> None:
    groups = [["", ""]] * 70_000 + [["a b", "a"]]
    got = score_groups([o for g in groups for o in g], [2] * len(groups))
    assert got.records()[0] == score_runs(["", ""])
    assert got.records()[-1] == score_runs(["a b", "a"])


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_GROUPS)
def test_candidate_collisions_are_split_exactly(groups: list[list[str]]) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(exact, "_MIX", exact._MIX * 0)  # every output of a group: one class
        assert scored(groups) == [score_runs(g) for g in groups]
