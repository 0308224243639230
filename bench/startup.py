"""Start-up benchmark: wall time of `reportgen --version` and `reportgen --help`, each a whole
process through the installed console script, beside a bare typer app of one command doing
the same, in the same run.

    python bench/startup.py [--repeat 15]

Prints the best and median wall time of each and the ratio reportgen / bare typer.
Target: within 2x of the bare app (the CLI must not import DuckDB, pyarrow, numpy, plotly or
jinja2 to print its version or its help)."""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _environment import as_users_run

BARE_APP = '''
import typer

app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None)


def _version(value: bool) -> None:
    if value:
        typer.echo("bare 0.0")
        raise typer.Exit()


@app.callback()
def root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True)) -> None:
    """A bare app."""


@app.command()
def hello(name: str = "x") -> None:
    """Say hello."""


@app.command()
def bye() -> None:
    """Say bye."""


app()
'''


def timed(command: list[str], repeat: int) -> list[float]:
    """Wall seconds of ``repeat`` runs of ``command`` (one warm-up run first)."""
    subprocess.run(command, check=True, capture_output=True)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    as_users_run()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    script = Path(sys.executable).parent / "reportgen"
    reportgen = [str(script)] if script.exists() else [shutil.which("reportgen") or "reportgen"]
    with tempfile.TemporaryDirectory() as scratch:
        bare_file = Path(scratch) / "bare.py"
        bare_file.write_text(BARE_APP)
        bare = [sys.executable, str(bare_file)]
        worst = 0.0
        for flag in ("--version", "--help"):
            ours = timed([*reportgen, flag], args.repeat)
            theirs = timed([*bare, flag], args.repeat)
            ratio = min(ours) / min(theirs)
            worst = max(worst, ratio)
            print(
                f"{flag:<10} reportgen best {min(ours) * 1000:6.1f} ms, median "
                f"{statistics.median(ours) * 1000:6.1f} ms | bare typer best "
                f"{min(theirs) * 1000:6.1f} ms, median {statistics.median(theirs) * 1000:6.1f} ms"
                f" | ratio {ratio:.2f}x"
            )
    print(f"worst ratio {worst:.2f}x (target <= 2x): {'met' if worst <= 2 else 'NOT met'}")


if __name__ == "__main__":
    main()
