"""Vitest: `FAIL  <file> > suite > test` lines, or `x` lines under a `> <file> (N tests…)` header.

Ids: `vitest:<test file>::<suite > test>`; a file that failed to load is `vitest:<test file>`.
"""

from __future__ import annotations

import re

from .base import Normaliser
from .scrub import scrub_name

_PROJECT = r"(?:\|[^|\n]+\|[ \t]+)?"
_LINE = re.compile(
    r"\n(?:"
    rf"[ \t]*FAIL[ \t]+(?P<proj>{_PROJECT})(?P<file>[^\s>]+) > (?P<title>[^\n]+)"
    rf"|[ \t]*FAIL[ \t]+(?P<sproj>{_PROJECT})(?P<sfile>[^\s>]+)(?:[ \t]+\[[^\]\n]*\])?"
    rf"|[ \t]*\u276f (?P<hproj>{_PROJECT})(?P<hfile>[^\s:]+) \(\d+ tests?[^)\n]*\)[^\n]*"
    r"|[ \t]+[\u00d7✗] (?P<name>[^\n]+)"
    r")[ \t]*$",
    re.M,
)

_DURATION = re.compile(r"[ \t]+\d+(?:\.\d+)?[ \t]?m?s[ \t]*$")


def _file(project: str | None, file: str) -> str:
    return scrub_name(f"{project.strip()} {file}" if project else file)


class VitestNormaliser(Normaliser):
    """Vitest (default, verbose and basic reporters)."""

    name = "vitest"
    check_re = re.compile(r"\bvitest\b")
    sniff_res = (
        re.compile(
            rf"\n(?:[ \t]*FAIL[ \t]+{_PROJECT}\S+ > |[ \t]*\u276f {_PROJECT}\S+ \(\d+ tests?"
            r"|[ \t]*Test Files[ \t]+\d+ failed)"
        ),
    )

    def _parse(self, output: str) -> set[str]:
        """`FAIL` lines carry the file; `x` lines take it from the last `>` header."""
        ids: set[str] = set()
        header = ""
        for m in _LINE.finditer(output):
            if m["title"] is not None:
                ids.add(f"vitest:{_file(m['proj'], m['file'])}::{scrub_name(m['title'])}")
            elif m["sfile"] is not None:
                ids.add(f"vitest:{_file(m['sproj'], m['sfile'])}")
            elif m["hfile"] is not None:
                header = _file(m["hproj"], m["hfile"])
            elif m["name"] is not None:
                prefix = f"{header}::" if header else ""
                ids.add(f"vitest:{prefix}{scrub_name(_DURATION.sub('', m['name']))}")
        return ids
