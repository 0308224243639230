"""Child processes as users run them: with Python's bytecode cache in use."""

from __future__ import annotations

import compileall
import os
from pathlib import Path


def as_users_run() -> None:
    """Let child processes read and write ``.pyc`` files, as they do after ``pip install``
    (which compiles them) or a first run, and compile reportgen's modules once here. Under
    ``PYTHONDONTWRITEBYTECODE=1`` every child would compile reportgen from source (about
    0.1 s a process), which no user pays and the anchors (bare DuckDB, a bare typer app,
    AgentDiff's installed modules) do not pay either."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    import reportgen

    compileall.compile_dir(str(Path(reportgen.__file__).parent), quiet=1)
