"""ATIF's observation status searches its regexes only where their words are: the verdicts
must be exactly those of the plain searches (``_RETRY``, ``_ERROR``), on real observations,
on edge cases and on random mixes of their pieces."""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Iterator
from typing import Any

from reportgen.formats.adapters import atif
from reportgen.formats.adapters.atif import _ASCII_FOLD, _error_text, _retry_text

from .helpers import DATA, needs_data

PIECES = (
    "Previous response had parsing errors",
    "HAD PARSING ERRORS",
    "\u0130nvalid JSON",
    "\u0131nvalid json",
    "No val\u0131d JSON",
    "could not par\u017fe your response",
    "Could Not Parse The Response",
    "could not parse the",
    "not formatted correctly",
    "EXACTLY ONE action",
    "exactly one function call",
    "exactly one",
    "Error: boom",
    "ERROR",
    "Errors",
    "ValueError: bad",
    " ValueError: bad",
    "pkg.mod_Exception: x",
    "Traceback (most recent call last)",
    "bash: foo: command not found",
    "No such file or directory",
    "exit code 1",
    "exit code 0",
    "exited with status: 2",
    "exit_status=3",
    "<returncode>3</returncode>",
    "<returncode>0</returncode>",
    "timed out",
    "timed outside",
    "Timeout",
    "Timeouts",
    "\u2192 ok",
    "\u212a",
    "plain text",
    "\n",
    " ",
)


def _same(text: str) -> None:
    assert _retry_text(text) is (atif._RETRY.search(text) is not None), text
    assert _error_text(text) is (atif._ERROR.search(text) is not None), text


def test_the_fold_table_is_every_non_ascii_match_of_an_ascii_character() -> None:
    """Every character outside ASCII that IGNORECASE matches to a character of _RETRY's words
    is folded to it (the substring test would miss it otherwise)."""
    others = "".join(chr(c) for c in range(128, sys.maxunicode + 1) if not 0xD800 <= c < 0xE000)
    fold = dict(_ASCII_FOLD)
    for char in sorted(set("".join(atif._RETRY_WORDS))):
        for found in re.finditer(re.escape(char), others, re.IGNORECASE):
            assert fold.get(found.group()) == char, (char, found.group())


def test_edge_cases_match_the_plain_searches() -> None:
    for piece in PIECES:
        for text in (piece, f"x {piece}", f"line\n{piece}\nmore", piece.upper(), piece.lower()):
            _same(text)


def test_random_mixes_match_the_plain_searches() -> None:
    rng = random.Random(19)
    pieces = (*PIECES, "a", "\n", ":", " ")
    for _ in range(3000):
        _same("".join(rng.choice(pieces) for _ in range(rng.randint(1, 8))))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@needs_data
def test_real_texts_match_the_plain_searches() -> None:
    """Every string of the shared ATIF and Harbor files (messages, observations, arguments)."""
    paths = sorted(DATA.glob("atif*/**/*.json")) + sorted(DATA.glob("harbor-jobs/**/*.json"))
    checked = 0
    for path in paths:
        for text in _strings(json.loads(path.read_bytes())):
            _same(text)
            checked += 1
    assert checked > 1000
