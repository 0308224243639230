"""The one SQL loader: every ``.sql`` file shipped in the package, by its file name.

Each feature keeps its SQL beside its code (``divergence/sql/``, ``site/sql/``, ``archive/``
…); names are unique across the package (a test checks), so ``load_sql("step_facts")`` needs
no folder and SQL never lives in Python strings."""

from __future__ import annotations

from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


@cache
def sql_files() -> dict[str, Path]:
    """Every shipped SQL file by name (its stem); a name used twice is an error."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.sql")):
        if path.stem in found:
            raise RuntimeError(f"two SQL files named {path.stem!r}: {found[path.stem]}, {path}")
        found[path.stem] = path
    return found


@cache
def load_sql(name: str) -> str:
    """The text of the shipped SQL file ``name`` (``.sql`` left off)."""
    try:
        path = sql_files()[name]
    except KeyError:
        raise KeyError(f"no SQL file named {name!r} in reportgen") from None
    return path.read_text(encoding="utf-8")
