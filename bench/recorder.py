"""Recorder cost per attempt: normalise the check output, derive the sets, compare patches,
append one JSON line.

    python bench/recorder.py [ATTEMPTS]

Drives a Recorder through ATTEMPTS attempts (default 1000) of a realistic loop: `go test`
output of about 16 KB naming 5-12 failures (line numbers and durations shifting every
attempt), and a patch of about 15 KB that changes a few lines each time. Prints per-record time
(mean, median, p99, max) and line size (mean, max). The budget is 50 ms and about 1 KB."""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from reportgen.iterations import Recorder


def go_output(rng: random.Random, attempt: int) -> str:
    failing = rng.sample(range(40), rng.randint(5, 12))
    lines = []
    for i in range(300):  # passing tests and log noise
        lines.append(f"=== RUN   TestPass{i}\n--- PASS: TestPass{i} (0.0{rng.randint(1, 9)}s)")
    for n in failing:
        lines.append(f"--- FAIL: TestAuthCase{n} ({rng.random():.2f}s)")
        lines.append(
            f"    auth_test.go:{rng.randint(10, 900)}: got 401, want 200 (attempt {attempt})"
        )
    lines.append("FAIL")
    lines.append(f"FAIL\texample.com/shop/internal/auth\t{rng.random() * 4:.3f}s")
    return "\n".join(lines) + "\n"


def patch(rng: random.Random, base: list[str]) -> str:
    for _ in range(5):  # a few lines rewritten per attempt
        base[rng.randrange(len(base))] = (
            f"+    x{rng.randrange(10**6)} := compute(ctx, {rng.randrange(99)})"
        )
    return "--- a/auth.go\n+++ b/auth.go\n" + "\n".join(base) + "\n"


def main() -> None:
    attempts = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = random.Random(7)
    base = [f"+    line{i} := handler(req, {i})  // keep session state" for i in range(450)]
    inputs = [(go_output(rng, i), patch(rng, base)) for i in range(attempts)]
    out_kb = statistics.mean(len(o) for o, _ in inputs) / 1024
    patch_kb = statistics.mean(len(p) for _, p in inputs) / 1024
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "loop.jsonl"
        recorder = Recorder(path, "bench-run")
        times: list[float] = []
        for i, (output, text) in enumerate(inputs):
            started = time.perf_counter()
            recorder.record(
                step=f"step-{i // 25}",
                check="go test ./...",
                exit_code=1,
                output=output,
                patch=text,
                tool_calls=9,
                tool_errors=1,
                tokens_in=21000,
                tokens_out=1900,
                usd=0.12,
                secs=31.2,
            )
            times.append(time.perf_counter() - started)
        sizes = [len(line) for line in path.read_bytes().splitlines()]
    ms = sorted(t * 1000 for t in times)
    print(f"attempts {attempts}, output {out_kb:.1f} KB, patch {patch_kb:.1f} KB (mean)")
    print(
        f"per record: mean {statistics.mean(ms):.2f} ms, median {statistics.median(ms):.2f} ms, "
        f"p99 {ms[int(len(ms) * 0.99) - 1]:.2f} ms, max {ms[-1]:.2f} ms (budget 50 ms)"
    )
    print(f"line size: mean {statistics.mean(sizes):.0f} B, max {max(sizes)} B (about 1 KB)")


if __name__ == "__main__":
    main()
