"""Step views for the run and comparison pages: readable payload text, loops and recovery
windows marked per step. Loops come from the metrics' own compiled detector; recovery windows
follow the RSR walk (a wasted step opens a window, ok steps count until an aligned one closes it)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from reportgen.divergence.reference import WASTED_STATUSES
from reportgen.divergence.why import failed
from reportgen.site.context import LoopView, StepView
from reportgen.site.trace import Tree, Waterfall

#: Longest payload text shown on a run page (the full text is in data/steps/, a file a night).
RUN_TEXT_LIMIT = 6000
#: Longest payload text shown on a comparison page (each side links to its run page).
PAIR_TEXT_LIMIT = 1200


#: Deepest nesting shown on a page; deeper objects and arrays show as ``…``.
MAX_DEPTH = 32
_CUT = "\x00\u2026cut\x00"


def _depth(value: Any) -> int:
    """How deeply objects and arrays nest in ``value`` (iterative: any depth is safe)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            stack.extend(
                (v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def _cut(value: Any, depth: int = 1) -> Any:
    """``value`` with objects and arrays nested deeper than MAX_DEPTH replaced by a marker."""
    if isinstance(value, dict | list) and depth > MAX_DEPTH:
        return _CUT
    if isinstance(value, dict):
        return {k: _cut(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut(v, depth + 1) for v in value]
    return value


def pretty_json(value: Any, *, indent: int | None = 2, sort_keys: bool = False) -> str:
    """JSON of a parsed payload (indented by default), nesting beyond MAX_DEPTH shown as ``…``."""
    if _depth(value) <= MAX_DEPTH:
        return json.dumps(value, indent=indent, ensure_ascii=False, sort_keys=sort_keys)
    text = json.dumps(_cut(value), indent=indent, ensure_ascii=False, sort_keys=sort_keys)
    return text.replace(json.dumps(_CUT, ensure_ascii=False), "\u2026")


@lru_cache(maxsize=1 << 16)
def payload_text(raw: str | None, limit: int) -> str:
    """A payload (JSON text) as people read it: strings bare, other values indented JSON
    (see ``pretty_json``); text too deeply nested to parse is shown as it is.
    Cached: the same inputs and outputs recur across nights, labels and trials."""
    if raw is None:
        return ""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        value = raw
    text = value if isinstance(value, str) else pretty_json(value)
    if len(text) > limit:
        return f"{text[:limit]}\n… ({len(text) - limit} more characters; see data/steps/)"
    return text


def recovery_marks(wasted: Sequence[bool], aligned: Sequence[bool]) -> list[str | None]:
    """Per step: "opens" for a wasted step in or opening a window, "counted" for an ok step the
    RSR walk counts, None outside windows. Single runs pass every step as aligned."""
    marks: list[str | None] = []
    open_ = False
    for is_wasted, is_aligned in zip(wasted, aligned, strict=True):
        if is_wasted:
            open_ = True
            marks.append("opens")
        elif open_:
            marks.append("counted")
            open_ = not is_aligned
        else:
            marks.append(None)
    return marks


def run_loops(steps: Sequence[dict[str, Any]], side: str = "run") -> list[LoopView]:
    """Loops of one run, found by the compiled detector the pair metrics use, on the stored
    step hashes (``signature`` and ``payload`` of site_steps.sql)."""
    from reportgen.divergence.udfs import loops_batch

    if not steps:
        return []
    found = loops_batch(
        [s["signature"] for s in steps], [s["payload"] for s in steps], [0, len(steps)]
    )
    names = [s["action"] for s in steps]
    return [
        LoopView(
            name=f"L{number}",
            side=side,
            start=start,
            length=length,
            iterations=iterations,
            steps=names[start : start + length],
            stagnant=stagnant,
        )
        for number, (start, length, iterations, stagnant) in enumerate(
            zip(
                found.start.tolist(),
                found.length.tolist(),
                found.iterations.tolist(),
                found.stagnant.tolist(),
                strict=True,
            ),
            start=1,
        )
    ]


def loop_view(number: int, side: str, loop: Mapping[str, Any]) -> LoopView:
    """A loop dict of the JSON contract as a view, named L1, L2, ..."""
    return LoopView(
        name=f"L{number}",
        side=side,
        start=int(loop["start_index"]),
        length=int(loop["length"]),
        iterations=int(loop["iterations"]),
        steps=[str(s) for s in loop["steps"]],
        stagnant=bool(loop["stagnant"]),
    )


def _loop_marks(loops: Sequence[LoopView], n: int) -> list[tuple[str | None, bool]]:
    """Per step: the loop label ("L1 start" on its first step) and whether it is stagnant."""
    marks: list[tuple[str | None, bool]] = [(None, False)] * n
    for loop in loops:
        end = min(n, loop.start + loop.length * loop.iterations)
        for i in range(loop.start, end):
            label = f"{loop.name} start" if i == loop.start else loop.name
            marks[i] = (label, loop.stagnant)
    return marks


def with_error(output: str, error: str | None) -> str:
    """A step's output text led by its error message, when it has one."""
    if not error:
        return output
    return f"error: {error}" + (f"\n{output}" if output else "")


def step_views(
    steps: Sequence[dict[str, Any]],
    *,
    loops: Sequence[LoopView],
    aligned: Sequence[bool] | None = None,
    limit: int = RUN_TEXT_LIMIT,
    tree: Tree | None = None,
    falls: Waterfall | None = None,
    texts: bool = True,
) -> list[StepView]:
    """Views of a run's steps with wasted steps, recovery windows and loops marked; in tree
    order with depths when ``tree`` is given, with waterfall bars when ``falls`` is; without
    their input and output texts when not ``texts`` (a pair page reads them from the run's
    step data script, stepdata.py)."""
    wasted = [s["status"] in WASTED_STATUSES for s in steps]
    recovery = recovery_marks(wasted, aligned if aligned is not None else [True] * len(steps))
    loop_marks = _loop_marks(loops, len(steps))
    nested = tree is not None and tree.nested
    order = tree.order if tree is not None and nested else range(len(steps))
    views = []
    for i in order:
        s, lm = steps[i], loop_marks[i]
        views.append(
            StepView(
                idx=int(s["idx"]),
                type=s["type"],
                action=s["action"],
                status=s["status"],
                tokens_in=s["tokens_in"],
                tokens_out=s["tokens_out"],
                cost_usd=s["cost_usd"],
                latency_ms=s["latency_ms"],
                input_text=payload_text(s["input"], limit) if texts else "",
                output_text=(
                    with_error(payload_text(s["output"], limit), s.get("error")) if texts else ""
                ),
                wasted=wasted[i],
                recovery=recovery[i],
                loop=lm[0],
                stagnant=lm[1],
                depth=tree.depth[i] if tree is not None and nested else 0,
                kids=tree.kids[i] if tree is not None and nested else 0,
                parent=s.get("parent") if nested else None,
                bar=falls.bars[i] if falls is not None else None,
                offset_ms=falls.offsets_ms[i] if falls is not None else None,
                failed=failed(s),
            )
        )
    return views
