"""The CLI's one error handler: reportgen's own errors become one line on stderr (control
characters of the ids it names shown as escapes: never a second line, a workflow command or a
terminal escape) and their
exit code (1 bad input, 2 usage error, 3 a gate failed); anything else is a bug and keeps
its traceback."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from reportgen.errors import ReportgenError
from reportgen.escape import term_text

F = TypeVar("F", bound=Callable[..., Any])


def exits_on_errors(command: F) -> F:
    """Wrap a command so that a ReportgenError exits with its code after one stderr line."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ReportgenError as error:
            sys.stdout.flush()
            sys.stderr.write(f"error: {term_text(error)}\n")  # one line, whatever it names
            raise typer.Exit(error.exit_code) from None

    return wrapper  # type: ignore[return-value]
