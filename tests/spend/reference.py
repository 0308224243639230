"""A slow, plain-Python reading of the avoidable-spend rules (reportgen/spend/sql/*.sql), step
by step, for the property tests: the same findings from the same steps, by other means."""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

from reportgen.formats.pricing import load_table
from reportgen.spend import SpendOptions

Step = dict[str, Any]
Found = tuple[str, int, int | None, int | None, float | None]  # kind, idx, ref, tokens, cost

READS, WRITES, SHELLS = {"read"}, {"edit", "write"}, {"bash"}


def _time(step: Step) -> float | None:
    text = step.get("started_at")
    return None if text is None else datetime.fromisoformat(text).timestamp()


def _cost(step: Step) -> float | None:
    if step.get("cost_usd") is not None:
        return float(step["cost_usd"])
    tin, tout = step.get("tokens_in"), step.get("tokens_out")
    price = load_table().price(step["action"]) if step["type"] == "llm" else None
    if price is None or (tin is None and tout is None):
        return None
    return ((tin or 0) * price.input + (tout or 0) * price.output) / 1e6


def _tokens(step: Step) -> int | None:
    tin, tout = step.get("tokens_in"), step.get("tokens_out")
    return None if tin is None and tout is None else (tin or 0) + (tout or 0)


def _attributed(steps: list[Step], k: int) -> tuple[int | None, float | None]:
    step = steps[k]
    own_t, own_c = _tokens(step), _cost(step)
    if own_t is not None or own_c is not None or step["type"] != "tool":
        return own_t, own_c
    parent = step.get("parent")
    if parent is None:
        return None, None
    n = sum(1 for s in steps if s["type"] == "tool" and s.get("parent") == parent)
    pt, pc = _tokens(steps[parent]), _cost(steps[parent])
    return (
        None if pt is None else math.floor(pt / n + 0.5),
        None if pc is None else pc / n,
    )


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def findings(steps: list[Step], options: SpendOptions) -> list[Found]:
    """Every finding of one run's steps (sub-agents aside: they need other runs)."""
    out: list[Found] = []
    tools = [k for k, s in enumerate(steps) if s["type"] == "tool"]
    for pos, k in enumerate(tools):
        s = steps[k]
        key = (s["action"], _text(s.get("input")), _text(s.get("output")))
        earlier = [j for j in tools[:pos] if (steps[j]["action"], _text(steps[j].get("input")),
                                              _text(steps[j].get("output"))) == key]  # fmt: skip
        if earlier:
            out.append(("identical_call", k, earlier[0], *_attributed(steps, k)))
        same_input = [j for j in tools[:pos] if steps[j]["action"] == s["action"]
                      and _text(steps[j].get("input")) == _text(s.get("input"))]  # fmt: skip
        if same_input and steps[same_input[-1]]["status"] == "error":
            out.append(("failed_retry", k, same_input[-1], *_attributed(steps, k)))
        path = (s.get("input") or {}).get("file_path")
        if s["action"].lower() in READS and path is not None:
            reads = [j for j in tools[:pos] if steps[j]["action"].lower() in READS
                     and (steps[j].get("input") or {}).get("file_path") == path]  # fmt: skip
            if reads:
                last = reads[-1]
                written = any(
                    (steps[j]["action"].lower() in WRITES
                     and (steps[j].get("input") or {}).get("file_path") == path)
                    or (steps[j]["action"].lower() in SHELLS
                        and path in json.dumps(steps[j].get("input")))
                    for j in tools if last < j < k
                )  # fmt: skip
                if not written:
                    out.append(("reread", k, last, *_attributed(steps, k)))
    llms = [k for k, s in enumerate(steps) if s["type"] == "llm"]
    table = load_table()
    for pos, k in enumerate(llms):
        s = steps[k]
        tin = s.get("tokens_in")
        if tin is not None and tin > options.long_context:
            cost = _cost(s)
            excess = tin - options.long_context
            total = tin + (s.get("tokens_out") or 0)
            out.append(
                ("long_context", k, None, excess, None if cost is None else cost * excess / total)
            )
        cw = ((s.get("output") or {}).get("usage") or {}).get("cache_write")
        if pos == 0 or not cw:
            continue
        prev = steps[llms[pos - 1]]
        now, then = _time(s), _time(prev)
        if now is None or then is None:
            continue
        if now - (then + (prev.get("latency_ms") or 0) / 1000) > options.ttl_s:
            price = table.price(s["action"])
            cost = None if price is None else cw * (price.cache_write - price.cache_read) / 1e6
            out.append(("cache_rebuild", k, llms[pos - 1], cw, cost))
    return sorted(out, key=lambda f: (f[1], f[0]))


def total(found: list[Found]) -> tuple[int, float]:
    """Tokens and known cost, each step once at its costliest finding."""
    best: dict[int, Found] = {}
    for f in found:
        held = best.get(f[1])
        key = (-1.0 if f[4] is None else f[4], -1 if f[3] is None else f[3])
        if held is None or key > (
            -1.0 if held[4] is None else held[4],
            -1 if held[3] is None else held[3],
        ):
            best[f[1]] = f
    return (
        sum(f[3] or 0 for f in best.values()),
        sum(f[4] for f in best.values() if f[4] is not None),
    )
