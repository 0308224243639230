"""Benchmark: avoidable-spend findings (reportgen.spend) over many runs at once.

Seeded. Fills an in-memory archive with N runs of S steps shaped like Claude Code sessions
(a model call issuing 0-3 tool calls: Read / Edit / Bash / Glob on a few paths, some errors,
cache writes, pauses, long prompts), in SQL, then times ``avoidable_spend`` over every run,
the sums only (what ``--max-avoidable-cost`` reads) and with every finding, and prints steps
per second and the findings per kind.

    PYTHONPATH=. .venv/bin/python bench/spend.py [--runs 2000] [--steps 500]
"""

from __future__ import annotations

import argparse
import time

from reportgen.archive.connection import connect
from reportgen.spend import avoidable_spend

FILL = """
INSERT INTO runs (run_id, suite, label, task_id, batch, trial, started_at, meta, n_steps,
                  format, source_file, content_hash)
SELECT 'r' || i, 'bench/s' || (i % 10), 'x', 't' || i, '2026-01-01', 0,
       TIMESTAMPTZ '2026-01-01 00:00:00+00', '{}', $steps, 'claude-code', 'bench', 'h' || i
FROM range($runs) AS t(i);
INSERT INTO steps (run_id, idx, type, action, input, input_keys, output, status, tokens_in,
                   tokens_out, cost_usd, latency_ms, started_at, parent)
SELECT
    'r' || (n // $steps),
    CAST(n % $steps AS INTEGER),
    CASE WHEN n % 3 = 0 THEN 'llm' ELSE 'tool' END,
    CASE WHEN n % 3 = 0 THEN 'claude-sonnet-4-5'
         ELSE ['Read', 'Edit', 'Bash', 'Glob'][1 + CAST(hash(n, $seed) % 4 AS BIGINT)] END,
    CASE WHEN n % 3 = 0 THEN NULL
         ELSE json_object('file_path', 'src/f' || (CAST(hash(n, $seed, 1) % 20 AS BIGINT)) || '.py') END,
    CASE WHEN n % 3 = 0 THEN [] ELSE ['file_path'] END,
    CASE WHEN n % 3 = 0
         THEN json_object('usage', json_object('cache_write', CAST(hash(n, $seed, 2) % 3000 AS BIGINT)))
         ELSE to_json('out' || (CAST(hash(n, $seed, 3) % 4 AS BIGINT))) END,
    CASE WHEN CAST(hash(n, $seed, 4) % 10 AS BIGINT) = 0 THEN 'error' ELSE 'ok' END,
    CASE WHEN n % 3 = 0 THEN CAST(CAST(hash(n, $seed, 5) % 200000 AS BIGINT) AS BIGINT) END,
    CASE WHEN n % 3 = 0 THEN CAST(CAST(hash(n, $seed, 6) % 2000 AS BIGINT) AS BIGINT) END,
    CASE WHEN n % 3 = 0 THEN (CAST(hash(n, $seed, 7) % 1000 AS BIGINT)) / 10000.0 END,
    1000.0,
    TIMESTAMPTZ '2026-01-01 00:00:00+00'
        + to_seconds(CAST((n % $steps) * 20 + (CAST(hash(n, $seed, 8) % 400 AS BIGINT)) AS BIGINT)),
    CASE WHEN n % 3 = 0 THEN NULL ELSE CAST(n % $steps - n % 3 AS INTEGER) END
FROM range($runs * $steps) AS t(n)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    con = connect(None)
    started = time.perf_counter()
    for statement in FILL.split(";"):
        con.execute(statement, {"runs": args.runs, "steps": args.steps, "seed": args.seed}
                    if "$seed" in statement else {"runs": args.runs, "steps": args.steps})  # fmt: skip
    filled = time.perf_counter() - started
    n_steps = args.runs * args.steps
    started = time.perf_counter()
    avoidable_spend(con, findings=False)
    sums = time.perf_counter() - started
    started = time.perf_counter()
    report = avoidable_spend(con)
    took = time.perf_counter() - started
    kinds: dict[str, int] = {}
    for spent in report.runs.values():
        for kind, n in spent.by_kind.items():
            kinds[kind] = kinds.get(kind, 0) + n
    print(f"{args.runs} runs x {args.steps} steps = {n_steps:,} steps (filled in {filled:.1f} s)")
    print(f"sums only (the gate): {sums:.2f} s, {n_steps / sums:,.0f} steps/s")
    print(f"with every finding and its explanation: {took:.2f} s, {n_steps / took:,.0f} steps/s")
    print("findings: " + ", ".join(f"{k} {v:,}" for k, v in sorted(kinds.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
