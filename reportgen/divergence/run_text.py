"""What a run says in words, read from its ``meta`` JSON: the goal it was given
(``meta.goal``, else the session formats' ``meta.prompt``), a short ``meta.title`` and the
scorer's reason (``meta.scorer``); and the one name a person recognises a run or task by
(:func:`title`). Agent text: every caller escapes it for its medium."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import orjson

#: Longest title shown; a longer first line of the goal is cut with "…".
TITLE_CHARS = 80


_LONG_NUMBER = re.compile(r"\d{19}")


@lru_cache(maxsize=1 << 14)
def _parsed(raw: str | None) -> dict[str, Any]:
    try:  # orjson, but as json reads it: an integer past 64 bits stays an int (json's)
        value = (
            orjson.loads(raw) if raw and not _LONG_NUMBER.search(raw) else json.loads(raw or "{}")
        )
    except orjson.JSONDecodeError:  # what orjson refuses and json reads (NaN)
        try:
            value = json.loads(raw or "")
        except (ValueError, RecursionError):
            return {}
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def parse_meta(meta: str | dict[str, Any] | None) -> dict[str, Any]:
    """A run's meta as a dict: JSON text parsed (cached), {} when absent or not an object.
    The dict may be shared: read it, never change it."""
    if isinstance(meta, dict):
        return meta
    return _parsed(meta)


def _text(meta: dict[str, Any], key: str) -> str | None:
    value = meta.get(key)
    return value if isinstance(value, str) and value.strip() else None


def goal(meta: str | dict[str, Any] | None) -> str | None:
    """The task's goal or the prompt the agent was given: ``meta.goal``, else ``meta.prompt``."""
    parsed = parse_meta(meta)
    return _text(parsed, "goal") or _text(parsed, "prompt")


def scorer(meta: str | dict[str, Any] | None) -> str | None:
    """The scorer's reason for the run's outcome, in words (``meta.scorer``)."""
    return _text(parse_meta(meta), "scorer")


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, "…" marking the cut."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def title(meta: str | dict[str, Any] | None) -> str | None:
    """A run's (or its task's) name as people know it: ``meta.title``, else the first line of
    its goal, cut to TITLE_CHARS with "…"; None when it has neither (show its id)."""
    parsed = parse_meta(meta)
    named = _text(parsed, "title")
    if named is None:
        named = goal(parsed)
        if named is not None:
            named = next(line for line in named.strip().splitlines() if line.strip())
    return None if named is None else cut(" ".join(named.split()), TITLE_CHARS)
