"""The three run meta keys the pages' "why" panel reads, as every adapter writes them.

- ``goal``: what the agent was asked (the task's goal or the first prompt), as text, cut at
  ``GOAL_CHARS``;
- ``title``: a short name a person recognises, one line of at most ``TITLE_CHARS``, only
  where the format has a distinct short description (else the pages derive one from the
  goal's first line);
- ``scorer``: the scorer's reason in words, a few plain lines, cut at ``SCORER_CHARS``.

Each is a string or absent: never an empty string, never an object. Agent text is stored as
given (the pages escape it)."""

from __future__ import annotations

import json
from typing import Any

GOAL_CHARS = 4000
TITLE_CHARS = 80
SCORER_CHARS = 2000
ELLIPSIS = "…"


def cut(text: str, limit: int) -> str:
    """``text`` of at most ``limit`` characters, the last one ``…`` when it was longer."""
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


def one_line(text: str) -> str:
    """The first non-blank line of ``text``, its runs of whitespace made single spaces."""
    line = next((part for part in text.splitlines() if part.strip()), "")
    return " ".join(line.split())


def why(goal: Any = None, title: Any = None, scorer: Any = None) -> dict[str, str]:
    """The why-panel keys for a run's meta: each one given as non-blank text, capped; the
    others left out (so ``{**meta, **why(...)}`` never writes an empty or nested value)."""
    found: dict[str, str] = {}
    if isinstance(goal, str) and goal.strip():
        found["goal"] = cut(goal.strip(), GOAL_CHARS)
    if isinstance(title, str) and one_line(title):
        found["title"] = cut(one_line(title), TITLE_CHARS)
    if isinstance(scorer, str) and scorer.strip():
        found["scorer"] = cut(scorer.strip(), SCORER_CHARS)
    return found


def lines(*parts: str | None) -> str | None:
    """Non-empty ``parts`` joined one a line; None when there is none."""
    kept = [p for p in parts if p]
    return "\n".join(kept) or None


def call_text(name: Any, arguments: Any) -> str:
    """A tool call as one short line: ``name(key=value, ...)`` with JSON-ish values."""
    if isinstance(arguments, dict):
        args = ", ".join(
            f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in arguments.items()
        )
    elif arguments is None:
        args = ""
    else:
        args = json.dumps(arguments, ensure_ascii=False, default=str)
    return f"{name}({args})"
