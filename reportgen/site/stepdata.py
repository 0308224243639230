"""A run's steps as one small data script beside its run page (``<run>.steps.js``), written
once and read by every page that shows them (the run page, each pair page of the run, the
search box's snippets) through a ``<script src>`` (it works from ``file://`` and a zip, where
``fetch()`` does not). The script only assigns a string into a global: the steps' JSON,
DEFLATE-compressed and base64-encoded (a quarter of the bytes; no agent text can close a
script or run as code, as base64 has no quote, ``<`` or newline). The pages inflate it with
fflate (static/rundata.js) and write every text with ``textContent`` (static/steps.js);
``read_steps_script`` reads one back."""

from __future__ import annotations

import base64
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from reportgen.site import fmt, paths
from reportgen.site.context import StepView
from reportgen.site.steps import PAIR_TEXT_LIMIT, payload_text, with_error
from reportgen.site.trace import Tree, Waterfall

#: The global the step data scripts assign into: ``window.RG_RUN_STEPS[<run id>]``.
RUN_STEPS = "RG_RUN_STEPS"
_STATUSES = frozenset(("ok", "error", "retry", "abandoned"))
_ESCAPES = (
    (b"<", b"\\u003c"),
    (b">", b"\\u003e"),
    (b"&", b"\\u0026"),
    ("\u2028".encode(), b"\\u2028"),
    ("\u2029".encode(), b"\\u2029"),
)


def script_json(value: Any) -> bytes:
    """``value`` as JSON safe inside a script: the characters that could end a ``<script>``
    element or a JS string (``<``, ``>``, ``&``, U+2028, U+2029) as ``\\u`` escapes (they occur
    only inside JSON strings, where the escape means the same character)."""
    data = orjson.dumps(value)
    for raw, escaped in _ESCAPES:
        data = data.replace(raw, escaped)
    return data


#: zlib's level for packed data: on bench/site.py's 1,000 runs, level 3 makes 46 MB of steps
#: 12.3 MB in 0.39 s of CPU, level 6 10.5 MB in 0.77 s, level 9 10.0 MB in 2.2 s, level 1
#: 14.3 MB in 0.31 s.
PACK_LEVEL = 3
_PACKED_HEAD = f"window.{RUN_STEPS}=window.{RUN_STEPS}||{{}};window.{RUN_STEPS}[".encode()


def pack_json(value: Any) -> bytes:
    """``value``'s JSON as raw DEFLATE (zlib, PACK_LEVEL), base64-encoded: what
    ``window.rgUnpack`` (static/rundata.js) turns back into the value in a page."""
    packer = zlib.compressobj(PACK_LEVEL, zlib.DEFLATED, -15)
    return base64.b64encode(packer.compress(orjson.dumps(value)) + packer.flush())


def unpack_json(packed: bytes) -> Any:
    """The value ``pack_json`` packed."""
    return orjson.loads(zlib.decompress(base64.b64decode(packed, validate=True), -15))


def packed_data_script(key: str, value: Any) -> bytes:
    """A script that stores ``value`` packed (``pack_json``) as ``window.RG_RUN_STEPS[key]``
    (``key`` as escaped JSON)."""
    return _PACKED_HEAD + script_json(key) + b']="' + pack_json(value) + b'";\n'


def read_steps_script(file: Path) -> tuple[str, dict[str, Any]]:
    """The run id and steps a step data script holds (what rundata.js reads in the page)."""
    text = file.read_bytes()
    if not text.startswith(_PACKED_HEAD) or not text.endswith(b'";\n'):
        raise ValueError(f"{file}: not a step data script")
    key, _, packed = text[len(_PACKED_HEAD) : -3].partition(b']="')
    return str(orjson.loads(key)), unpack_json(packed)


def steps_path(run_page: str) -> str:
    """The step data script of the run page ``run_page`` (``runs/.../<run>.steps.js``)."""
    return run_page.removesuffix(".html") + ".steps.js"


def _records(
    views: Sequence[StepView], steps: Sequence[dict[str, Any]], bars: bool
) -> list[orjson.Fragment]:
    """The steps as the data script holds them (``views`` with the stored ``steps`` they show,
    in the same order): what the run page's row and a pair page's side cell show (short keys;
    false, empty and default values left out), each as its JSON (no dict of it outlives its
    step: a run's records are many objects for the garbage collector to track). The numbers
    are formatted a column at a time (fmt.nums and the like)."""
    tokens_in = [v.tokens_in for v in views]
    tokens_out = [v.tokens_out for v in views]
    costs = [v.cost_usd for v in views]
    latencies = [v.latency_ms for v in views]
    totals = [
        None if a is None and b is None else (a or 0) + (b or 0)
        for a, b in zip(tokens_in, tokens_out, strict=True)
    ]  # StepView.tokens
    waits = fmt.mss(latencies)
    shown = zip(fmt.nums(tokens_in), fmt.nums(tokens_out), fmt.usds(costs), waits, strict=True)
    offsets = fmt.mss([v.offset_ms for v in views]) if bars else waits
    keys = zip(*(fmt.sort_keys(c) for c in (tokens_in, tokens_out, costs, latencies)), strict=True)
    out = []
    rows = zip(views, steps, shown, keys, fmt.nums(totals), offsets, strict=True)
    for view, step, n, v, tk, offset in rows:
        rec: dict[str, Any] = {
            "i": view.idx,
            "y": view.type,
            "a": view.action,
            "s": view.status,
            "n": list(n),
            "v": list(v),
            "tk": tk,
            "in": view.input_text,
            "out": view.output_text,
        }
        if view.status not in _STATUSES:
            rec["c"] = paths.slug(view.status)
        if len(view.input_text) > PAIR_TEXT_LIMIT:
            rec["pi"] = payload_text(step["input"], PAIR_TEXT_LIMIT)
        if len(view.output_text) > PAIR_TEXT_LIMIT:
            short = with_error(payload_text(step["output"], PAIR_TEXT_LIMIT), step.get("error"))
            if short != view.output_text:
                rec["po"] = short
        if view.failed:
            rec["f"] = 1
        if view.wasted:
            rec["w"] = 1
        if view.stagnant:
            rec["g"] = 1
        if view.recovery:
            rec["r"] = view.recovery
        if view.loop:
            rec["l"] = view.loop
        if view.depth:
            rec["d"] = view.depth
        if view.kids:
            rec["k"] = view.kids
        if view.parent is not None:
            rec["p"] = view.parent
        if bars:
            if view.bar is None:
                rec["b"] = None
            else:
                kind = view.status if view.status in _STATUSES else "other"
                title = f"+{offset}, {n[3]}"  # fmt.ms of its offset and latency
                rec["b"] = [f"{view.bar[0]:.2f}", f"{view.bar[1]:.2f}", kind, title]
        out.append(orjson.Fragment(orjson.dumps(rec)))
    return out


def run_steps_script(
    run_id: str,
    steps: Sequence[dict[str, Any]],
    views: Sequence[StepView],
    tree: Tree,
    falls: Waterfall | None,
) -> bytes:
    """The data script of one run: its steps in stored order (``views`` in the tree's order
    when the tree is drawn), the order to draw them in, and whether rows get a waterfall."""
    positions = list(tree.order if tree.nested else range(len(views)))
    records: list[orjson.Fragment | None] = [None] * len(steps)
    shown = _records(views, [steps[at] for at in positions], falls is not None)
    for at, record in zip(positions, shown, strict=True):
        records[at] = record
    data: dict[str, Any] = {"steps": records}
    if tree.nested:
        data["order"] = list(tree.order)
    if falls is not None:
        data["wf"] = 1
    return packed_data_script(run_id, data)
