"""pytest: short test summary (`FAILED`/`ERROR` lines), verbose and xdist lines, usage errors.

Ids: `pytest:<node id>`, e.g. `pytest:tests/test_a.py::TestX::test_y[param]`; a module that
failed to collect is `pytest:tests/test_b.py`.
"""

from __future__ import annotations

import re

from .base import Normaliser
from .scrub import scrub_message, scrub_name

_LINE = re.compile(
    r"\n(?:"
    r"(?:\[gw\d+\] \[[ \d]+%\] )?(?:FAILED|ERROR) (?P<sid>[^\s\[][^\n]*)"
    r"|(?P<vid>[^\s\[]+::[^\n]*) (?:FAILED|ERROR)(?:[ \t]+\[[ \d]+%\])?[ \t]*$"
    r"|(?P<usage>ERROR: [^\n]+|ImportError while loading conftest [^\n]+)"
    r")",
    re.M,
)
_HEADER = re.compile(r"\n_{3,} (?P<h>[^\n]+) _{3,}[ \t]*$", re.M)
_HEADER_PREFIX = re.compile(r"^(?:ERROR collecting |ERROR at (?:setup|teardown) of )")


def _node(rest: str) -> str:
    """Node id from `<node id> - <message>`; a ` - ` inside `[params]` belongs to the id."""
    rest = rest.rstrip()
    cut = rest.find(" - ")
    if cut < 0:
        return rest
    head = rest[:cut]
    bracket = head.find("[")
    if bracket >= 0 and "]" not in head[bracket:]:
        close = rest.find("] - ", cut)
        return rest[: close + 1] if close >= 0 else rest
    return head


class PytestNormaliser(Normaliser):
    """pytest in any verbosity, with or without `-rA`, xdist included."""

    name = "pytest"
    check_re = re.compile(r"\bpy\.?test\b")
    sniff_res = (
        re.compile(
            r"\n(?:=+ (?:test session starts|FAILURES|ERRORS|short test summary info) =+$"
            r"|=+ [^\n]*\b(?:passed|failed|errors?|no tests ran)\b[^\n]* in [\d.]+s\b[^\n]*=+$"
            r"|(?:FAILED|ERROR) \S+\.py\b)",
            re.M,
        ),
        re.compile(r"\.py::\S[^\n]* (?:PASSED|FAILED|ERROR)\b"),
    )

    def _parse(self, output: str) -> set[str]:
        """Node ids from summary/verbose lines; failure section headers only as a last resort."""
        ids: set[str] = set()
        for m in _LINE.finditer(output):
            node = _node(m["sid"]) if m["sid"] is not None else m["vid"]
            if node is not None:
                ids.add(f"pytest:{scrub_name(node)}")
            elif m["usage"] is not None:
                ids.add(f"pytest:{scrub_message(m['usage'])}")
        if not any(i.count("::") or i.endswith(".py") for i in ids):
            for h in _HEADER.finditer(output):
                ids.add(f"pytest:{scrub_name(_HEADER_PREFIX.sub('', h['h']))}")
        return ids
