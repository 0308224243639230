"""Every shipped ``.sql`` file opens with the same header, so a reader knows what it gives and
what must exist before it runs::

    -- <file stem>: <what it produces or does, one or two lines>
    -- Grain: <one row per ...>, or "none: ..." for a file that returns no rows
    -- Needs: <every table, view, macro, UDF and parameter it reads, and who makes it>

The Grain line is the second or third line; the Needs line follows it (after any ``--   ``
continuation lines of the Grain). The loader sees exactly the files in the package."""

from __future__ import annotations

from pathlib import Path

import pytest

import reportgen
from reportgen._sql import load_sql, sql_files

STEMS = sorted(sql_files())


def _leading_comments(text: str) -> list[str]:
    """The comment lines before the first line of SQL."""
    lines: list[str] = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        lines.append(line)
    return lines


def test_loader_sees_every_sql_file() -> None:
    shipped = set(Path(reportgen.__file__).parent.rglob("*.sql"))
    assert set(sql_files().values()) == shipped


@pytest.mark.parametrize("stem", STEMS)
def test_header(stem: str) -> None:
    path = sql_files()[stem]
    text = path.read_text(encoding="utf-8")
    assert load_sql(stem) == text
    header = _leading_comments(text)
    assert header and header[0].startswith(f"-- {stem}: ") and header[0][len(stem) + 5 :].strip()
    grain = next((k for k, line in enumerate(header) if line.startswith("-- Grain: ")), None)
    assert grain in (1, 2), f"{path}: '-- Grain: ' must be the second or third line"
    needs = grain + 1
    while needs < len(header) and header[needs].startswith("--   "):
        needs += 1
    assert needs < len(header) and header[needs].startswith("-- Needs: "), (
        f"{path}: '-- Needs: ' must follow the Grain line"
    )
