"""What the session-log adapters (Claude Code, Codex CLI) share: a step being built while
a log is read, and writing a run's steps with their parents resolved to row indices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reportgen.formats.adapters.infra import api_error_meta
from reportgen.formats.adapters.rows import Collector


@dataclass
class SessionStep:
    """One step of a session run; ``parent`` is the step that started it, ``index`` its
    position once written."""

    type: str
    action: str
    status: str = "ok"
    input: Any = None
    output: Any = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None
    started_at: str | None = None
    parent: SessionStep | None = None
    index: int = -1
    cache_read: int | None = None
    cache_write: int | None = None
    reasoning: int | None = None


def emit_steps(rows: Collector, steps: Sequence[SessionStep]) -> None:
    """Write ``steps`` of the current run in order (a parent always precedes its children)."""
    for step in steps:
        step.index = rows.step(
            step.type,
            step.action,
            step.status,
            input=step.input,
            output=step.output,
            tokens_in=step.tokens_in,
            tokens_out=step.tokens_out,
            cost_usd=step.cost_usd,
            latency_ms=step.latency_ms,
            started_at=step.started_at,
            parent=None if step.parent is None else step.parent.index,
            cache_read=step.cache_read,
            cache_write=step.cache_write,
            reasoning=step.reasoning,
        )


def ended_on_api_error(steps: Sequence[SessionStep]) -> dict[str, str]:
    """The error keys of a session whose last step is a failed model call or an API error
    record, when the error's text names an infrastructure kind (``api_error_meta``): the
    session ended on the rate limit, the overloaded API or the refused key, not on the
    agent. ``{}`` otherwise (a session that went on after the error recovered from it)."""
    if not steps or steps[-1].status != "error" or steps[-1].type not in ("llm", "error"):
        return {}
    output = steps[-1].output
    if isinstance(output, dict):
        output = output.get("text") or output.get("message") or output.get("error")
    return api_error_meta(str(output)) if output else {}
