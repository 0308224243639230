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


_NUMBERS = st.one_of(
    st.none(),
    st.integers(-(10**18), 10**18),
    st.floats(),
    st.sampled_from([0.0, -0.0, 0.5, -0.99995, 999.5, -999.5, 1e15, -1e15, 1e15 - 1, 0.99995]),
)


@given(st.lists(_NUMBERS))
def test_a_column_formats_as_each_of_its_values_does(values: list[float | None]) -> None:
    assert fmt.nums(values) == [fmt.num(v) for v in values]
    assert fmt.usds(values) == [fmt.usd(v) for v in values]
    assert fmt.mss(values) == [fmt.ms(v) for v in values]
    assert fmt.sort_keys(values) == [fmt.sort_key(v) for v in values]


def test_columns_by_hand() -> None:
    values = [None, 1234, 0.5, 1500.0, math.inf, -math.nan]
    assert fmt.nums(values) == ["\u2013", "1,234", "0", "1,500", "\u2013", "\u2013"]
    assert fmt.usds(values) == ["\u2013", "$1,234.00", "$0.5000", "$1,500.00", "\u2013", "\u2013"]
    assert fmt.mss(values) == ["\u2013", "1.2 s", "0 ms", "1.5 s", "\u2013", "\u2013"]
    assert fmt.sort_keys(values) == ["", "1234", "0.5", "1500", "", ""]
