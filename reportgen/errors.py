"""Errors that the CLI maps to exit codes: bad input (1), usage (2), a failed gate (3)."""

from __future__ import annotations

from dataclasses import dataclass


class ReportgenError(Exception):
    """Base of every error reportgen raises on purpose."""

    exit_code = 1


@dataclass
class InputError(ReportgenError):
    """Bad input, told as one line: ``FILE:LINE: field: what is wrong``."""

    path: str
    message: str
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return (
            f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        )


class UsageError(ReportgenError):
    """The command line or a config file asks for something that cannot be done."""

    exit_code = 2


class GateFailed(ReportgenError):
    """A gate's threshold was exceeded; the report has already been written."""

    exit_code = 3
