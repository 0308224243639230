"""The file spark-submit is given (reportgen/__main__.py, run as a script) runs the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import reportgen
from reportgen import __version__


def test_main_file_runs_the_cli_as_a_script() -> None:
    path = Path(reportgen.__file__).with_name("__main__.py")
    done = subprocess.run([sys.executable, str(path), "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"reportgen {__version__}"
