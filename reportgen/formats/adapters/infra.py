"""The two meta keys an adapter writes for a run the infrastructure ended (the contract of
reportgen/archive/outcomes.py): ``error_kind`` and ``error_reason``. Ingest moves them to
runs.error_kind / runs.error_reason and leaves the run unscored."""

from __future__ import annotations

import re

#: (pattern, kind): the first that matches an error's text names its kind.
_KINDS = (
    (re.compile(r"rate.?limit|\b429\b|too many requests", re.I), "rate_limit"),
    (re.compile(r"quota|credit balance|insufficient.?funds|billing", re.I), "quota"),
    (
        re.compile(
            r"\b40[13]\b|unauthori[sz]ed|authentica|api.?key|permission.?denied|forbidden", re.I
        ),
        "auth",
    ),
    (
        re.compile(r"overloaded|\b5\d\d\b|connection|network|unreachable|ECONN|socket|DNS", re.I),
        "network",
    ),
    (re.compile(r"sandbox|docker|container", re.I), "sandbox"),
    (re.compile(r"timed? ?out|timeout|deadline", re.I), "timeout"),
)


def error_kind(text: str, default: str | None = "harness") -> str | None:
    """The error_kind an infrastructure error's text names (a rate limit, an overloaded API,
    a refused key, ...), else ``default``."""
    for pattern, kind in _KINDS:
        if pattern.search(text):
            return kind
    return default


def error_meta(text: str, default: str = "harness") -> dict[str, str]:
    """``{"error_kind": ..., "error_reason": <the text>}`` for a run's meta; ingest cuts the
    reason to one line."""
    return {"error_kind": error_kind(text, default) or default, "error_reason": text}


def api_error_meta(text: str) -> dict[str, str]:
    """The error keys of a session that ended on a model API error, when its text names an
    infrastructure kind (rate limit, quota, auth, overloaded or failing API, network,
    timeout); ``{}`` for any other API error (a prompt too long, a request refused for its
    content: the agent's)."""
    kind = error_kind(text, None)
    return {} if kind is None else {"error_kind": kind, "error_reason": text}
