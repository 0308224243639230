"""pass@k and pass^k against hand-worked values and a brute-force count over all k-subsets."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reportgen.convergence.outcomes import outcome_agreement, pass_at_k, pass_hat_k, passed


def test_hand_worked() -> None:
    # 5 runs, 2 passed: pass@1 = 2/5; pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10; pass^2 = 1/10
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    assert pass_at_k(5, 2, 4) == 1.0 and pass_hat_k(5, 2, 3) == 0.0
    assert pass_at_k(3, 0, 3) == 0.0 and pass_hat_k(3, 3, 3) == 1.0


def test_bad_arguments() -> None:
    for n, c, k in ((3, 4, 1), (3, 1, 0), (3, 1, 4), (3, -1, 1)):
        with pytest.raises(ValueError):
            pass_at_k(n, c, k)


@given(st.lists(st.booleans(), min_size=1, max_size=8), st.data())
def test_brute_force(results: list[bool], data: st.DataObject) -> None:
    n, c = len(results), sum(results)
    k = data.draw(st.integers(1, n))
    subsets = list(combinations(results, k))
    assert pass_at_k(n, c, k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))
    assert pass_hat_k(n, c, k) == pytest.approx(sum(all(s) for s in subsets) / len(subsets))


def test_success_then_reward() -> None:
    assert passed(True, 0.0, 1.0) is True
    assert passed(None, 1.0, 1.0) is True
    assert passed(None, 0.5, 1.0) is False
    assert passed(None, 0.5, 0.5) is True
    assert passed(None, None, 1.0) is None


def test_agreement() -> None:
    got = outcome_agreement([(True, None), (False, None), (None, 1.0), (None, None)])
    assert got is not None
    assert (got.runs_with_outcome, got.passes, got.mean_reward) == (3, 2, 1.0)
    assert got.pass_at_k == pytest.approx([2 / 3, 1.0, 1.0])
    assert got.pass_hat_k == pytest.approx([2 / 3, 1 / 3, 0.0])
    assert outcome_agreement([(None, None)]) is None
