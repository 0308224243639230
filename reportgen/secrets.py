"""Secret shapes, one list for every surface: the site's redaction (DuckDB RE2, vectorised
over the archive: reportgen.site.redaction) and every text that leaves the process outside a
build (Markdown, terminal and CI-log lines: :func:`redact_text`, called by reportgen.escape).

Each pattern is specific enough not to match ordinary prose and is valid in both RE2 and
Python's ``re``. Zero-width characters are removed before matching (a key split by U+200B is
still a key): :data:`ZERO_WIDTH`."""

from __future__ import annotations

import re

MARKER = "[REDACTED]"

#: Built-in secret shapes: name -> pattern. docs/site.md lists them. A key's prefix starts a
#: word (``\b``): ``task-0001-...`` holds ``sk-`` but is no key.
SECRET_PATTERNS: dict[str, str] = {
    "anthropic/openai key": r"\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    "google api key": r"\bAIza[0-9A-Za-z_-]{35}",
    "github token": r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
    "aws access key id": r"\b(?:AKIA|ASIA)[0-9A-Z]{16}",
    # the name, then (quoted, JSON-escaped at any depth, URL-encoded or as an env list's
    # "value") the key
    "aws secret key": (
        r"(?i:aws_secret_access_key)(?:\\*[\"'])?"
        r"(?:\s*(?:[:=]|%3[aAdD])|\s*,\s*\\*[\"']?value\\*[\"']?\s*:)"
        r"\s*(?:\\*[\"'])?(?:[A-Za-z0-9/+=]|%2[bBfF]|%3[dD]){40,}"
    ),
    "slack token": r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    "stripe key": r"\b[rs]k_live_[0-9A-Za-z]{16,}",
    "hugging face token": r"\bhf_[A-Za-z0-9]{30,}",
    "bearer token": r"\b(?i:bearer)\s+[A-Za-z0-9._~+/-]{16,}=*",
    "private key block": (
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----"
    ),
    "password in url": r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@\"'<>]+:[^/\s@\"'<>]+@",
}
#: Invisible characters removed from text before secrets are looked for.
ZERO_WIDTH = "[\u200b\u200c\u200d\u2060\ufeff]"

_ANY = re.compile("|".join(f"(?:{p})" for p in SECRET_PATTERNS.values()))
_ZERO_WIDTH = re.compile(ZERO_WIDTH)


def redact_text(text: str) -> str:
    """``text`` with each built-in secret shape replaced by :data:`MARKER` (zero-width
    characters removed first, only when the text holds a secret once they are gone)."""
    if _ANY.search(text):
        return _ANY.sub(MARKER, text)
    visible = _ZERO_WIDTH.sub("", text)
    return _ANY.sub(MARKER, visible) if visible != text and _ANY.search(visible) else text
