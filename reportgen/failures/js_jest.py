"""Jest: `FAIL <file>` blocks with `● Suite > test` details, or `✕ test` lines in verbose trees.

Ids: `jest:<test file>::<Suite > test>`; a file that failed to run is `jest:<test file>`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .base import Normaliser
from .scrub import scrub_name

_LINE = re.compile(
    r"\n(?:"
    r"[ \t]*(?P<kind>FAIL|PASS)[ \t]+(?P<file>[^\s>]+)(?:[ \t]+\([^)\n]*\))?"
    r"|[ \t]*● (?P<title>[^\n]+)"
    r"|[ \t]+[✕✗][ \t](?P<name>[^\n]+)"
    r")[ \t]*$",
    re.M,
)
_TREE_LINE = re.compile(r"^([ \t]+)(\S[^\n]*)$")
_CROSS = re.compile(r"^[✕✗][ \t](.+?)(?:[ \t]\(\d+(?:\.\d+)?[ \t]?m?s\))?$")
_NOT_TESTS = ("Console", "Cannot log after tests are done")
_MARKS = ("✓", "✕", "✗", "√", "○", "✎")


@lru_cache(maxsize=256)
def _crossed(block: str) -> frozenset[str]:
    """`Suite > test` for each `✕` line of a verbose tree, suites read from indentation."""
    found: set[str] = set()
    stack: list[tuple[int, str]] = []
    for line in block.split("\n"):
        m = _TREE_LINE.match(line)
        if m is None:
            continue
        indent, text = len(m[1].expandtabs()), m[2].rstrip()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if (cross := _CROSS.match(text)) is not None:
            found.add(scrub_name(" \u203a ".join([*(n for _, n in stack), cross[1]])))
        elif not text.startswith(_MARKS):
            stack.append((indent, text))
    return frozenset(found)


class JestNormaliser(Normaliser):
    """Jest (default and verbose reporters; also react-scripts test)."""

    name = "jest"
    check_re = re.compile(r"\bjest\b|\breact-scripts\s+test\b")
    sniff_res = (
        re.compile(
            r"\n(?:[ \t]*\u25cf \S|(?:FAIL|PASS) \S+\.[jt]sx?(?: \(|$)|Tests:[ \t]+\d+ failed)",
            re.M,
        ),
    )

    def _parse(self, output: str) -> set[str]:
        """Prefer `●` titles (full suite path); read `✕` trees only for files that have none."""
        bullets: dict[str, set[str]] = {}
        blocks: dict[str, list[tuple[int, int]]] = {}  # file -> spans holding `✕` lines
        file, start = "", 0
        for m in _LINE.finditer(output):
            if m["kind"] is not None:
                file, start = scrub_name(m["file"]), m.end()
                if m["kind"] == "FAIL":
                    bullets.setdefault(file, set())
            elif m["title"] is not None:
                title = m["title"].rstrip()
                if title.startswith(_NOT_TESTS):
                    continue
                if title == "Test suite failed to run":
                    title = ""
                bullets.setdefault(file, set()).add(scrub_name(title))
            else:
                spans = blocks.setdefault(file, [])
                if spans and spans[-1][0] == start:
                    spans[-1] = (start, m.end())
                else:
                    spans.append((start, m.end()))
        ids: set[str] = set()
        for f in bullets.keys() | blocks.keys():
            titles = bullets.get(f) or set()
            if not titles - {""} and f in blocks:
                titles = titles | {t for a, b in blocks[f] for t in _crossed(output[a:b])}
            for t in titles or {""}:
                ids.add(_join(f, t))
        return ids


def _join(file: str, title: str) -> str:
    """`jest:<file>::<title>`, dropping whichever part is unknown."""
    if file and title:
        return f"jest:{file}::{title}"
    return f"jest:{file or title}"
