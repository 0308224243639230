"""ruff (and flake8/pylint, which print the same shape): rule code + file, no position.

Ids: `ruff:<file>:<code>`, e.g. `ruff:src/app.py:F401`; `ruff format --check` gives
`ruff:<file>:format`.
"""

from __future__ import annotations

import re

from .base import Normaliser
from .scrub import scrub_path

_CODE = r"[A-Z]{1,6}[0-9]{1,5}|SyntaxError|invalid-syntax"
_LINE = re.compile(
    r"\n(?:"
    rf"(?P<file>[^\s:]+):\d+:\d+: (?P<code>{_CODE})\b"
    rf"|(?P<code2>{_CODE})(?: \[\*\])?:? [^\n]*\n[ \t]*--> (?P<file2>[^\s:]+):\d+:\d+"
    r"|Would reformat: (?P<fmt>[^\n]+)"
    r")",
    re.M,
)


class RuffNormaliser(Normaliser):
    """ruff check (concise and full formats), ruff format --check, flake8, pylint."""

    name = "ruff"
    check_re = re.compile(r"\bruff\b|\bflake8\b|\bpylint\b")
    sniff_res = (
        re.compile(rf"\.pyi?:\d+:\d+: (?:{_CODE}) "),
        re.compile(rf"\n(?:(?:{_CODE}) (?:\[\*\] )?[^\n]*\n *--> |Would reformat: )"),
    )

    def _parse(self, output: str) -> set[str]:
        """One id per (file, rule), however many times the rule fires in that file."""
        ids: set[str] = set()
        for m in _LINE.finditer(output):
            if m["fmt"] is not None:
                ids.add(f"ruff:{scrub_path(m['fmt'])}:format")
            elif m["file"] is not None:
                ids.add(f"ruff:{scrub_path(m['file'])}:{m['code']}")
            else:
                ids.add(f"ruff:{scrub_path(m['file2'])}:{m['code2']}")
        return ids
