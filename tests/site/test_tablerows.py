"""The task page's table rows built in Python (site/tablerows.py) are the bytes the template
loops they replaced gave, for any values: the old loops are rendered here by the site's own
Jinja environment, beside the functions."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.site import tablerows
from reportgen.site.render import Renderer, page_url

OLD_RUNS = """{% from "_macros.html" import success, n %}
  {% for r in runs %}
    <tr><td>{{ r.batch }}</td><td>{{ r.label }}</td>{{ n(r.trial, num) }}<td>{{ success(r.success) }}</td>{{ n(r.n_steps, num) }}{{ n(r.n_wasted, num) }}{{ n(r.wei, ratio) }}{{ n(r.tokens, num) }}{{ n(r.cost_usd, usd) }}{{ n(r.latency_ms, ms) }}<td>{% if r.href %}<a href="{{ url(r.href) }}">steps</a>{% endif %}</td></tr>
  {% endfor %}
"""
OLD_PAIRS = """{% from "_macros.html" import n %}
  {% for p in pairs %}
    <tr><td>{{ p.batch }}</td><td>{{ p.comparison }}</td>{{ n(p.trial, num) }}{{ n(p.tdi, ratio) }}{{ n(p.wei_change, signed) }}{{ n(p.rsr, ratio) }}{{ n(p.stagnant_loops, num) }}{{ n(p.candidate_repeats, num) }}{{ n(p.cost_delta, pct) }}<td>{% if p.href %}<a href="{{ url(p.href) }}">diff</a>{% endif %}</td></tr>
  {% endfor %}
"""

RENDERER = Renderer()
URL = page_url("tasks/s/t.html")
text = st.one_of(st.none(), st.text(max_size=12), st.sampled_from(["<b>&", '"x"', "2026-11-28"]))
number = st.one_of(
    st.none(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=True, allow_infinity=True),
)
href = st.one_of(st.none(), st.just(""), st.sampled_from(["runs/s/t/a&b.html", 'x"y.html']))
run = st.fixed_dictionaries(
    {
        "batch": text, "label": text, "trial": number,
        "success": st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1])),
        "n_steps": number, "n_wasted": number, "wei": number, "tokens": number,
        "cost_usd": number, "latency_ms": number, "href": href,
    }
)  # fmt: skip
pair = st.fixed_dictionaries(
    {
        "batch": text, "comparison": text, "trial": number, "tdi": number,
        "wei_change": number, "rsr": number, "stagnant_loops": number,
        "candidate_repeats": number, "cost_delta": number, "href": href,
    }
)  # fmt: skip


def _old(source: str, **rows: list[dict[str, Any]]) -> str:
    return RENDERER.env.from_string(source).render(url=URL, **rows)


@settings(max_examples=150, deadline=None)
@given(st.lists(run, max_size=5))
def test_run_rows_are_the_template_loops_bytes(runs: list[dict[str, Any]]) -> None:
    assert str(tablerows.run_rows(runs, URL)) == _old(OLD_RUNS, runs=runs)


@settings(max_examples=150, deadline=None)
@given(st.lists(pair, max_size=5))
def test_pair_rows_are_the_template_loops_bytes(pairs: list[dict[str, Any]]) -> None:
    assert str(tablerows.pair_rows(pairs, URL)) == _old(OLD_PAIRS, pairs=pairs)


def test_rows_escape_agent_text() -> None:
    row = {"batch": "<script>", "label": "a&b", "trial": 1, "success": True, "n_steps": 2,
           "n_wasted": 0, "wei": 0.5, "tokens": None, "cost_usd": 0.01, "latency_ms": 1500,
           "href": 'runs/"q".html'}  # fmt: skip
    html = str(tablerows.run_rows([row], URL))
    assert "<script>" not in html and "&lt;script&gt;" in html and "a&amp;b" in html
    assert 'href="../../runs/&#34;q&#34;.html"' in html
