"""The task page's long tables, row by row in Python. A year's task page lists some 700 runs
and 350 pairs, and the template's macro call per cell was most of a nightly rebuild's
rendering (2.5 s of CPU for 40 task pages). Each function gives the bytes of the template
loop it replaced, one ``<tr>`` line per row (tests/site/test_tablerows.py renders both)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from markupsafe import Markup, escape

from reportgen.site import fmt

Row = Mapping[str, Any]
Url = Callable[[str], str]

_SUCCESS = {
    None: f'<span class="muted">{fmt.UNKNOWN}</span>',
    True: '<span class="st st-ok">passed</span>',
    False: '<span class="st st-error">failed</span>',
}


def _n(value: float | None, show: Callable[[float | None], str]) -> str:
    return str(fmt.number_cell(value, show))


def _link(href: str | None, url: Url, text: str) -> str:
    return f'<td><a href="{escape(url(href))}">{text}</a></td>' if href else "<td></td>"


def run_rows(runs: Iterable[Row], url: Url) -> Markup:
    """The rows of the task page's runs table."""
    lines = [
        f"    <tr><td>{escape(r['batch'])}</td><td>{escape(r['label'])}</td>"
        f"{_n(r['trial'], fmt.num)}<td>{_SUCCESS[None if r['success'] is None else bool(r['success'])]}</td>"
        f"{_n(r['n_steps'], fmt.num)}{_n(r['n_wasted'], fmt.num)}{_n(r['wei'], fmt.ratio)}"
        f"{_n(r['tokens'], fmt.num)}{_n(r['cost_usd'], fmt.usd)}{_n(r['latency_ms'], fmt.ms)}"
        f"{_link(r['href'], url, 'steps')}</tr>\n"
        for r in runs
    ]
    return Markup("".join(lines))


def pair_rows(pairs: Iterable[Row], url: Url) -> Markup:
    """The rows of the task page's comparisons table."""
    lines = [
        f"    <tr><td>{escape(p['batch'])}</td><td>{escape(p['comparison'])}</td>"
        f"{_n(p['trial'], fmt.num)}{_n(p['tdi'], fmt.ratio)}{_n(p['wei_change'], fmt.signed)}"
        f"{_n(p['rsr'], fmt.ratio)}{_n(p['stagnant_loops'], fmt.num)}"
        f"{_n(p['candidate_repeats'], fmt.num)}{_n(p['cost_delta'], fmt.pct)}"
        f"{_link(p['href'], url, 'diff')}</tr>\n"
        for p in pairs
    ]
    return Markup("".join(lines))
