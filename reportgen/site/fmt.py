"""Number formatting shared by templates and page builders; unknown values show as an en dash
(never as 0), and deltas carry a sign."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from markupsafe import Markup, escape

UNKNOWN = "\u2013"  # an en dash


def _known(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def num(value: float | None) -> str:
    """An integer with thousands separators."""
    return f"{round(value):,}" if value is not None and _known(value) else UNKNOWN


def usd(value: float | None) -> str:
    """Dollars: four decimals below $1, two above."""
    if value is None or not _known(value):
        return UNKNOWN
    return f"${value:,.4f}" if abs(value) < 1 else f"${value:,.2f}"


def ms(value: float | None) -> str:
    """A duration given in milliseconds, in ms or seconds."""
    if value is None or not _known(value):
        return UNKNOWN
    return f"{value:,.0f} ms" if abs(value) < 1000 else f"{value / 1000:,.1f} s"


def ratio(value: float | None, digits: int = 3) -> str:
    """A plain ratio such as TDI, WEI or RSR."""
    return f"{value:.{digits}f}" if value is not None and _known(value) else UNKNOWN


def share(value: float | None) -> str:
    """A share in [0, 1] as a percentage."""
    return f"{value * 100:.1f}%" if value is not None and _known(value) else UNKNOWN


def pct(value: float | None) -> str:
    """A percentage change with its sign."""
    return f"{value:+.1f}%" if value is not None and _known(value) else UNKNOWN


def signed(value: float | None, digits: int = 3) -> str:
    """An absolute change with its sign."""
    return f"{value:+.{digits}f}" if value is not None and _known(value) else UNKNOWN


def sort_key(value: float | None) -> str:
    """The ``data-sort`` value of a numeric cell ("" for unknown, sorted last by the JS):
    whole numbers exactly, others to 7 significant digits (what ordering needs, a third of
    ``repr``'s bytes in a table of thousands of rows)."""
    if value is None or not _known(value):
        return ""
    number = float(value)
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return f"{number:.7g}"


# Whole columns at once (a run's steps): the same text the functions above give each value,
# in one comprehension without a call per value. For a value that is not None, ``v - v == 0``
# is ``_known`` (false for NaN and the infinities); the tests check each against its function.
Numbers = Iterable[float | None]


def nums(values: Numbers) -> list[str]:
    """``num`` of each value."""
    return [f"{round(v):,}" if v is not None and v - v == 0 else UNKNOWN for v in values]


def usds(values: Numbers) -> list[str]:
    """``usd`` of each value."""
    return [
        (f"${v:,.4f}" if -1 < v < 1 else f"${v:,.2f}") if v is not None and v - v == 0 else UNKNOWN
        for v in values
    ]


def mss(values: Numbers) -> list[str]:
    """``ms`` of each value."""
    return [
        (f"{v:,.0f} ms" if -1000 < v < 1000 else f"{v / 1000:,.1f} s")
        if v is not None and v - v == 0
        else UNKNOWN
        for v in values
    ]


def sort_keys(values: Numbers) -> list[str]:
    """``sort_key`` of each value."""
    return [
        (str(int(f)) if f.is_integer() and -1e15 < f < 1e15 else f"{f:.7g}")
        if v is not None and (f := float(v)) - f == 0
        else ""
        for v in values
    ]


def number_cell(value: float | None, show: Callable[[float | None], str]) -> Markup:
    """A numeric table cell: ``value`` as ``show`` writes it, with its ``data-sort`` key
    (tables.js) unless the shown text is the key itself (a small count)."""
    text, key = show(value), sort_key(value)
    sort = "" if text == key else f' data-sort="{key}"'
    return Markup(f'<td class="n"{sort}>{escape(text)}</td>')


FILTERS = {
    "num": num,
    "usd": usd,
    "ms": ms,
    "ratio": ratio,
    "share": share,
    "pct": pct,
    "signed": signed,
    "sortkey": sort_key,
}
