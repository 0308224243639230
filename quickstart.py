"""The README's first command: a virtualenv, reportgen installed into it, the demo.

    python3 quickstart.py [--venv .venv]

Does what ``python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/reportgen demo``
does, with two differences: the build tools pyproject.toml names (hatchling, Cython,
setuptools; and editables, which hatchling asks for to build an editable wheel) go into the
virtualenv first, and then the dependencies install while the Cython kernels compile (two pip
processes side by side, ``pip install DEPENDENCIES`` and ``pip install --no-deps
--no-build-isolation -e .``; their output goes to VENV/install.log); and it says what it is
doing and how long each part took. Standard library only: it runs before anything is
installed. An existing VENV is used as it is.

Building without isolation measured 0.70 of the wall time of an isolated build beside the
dependencies (same CPU): pip's throwaway build environment competes with them for the cores.
The build tools stay in the virtualenv, where ``pip install --no-build-isolation -e .``
recompiles after a .pyx changes.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent


@dataclass
class Step:
    """A child process and what it cost: wall seconds and its tree's CPU seconds."""

    name: str
    process: subprocess.Popen[bytes]
    started: float
    wall: float = 0.0
    cpu: float = 0.0
    status: int = 0


def start(name: str, argv: list[str], log: IO[bytes] | None = None) -> Step:
    """Start ``argv``; its output goes to ``log`` (None: to this terminal)."""
    process = subprocess.Popen(argv, cwd=ROOT, stdout=log, stderr=log)
    return Step(name, process, time.perf_counter())


def wait(step: Step) -> Step:
    """Reap the step's process (wait4: its own CPU figures, not a sibling's)."""
    _, status, usage = os.wait4(step.process.pid, 0)
    step.process.returncode = step.status = os.waitstatus_to_exitcode(status)
    step.wall = time.perf_counter() - step.started
    step.cpu = usage.ru_utime + usage.ru_stime
    return step


def requirements() -> tuple[list[str], list[str]]:
    """The build tools and the runtime dependencies pyproject.toml lists."""
    import tomllib

    with (ROOT / "pyproject.toml").open("rb") as f:
        config = tomllib.load(f)
    # hatchling asks for editables to build an editable wheel (get_requires_for_build_editable)
    build = [*config["build-system"]["requires"], "editables"]
    return build, list(config["project"]["dependencies"])


def say(text: str) -> None:
    print(f"quickstart: {text}", flush=True)


def hook_time(log: Path, step: Step) -> str:
    """Of the compile step's time, what the build hook says cythonize and the C compiler took
    (the rest is pip and its isolated build environment)."""
    if step.name != "compile":
        return ""
    found = re.findall(rb"reportgen: compiled .* in ([0-9.]+) s", log.read_bytes())
    return f" (Cython and the C compiler: {float(found[-1]):.1f} s)" if found else ""


def fail(step: Step, log: Path) -> int:
    lines = log.read_text(errors="replace").splitlines()
    print("\n".join(lines[-40:]), file=sys.stderr)
    say(f"{step.name} failed (exit {step.status}); the whole output is in {log}")
    return step.status or 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv", help="default: ./.venv")
    venv = parser.parse_args().venv.resolve()
    if sys.version_info < (3, 11):  # noqa: UP036 - runs under any python3, before pip checks
        say(f"reportgen needs Python 3.11 or newer; this is {sys.version.split()[0]}")
        return 1
    began = time.perf_counter()
    steps: list[Step] = []
    python = venv / "bin" / "python"
    if python.exists():
        say(f"using {venv}")
    else:
        say(f"creating {venv}")
        steps.append(step := wait(start("venv", [sys.executable, "-m", "venv", str(venv)])))
        if step.status:
            return step.status
    log_path = venv / "install.log"
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check"]
    say(
        "installing the build tools, then the dependencies and, side by side, compiling the "
        f"Cython kernels (about 10 s on 2 cores); pip's output: {log_path}"
    )
    build_tools, runtime = requirements()
    with log_path.open("wb") as log:
        steps.append(step := wait(start("build tools", [*pip, *build_tools], log)))
        if step.status:
            return fail(step, log_path)
        # -v: the build hook's own lines ("reportgen: compiled ... in N s") reach the log
        compile_ = start(
            "compile", [*pip, "-v", "--no-deps", "--no-build-isolation", "-e", "."], log
        )
        deps = start("dependencies", [*pip, *runtime], log)
        for step in (wait(compile_), wait(deps)):
            steps.append(step)
            if step.status:
                return fail(step, log_path)
            say(f"{step.name}: done in {step.wall:.1f} s{hook_time(log_path, step)}")
    say(f"running the demo: {venv / 'bin' / 'reportgen'} demo")
    steps.append(step := wait(start("demo", [str(venv / "bin" / "reportgen"), "demo"])))
    if step.status:
        return step.status
    parts = ", ".join(f"{s.name} {s.wall:.1f} s" for s in steps)
    with log_path.open("a") as log_text:  # CPU seconds too, for whoever compares installs
        log_text.write(
            "quickstart timings (wall s / CPU s): "
            + ", ".join(f"{s.name} {s.wall:.2f} / {s.cpu:.2f}" for s in steps)
            + "\n"
        )
    say(
        f"done in {time.perf_counter() - began:.1f} s ({parts}; dependencies and compile "
        f"ran side by side; CPU {sum(s.cpu for s in steps):.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
