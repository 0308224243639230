"""TypeScript compiler: `src/a.ts(12,5): error TS2322: ...` and `src/a.ts:12:5 - error TS2322:`.

Ids: `tsc:<file>:<code>:<message>`, e.g. `tsc:src/a.ts:TS2322:Type 'string' is not assignable
to type 'number'.`; a project-level error is `tsc:<code>:<message>`.
"""

from __future__ import annotations

import re

from .base import Normaliser
from .scrub import scrub_message, scrub_path

_ERR = re.compile(
    r"\n(?:"
    r"(?P<file>[^\s(]+)\(\d+,\d+\): error (?P<code>TS\d+): (?P<msg>[^\n]*)"
    r"|(?P<pfile>[^\s:]+):\d+:\d+ - error (?P<pcode>TS\d+): (?P<pmsg>[^\n]*)"
    r"|error (?P<gcode>TS\d+): (?P<gmsg>[^\n]*)"
    r")[ \t]*$",
    re.M,
)


class TscNormaliser(Normaliser):
    """tsc (plain and --pretty), vue-tsc."""

    name = "tsc"
    check_re = re.compile(r"\btsc\b")
    sniff_res = (re.compile(r"error TS\d+: "),)

    def _parse(self, output: str) -> set[str]:
        """First line of each error (continuation lines elaborate the same error)."""
        ids: set[str] = set()
        for m in _ERR.finditer(output):
            if m["code"] is not None:
                ids.add(f"tsc:{scrub_path(m['file'])}:{m['code']}:{scrub_message(m['msg'])}")
            elif m["pcode"] is not None:
                ids.add(f"tsc:{scrub_path(m['pfile'])}:{m['pcode']}:{scrub_message(m['pmsg'])}")
            else:
                ids.add(f"tsc:{m['gcode']}:{scrub_message(m['gmsg'])}")
        return ids
