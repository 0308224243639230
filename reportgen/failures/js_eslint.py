"""ESLint: stylish (default), unix and compact formats; errors only (warnings do not fail).

Ids: `eslint:<file>:<rule>`, e.g. `eslint:src/app.js:no-unused-vars`; an error without a rule
(a parsing error) is `eslint:<file>:<message>`.
"""

from __future__ import annotations

import re

from .base import Normaliser
from .scrub import scrub_message, scrub_path

_LINE = re.compile(
    r"\n(?:"
    r"(?P<file>(?:[A-Za-z]:)?[\w./\\~@-][^\s:]*\.\w+)"
    r"|[ \t]+\d+:\d+[ \t]+error[ \t]+(?P<msg>[^\n]+)"
    r"|(?P<ufile>[^\s:]+):\d+:\d+: (?P<umsg>[^\n]*) \[Error/(?P<urule>[^\]\n]+)\]"
    r"|(?P<cfile>[^\s:]+): line \d+, col \d+, Error - (?P<cmsg>[^\n]*)"
    r")[ \t]*$",
    re.M,
)

_RULE = re.compile(r"[@a-z][\w@/.-]*")
_COMPACT_RULE = re.compile(r" \(([@a-z][\w@/.-]*)\)$")


def _id(file: str, rule: str | None, msg: str) -> str:
    return f"eslint:{scrub_path(file)}:{rule or scrub_message(msg)}"


class EslintNormaliser(Normaliser):
    """ESLint (also `next lint`)."""

    name = "eslint"
    check_re = re.compile(r"\beslint\b|\bnext\s+lint\b")
    sniff_res = (
        re.compile(r"\n(?:[ \t]+\d+:\d+[ \t]+(?:error|warning)[ \t]+|\u2716 \d+ problems?)"),
        re.compile(r"\[Error/[\w@/.-]+\]$", re.M),
    )

    def _parse(self, output: str) -> set[str]:
        """Stylish messages belong to the last file header line above them."""
        ids: set[str] = set()
        file = ""
        for m in _LINE.finditer(output):
            if m["file"] is not None:
                file = m["file"]
            elif m["msg"] is not None:
                msg, _, rule = m["msg"].rstrip().rpartition("  ")
                if not _RULE.fullmatch(rule.strip()) or not msg.strip():
                    msg, rule = m["msg"], ""
                ids.add(_id(file, rule.strip(), msg))
            elif m["ufile"] is not None:
                ids.add(_id(m["ufile"], m["urule"], m["umsg"]))
            else:
                cm = _COMPACT_RULE.search(m["cmsg"].rstrip())
                msg, rule = (m["cmsg"][: cm.start()], cm[1]) if cm else (m["cmsg"], "")
                ids.add(_id(m["cfile"], rule, msg))
        return ids
