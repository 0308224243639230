"""Find the folders shipped with reportgen: inside the installed wheel, or in a source tree."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def shipped_dir(name: str) -> Path:
    """``templates``, ``static`` or ``sample_runs``: the wheel puts them inside the package;
    a source checkout (editable install) keeps them beside it."""
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"reportgen is missing its {name}/ folder (looked in {_PACKAGE})")
