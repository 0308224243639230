"""OpenAI Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``): every
line is ``{timestamp, type, payload}``; ``session_meta`` first, ``turn_context`` per turn,
``response_item`` (messages, tool calls and their outputs) and ``event_msg`` (token counts,
command ends, errors, ...). Unknown record kinds are skipped.

- A rollout file is a run (run id = the first ``session_meta.id``); label = the model most
  turns used, suite = ``codex-cli/<cwd folder>``, task = a hash of the first user message.
- ``function_call`` / ``custom_tool_call`` / ``web_search_call`` / ``tool_search_call`` ->
  ``tool`` steps, joined to their ``*_output`` by ``call_id`` (first unanswered call of that
  id). Input = the JSON-decoded ``arguments`` (``{"input": patch}`` for custom tools).
- Exit status from whichever place the file's version keeps it: ``exec_command_end.exit_code``
  (0.12x), ``metadata.exit_code`` of a JSON-string output (0.7x), or ``Process exited with
  code N`` / ``Exit code: N`` in the output text (not for ``write_stdin``: the exit it shows
  belongs to the ``exec_command`` that started the process); non-zero -> ``error``. Also ``error``:
  ``patch_apply_end.success: false``, an MCP call whose result is ``Err`` or ``isError``, a
  web search with status ``failed``. ``event_msg`` ``error`` -> an ``error`` step;
  ``turn_aborted`` -> an ``interrupt`` step (``error``).
- Tokens: each ``token_count`` event closes one model call. Its usage is the difference of
  the cumulative ``total_token_usage`` from the previous event (``last_token_usage`` when the
  total went down; the legacy ``{prompt, completion}`` info as given). It becomes an ``llm``
  step placed before the tool calls that call produced (their parent), with the assistant
  text as output. Events repeating the same total add nothing. tokens_in = input tokens
  (cached ones included), tokens_out = output tokens; ``cached_input_tokens`` is kept in the
  step output and run meta. A file without token events has unknown (NULL) tokens and cost:
  its assistant messages become ``llm`` steps without usage.
- Newer rollouts (0.17x) write a ``token_usage_record`` line per model call (``usage`` of that
  call, ``response_id``): where a file has them they close the model calls instead of
  ``token_count``, each ``response_id`` counted once (a resume repeating one adds nothing).
- Forks (``session_meta.forked_from_id``): the parent's usage is the parent's run's. A fork's
  cumulative totals start from its parent's, so its first ``token_count`` counts
  ``last_token_usage``; records copied from the parent (``ordinal`` below
  ``forked_from_ordinal_exclusive``) are skipped; and a fork loaded with its parent drops the
  steps repeating the parent's (same ``call_id`` / ``response_id``)."""

from __future__ import annotations

import hashlib
import re
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import duckdb
import orjson

from reportgen.errors import InputError
from reportgen.formats.adapters.rows import (
    Collector,
    count,
    epoch_from_iso,
    explained,
    json_text,
    parse_objects,
)
from reportgen.formats.adapters.sessions import SessionStep, emit_steps, ended_on_api_error
from reportgen.formats.adapters.why import why
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.pricing import PriceTable, load_table
from reportgen.formats.source import SourceFile

WHAT = "Codex CLI rollout (JSON Lines of {timestamp, type, payload})"
_KEYS = (Marked(rb'"type"\s*:\s*"session_meta"', b'"session_meta"'), Marked(rb'"payload"\s*:'))
CALLS = {
    "function_call": None,
    "custom_tool_call": None,
    "web_search_call": "web_search",
    "tool_search_call": "tool_search",
    "image_generation_call": "image_generation",
}
OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})
_EXITED = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")


class CodexCli:
    name = "codex-cli"
    description = "OpenAI Codex CLI rollouts (~/.codex/sessions/**/rollout-*.jsonl)"
    maps = (
        "a rollout -> a run; each token_count -> llm step (usage = difference of cumulative "
        "totals); tool calls joined to outputs by call_id (non-zero exit code -> error)"
    )
    grows = True  # an append-only session log: a grown file replaces the runs it held

    def detect(self, source: SourceFile) -> bool:
        return source.lines and all(k.search(source.head) for k in _KEYS)

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        rows = Collector(self.name)
        prices = load_table()
        runs = []
        for source in sources:
            with explained(source, WHAT):
                runs.append(_parse(source, prices))
        by_id = {r.run_id: r for r in runs}
        for run in runs:  # spawned sub-agents loaded in the same call learn their parent
            for child in run.children:
                found = by_id.get(child["run_id"])
                child["in_load"] = found is not None
                if found is not None:
                    found.meta["parent_run_id"] = run.run_id
                    found.meta["parent_step"] = child["step"]
        for run in runs:  # a fork loaded with its parent: the records it repeats count once
            parent = by_id.get(str(run.meta.get("forked_from_id") or ""))
            if parent is not None and parent is not run:
                _drop_repeats(run, parent)
        used: set[str] = set()
        for run in runs:
            if run.run_id in used:
                run.run_id = f"{run.run_id}@{run.source.path.stem}"
            used.add(run.run_id)
            run.emit(rows, prices)
        rows.flush(con)


@dataclass
class _Step(SessionStep):
    call_id: str | None = None
    response_id: str | None = None
    usage: dict[str, int] | None = None


@dataclass
class _Run:
    run_id: str
    source: SourceFile
    steps: list[_Step] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    children: list[dict[str, Any]] = field(default_factory=list)
    models: Counter[str] = field(default_factory=Counter)
    prompt: str | None = None
    typed: str | None = None  # the first event_msg user_message: the goal (prompt: the task id)
    output: str | None = None
    started_at: str | None = None
    first: float | None = None
    last: float | None = None
    cwd: str | None = None
    usage_known: bool = False
    unpriced: set[str] = field(default_factory=set)

    def emit(self, rows: Collector, prices: PriceTable) -> None:
        rows.begin(self.run_id)
        emit_steps(rows, self.steps)
        for child in self.children:
            child["step"] = self.steps[child.pop("_step")].index if "_step" in child else None
        prompt = self.prompt or ""
        task = "prompt-" + hashlib.sha1(prompt.encode()).hexdigest()[:10] if prompt else self.run_id
        totals: dict[str, int] | None = None
        if self.usage_known:
            totals = {"input": 0, "cached_input": 0, "output": 0, "reasoning_output": 0}
            for step in self.steps:
                for key in totals:
                    totals[key] += (step.usage or {}).get(key) or 0
        meta = {
            "tool": "codex-cli",
            **why(goal=self.typed or prompt),
            **self.meta,
            "models": sorted(self.models),
            "usage": totals,
            "usage_known": self.usage_known,
            "prices": {"as_of": prices.as_of, "source": prices.source},
            "unpriced_models": sorted(self.unpriced) or None,
            "children": self.children or None,
            "totals_include_children": False if self.children else None,
            **ended_on_api_error(self.steps),
        }
        latency = (
            (self.last - self.first) * 1000.0
            if self.first is not None and self.last is not None
            else None
        )
        folder = PurePosixPath(self.cwd).name if self.cwd else ""
        rows.end(
            self.source,
            task_id=task,
            label=self.models.most_common(1)[0][0] if self.models else "codex-cli",
            suite=f"codex-cli/{folder or 'default'}",
            started_at=self.started_at,
            meta={k: v for k, v in meta.items() if v is not None},
            output=self.output,
            latency_ms=latency,
            source_line=1,
        )


def _lines(source: SourceFile) -> list[tuple[int, str | None, str, dict[str, Any]]]:
    """(line, timestamp, type, payload) of every record the rollout adds: a forked rollout's
    copy of its parent's records (``ordinal`` below the ``forked_from_ordinal_exclusive`` of
    its ``session_meta``) is left out."""
    out: list[tuple[int, str | None, str, dict[str, Any]]] = []
    ordinals: list[Any] = []
    for number, record in parse_objects(source, WHAT):
        payload = record.get("payload")
        if payload is None:
            continue
        if not isinstance(payload, dict):
            raise InputError(source.display, "expected an object", line=number, field="payload")
        stamp = record.get("timestamp")
        out.append(
            (number, stamp if isinstance(stamp, str) else None, str(record.get("type")), payload)
        )
        ordinals.append(record.get("ordinal"))
    fork_at = next(
        (
            p.get("forked_from_ordinal_exclusive")
            for _, _, kind, p in out
            if kind == "session_meta" and p.get("forked_from_id")
        ),
        None,
    )
    if not isinstance(fork_at, int) or isinstance(fork_at, bool):
        fork_at = None
    if fork_at is None:
        return out
    return [  # the parent's records, counted in the parent's run, are left out
        line
        for line, ordinal in zip(out, ordinals, strict=True)
        if line[2] == "session_meta" or not isinstance(ordinal, int) or ordinal >= fork_at
    ]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return str(content.get("text") or "")
    if isinstance(content, list):
        return "\n".join(t for t in (_text(c) for c in content) if t)
    return ""


def exit_code(output: Any) -> tuple[int | None, Any]:
    """The exit code an output states (0.7x JSON metadata, or ``Process exited with code N``
    text), and the output to store (the inner text of a 0.7x JSON string)."""
    if isinstance(output, str) and output.startswith("{"):
        try:
            decoded = orjson.loads(output)
        except orjson.JSONDecodeError:
            decoded = None
        if isinstance(decoded, dict) and isinstance(decoded.get("metadata"), dict):
            code = decoded["metadata"].get("exit_code")
            inner = decoded.get("output", output)
            return (code if isinstance(code, int) and not isinstance(code, bool) else None), inner
    text = _text(output)
    found = _EXITED.search(text[:4096]) if text else None
    return (int(found.group(1)) if found else None), output


def usage_delta(
    info: Any, previous: dict[str, int] | None
) -> tuple[dict[str, int] | None, dict[str, int] | None]:
    """(usage of this model call, the new cumulative total) from a ``token_count`` info."""
    if not isinstance(info, dict):
        return None, previous
    total = info.get("total_token_usage")
    last = info.get("last_token_usage")
    if not isinstance(total, dict):
        if "prompt" in info or "completion" in info:  # legacy: per call as given
            return {
                "input": count(info.get("prompt"), "prompt") or 0,
                "cached_input": 0,
                "output": count(info.get("completion"), "completion") or 0,
                "reasoning_output": 0,
            }, previous
        return None, previous
    now = _usage(total)
    if previous is None:
        return now, now
    delta = {k: now[k] - previous.get(k, 0) for k in now}
    if any(v < 0 for v in delta.values()):  # the total went down (a new context)
        return (_usage(last) if isinstance(last, dict) else now), now
    return delta, now


def _usage(block: dict[str, Any]) -> dict[str, int]:
    return {
        "input": count(block.get("input_tokens"), "input_tokens") or 0,
        "cached_input": count(block.get("cached_input_tokens"), "cached_input_tokens") or 0,
        "output": count(block.get("output_tokens"), "output_tokens") or 0,
        "reasoning_output": count(block.get("reasoning_output_tokens"), "reasoning_output_tokens")
        or 0,
    }


def _drop_repeats(run: _Run, parent: _Run) -> None:
    """Drop the steps of a forked ``run`` that repeat its ``parent``'s (the same tool
    ``call_id`` or model ``response_id``); a kept step whose parent step was dropped
    becomes top level."""
    keys = {s.call_id for s in parent.steps if s.call_id}
    keys |= {s.response_id for s in parent.steps if s.response_id}
    dropped = {id(s) for s in run.steps if (s.call_id or s.response_id) in keys}
    if not dropped:
        return
    run.steps = [s for s in run.steps if id(s) not in dropped]
    for step in run.steps:
        if step.parent is not None and id(step.parent) in dropped:
            step.parent = None


def _record_usage(payload: dict[str, Any]) -> dict[str, int] | None:
    """The usage of the one model call a ``token_usage_record`` line reports (its ``usage``;
    ``turn_token_usage`` / ``thread_token_usage`` are running totals, not read)."""
    usage = payload.get("usage")
    return _usage(usage) if isinstance(usage, dict) else None


def _fork_first_usage(info: Any) -> tuple[dict[str, int] | None, dict[str, int] | None]:
    """A forked rollout's first ``token_count``: its cumulative total starts from the parent's
    (counted in the parent's run), so the call's usage is ``last_token_usage``."""
    if not isinstance(info, dict) or not isinstance(info.get("total_token_usage"), dict):
        return usage_delta(info, None)
    last = info.get("last_token_usage")
    return (_usage(last) if isinstance(last, dict) else None), _usage(info["total_token_usage"])


def _close_call(
    run: _Run,
    usage: dict[str, int],
    model: str | None,
    started: str | None,
    window: list[_Step],
    texts: list[str],
    prices: PriceTable,
) -> _Step:
    """An ``llm`` step for the model call whose usage was just reported, placed before the
    tool calls it made (``window``, their parent), the assistant text since the last call
    its output."""
    run.usage_known = True
    turn = _Step("llm", model or "model", started_at=started, usage=usage)
    turn.tokens_in = usage["input"]
    turn.tokens_out = usage["output"]
    turn.cache_read = usage["cached_input"]
    turn.reasoning = usage["reasoning_output"]
    turn.output = {"text": "\n".join(texts)} if texts else {}
    turn.output["usage"] = usage
    price = prices.price(model)
    if price is not None:
        fresh = max(usage["input"] - usage["cached_input"], 0)
        turn.cost_usd = price.cost(fresh, usage["output"], 0, usage["cached_input"])
    elif model:
        run.unpriced.add(model)
    if model:
        run.models[model] += 1
    at = run.steps.index(window[0]) if window else len(run.steps)
    run.steps.insert(at, turn)
    for step in window:
        step.parent = turn
    return turn


def _parse(source: SourceFile, prices: PriceTable) -> _Run:
    records = _lines(source)
    meta_payload = next((p for _, _, kind, p in records if kind == "session_meta"), None)
    run_id = str((meta_payload or {}).get("id") or source.path.stem)
    run = _Run(run_id, source)
    if meta_payload:
        for key in ("cwd", "cli_version", "originator", "model_provider"):
            value = meta_payload.get(key)
            if isinstance(value, str) and value:
                run.meta[key] = value
        git = meta_payload.get("git")
        if isinstance(git, dict) and isinstance(git.get("branch"), str):
            run.meta["git_branch"] = git["branch"]
        for key in ("forked_from_id", "parent_thread_id"):
            if meta_payload.get(key):
                run.meta[key] = meta_payload[key]
        run.cwd = run.meta.get("cwd")
        stamp = meta_payload.get("timestamp")
        if epoch_from_iso(stamp) is not None:
            run.started_at = stamp
    exits: dict[str, int] = {}
    patches: dict[str, bool] = {}
    mcp_errors: set[str] = set()
    spawned: dict[str, str] = {}
    for _, _, kind, p in records:
        if kind != "event_msg":
            continue
        call = str(p.get("call_id") or "")
        if p.get("type") == "exec_command_end" and isinstance(p.get("exit_code"), int):
            exits[call] = p["exit_code"]
        elif p.get("type") == "patch_apply_end" and isinstance(p.get("success"), bool):
            patches[call] = p["success"]
        elif p.get("type") == "mcp_tool_call_end":
            result = p.get("result")
            ok = result.get("Ok") if isinstance(result, dict) else None
            if isinstance(result, dict) and (
                "Err" in result or (isinstance(ok, dict) and ok.get("isError") is True)
            ):
                mcp_errors.add(call)
        elif p.get("type") == "collab_agent_spawn_end" and p.get("new_thread_id"):
            spawned[call] = str(p["new_thread_id"])
    _build(run, records, exits, patches, mcp_errors, spawned, prices)
    return run


def _build(
    run: _Run,
    records: list[tuple[int, str | None, str, dict[str, Any]]],
    exits: dict[str, int],
    patches: dict[str, bool],
    mcp_errors: set[str],
    spawned: dict[str, str],
    prices: PriceTable,
) -> None:
    model: str | None = None
    by_record = any(kind == "token_usage_record" for _, _, kind, _ in records)
    forked = bool(run.meta.get("forked_from_id"))
    counted: set[str] = set()  # response ids of the token_usage_record lines counted
    window: list[_Step] = []  # tool calls since the last model call closed
    texts: list[str] = []
    pending: dict[str, deque[_Step]] = {}
    total: dict[str, int] | None = None
    for _number, stamp, kind, p in records:
        now = epoch_from_iso(stamp)
        started = stamp if now is not None else None
        if now is not None:
            run.first = now if run.first is None else min(run.first, now)
            run.last = now if run.last is None else max(run.last, now)
            if run.started_at is None:
                run.started_at = stamp
        ptype = p.get("type")
        if kind == "turn_context":
            if isinstance(p.get("model"), str) and p["model"]:
                model = p["model"]
        elif kind == "response_item" and ptype == "message":
            role = p.get("role")
            text = _text(p.get("content"))
            if role == "assistant" and text:
                texts.append(text)
                run.output = text
            elif (
                role == "user" and run.prompt is None and text and not text.lstrip().startswith("<")
            ):
                run.prompt = text.strip()
        elif kind == "event_msg" and ptype == "task_complete":
            said = p.get("last_agent_message")
            if isinstance(said, str) and said.strip():
                run.output = said  # the turn's last answer (a rollout may keep no message)
        elif kind == "event_msg" and ptype == "user_message":
            message = p.get("message")
            if isinstance(message, str) and message.strip():
                run.prompt = run.prompt or message.strip()
                run.typed = run.typed or message.strip()
        elif kind == "response_item" and ptype in CALLS:
            name = CALLS[ptype] or str(p.get("name") or "(unnamed)")
            call_id = str(p.get("call_id") or "")
            if ptype == "custom_tool_call":
                given: Any = {"input": p.get("input")}
            elif ptype == "function_call":
                given = json_text(p.get("arguments")) if p.get("arguments") is not None else None
            else:
                given = p.get("action") if ptype == "web_search_call" else p.get("arguments")
            step = _Step("tool", name, input=given, started_at=started, call_id=call_id)
            if ptype == "web_search_call" and p.get("status") == "failed":
                step.status = "error"
            if call_id:
                pending.setdefault(call_id, deque()).append(step)
                if call_id in spawned:
                    run.children.append({"run_id": spawned[call_id], "_step": len(run.steps)})
            run.steps.append(step)
            window.append(step)
        elif kind == "response_item" and ptype in OUTPUTS:
            call_id = str(p.get("call_id") or "")
            queue = pending.get(call_id)
            if not queue:
                continue
            step = queue.popleft()
            code, shown = exit_code(p.get("output", p.get("tools")))
            step.output = shown
            begun = epoch_from_iso(step.started_at)
            if begun is not None and now is not None and now >= begun:
                step.latency_ms = (now - begun) * 1000.0
            if step.action == "write_stdin":  # the exit it shows is its exec_command's
                code = None
            code = exits.get(call_id, code)
            if (
                (code is not None and code != 0)
                or patches.get(call_id) is False
                or call_id in mcp_errors
            ):
                step.status = "error"
            if code is not None:
                step.output = {"exit_code": code, "output": step.output}
        elif kind == "token_usage_record" or (
            kind == "event_msg" and ptype == "token_count" and not by_record
        ):
            if kind == "token_usage_record":
                usage, key = _record_usage(p), str(p.get("response_id") or "")
                if key and key in counted:  # a resumed rollout repeating an earlier record
                    continue
                counted.add(key)
            elif forked and total is None:  # the fork's totals carry its parent's usage
                usage, total = _fork_first_usage(p.get("info"))
            else:
                usage, total = usage_delta(p.get("info"), total)
            if usage is None or not any(usage.values()):
                continue
            turn = _close_call(run, usage, model, started, window, texts, prices)
            turn.response_id = str(p.get("response_id") or "") or None
            window, texts = [], []
        elif kind == "event_msg" and ptype == "error":
            run.steps.append(
                _Step("error", "error", "error", output=p.get("message"), started_at=started)
            )
        elif kind == "event_msg" and ptype == "turn_aborted":
            run.steps.append(
                _Step(
                    "interrupt", "turn_aborted", "error", output=p.get("reason"), started_at=started
                )
            )
    if texts and run.usage_known:  # replies after the last token event: usage unknown
        turn = _Step("llm", model or "model", output={"text": "\n".join(texts)})
        at = run.steps.index(window[0]) if window else len(run.steps)
        run.steps.insert(at, turn)
        for step in window:
            step.parent = turn
    if not run.usage_known:
        _replies_without_usage(run, records, model)


def _replies_without_usage(
    run: _Run, records: list[tuple[int, str | None, str, dict[str, Any]]], model: str | None
) -> None:
    """A rollout with no token events: each assistant message is an ``llm`` step (usage
    unknown), placed where it came, the tool calls after it its children."""
    order: list[_Step] = []
    tools = iter(run.steps)
    by_call = {id(s): s for s in run.steps}
    current: _Step | None = None
    seen_model = model
    for _number, stamp, kind, p in records:
        if kind == "turn_context" and isinstance(p.get("model"), str) and p["model"]:
            seen_model = p["model"]
        if kind == "response_item" and p.get("type") == "message" and p.get("role") == "assistant":
            text = _text(p.get("content"))
            if text:
                current = _Step(
                    "llm",
                    seen_model or "model",
                    output={"text": text},
                    started_at=stamp if epoch_from_iso(stamp) is not None else None,
                )
                if seen_model:
                    run.models[seen_model] += 1
                order.append(current)
        elif (kind == "response_item" and p.get("type") in CALLS) or (
            kind == "event_msg" and p.get("type") in ("error", "turn_aborted")
        ):
            step = next(tools, None)
            if step is not None and id(step) in by_call:
                if current is not None and step.type == "tool":
                    step.parent = current
                order.append(step)
    order.extend(s for s in tools)
    run.steps = order
