"""Benchmark: the reliability profile (reportgen.statistics.reliability) of many repeated runs.

Seeded. Fills an in-memory archive, in SQL, with T tasks x K clean trials of one label and
night (S tool calls each, drawn from six tools; a pass, cost, tokens and latency per run),
plus one perturbed run (meta.perturbation) for every fifth task, then times
``reliability_profiles`` over all of it (every measure family and its intervals) and prints
the profile. bench/flap.py times the profile together with the flap rates, on one archive of
10,000 tasks x 5 trials of two labels (P22's acceptance figure).

    PYTHONPATH=. .venv/bin/python bench/reliability.py [--tasks 10000] [--trials 5] [--steps 10]
"""

from __future__ import annotations

import argparse
import time

from reportgen.archive.connection import connect
from reportgen.statistics.reliability import reliability_profiles

FILL = """
INSERT INTO runs (run_id, suite, label, task_id, batch, trial, meta, success, tokens_in,
                  tokens_out, cost_usd, latency_ms, n_steps, format, source_file, content_hash)
SELECT
    'r' || i, 'bench', 'x', 't' || (i // ($trials + 1)), '2026-01-01',
    CAST(i % ($trials + 1) AS INTEGER),
    CASE WHEN i % ($trials + 1) = $trials THEN '{"perturbation": "typo"}' ELSE '{}' END,
    CAST(hash(i, $seed) % 100 AS BIGINT) < 30 + (i // ($trials + 1)) % 60,
    1000 + CAST(hash(i, $seed, 1) % 500 AS BIGINT),
    200 + CAST(hash(i, $seed, 2) % 100 AS BIGINT),
    0.01 + (CAST(hash(i, $seed, 3) % 100 AS BIGINT)) / 10000.0,
    5000.0 + CAST(hash(i, $seed, 4) % 3000 AS BIGINT),
    $steps, 'native', 'bench', 'h' || i
FROM range($tasks * ($trials + 1)) AS t(i)
WHERE i % ($trials + 1) < $trials OR (i // ($trials + 1)) % 5 = 0;
INSERT INTO steps (run_id, idx, type, action, input_keys, status)
SELECT
    'r' || (n // $steps), CAST(n % $steps AS INTEGER), 'tool',
    ['Read', 'Edit', 'Bash', 'Glob', 'Grep', 'Write'][
        1 + CAST(hash(n // $steps // ($trials + 1), n % $steps, $seed) % 3 AS BIGINT)
        + CAST(hash(n, $seed, 5) % 3 AS BIGINT)],
    [], 'ok'
FROM range($tasks * ($trials + 1) * $steps) AS t(n)
WHERE (n // $steps) % ($trials + 1) < $trials OR (n // $steps // ($trials + 1)) % 5 = 0
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    con = connect(None)
    params = {"tasks": args.tasks, "trials": args.trials, "steps": args.steps, "seed": args.seed}
    started = time.perf_counter()
    for statement in FILL.split(";"):
        con.execute(statement, {k: v for k, v in params.items() if f"${k}" in statement})
    runs = con.execute("SELECT count(*) FROM runs").fetchone()
    steps = con.execute("SELECT count(*) FROM steps").fetchone()
    print(f"filled {runs[0] if runs else 0} runs, {steps[0] if steps else 0} steps "
          f"in {time.perf_counter() - started:.2f} s")  # fmt: skip
    times = []
    profiles = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        profiles = reliability_profiles(con)
        times.append(time.perf_counter() - started)
    print(f"reliability profile of {args.tasks} tasks x {args.trials} trials: "
          f"best {min(times):.2f} s, median {sorted(times)[len(times) // 2]:.2f} s "
          f"of {args.repeat}")  # fmt: skip
    for profile in profiles:
        for m in profile.measures:
            print(f"  {profile.label} {profile.batch} {m.name}: {m.estimate:.4f} "
                  f"[{m.ci_low}, {m.ci_high}] over {m.n_tasks} tasks, {m.trials:g} trials")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
