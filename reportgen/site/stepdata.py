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


def _record(view: StepView, step: dict[str, Any], bars: bool) -> dict[str, Any]:
    """One step as the data script holds it: what the run page's row and a pair page's side
    cell show (short keys; false, empty and default values left out)."""
    slug = view.status if view.status in _STATUSES else None
    rec: dict[str, Any] = {
        "i": view.idx,
        "y": view.type,
        "a": view.action,
        "s": view.status,
        "n": [
            fmt.num(view.tokens_in),
            fmt.num(view.tokens_out),
            fmt.usd(view.cost_usd),
            fmt.ms(view.latency_ms),
        ],
        "v": [
            fmt.sort_key(v)
            for v in (view.tokens_in, view.tokens_out, view.cost_usd, view.latency_ms)
        ],
        "tk": fmt.num(view.tokens),
        "in": view.input_text,
        "out": view.output_text,
    }
    if slug is None:
        rec["c"] = paths.slug(view.status)
    if len(view.input_text) > PAIR_TEXT_LIMIT:
        rec["pi"] = payload_text(step["input"], PAIR_TEXT_LIMIT)
    if len(view.output_text) > PAIR_TEXT_LIMIT:
        short = with_error(payload_text(step["output"], PAIR_TEXT_LIMIT), step.get("error"))
        if short != view.output_text:
            rec["po"] = short
    flags = (("f", view.failed), ("w", view.wasted), ("g", view.stagnant))
    rec.update((key, 1) for key, flag in flags if flag)
    marks: tuple[tuple[str, object], ...] = (
        ("r", view.recovery),
        ("l", view.loop),
        ("d", view.depth),
        ("k", view.kids),
    )
    rec.update((key, value) for key, value in marks if value)
    if view.parent is not None:
        rec["p"] = view.parent
    if bars:
        if view.bar is None:
            rec["b"] = None
        else:
            kind = view.status if view.status in _STATUSES else "other"
            title = f"+{fmt.ms(view.offset_ms)}, {fmt.ms(view.latency_ms)}"
            rec["b"] = [f"{view.bar[0]:.2f}", f"{view.bar[1]:.2f}", kind, title]
    return rec


def run_steps_script(
    run_id: str,
    steps: Sequence[dict[str, Any]],
    views: Sequence[StepView],
    tree: Tree,
    falls: Waterfall | None,
) -> bytes:
    """The data script of one run: its steps in stored order (``views`` in the tree's order
    when the tree is drawn), the order to draw them in, and whether rows get a waterfall."""
    positions = tree.order if tree.nested else range(len(views))
    records: list[dict[str, Any] | None] = [None] * len(steps)
    for at, view in zip(positions, views, strict=True):
        records[at] = _record(view, steps[at], falls is not None)
    data: dict[str, Any] = {"steps": records}
    if tree.nested:
        data["order"] = list(tree.order)
    if falls is not None:
        data["wf"] = 1
    return packed_data_script(run_id, data)
