"""Numbers as the pages write them: unknowns as a dash, sort keys short and exact enough."""

from __future__ import annotations

import itertools
import math

from hypothesis import given
from hypothesis import strategies as st

from reportgen.site import fmt


def test_sort_keys_are_whole_numbers_exactly_and_others_to_seven_digits() -> None:
    assert fmt.sort_key(40.0) == "40"
    assert fmt.sort_key(12_345_678) == "12345678"
    assert fmt.sort_key(0.16666666666666663) == "0.1666667"
    assert fmt.sort_key(-3.5e-9) == "-3.5e-09"
    assert fmt.sort_key(None) == "" and fmt.sort_key(math.nan) == ""


def test_a_number_cell_leaves_out_a_sort_key_its_text_already_is() -> None:
    assert fmt.number_cell(7, fmt.num) == '<td class="n">7</td>'
    assert fmt.number_cell(1234, fmt.num) == '<td class="n" data-sort="1234">1,234</td>'
    assert fmt.number_cell(None, fmt.num) == '<td class="n" data-sort="">\u2013</td>'


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32), min_size=2))
def test_sort_keys_keep_the_order_of_the_values(values: list[float]) -> None:
    for a, b in itertools.pairwise(values):
        if a < b:  # never reversed; values within 7 digits of each other may tie
            assert float(fmt.sort_key(a)) <= float(fmt.sort_key(b))
