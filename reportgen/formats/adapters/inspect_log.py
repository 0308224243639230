"""Inspect AI eval logs: ``.json`` (the whole log) and ``.eval`` (a zip of ``header.json`` and
``samples/<id>_epoch_<n>.json``), read with the standard library alone (``json``, ``zipfile``):
no ``inspect_ai`` install is needed.

Each sample (one epoch of one dataset item) is a run: task = sample id, suite = the eval's
task, label = the model, trial = the epoch. Its ``model`` events are ``llm`` steps (usage ->
tokens, working time -> latency), ``tool`` events are ``tool`` steps (``error`` -> error) and
``error`` events are ``error`` steps; a sample error or limit adds a final error/abandoned
step. Logs without events (older or trimmed) fall back to the sample's messages. The first
score (C/I/P/N or a number) is the reward."""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

import duckdb

from reportgen.errors import InputError
from reportgen.formats.adapters.infra import error_meta
from reportgen.formats.adapters.messages import content_text, last_given, said
from reportgen.formats.adapters.rows import (
    Collector,
    add,
    amount,
    count,
    parse_document,
    require,
    stable_id,
    stage_each,
)
from reportgen.formats.adapters.why import cut, lines, one_line, why
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

WHAT = "Inspect AI log (an object with version, eval and samples)"
_JSON_KEYS = (Marked(rb'"version"\s*:\s*\d'), Marked(rb'"eval"\s*:\s*\{'))
_TASK = re.compile(rb'"task"\s*:|"status"\s*:')
_SCORE_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_SAMPLE_NAME = re.compile(r"^samples/(.+)_epoch_(\d+)\.json$")
VERSIONS = (1, 2, 3)  # 3 adds a message pool (deduplicated messages); events are unchanged


class InspectLog:
    name = "inspect"
    description = "Inspect AI eval log (.json, or .eval zip read with the stdlib)"
    maps = (
        "a sample epoch -> a run (task: sample id, label: model, trial: epoch); model/tool/error "
        "events -> llm/tool/error steps; tool error -> error, sample error/limit -> final step"
    )

    def detect(self, source: SourceFile) -> bool:
        head = source.head
        if head.startswith(b"PK\x03\x04"):
            return source.path.name.endswith(".eval") or b"header.json" in head[:512]
        return all(k.search(head) for k in _JSON_KEYS) and bool(_TASK.search(head))

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        def parse(rows: Collector, source: SourceFile) -> None:
            header, samples = _read(source, options.max_record_bytes)
            _log(rows, source, header, samples)

        stage_each(con, sources, self.name, WHAT, parse)


def _read(source: SourceFile, limit: int) -> tuple[dict[str, Any], Iterator[Any]]:
    """The log header (version, eval, ...) and its samples, from either file kind."""
    if not source.head.startswith(b"PK\x03\x04"):
        document = parse_document(source, WHAT)
        require(source, isinstance(document, dict), f"expected {WHAT}")
        return document, iter(document.get("samples") or [])
    try:
        archive = zipfile.ZipFile(source.path)
        names = archive.namelist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(
            source.display, f"not a readable zip ({exc}); expected an Inspect .eval log"
        ) from None
    header_name = "header.json" if "header.json" in names else "_journal/start.json"
    require(source, header_name in names, "expected header.json in an Inspect .eval zip")
    header = _member(source, archive, header_name, limit)
    require(source, isinstance(header, dict), f"expected an object in {header_name}")
    found = [(_SAMPLE_NAME.match(n), n) for n in names]
    ordered = sorted(
        ((m, n) for m, n in found if m),
        key=lambda p: (_natural(p[0].group(1)), int(p[0].group(2))),
    )
    return header, (_member(source, archive, n, limit) for _, n in ordered)


def _natural(text: str) -> tuple[int, str]:
    return (int(text), "") if text.isdigit() else (1 << 62, text)


def _member(source: SourceFile, archive: zipfile.ZipFile, name: str, limit: int) -> Any:
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise InputError(
            source.display, f"{name} is {info.file_size} bytes, over the per-record limit"
        )
    try:
        data = archive.read(name)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise InputError(source.display, f"cannot read {name} from the zip: {exc}") from None
    return parse_document(source, f"{WHAT} ({name})", data)


def _score(scores: Any) -> float | None:
    """The first scorer's value as a number (C=1, P=0.5, I=N=0, booleans 1/0)."""
    if not isinstance(scores, dict) or not scores:
        return None
    first = next(iter(scores.values()))
    value = first.get("value") if isinstance(first, dict) else None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return _SCORE_VALUES.get(value) if isinstance(value, str) else None


def _resolver(attachments: Any) -> Callable[[str], str]:
    """Maps ``attachment://<hash>`` to the sample's attachment text (other text unchanged)."""
    table = attachments if isinstance(attachments, dict) else {}

    def resolve(text: str) -> str:
        if text.startswith(_ATTACHMENT):
            found = table.get(text[len(_ATTACHMENT) :])
            return found if isinstance(found, str) else text
        return text

    return resolve


_ATTACHMENT = "attachment://"


def _model_said(message: Any, resolve: Callable[[str], str]) -> Any:
    """An assistant message's text and tool calls (function, arguments)."""
    if not isinstance(message, dict):
        return None
    calls = [
        {"name": c.get("function"), "arguments": c.get("arguments")}
        for c in message.get("tool_calls") or []
        if isinstance(c, dict)
    ]
    return said(content_text(message.get("content"), resolve), calls)


def _event_steps(rows: Collector, events: list[Any], resolve: Callable[[str], str]) -> bool:
    """Steps from model/tool/error events; True when the sample had an error event. A model
    step's input is the last user or tool message it was sent, its output what it said."""
    had_error = False
    for event in events:
        kind = event.get("event")
        stamp = event.get("timestamp") if isinstance(event.get("timestamp"), str) else None
        seconds = amount(event.get("working_time"), "working_time")
        latency = None if seconds is None else seconds * 1000.0
        if kind == "model":
            output = event.get("output") or {}
            usage = output.get("usage") or {}
            failed = bool(event.get("error")) or bool(output.get("error"))
            choices = output.get("choices") or [{}]
            answer = _model_said(choices[0].get("message") if choices else None, resolve)
            prompt = event.get("input")
            rows.step(
                "llm",
                str(event.get("model") or output.get("model") or "model"),
                "error" if failed else "ok",
                input=last_given(prompt, resolve) if isinstance(prompt, list) else None,
                output=answer or output.get("completion") or event.get("error"),
                tokens_in=count(usage.get("input_tokens"), "input_tokens"),
                tokens_out=count(usage.get("output_tokens"), "output_tokens"),
                latency_ms=latency,
                started_at=stamp,
                cache_read=count(usage.get("input_tokens_cache_read"), "input_tokens_cache_read"),
                cache_write=count(
                    usage.get("input_tokens_cache_write"), "input_tokens_cache_write"
                ),
                reasoning=count(usage.get("reasoning_tokens"), "reasoning_tokens"),
            )
        elif kind == "tool":
            error = event.get("error")
            rows.step(
                "tool",
                str(event.get("function") or "tool"),
                "error" if error else "ok",
                input=event.get("arguments"),
                output={"error": error} if error else event.get("result"),
                latency_ms=latency,
                started_at=stamp,
            )
        elif kind == "error":
            had_error = True
            error = event.get("error") or {}
            rows.step(
                "error",
                "error",
                "error",
                output=error.get("message") if isinstance(error, dict) else error,
                started_at=stamp,
            )
    return had_error


def _message_steps(
    rows: Collector, messages: list[Any], model: str, resolve: Callable[[str], str]
) -> None:
    """Steps from a sample's messages, for logs that keep no events."""
    for position, message in enumerate(messages):
        role = message.get("role")
        if role == "assistant":
            rows.step(
                "llm",
                str(message.get("model") or model),
                "ok",
                input=last_given(messages[:position], resolve),
                output=_model_said(message, resolve),
            )
        elif role == "tool":
            error = message.get("error")
            rows.step(
                "tool",
                str(message.get("function") or "tool"),
                "error" if error else "ok",
                output={"error": error} if error else message.get("content"),
            )


def _log(
    rows: Collector, source: SourceFile, header: dict[str, Any], samples: Iterator[Any]
) -> None:
    version = header.get("version")
    require(
        source,
        version in VERSIONS,
        f"unsupported Inspect log version {version!r} (expected 1, 2 or 3)",
        "version",
    )
    require(source, isinstance(header.get("eval"), dict), "required field is missing", "eval")
    spec = header["eval"]
    model = str(spec.get("model") or "unknown-model")
    task = str(spec.get("task") or "inspect")
    for position, sample in enumerate(samples):
        where = f"samples[{position}]"
        require(source, isinstance(sample, dict), "expected an object", where)
        require(source, "id" in sample, "required field is missing", f"{where}.id")
        task_id = str(sample["id"])
        epoch = count(sample.get("epoch"), "epoch") or 1
        uuid = sample.get("uuid")
        rows.begin(uuid if isinstance(uuid, str) and uuid else stable_id(source, task_id, position))
        events = sample.get("events") or []
        resolve = _resolver(sample.get("attachments"))
        if events:
            had_error = _event_steps(rows, events, resolve)
        else:
            had_error = False
            _message_steps(rows, sample.get("messages") or [], model, resolve)
        error = sample.get("error")
        limit = sample.get("limit")
        if error and not had_error:
            message = error.get("message") if isinstance(error, dict) else error
            rows.step("error", "sample_error", "error", output=message)
        if isinstance(limit, dict):
            rows.step("limit", f"{limit.get('type') or 'unknown'}_limit", "abandoned", output=limit)
        usage = sample.get("model_usage") or {}
        models = [u for u in usage.values() if isinstance(u, dict)]
        reward = _score(sample.get("scores"))
        failed = bool(error) or isinstance(limit, dict)
        working = amount(sample.get("working_time"), "working_time")
        first_stamp = next(
            (e.get("timestamp") for e in events if isinstance(e.get("timestamp"), str)), None
        )
        completion = _completion(sample.get("output"), resolve)
        rows.end(
            source,
            task_id=task_id,
            label=model,
            suite=task,
            trial=epoch,
            started_at=sample.get("started_at") or first_stamp or spec.get("created"),
            output=completion,
            reward=reward,
            success=False if failed else (None if reward is None else reward >= 1),
            tokens_in=_sum(count(u.get("input_tokens"), "input_tokens") for u in models),
            tokens_out=_sum(count(u.get("output_tokens"), "output_tokens") for u in models),
            cache_read=_sum(
                count(u.get("input_tokens_cache_read"), "input_tokens_cache_read") for u in models
            ),
            cache_write=_sum(
                count(u.get("input_tokens_cache_write"), "input_tokens_cache_write") for u in models
            ),
            reasoning=_sum(count(u.get("reasoning_tokens"), "reasoning_tokens") for u in models),
            latency_ms=None if working is None else working * 1000.0,
            meta={
                "eval_id": spec.get("eval_id"),
                "inspect_run_id": spec.get("run_id"),
                "log_status": header.get("status"),
                "error": error.get("message") if isinstance(error, dict) else error,
                "limit": limit,
                **why(
                    goal=_input(sample.get("input"), resolve), scorer=_scores(sample.get("scores"))
                ),
                # a sample error is an exception outside the agent's solver: the harness's;
                # a limit (tokens, messages, time) is the agent's budget: its failure
                **(error_meta(crash) if (crash := _message(error)) else {}),
            },
        )


def _completion(output: Any, resolve: Callable[[str], str]) -> str | None:
    """A sample's final answer: its output's ``completion``, else (logs that keep only the
    choices) the text of the first choice's message."""
    if not isinstance(output, dict):
        return None
    completion = output.get("completion")
    if isinstance(completion, str) and completion:
        return completion
    choices = output.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    return content_text(message.get("content"), resolve) if isinstance(message, dict) else None


def _input(given: Any, resolve: Callable[[str], str]) -> str | None:
    """A sample's input as text: a string, or its chat messages' text (each but a lone user
    message prefixed by its role)."""
    if isinstance(given, str):
        return resolve(given)
    if not isinstance(given, list):
        return None
    said = [
        (m.get("role"), content_text(m.get("content"), resolve))
        for m in given
        if isinstance(m, dict)
    ]
    said = [(role, text) for role, text in said if text]
    if len(said) == 1 and said[0][0] == "user":
        return said[0][1]
    return "\n\n".join(f"{role}: {text}" for role, text in said) or None


def _scores(scores: Any) -> str | None:
    """Each score in words: its scorer, value and answer, then its explanation (when it says
    more than the answer)."""
    if not isinstance(scores, dict):
        return None
    parts: list[str | None] = []
    for name, score in scores.items():
        if not isinstance(score, dict):
            continue
        value = score.get("value")
        answer = score.get("answer")
        explanation = score.get("explanation")
        head = f"{name}: {value if not isinstance(value, dict) else json.dumps(value)}"
        if isinstance(answer, str) and answer:
            head += f" (answer: {cut(one_line(answer), 200)})"
        parts.append(head)
        if (
            isinstance(explanation, str)
            and explanation.strip()
            and explanation.strip() != (answer or "").strip()
        ):
            parts.append(explanation.strip())
    return lines(*parts)


def _message(error: Any) -> str | None:
    """A sample error's message (an EvalError object, or text)."""
    message = error.get("message") if isinstance(error, dict) else error
    return str(message) if message else None


def _sum(values: Iterator[int | None]) -> int | None:
    total = add(*values)
    return None if total is None else int(total)
