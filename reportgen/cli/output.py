"""Where the CLI writes: one console for reports (stdout) and one for errors and progress
(stderr), made on first use so that ``--help`` never builds them; and JSON for machines."""

from __future__ import annotations

import sys
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


@cache
def out() -> Console:
    """Reports. Piped output gets a wide page so tables stay readable in CI logs."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 140)


@cache
def err() -> Console:
    """Errors and progress bars."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def print_json(data: Any) -> None:
    """Machine output: strict JSON (non-finite numbers as null), sorted keys, stable across
    runs; streamed, so a large report is never held as one string."""
    from reportgen.strict_json import StrictJSONEncoder

    encoder = StrictJSONEncoder(indent=2, sort_keys=True, default=str)
    pending: list[str] = []
    for chunk in encoder.iterencode(data):
        pending.append(chunk)
        if len(pending) >= 1 << 16:  # write in batches: one write per chunk is slow
            sys.stdout.write("".join(pending))
            pending.clear()
    sys.stdout.write("".join(pending) + "\n")
