"""Read SQL files shipped inside the package, by name, so SQL never lives in Python strings."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def read_sql(package: str, name: str) -> str:
    """Return the text of ``<package>/<name>.sql``."""
    return resources.files(package).joinpath(f"{name}.sql").read_text(encoding="utf-8")
