"""The run page as a trace viewer: the steps as a tree by their stored ``parent`` (depth,
tree order, children counts) and a waterfall bar per step from ``started_at`` and
``latency_ms``. A parent cycle or a parent that names no step of the run falls back to the
flat list, and the page says why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Tree:
    """Steps in tree order (positions into the run's step list) with each one's depth and
    number of direct children; ``note`` says why the run is shown flat, if it is."""

    order: list[int]
    depth: list[int]
    kids: list[int]
    note: str | None = None

    @property
    def nested(self) -> bool:
        """True when some step has a parent (the page draws the tree)."""
        return any(self.kids)


def _flat(n: int, note: str | None) -> Tree:
    return Tree(list(range(n)), [0] * n, [0] * n, note)


def _ids(items: list[int]) -> str:
    shown = ", ".join(str(i) for i in items[:5])
    return shown + (f" and {len(items) - 5} more" if len(items) > 5 else "")


def step_tree(steps: Sequence[dict[str, Any]]) -> Tree:
    """The tree of a run's steps by ``parent`` (a step's ``idx``); children in step order."""
    n = len(steps)
    position = {int(s["idx"]): i for i, s in enumerate(steps)}
    parents: list[int | None] = []
    missing: list[int] = []
    for s in steps:
        parent = s.get("parent")
        if parent is None:
            parents.append(None)
        elif parent in position and parent != s["idx"]:
            parents.append(position[parent])
        else:
            parents.append(None)
            missing.append(int(s["idx"]))
    if missing:
        return _flat(n, f"steps {_ids(missing)} name a parent step that is not in this run")
    children: list[list[int]] = [[] for _ in range(n)]
    roots: list[int] = []
    for i, parent in enumerate(parents):
        (roots if parent is None else children[parent]).append(i)
    order: list[int] = []
    depth = [0] * n
    stack = [(i, 0) for i in reversed(roots)]
    while stack:  # depth-first, children in step order: every step reachable from a root
        i, d = stack.pop()
        order.append(i)
        depth[i] = d
        stack.extend((c, d + 1) for c in reversed(children[i]))
    if len(order) < n:
        seen = set(order)
        cycle = [int(steps[i]["idx"]) for i in range(n) if i not in seen]
        return _flat(n, f"the parents of steps {_ids(cycle)} form a cycle")
    return Tree(order, depth, [len(c) for c in children])


@dataclass(frozen=True, slots=True)
class Waterfall:
    """Per step: where its bar starts and how wide it is, in percent of the run's span
    (None: the step gives no start time), and the span itself in milliseconds."""

    bars: list[tuple[float, float] | None]
    span_ms: float
    offsets_ms: list[float | None]


def waterfall(steps: Sequence[dict[str, Any]]) -> Waterfall | None:
    """Bars from each step's stored start (``started_ms``) and ``latency_ms``, relative to the
    run's first start; None when no step gives a start time."""
    starts = [s.get("started_ms") for s in steps]
    known = [t for t in starts if t is not None]
    if not known:
        return None
    t0 = min(known)
    ends = [
        t + (s.get("latency_ms") or 0.0)
        for t, s in zip(starts, steps, strict=True)
        if t is not None
    ]
    span = max(max(ends) - t0, 1e-9)
    bars: list[tuple[float, float] | None] = []
    offsets: list[float | None] = []
    for t, s in zip(starts, steps, strict=True):
        if t is None:
            bars.append(None)
            offsets.append(None)
            continue
        offsets.append(round(t - t0, 3))
        left = (t - t0) / span * 100
        width = (s.get("latency_ms") or 0.0) / span * 100
        bars.append((round(left, 3), round(max(width, 0.4), 3)))
    return Waterfall(bars, span, offsets)
