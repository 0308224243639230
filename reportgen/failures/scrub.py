"""Clean raw check output and scrub volatile tokens from failure ids.

Ids must survive unrelated edits and reruns, so positions, addresses, durations, timestamps,
temp paths and seeds are removed or replaced by fixed placeholders here, in one place.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")

# A temp root plus its first, per-run component (pytest's two-level layout counts as one).
_SEG = r"[^/\\\s'\"():,;]*[^/\\\s'\"():,;.]"  # one path segment, not ending in '.'
_TMP = re.compile(
    rf"(?<![\w.~-])(?:/private)?/var/folders/[^/\s]+/[^/\s]+/[A-Z]/{_SEG}"
    rf"|(?<![\w.~-])(?:/private)?/(?:tmp|var/tmp|dev/shm)/(?:pytest-of-[^/\s]+/pytest-\d+|{_SEG})"
    rf"|\b[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\{_SEG}",
)
_ADDR = re.compile(r"\b0x[0-9a-fA-F]+\b")
_TIMESTAMP = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?\b"
    r"|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?:[ ]?[AP]M)?\b",
)
_DURATION = re.compile(
    r"\b(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?(?:[ ]?(?:ns|us|µs|ms|s|sec|secs|seconds|minutes|min))\b"
    r"|\b\d+h\d+m\b",
)
_SEED = re.compile(r"(?i)\b(seed\W{0,3})\d+")
# file.ext:12:5, file.ext(12,5), "line 12", "col 5": positions inside messages.
_POS_COLON = re.compile(r"(\.[A-Za-z][A-Za-z0-9]{0,7}):\d+(?::\d+)*\b")
_POS_PAREN = re.compile(r"(\.[A-Za-z][A-Za-z0-9]{0,7})\(\d+,\d+\)")
_LINE_REF = re.compile(r"(?i)\b(line|lines|col|column|ln)([ :]{1,2})\d+(?:-\d+)?")
_SPACES = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")

MAX_ID = 300


def clean_output(output: str) -> str:
    """Strip ANSI colour codes and resolve carriage-return progress lines (keep the last)."""
    text = _ANSI.sub("", output) if "\x1b" in output else output
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            text = "\n".join(
                line.rstrip("\r").rsplit("\r", 1)[-1] if "\r" in line else line
                for line in text.split("\n")
            )
    return text


@lru_cache(maxsize=8192)
def scrub_path(path: str) -> str:
    """A file path without temp roots or a leading './'."""
    path = _TMP.sub("<tmp>", path.strip())
    while path.startswith("./"):
        path = path[2:]
    return path


@lru_cache(maxsize=8192)
def scrub_name(name: str) -> str:
    """A test name: only always-volatile tokens (temp paths, addresses) are replaced."""
    name = _TMP.sub("<tmp>", name)
    name = _ADDR.sub("<addr>", name)
    return _SPACES.sub(" ", name).strip()


@lru_cache(maxsize=8192)
def scrub_message(msg: str) -> str:
    """A diagnostic message with positions, addresses, times, durations and seeds removed."""
    msg = _TMP.sub("<tmp>", msg)
    msg = _ADDR.sub("<addr>", msg)
    msg = _POS_COLON.sub(r"\1", msg)
    msg = _POS_PAREN.sub(r"\1", msg)
    msg = _TIMESTAMP.sub("<time>", msg)
    msg = _SEED.sub(r"\1<seed>", msg)
    msg = _LINE_REF.sub(r"\1\2N", msg)
    msg = _DURATION.sub("<dur>", msg)
    return _SPACES.sub(" ", msg).strip()


@lru_cache(maxsize=8192)
def scrub_line(line: str) -> str:
    """A free-form line for the fallback: like a message, and every number becomes N."""
    return _DIGITS.sub("N", scrub_message(line))


def finish_id(fid: str) -> str:
    """Collapse whitespace and cap the length (long ids end with a short content hash)."""
    fid = _SPACES.sub(" ", fid).strip()
    if len(fid) <= MAX_ID:
        return fid
    digest = hashlib.sha1(fid.encode("utf-8", "replace")).hexdigest()[:10]
    return f"{fid[: MAX_ID - 12]}…#{digest}"
