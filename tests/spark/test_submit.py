"""The file spark-submit is given runs the reportgen CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from reportgen import __version__


def test_submit_file_runs_the_cli() -> None:
    path = subprocess.run(
        [sys.executable, "-m", "reportgen.spark.submit", "--path"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert path.endswith(".py") and Path(path).is_file()
    done = subprocess.run([sys.executable, path, "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"reportgen {__version__}"
