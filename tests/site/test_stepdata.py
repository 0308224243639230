"""Packed page data (stepdata.pack_json): what a page inflates is exactly what was packed, the
packed text needs no escaping anywhere, and a pair page's rows carry what its table shows."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from reportgen.divergence.textdiff import WordDiff
from reportgen.site.context import DiffRow, StepView
from reportgen.site.pairrows import packed_rows
from reportgen.site.stepdata import (
    pack_json,
    packed_data_script,
    read_steps_script,
    unpack_json,
)
from reportgen.site.worddiff import text_diff

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(JSON)
def test_unpack_gives_back_what_was_packed(value: Any) -> None:
    packed = pack_json(value)
    assert re.fullmatch(rb"[A-Za-z0-9+/]*={0,2}", packed)  # no quote, markup or newline
    assert unpack_json(packed) == value


@given(st.text(), JSON)
def test_a_step_data_script_reads_back(tmp_path_factory: Any, key: str, value: Any) -> None:
    file = Path(tmp_path_factory.mktemp("s")) / "r.steps.js"
    file.write_bytes(packed_data_script(key, value))
    text = file.read_text(encoding="utf-8")
    assert "<" not in text.partition("]=")[2] and text.count("\n") == 1
    assert read_steps_script(file) == (key, value)


def _view(idx: int, status: str = "ok", **marks: Any) -> StepView:
    return StepView(
        idx=idx, type="tool", action="read", status=status, tokens_in=1, tokens_out=2,
        cost_usd=0.1, latency_ms=5.0, input_text="", output_text="", **marks,
    )  # fmt: skip


def test_pair_rows_hold_what_the_table_draws() -> None:
    evil = "</script><img src=x onerror=alert(1)>"
    rows = [
        DiffRow(0, "matched", _view(0), _view(0), False, {}, positions=(0, 0)),
        DiffRow(
            1,
            "modified",
            _view(1, "retry"),
            _view(1, loop="L1 start", stagnant=True, recovery="counted"),
            True,
            {"tokens": "+3", "cost": "-0.0001"},
            changes=[(evil, "changed: 1 → 2")],
            input_diff=text_diff("word " * 100 + "<b> end", "word " * 100 + "<i> end"),
            rewritten=("output",),
            error_diff=WordDiff("too_long", sizes=(9000, 12000)),
            positions=(1, 2),
        ),
        DiffRow(2, "added", None, _view(3), False, {}, positions=(None, 3)),
    ]
    assert unpack_json(packed_rows(rows).encode()) == [
        {"s": "matched", "b": [0, "ok", 0, None, 0], "c": [0, "ok", 0, None, 0]},
        {
            "s": "modified",
            "b": [1, "retry", 0, None, 0],
            "c": [2, "ok", 2, "L1 start", 1],
            "f": 1,
            "d": [["cost", "-0.0001"], ["tokens", "+3"]],
            "w": ["output"],
            "x": [[evil, "changed: 1 → 2"]],
            "p": [
                # 501 unchanged characters before the change: the last 80 shown, 421 folded
                [
                    "input",
                    [[3, 421], [0, "ord" + " word" * 15 + " <"], [1, "b"], [2, "i"], [0, "> end"]],
                ],
                ["error", [[5, 9000, 12000]]],
            ],
        },
        {"s": "added", "c": [3, "ok", 0, None, 0]},
    ]
