"""Gemini CLI chat recordings (``~/.gemini/tmp/<projectHash>/chats/session-*.json``): one
object ``{sessionId, projectHash, startTime, lastUpdated, messages[]}``, or the newer JSONL
recording (a header line, then message lines and ``{"$set": {...}}`` updates; a message line
repeating an earlier id replaces it).

- A session is a run (run id = ``sessionId``); label = the model most replies used, suite =
  ``gemini-cli/<first 12 of projectHash>``, task = a hash of the first user message.
- A ``gemini`` (legacy ``model``) message -> an ``llm`` step (action = model): tokens_in =
  ``tokens.input`` (the cached part included: cache_read_tokens), tokens_out =
  ``output + thoughts`` (thinking is billed as output; thoughts: reasoning_tokens). Each
  ``toolCalls[]`` entry -> a ``tool`` step under it (name, ``args``, the ``functionResponse``
  output); ``status`` ``error`` -> ``error``, ``cancelled`` (or any status other than
  ``success``) -> abandoned. An ``error`` message -> an ``error`` step; ``user`` and ``info``
  messages are not steps.
- Cost from the model's price (cached input at the cached rate)."""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

import duckdb

from reportgen.errors import InputError
from reportgen.formats.adapters.infra import api_error_meta
from reportgen.formats.adapters.rows import (
    Collector,
    count,
    epoch_from_iso,
    parse_document,
    parse_lines,
    stage_each,
)
from reportgen.formats.adapters.why import why
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.pricing import PriceTable, load_table
from reportgen.formats.source import SourceFile

WHAT = "Gemini CLI session (an object with sessionId, projectHash and messages, or its JSONL)"
_KEYS = (Marked(rb'"sessionId"\s*:'), Marked(rb'"projectHash"\s*:'))
_REPLIES = frozenset({"gemini", "model"})


class GeminiCli:
    name = "gemini-cli"
    description = "Gemini CLI chat recordings (~/.gemini/tmp/<project>/chats/session-*.json[l])"
    maps = (
        "a session -> a run; a gemini message -> llm step (tokens), each toolCalls[] entry -> "
        "tool step under it (status error -> error, cancelled -> abandoned)"
    )
    grows = True  # the chat file is rewritten / appended as the session goes on

    def detect(self, source: SourceFile) -> bool:
        return all(k.search(source.head) for k in _KEYS)

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        prices = load_table()
        stage_each(con, sources, self.name, WHAT, lambda rows, s: _parse(rows, s, prices))


def _session(source: SourceFile) -> tuple[dict[str, Any], list[tuple[int | None, Any]]]:
    """The header and the messages (with their line, for JSONL) of a file."""
    if not source.lines:
        document = parse_document(source, WHAT)
        if not isinstance(document, dict):
            raise InputError(source.display, f"expected {WHAT}")
        messages = document.get("messages")
        if not isinstance(messages, list):
            raise InputError(source.display, "expected a list", field="messages")
        return document, [(None, m) for m in messages]
    header: dict[str, Any] = {}
    by_id: dict[str, tuple[int | None, Any]] = {}
    for number, record in parse_lines(source, WHAT):
        if not isinstance(record, dict):
            raise InputError(source.display, "expected a JSON object", line=number)
        if "$set" in record:
            update = record["$set"]
            if not isinstance(update, dict):
                raise InputError(source.display, "expected an object", line=number, field="$set")
            if isinstance(update.get("messages"), list):
                by_id = {str(i): (number, m) for i, m in enumerate(update["messages"])}
            header.update({k: v for k, v in update.items() if k != "messages"})
        elif not header and "sessionId" in record:
            header = dict(record)
        elif "type" in record:
            key = str(record.get("id") or f"line-{number}")
            by_id.pop(key, None)  # a repeated id replaces the message (moved to its new place)
            by_id[key] = (number, record)
        else:
            header.update(record)
    return header, list(by_id.values())


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text")) for p in content if isinstance(p, dict) and p.get("text")
        )
    return ""


def _parse(rows: Collector, source: SourceFile, prices: PriceTable) -> None:
    header, messages = _session(source)
    session_id = str(header.get("sessionId") or source.path.stem)
    rows.begin(session_id)
    models: Counter[str] = Counter()
    prompt: str | None = None
    output: str | None = None
    ended_on: str | None = None  # the text of an error no reply followed
    previous: float | None = None
    stamps: list[float] = []
    totals = {"input": 0, "cached": 0, "output": 0, "thoughts": 0, "tool": 0}
    known = False
    unpriced: set[str] = set()
    for position, (line, message) in enumerate(messages):
        where = f"messages[{position}]"
        if not isinstance(message, dict):
            raise InputError(source.display, "expected an object", line=line, field=where)
        kind = message.get("type")
        stamp = message.get("timestamp")
        now = epoch_from_iso(stamp)
        started = stamp if now is not None else None
        if now is not None:
            stamps.append(now)
        if kind == "user":
            if prompt is None and _text(message.get("content")).strip():
                prompt = _text(message.get("content")).strip()
        elif kind in _REPLIES:
            model = message.get("model") if isinstance(message.get("model"), str) else None
            tokens = message.get("tokens")
            tokens = tokens if isinstance(tokens, dict) else None
            usage = None
            tokens_in = tokens_out = None
            cost = None
            if tokens is not None:
                known = True
                usage = {k: count(tokens.get(k), f"{where}.tokens.{k}") for k in totals}
                for k in totals:
                    totals[k] += usage[k] or 0
                tokens_in = usage["input"]
                tokens_out = (
                    None
                    if usage["output"] is None and usage["thoughts"] is None
                    else (usage["output"] or 0) + (usage["thoughts"] or 0)
                )
                price = prices.price(model)
                if price is not None:
                    cached = usage["cached"] or 0
                    fresh = max((tokens_in or 0) - cached, 0)
                    cost = price.cost(fresh, tokens_out, 0, cached)
                elif model:
                    unpriced.add(model)
            if model:
                models[model] += 1
            text = _text(message.get("content"))
            if text:
                output = text
            shown: dict[str, Any] = {}
            if text:
                shown["text"] = text
            if usage is not None:
                shown["usage"] = usage
            latency = (
                (now - previous) * 1000.0
                if now is not None and previous is not None and now >= previous
                else None
            )
            ended_on = None  # a reply after an error: the session went on
            turn = rows.step(
                "llm",
                model or "gemini",
                input=None,
                output=shown or None,
                tokens_in=tokens_in,
                tokens_out=tokens_out,
                cost_usd=cost,
                latency_ms=latency,
                started_at=started,
                cache_read=None if usage is None else usage["cached"],
                reasoning=None if usage is None else usage["thoughts"],
            )
            calls = message.get("toolCalls") or []
            if not isinstance(calls, list):
                raise InputError(
                    source.display, "expected a list", line=line, field=f"{where}.toolCalls"
                )
            for number, call in enumerate(calls):
                if not isinstance(call, dict):
                    raise InputError(
                        source.display,
                        "expected an object",
                        line=line,
                        field=f"{where}.toolCalls[{number}]",
                    )
                status = str(call.get("status") or "success")
                done = epoch_from_iso(call.get("timestamp"))
                rows.step(
                    "tool",
                    str(call.get("name") or "(unnamed)"),
                    "ok" if status == "success" else "error" if status == "error" else "abandoned",
                    input=call.get("args"),
                    output=_result(call),
                    latency_ms=(done - now) * 1000.0
                    if done is not None and now is not None and done >= now
                    else None,
                    started_at=started,
                    parent=turn,
                )
        elif kind == "error":
            ended_on = _text(message.get("content"))
            rows.step("error", "error", "error", output=ended_on, started_at=started)
        if now is not None:
            previous = now
    project = str(header.get("projectHash") or "")[:12] or "default"
    task = "prompt-" + hashlib.sha1(prompt.encode()).hexdigest()[:10] if prompt else session_id
    start = header.get("startTime")
    rows.end(
        source,
        task_id=task,
        label=models.most_common(1)[0][0] if models else "gemini-cli",
        suite=f"gemini-cli/{project}",
        started_at=start if epoch_from_iso(start) is not None else None,
        meta={
            "tool": "gemini-cli",
            "session_id": session_id,
            "project_hash": header.get("projectHash"),
            **why(goal=prompt, title=header.get("summary")),
            "models": sorted(models),
            "usage": totals if known else None,
            "prices": {"as_of": prices.as_of, "source": prices.source},
            "unpriced_models": sorted(unpriced) or None,
            **(api_error_meta(ended_on) if ended_on else {}),
        },
        output=output,
        latency_ms=(max(stamps) - min(stamps)) * 1000.0 if stamps else None,
    )


def _result(call: dict[str, Any]) -> Any:
    """What a tool call returned: the ``functionResponse.response`` (else resultDisplay)."""
    result = call.get("result")
    if isinstance(result, list):
        responses = [
            r["functionResponse"].get("response")
            for r in result
            if isinstance(r, dict) and isinstance(r.get("functionResponse"), dict)
        ]
        if len(responses) == 1:
            return responses[0]
        if responses:
            return responses
    return call.get("resultDisplay")
