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


def failed_tests(group: str, tests: list[str], shown: int = 10) -> list[str]:
    """Lines naming the failed tests of ``group`` (``FAIL_TO_PASS``...), the first ``shown``
    of them, then how many more."""
    found = [f"failed {group}: {t}" for t in tests[:shown]]
    if len(tests) > shown:
        found.append(f"… and {len(tests) - shown} more failed {group}")
    return found


def swe_report(exit_status: Any, report: dict[str, Any] | None) -> str | None:
    """A SWE-bench run's outcome in words: the agent's exit status, then (from the harness's
    ``report.json``) whether the patch applied and resolved the issue, each test group's
    count passed and the tests that failed."""
    parts: list[str | None] = [f"exit status: {exit_status}" if exit_status else None]
    if report:
        if report.get("patch_successfully_applied") is False:
            parts.append("patch not applied")
        if isinstance(report.get("resolved"), bool):
            parts.append("resolved" if report["resolved"] else "not resolved")
        status = _object(report.get("tests_status"))
        for group in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            outcome = _object(status.get(group))
            if not outcome:
                continue
            passed = [str(t) for t in outcome.get("success") or []]
            failed = [str(t) for t in outcome.get("failure") or []]
            if passed or failed:
                parts.append(f"{group}: {len(passed)} of {len(passed) + len(failed)} pass")
            parts += failed_tests(group, failed)
    return lines(*parts)


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
