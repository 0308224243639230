"""``reportgen --version`` and ``--help`` import none of the heavy libraries: the commands
import them when they run (bench/startup.py measures the time)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("duckdb", "pyarrow", "numpy", "plotly", "jinja2")


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["compare", "--help"]])
def test_start_up_imports_nothing_heavy(args: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "reportgen", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    top = {name.split(".")[0] for name in imported}
    assert "reportgen" in top and "typer" in top  # the trace did record the imports
    assert not top & set(HEAVY), sorted(top & set(HEAVY))
