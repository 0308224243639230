"""Errors that the CLI maps to exit codes: bad input (1), usage (2), a failed gate (3)."""

from __future__ import annotations

from dataclasses import dataclass

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}


def _plain(ch: str) -> bool:
    return ch.isprintable() and ch not in '"\\'


def _escape(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    code = ord(ch)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


def show(name: str) -> str:
    """A file name as it appears in error lines: as is when every character is printable, else
    in double quotes with backslash escapes (newlines, terminal escape sequences, undecodable
    bytes), so a hostile name can neither split an error line nor colour the terminal."""
    if all(ch.isprintable() for ch in name):
        return name
    return '"' + "".join(ch if _plain(ch) else _escape(ch) for ch in name) + '"'


def printable(text: str) -> str:
    """``text`` with every non-printable character backslash-escaped (for messages that may
    quote input, such as a DuckDB error naming a file)."""
    if all(ch.isprintable() for ch in text):
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


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
        """One line, whatever the file name or message hold (see ``show``)."""
        name = show(self.path)
        where = name if self.line is None else f"{name}:{self.line}"
        message = printable(self.message)
        return (
            f"{where}: {printable(self.field)}: {message}" if self.field else f"{where}: {message}"
        )


class UsageError(ReportgenError):
    """The command line or a config file asks for something that cannot be done."""

    exit_code = 2


class GateFailed(ReportgenError):
    """A gate's threshold was exceeded; the report has already been written."""

    exit_code = 3
