"""scorer.py: hand-worked cases, the conformance table, and a slow loop-by-loop oracle."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.convergence import (
    convergence_score,
    divergence_point,
    exact_match_rate,
    score_runs,
    token_overlap,
    tokenize,
)


def _div(token: str | None, pos: int) -> dict[str, Any]:
    return {"diverges_at_token": token, "token_position": pos, "num_tokens_to_divergence": pos}


def test_three_runs_two_alike() -> None:
    # 3 pairs, one identical -> 1/3; overlaps 1, 0, 0 -> 1/3; divergence at 0.
    # score = 0.5*0.333 + 0.3*0.333 + 0.2*0 = 0.2664 -> 0.266
    result = score_runs(["A", "A", "B"])
    assert result == {
        "num_runs": 3,
        "exact_match_rate": 0.333,
        "token_metrics": {"avg_overlap": 0.333, "jaccard": 1.0},
        "convergence_score": 0.266,
        "divergence_point": _div("a", 0),
    }
    assert list(result) == [
        "num_runs",
        "exact_match_rate",
        "token_metrics",
        "convergence_score",
        "divergence_point",
    ]


@pytest.mark.parametrize("runs", [["A", "B", "A"], ["B", "A", "A"]])
def test_order_changes_first_pair_and_token_not_score(runs: list[str]) -> None:
    result = score_runs(runs)
    assert result["exact_match_rate"] == 0.333
    assert result["convergence_score"] == 0.266
    assert result["token_metrics"] == {"avg_overlap": 0.333, "jaccard": 0.0}
    assert result["divergence_point"] == _div(runs[0].lower(), 0)


def test_prefix_has_no_divergence_token() -> None:
    # {alpha, beta} vs {alpha}: Jaccard 1/2; shortest run ends at 1 with no disagreement,
    # so the token is None and the position 1; score = 0.3*0.5 + 0.2*(1/2) = 0.25.
    result = score_runs(["alpha beta", "alpha"])
    assert result["exact_match_rate"] == 0.0
    assert result["token_metrics"] == {"avg_overlap": 0.5, "jaccard": 0.5}
    assert result["convergence_score"] == 0.25
    assert result["divergence_point"] == _div(None, 1)
    assert divergence_point(["alpha", "alpha beta"]) == _div(None, 1)


def test_two_empty_strings_agree_fully() -> None:
    assert score_runs(["", ""]) == {
        "num_runs": 2,
        "exact_match_rate": 1.0,
        "token_metrics": {"avg_overlap": 1.0, "jaccard": 1.0},
        "convergence_score": 1.0,
        "divergence_point": _div(None, 0),
    }


def test_whitespace_only_runs_overlap_but_do_not_match() -> None:
    result = score_runs([" ", "\t"])
    assert result["exact_match_rate"] == 0.0
    assert result["token_metrics"] == {"avg_overlap": 1.0, "jaccard": 1.0}
    assert result["convergence_score"] == 0.5
    assert result["divergence_point"] == _div(None, 0)


def test_single_run_is_the_trivial_case() -> None:
    assert score_runs(["only one"]) == {
        "num_runs": 1,
        "exact_match_rate": 1.0,
        "token_metrics": {"avg_overlap": 1.0, "jaccard": 1.0},
        "convergence_score": 1.0,
        "divergence_point": _div(None, 0),
    }
    assert exact_match_rate(["x"]) == 1.0
    assert token_overlap(["x"]) == {"avg_overlap": 1.0, "jaccard": 1.0}
    assert convergence_score(["x"]) == {"convergence_score": 1.0}
    assert divergence_point(["x y"]) == _div(None, 0)


@pytest.mark.parametrize(
    "fn",
    [score_runs, exact_match_rate, token_overlap, divergence_point, convergence_score],
)
def test_empty_list_is_rejected(fn: Any) -> None:
    with pytest.raises(ValueError):
        fn([])


def test_tokenize_is_lowercase_unicode_whitespace() -> None:
    assert tokenize(" The\tCAT\u00a0sat\u2003on\u3000\n") == ["the", "cat", "sat", "on"]
    assert tokenize("") == []
    assert tokenize("ΟΔΟΣ") == ["οδος"]  # final sigma, as str.lower does


CONFORMANCE: list[tuple[list[str], float, float, float, float, str | None, int]] = [
    (
        [
            "The capital of France is Paris.",
            "the capital of france is Paris.",
            "The capital of France is Lyon.",
        ],
        0.0,
        0.81,
        1.0,
        0.41,
        "paris.",
        5,
    ),
    (
        ["the cat sat on the mat", "the cat sat on a mat", "a dog ran"],
        0.0,
        0.319,
        0.833,
        0.096,
        "the",
        0,
    ),
    (["A", "A", "B"], 0.333, 0.333, 1.0, 0.266, "a", 0),
    (["alpha beta", "alpha"], 0.0, 0.5, 0.5, 0.25, None, 1),
    (["x y", "x z"], 0.0, 0.333, 0.333, 0.2, "y", 1),
    (["a b c d", "a b c d", "a b x d", "q"], 0.167, 0.367, 1.0, 0.194, "a", 0),
    (["only one"], 1.0, 1.0, 1.0, 1.0, None, 0),
    (["", ""], 1.0, 1.0, 1.0, 1.0, None, 0),
    ([" ", "\t"], 0.0, 1.0, 1.0, 0.5, None, 0),
]


@pytest.mark.parametrize(("runs", "exact", "avg", "jac", "score", "token", "pos"), CONFORMANCE)
def test_conformance_table(
    runs: list[str],
    exact: float,
    avg: float,
    jac: float,
    score: float,
    token: str | None,
    pos: int,
) -> None:
    result = score_runs(runs)
    assert result["num_runs"] == len(runs)
    assert result["exact_match_rate"] == exact
    assert result["token_metrics"] == {"avg_overlap": avg, "jaccard": jac}
    assert result["convergence_score"] == score
    assert result["divergence_point"] == _div(token, pos)
    assert exact_match_rate(runs) == exact
    assert token_overlap(runs) == result["token_metrics"]
    assert divergence_point(runs) == result["divergence_point"]
    assert convergence_score(runs) == {"convergence_score": score}


# --- a slow, independent oracle: plain loops, decimal rounding -----------------------------


def _round3(x: float) -> float:
    """Round the exact binary value half-to-even at 3 decimals (what round(x, 3) does)."""
    return float(Decimal(x).quantize(Decimal("0.001"), rounding=ROUND_HALF_EVEN))


def _split(text: str) -> list[str]:
    words: list[str] = []
    current = ""
    for ch in text.lower():
        if ch.isspace():
            if current:
                words.append(current)
            current = ""
        else:
            current += ch
    if current:
        words.append(current)
    return words


def _slow_score(runs: list[str]) -> dict[str, Any]:
    n = len(runs)
    if n == 1:
        return {
            "num_runs": 1,
            "exact_match_rate": 1.0,
            "token_metrics": {"avg_overlap": 1.0, "jaccard": 1.0},
            "convergence_score": 1.0,
            "divergence_point": _div(None, 0),
        }
    words = [_split(r) for r in runs]
    pairs = 0
    same = 0
    total = 0.0
    first_pair = -1.0
    for i in range(n):
        for j in range(i + 1, n):
            pairs += 1
            if runs[i] == runs[j]:
                same += 1
            union: list[str] = []
            for w in words[i] + words[j]:
                if w not in union:
                    union.append(w)
            common = [w for w in union if w in words[i] and w in words[j]]
            jac = len(common) / len(union) if union else 1.0
            total = jac if pairs == 1 else total + jac
            if pairs == 1:
                first_pair = jac
    exact = _round3(same / pairs)
    avg = _round3(total / pairs)
    shortest = min(len(w) for w in words)
    longest = max(len(w) for w in words)
    pos, token = shortest, None
    for p in range(shortest):
        if any(w[p] != words[0][p] for w in words):
            pos, token = p, words[0][p]
            break
    share = pos / longest if longest else 1.0
    return {
        "num_runs": n,
        "exact_match_rate": exact,
        "token_metrics": {"avg_overlap": avg, "jaccard": _round3(first_pair)},
        "convergence_score": _round3(0.5 * exact + 0.3 * avg + 0.2 * share),
        "divergence_point": _div(token, pos),
    }


_WORDS = st.sampled_from(
    ["the", "The", "THE", "cat", "cat.", "Cat,", "sat", "ΟΔΟΣ", "οδος", "İ", "ß", "é", "x"]
)
_SEPS = st.sampled_from([" ", "  ", "\t", "\n", "\u00a0", "\u2003", "\x1c"])
_RUN = st.one_of(
    st.lists(st.tuples(_WORDS, _SEPS), max_size=8).map(lambda ps: "".join(a + b for a, b in ps)),
    st.sampled_from(["", " ", "\t\n"]),
    st.text(max_size=12),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_RUN, min_size=1, max_size=7))
def test_matches_slow_oracle(runs: list[str]) -> None:
    # Duplicate some runs so exact matches and prefixes are common.
    runs = runs + runs[: len(runs) // 2] + [r[: len(r) // 2] for r in runs[:1]]
    assert score_runs(runs) == _slow_score(runs)
