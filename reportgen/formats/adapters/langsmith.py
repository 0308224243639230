"""LangSmith run payloads: the SDK's batch body ``{"post": [run], "patch": [run]}`` (also a
list of such bodies). A run's create (post) and update (patch) are merged by run ``id``, the
patch's fields (``outputs``, ``end_time``, ``error``...) overriding the post's, across every
file of one load: a trace whose post, patches or child runs are in different files is one run
(recorded under the file of its root run's post).

Runs are grouped by ``trace_id`` (else by the root reached through ``parent_run_id``): a trace
is a run, each LangSmith run a step in start order with ``parent_run_id`` as its parent.
``run_type`` llm/tool/chain/retriever/... is the step type; action = the model
(``extra.metadata.ls_model_name``) for llm runs, else the run's ``name``. Tokens come from the
outputs' ``usage_metadata`` (LangSmith wrappers), ``usage`` (OpenAI) or
``llm_output.token_usage`` (LangChain), else from ``extra.metadata.usage_metadata``: when none
gives them they are unknown, not zero. Latency = ``end_time`` - ``start_time``; an ``error``
makes the step an error."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

import duckdb

from reportgen.formats.adapters.messages import first_user_text
from reportgen.formats.adapters.rows import (
    Collector,
    amount,
    count,
    default_label,
    explained,
    parse_document,
    require,
)
from reportgen.formats.adapters.spans import Span, add_trace
from reportgen.formats.adapters.why import why
from reportgen.formats.base import StageOptions
from reportgen.formats.source import SourceFile

WHAT = "LangSmith run batch (an object with post and/or patch lists of runs)"
_START = re.compile(rb'^\s*\[?\s*\{\s*"(?:post|patch)"\s*:\s*\[\s*[\{\]]')
_RUN_KEY = re.compile(rb'"(?:run_type|dotted_order|trace_id|parent_run_id)"\s*:')
_USAGE_KEYS = (
    ("usage_metadata", "input_tokens", "output_tokens"),
    ("usage", "prompt_tokens", "completion_tokens"),
    ("usage", "input_tokens", "output_tokens"),
)


class LangSmithRuns:
    name = "langsmith"
    description = "LangSmith run payloads ({post: [run], patch: [run]} batches)"
    maps = (
        "a trace -> a run (runs merged post+patch by id); each LangSmith run -> a step "
        "(run_type llm/tool/chain -> type, parent_run_id -> parent); error -> error"
    )

    def detect(self, source: SourceFile) -> bool:
        head = source.head
        return bool(_START.match(head)) and bool(_RUN_KEY.search(head))

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        _stage(con, sources)


def _obj(value: Any) -> dict[str, Any]:
    """``value`` when it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _seconds(stamp: Any) -> float | None:
    if isinstance(stamp, (int, float)) and not isinstance(stamp, bool):
        return float(stamp) / (1000.0 if stamp > 1e11 else 1.0)  # epoch ms or s
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def usage(run: dict[str, Any]) -> tuple[int | None, int | None]:
    """(input, output) tokens of a run; (None, None) when the payload does not give them."""
    outputs = _obj(run.get("outputs"))
    candidates: list[tuple[Any, str, str]] = [(outputs.get(k), i, o) for k, i, o in _USAGE_KEYS]
    llm_output = outputs.get("llm_output")
    if isinstance(llm_output, dict):
        candidates.append((llm_output.get("token_usage"), "prompt_tokens", "completion_tokens"))
    extra = _obj(run.get("extra"))
    metadata = _obj(extra.get("metadata"))
    candidates.append((metadata.get("usage_metadata"), "input_tokens", "output_tokens"))
    candidates.append((run, "prompt_tokens", "completion_tokens"))  # runs read from the API
    for found, key_in, key_out in candidates:
        if isinstance(found, dict):
            tokens_in, tokens_out = (
                count(found.get(key_in), key_in),
                count(found.get(key_out), key_out),
            )
            if tokens_in is not None or tokens_out is not None:
                return tokens_in, tokens_out
    return None, None


class Merged:
    """The runs of every file of one load, a post and its patches merged by id across files
    (patch values win, except nulls), with the file each came from."""

    def __init__(self) -> None:
        self.posts: dict[str, dict[str, Any]] = {}
        self.patches: dict[str, list[dict[str, Any]]] = {}
        self.origin: dict[str, SourceFile] = {}  # the file of the post, else of a patch
        self._posted: set[str] = set()

    def add(self, source: SourceFile, batches: list[Any]) -> None:
        """Collect the runs of one file's batches."""
        for b, batch in enumerate(batches):
            where = f"[{b}]" if len(batches) > 1 else ""
            require(source, isinstance(batch, dict), f"expected {WHAT}", where or None)
            require(
                source,
                "post" in batch or "patch" in batch,
                "required field is missing (post or patch)",
                f"{where}post" if where else "post",
            )
            for part in ("post", "patch"):
                runs = batch.get(part) or []
                require(source, isinstance(runs, list), "expected a list", f"{where}{part}")
                for i, run in enumerate(runs):
                    require(
                        source,
                        isinstance(run, dict) and bool(run.get("id")),
                        "expected a run object with an id",
                        f"{where}{part}[{i}]",
                    )
                    run_id = str(run["id"])
                    if part == "post":
                        self.posts.setdefault(run_id, {}).update(run)
                        if run_id not in self._posted:
                            self.origin[run_id] = source
                            self._posted.add(run_id)
                    else:
                        self.patches.setdefault(run_id, []).append(run)
                        self.posts.setdefault(run_id, {})
                        self.origin.setdefault(run_id, source)

    def runs(self) -> list[dict[str, Any]]:
        """Every run, merged, in first-seen order; a run with no ``run_type`` (its post in no
        file of this load) is an error naming the file of its patch."""
        merged: list[dict[str, Any]] = []
        for run_id, post in self.posts.items():
            run = dict(post)
            for patch in self.patches.get(run_id, ()):
                run.update({k: v for k, v in patch.items() if v is not None})
            require(
                self.origin[run_id],
                isinstance(run.get("run_type"), str) and bool(run["run_type"]),
                "required field is missing (run_type; a patch whose post is in no file of"
                " this load?)",
                f"run {run_id}.run_type",
            )
            merged.append(run)
        return merged


def _trace_of(run: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> str:
    if run.get("trace_id"):
        return str(run["trace_id"])
    current, seen = run, set()
    while current.get("parent_run_id") and str(current["parent_run_id"]) in by_id:
        if str(current["id"]) in seen:
            break
        seen.add(str(current["id"]))
        current = by_id[str(current["parent_run_id"])]
    return str(current["id"])


def _span(run: dict[str, Any], trace_id: str) -> Span:
    extra = _obj(run.get("extra"))
    metadata = _obj(extra.get("metadata"))
    tokens_in, tokens_out = usage(run)
    error = run.get("error")
    outputs = run.get("outputs")
    run_type = str(run["run_type"]).lower()
    return Span(
        trace_id=trace_id,
        span_id=str(run["id"]),
        parent_id=str(run["parent_run_id"]) if run.get("parent_run_id") else None,
        name=str(run.get("name") or run_type),
        start=_seconds(run.get("start_time")),
        end=_seconds(run.get("end_time")),
        attributes={},
        error=bool(error),
        status_message=error if isinstance(error, str) else None,
        type_override=run_type,
        model_override=(metadata.get("ls_model_name") or None) if run_type == "llm" else None,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        cost_usd=amount(run.get("total_cost"), "total_cost"),
        input=run.get("inputs") or None,
        output=outputs if outputs else None,
    )


def _stage(con: duckdb.DuckDBPyConnection, sources: list[SourceFile]) -> None:
    """All files of the load at once, so a trace split across files (a post in one, its patch
    or child runs in others) is stitched into one run; it is recorded under the file of its
    root run's post."""
    merged = Merged()
    for source in sources:
        with explained(source, WHAT):
            document = parse_document(source, WHAT)
            merged.add(source, document if isinstance(document, list) else [document])
    rows = Collector(LangSmithRuns.name)
    runs = merged.runs()
    by_id = {str(r["id"]): r for r in runs}
    traces: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        traces.setdefault(_trace_of(run, by_id), []).append(run)
    for trace_id, members in traces.items():
        root = next((r for r in members if not r.get("parent_run_id")), members[0])
        source = merged.origin[str(root["id"])]
        with explained(source, WHAT):
            _trace(rows, source, trace_id, members, root)
    rows.flush(con)


def _trace(
    rows: Collector,
    source: SourceFile,
    trace_id: str,
    members: list[dict[str, Any]],
    root: dict[str, Any],
) -> None:
    rows.begin(trace_id)
    facts = add_trace(rows, [_span(r, trace_id) for r in members])
    extra = _obj(root.get("extra"))
    metadata = _obj(extra.get("metadata"))
    project = root.get("session_name")
    task = metadata.get("task_id") or metadata.get("task") or root.get("name")
    outputs = root.get("outputs")
    rows.end(
        source,
        task_id=str(task or facts["root_name"] or source.path.name.split(".")[0]),
        label=str(project)
        if isinstance(project, str) and project and project != "default"
        else default_label(source),
        suite="langsmith",
        started_at=facts["started_at"],
        latency_ms=facts["latency_ms"],
        output=_final_text(outputs),
        meta={
            "trace_id": trace_id,
            "project": project,
            "tags": root.get("tags") if isinstance(root.get("tags"), list) else None,
            "model": metadata.get("ls_model_name"),
            "provider": metadata.get("ls_provider"),
            "error": root.get("error") or None,
            **why(goal=first_user_text(root.get("inputs")) or facts["goal"]),
        },
    )


def _final_text(outputs: Any) -> str | None:
    """The root run's answer: an OpenAI choice's message content, else the outputs as JSON."""
    if not outputs:
        return None
    if isinstance(outputs, dict):
        choices = outputs.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            message = choices[0].get("message")
            if isinstance(message, dict) and isinstance(message.get("content"), str):
                return str(message["content"])
        for key in ("output", "answer", "text"):
            if isinstance(outputs.get(key), str):
                return str(outputs[key])
    return outputs if isinstance(outputs, str) else json.dumps(outputs)
