"""Where ``reportgen compare DIR_B DIR_C --json`` spends its CPU time, phase by phase.

    python bench/compare_phases.py [--files 2000] [--steps 200]

Runs the command in this process on bench/cli.py's folders (generated as it generates them),
stdout to /dev/null, with its worker threads made synchronous (the avoidable spend beside the
metrics, the next batch of steps beside the JSON writing), so that each phase's process CPU
time (every thread's) is its own. Prints each timed function's CPU and wall seconds and call
count; the phases nest (ingest holds parse and write; compare_pairing holds spend, metrics and
findings; print_json holds the step texts), so the rows do not add up to the total."""

from __future__ import annotations

import argparse
import concurrent.futures as futures
import importlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PHASES = [
    ("reportgen.divergence.compare", "ingest"),
    ("reportgen.ingest.loader", "_load"),
    ("reportgen.formats.native.trace", "parse_records"),
    ("reportgen.ingest.loader", "_write"),
    ("reportgen.divergence.compare", "pair_runs"),
    ("reportgen.divergence.compare", "compare_pairing"),
    ("reportgen.divergence.compare", "_spend_on_cursor"),
    ("reportgen.divergence.metrics", "_compute"),
    ("reportgen.divergence.compare", "attach_findings"),
    ("reportgen.evaluation", "judged"),
    ("reportgen.cli.output", "print_json"),
    ("reportgen.divergence.step_json", "StepDiffWriter._steps"),
    ("reportgen.divergence.step_json", "StepDiffWriter._argument_diffs"),
    ("reportgen.divergence.step_json", "_kernels.step_diffs_json"),
]


class _Synchronous:
    """A ThreadPoolExecutor stand-in that runs each task at once, on the calling thread."""

    def __init__(self, *_: object, **__: object) -> None:
        pass

    def __enter__(self) -> _Synchronous:
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> futures.Future[Any]:
        done: futures.Future[Any] = futures.Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to the caller, as a pool does
            done.set_exception(exc)
        return done


def _timed(spent: dict[str, list[float]], module: str, attr: str) -> None:
    owner: Any = importlib.import_module(module)
    *path, name = attr.split(".")
    for part in path:
        owner = getattr(owner, part)
    inner = getattr(owner, name)
    key = f"{module.removeprefix('reportgen.')}.{attr}"

    def timed(*args: Any, **kwargs: Any) -> Any:
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            row = spent.setdefault(key, [0.0, 0.0, 0])
            row[0] += time.process_time() - cpu
            row[1] += time.perf_counter() - wall
            row[2] += 1

    setattr(owner, name, timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's reportgen, then cli.py
    from cli import DATA, generate

    root = DATA / f"cli-{args.files}x{args.steps}"
    if not (root / "candidate").exists():
        generate(root, args.files, args.steps)
    started = time.process_time()
    import reportgen.cli  # the command's imports, timed apart
    import reportgen.divergence.compare as compare

    imported = time.process_time() - started
    compare.ThreadPoolExecutor = _Synchronous  # type: ignore[misc,assignment]
    spent: dict[str, list[float]] = {}
    for module, attr in PHASES:
        _timed(spent, module, attr)
    from reportgen.cli import main as cli

    argv = ["reportgen", "compare", str(root / "baseline"), str(root / "candidate"), "--json"]
    sys.argv, stdout = argv, os.dup(1)
    with open(os.devnull, "wb") as sink:
        os.dup2(sink.fileno(), 1)
        try:
            cli()
        except SystemExit:
            pass
        finally:
            sys.stdout.flush()
            os.dup2(stdout, 1)
    print(f"{'imports (reportgen.cli, divergence.compare)':58} cpu {imported:6.2f}")
    for key, (cpu, wall, calls) in spent.items():
        print(f"{key:58} cpu {cpu:6.2f}  wall {wall:6.2f}  calls {calls}")
    print(f"{'whole process':58} cpu {time.process_time():6.2f}")
    print(f"(reportgen from {Path(reportgen.cli.__file__).parent.parent})")


if __name__ == "__main__":
    main()
