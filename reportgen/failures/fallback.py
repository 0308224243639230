"""Fallback for unknown output: lines that say error/fail, with numbers, paths and hex scrubbed.

Ids: `fallback:<scrubbed line>`, e.g. `fallback:ERROR: config.yaml: missing key "port"` or
`fallback:Error: expected N items, got N`. Conservative: count lines saying zero failures
(`0 failed`, `errors: 0`) are not failures, and only the first `MAX_LINES` distinct candidate
lines are read, so a huge log of unknown shape stays fast.
"""

from __future__ import annotations

import re

from .base import Normaliser
from .scrub import scrub_line

# Searched in lower-cased text: literal alternatives scan far faster than (?i)\b...\b.
_CANDIDATE = re.compile(r"error|fail|fatal|panic|exception|traceback|assert")
_WORD = re.compile(
    r"(?i)\b(?:error|errors|fail|failed|failing|failure|failures|fatal|panic|panicked"
    r"|exception|traceback|assertion|assertionerror)\b"
)
_ZERO = re.compile(
    r"(?i)(?<![\d.])0 (?:tests? )?(?:errors?|fail(?:ed|ures?|ing)?)\b"
    r"|\b(?:errors?|fail(?:ed|ures?)?)[ \t]*[:=][ \t]*0\b(?!\.)"
    r"|\bno (?:errors?|failures?)\b|\bwithout (?:errors?|failures?)\b"
)
MAX_LINE = 400
MAX_LINES = 2000


class FallbackNormaliser(Normaliser):
    """Any output: one id per distinct line that reports an error or failure."""

    name = "fallback"
    check_re = re.compile(r"(?!)")
    sniff_res = ()

    def _parse(self, output: str) -> set[str]:
        """Drop repeated lines, find keyword lines in C, then judge each remaining line once."""
        output = "\n".join(dict.fromkeys(output.split("\n")))
        lowered = output.lower()
        seen: set[str] = set()
        ids: set[str] = set()
        pos = 0
        while len(seen) < MAX_LINES and (m := _CANDIDATE.search(lowered, pos)) is not None:
            start = output.rfind("\n", 0, m.start()) + 1
            end = output.find("\n", m.end())
            end = len(output) if end < 0 else end
            pos = end + 1
            line = output[start:end].strip()[:MAX_LINE]
            if line in seen:
                continue
            seen.add(line)
            if _WORD.search(_ZERO.sub("", line)) and (text := scrub_line(line)):
                ids.add(f"fallback:{text}")
        return ids
