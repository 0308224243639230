"""The normaliser interface: pick by check command or by sniffing output, then parse ids."""

from __future__ import annotations

import re
from typing import ClassVar


def lead(text: str) -> str:
    """`text` starting with a newline, so line patterns can begin with `\\n` instead of a
    MULTILINE `^` (sre scans for a literal newline far faster than it tests `^` everywhere)."""
    return text if text.startswith("\n") else "\n" + text


class Normaliser:
    """One output format; subclasses set the regexes and implement `_parse`.

    Output should already be cleaned by `scrub.clean_output` (no ANSI codes, no CR).
    """

    name: ClassVar[str] = ""
    check_re: ClassVar[re.Pattern[str]]
    sniff_res: ClassVar[tuple[re.Pattern[str], ...]]  # each starts with a literal: fast

    def matches_check(self, check: str) -> bool:
        """True when the check command runs this tool."""
        return self.check_re.search(check) is not None

    def sniff(self, output: str) -> bool:
        """True when the output looks like this tool's (used when the check is unknown)."""
        text = lead(output)
        return any(p.search(text) is not None for p in self.sniff_res)

    def parse(self, output: str) -> set[str]:
        """Stable failure ids found in the output."""
        return self._parse(lead(output))

    def _parse(self, output: str) -> set[str]:
        """Ids from output that starts with a newline."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<normaliser {self.name}>"
