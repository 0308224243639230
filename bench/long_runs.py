"""Two very long runs compared through the whole CLI: the bounded-memory alignment.

    python bench/long_runs.py [--steps 200000] [--actions 7]

Writes a baseline and a candidate trace of ``--steps`` steps each (one run per file; the
candidate detours, repeats and fails at random, as bench/cli.py's folders do), then times
``reportgen compare BASELINE CANDIDATE --json`` as one process (stdout to /dev/null) and
prints wall time and peak RSS. Keeping every bit row of the alignment would need
``(n + 1) * ceil(m / 64)`` 8-byte words; the kernel keeps ~2 sqrt(n) rows past
``_kernels.FULL_ROWS_WORDS`` words and recomputes the rest during the traceback."""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli import ACTIONS, _step, measure


def write_pair(root: Path, n_steps: int, n_actions: int, seed: int = 7) -> tuple[Path, Path]:
    """Baseline and candidate trace files of ``n_steps`` steps each."""
    rng = random.Random(seed)
    actions = (ACTIONS * (1 + n_actions // len(ACTIONS)))[:n_actions]
    plan = [rng.choice(actions) for _ in range(n_steps)]
    paths = []
    for side in ("baseline", "candidate"):
        steps = []
        for action in plan:
            if side == "candidate" and rng.random() < 0.05:
                steps.append(_step(rng, rng.choice(actions), "ok"))
            steps.append(_step(rng, action, rng.choice(["ok"] * 18 + ["error", "retry"])))
        run = {"run_id": side, "task_id": "long", "suite": "bench", "steps": steps[:n_steps]}
        path = root / side / "long.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(run))
        paths.append(path)
    return paths[0], paths[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--actions", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base, cand = write_pair(Path(tmp), args.steps, args.actions)
        mb = (base.stat().st_size + cand.stat().st_size) / 1e6
        exe = str(Path(sys.executable).with_name("reportgen"))
        argv = [exe, "compare", str(base), str(cand), "--json", "--max-record-mb", "1024"]
        seconds, rss, _, _ = measure(argv)
    words = (args.steps + 1) * ((args.steps + 63) // 64)
    print(f"two runs of {args.steps:,} steps ({mb:.0f} MB of JSON)")
    print(f"reportgen compare --json   {seconds:8.2f} s  {rss:8.0f} MB peak RSS")
    print(f"whole bit rows would be    {words * 8 / 2**20:8.0f} MB for the alignment alone")


if __name__ == "__main__":
    main()
