"""Lazy package exports (PEP 562): ``from reportgen.iterations import analyse`` imports the
module behind a name on first use, so importing one light module of a package never loads
the heavy ones (DuckDB, numpy) beside it."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_getattr(package: str, exports: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` resolving each exported name from its module (``exports``:
    name -> module path relative to ``package``, e.g. ``".analyse"``)."""

    def __getattr__(name: str) -> object:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(exports[name], package), name)

    return __getattr__
