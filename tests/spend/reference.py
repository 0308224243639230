"""A slow, plain-Python reading of the avoidable-spend rules (reportgen/spend/sql/*.sql), step
by step, for the property tests: the same findings from the same steps, by other means."""

from __future__ import annotations

import json
import math
import re
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


SHELL_READ = re.compile(
    r"^\s*(cat|nl(?:\s+-ba)?|head(?:\s+-n\s*\d+|\s+-\d+)?|tail(?:\s+-n\s*\d+|\s+-\d+)?"
    r"|sed\s+-n\s+'?\d+(?:,\d+)?p'?)\s+([^\s;&|<>$`'\"]+)\s*$"
)
INF = math.inf


def _read(step: Step) -> tuple[str, float, float] | None:
    """(path, first line, last line) of a read: a Read tool, or a shell command that only
    reads one file."""
    inputs = step.get("input") or {}
    action = step["action"].lower()
    if action in READS and inputs.get("file_path") is not None:
        lo = float(inputs.get("offset", 1))
        limit = inputs.get("limit")
        return inputs["file_path"], lo, INF if limit is None else lo + limit - 1
    command = inputs.get("command") if action in SHELLS else None
    match = SHELL_READ.match(command) if isinstance(command, str) else None
    if match is None:
        return None
    how, path = match.groups()
    numbers = [float(n) for n in re.findall(r"\d+", how)]
    if how.startswith("sed"):
        return path, numbers[0], numbers[-1]
    if how.startswith("tail"):
        return path, INF, INF
    if how.startswith("head"):
        return path, 1.0, numbers[0]
    return path, 1.0, INF


def _writes(step: Step, path: str) -> bool:
    """True when a step may write ``path``: a write tool on it, or a shell step (not a pure
    read) whose input names it."""
    action = step["action"].lower()
    if action in WRITES:
        return (step.get("input") or {}).get("file_path") == path
    return action in SHELLS and _read(step) is None and path in json.dumps(step.get("input"))


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
        read = _read(s)
        if read is not None:
            path, lo, hi = read
            covering = [
                j for j in tools[:pos]
                if (other := _read(steps[j])) is not None and other[0] == path
                and other[1] <= lo and other[2] >= hi
                and not any(_writes(steps[w], path) for w in tools if j < w < k)
            ]  # fmt: skip
            if covering:
                out.append(("reread", k, covering[-1], *_attributed(steps, k)))
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
        cw = s.get("cache_write_tokens")
        if cw is None:
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
