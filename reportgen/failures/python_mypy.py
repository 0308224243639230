"""mypy (and dmypy): `a.py:12: error: message  [code]`.

Ids: `mypy:<file>:<code>:<message>`, e.g. `mypy:app/a.py:arg-type:Argument 1 to "f" has
incompatible type "int"; expected "str"`.
"""

from __future__ import annotations

import re

from .base import Normaliser
from .scrub import scrub_message, scrub_path

_ERR = re.compile(
    r"\n(?:"
    r"(?P<file>[^\s:]+\.pyi?)(?::\d+)*: error: (?P<msg>[^\n]*)"
    r"|mypy: (?P<tool>[^\n]+)"
    r")[ \t]*$",
    re.M,
)

_CODE = re.compile(r"  \[([\w-]+)\]$")


def _split_code(msg: str) -> tuple[str, str]:
    """`message  [code]` -> (message, code); the code is empty when absent."""
    m = _CODE.search(msg)
    return (msg[: m.start()], m[1]) if m else (msg, "")


class MypyNormaliser(Normaliser):
    """mypy errors (notes are context, not failures)."""

    name = "mypy"
    check_re = re.compile(r"\bd?mypy\b")
    sniff_res = (re.compile(r"\.pyi?:\d+(?::\d+)*: error: "),)

    def _parse(self, output: str) -> set[str]:
        """File + code + message; the line and column are dropped."""
        ids: set[str] = set()
        for m in _ERR.finditer(output):
            if m["tool"] is not None:
                ids.add(f"mypy:mypy: {scrub_message(m['tool'])}")
                continue
            msg, code = _split_code(m["msg"].rstrip())
            code = f"{code}:" if code else ""
            ids.add(f"mypy:{scrub_path(m['file'])}:{code}{scrub_message(msg)}")
        return ids
