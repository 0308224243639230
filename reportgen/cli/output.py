"""Where the CLI writes: one console for reports (stdout) and one for errors and progress
(stderr), made on first use so that ``--help`` never builds them; and JSON for machines."""

from __future__ import annotations

import sys
from functools import cache
from typing import TYPE_CHECKING, Any

from reportgen.escape import term_line

if TYPE_CHECKING:
    from rich.console import Console


@cache
def out() -> Console:
    """Reports. Piped output gets a wide page so tables stay readable in CI logs."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 140)


def out_line(line: str) -> None:
    """One line of a plain-text report on stdout, through the terminal's one rule
    (:func:`reportgen.escape.term_line`): whatever ids or agent text it holds, it stays one
    line, carries no terminal escape and never starts a workflow command."""
    sys.stdout.write(term_line(line) + "\n")


@cache
def err() -> Console:
    """Errors and progress bars."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def print_json(data: Any) -> None:
    """Machine output: strict JSON (non-finite numbers as null), sorted keys, two-space
    indent, UTF-8, encoded by orjson (see reportgen.strict_json); streamed, so a large report
    is never held as one string, and written in batches of about a megabyte (a piece of
    64 kB or more, such as a pair's line, as it is). The pairs of
    compare/gate are one compact line each, their step_diffs made as text
    (docs/reading-the-report.md, "--json")."""
    from reportgen.strict_json import iter_json

    sys.stdout.flush()
    binary = getattr(sys.stdout, "buffer", None)

    def write(chunk: bytes) -> None:
        if binary is not None:
            binary.write(chunk)
        else:  # a text-only stream (a test double)
            sys.stdout.write(chunk.decode("utf-8"))

    pending: list[bytes] = []
    size = 0
    for chunk in iter_json(data):
        if len(chunk) >= 1 << 16:  # a large piece (a pair's line) goes out as it is, uncopied
            if pending:
                write(b"".join(pending))
                pending.clear()
                size = 0
            write(chunk)
            continue
        pending.append(chunk)
        size += len(chunk)
        if size >= 1 << 20:
            write(b"".join(pending))
            pending.clear()
            size = 0
    pending.append(b"\n")
    write(b"".join(pending))
    if binary is not None:
        binary.flush()
