# ruff: noqa: RUF001 - jest and vitest print these characters; the outputs quote them as is
"""Iteration records at scale: failure normalisation, the signals through the archive, and
rapidfuzz against difflib on large patches.

    python bench/iterations.py [--outputs 100000] [--runs 1000] [--attempts 50] [--pairs 40]
                               [--nojunk 2]

1. Normalises OUTPUTS seeded, varied check outputs (go test, go build/vet, pytest, unittest,
   cargo test, rustc, jest, vitest, tsc, mypy, ruff, eslint, JUnit XML; half with the check
   command, half sniffed), with line numbers, durations, addresses and temp paths that differ
   every time. Prints outputs/s and MB/s, overall and per ecosystem.
2. Writes RUNS x ATTEMPTS iteration records (failing ids given, or raw `go test`/pytest output
   for one attempt in ten; a patch of ~1.5 KB changing a little every attempt), ingests them
   into a DuckDB archive and computes every signal with ``reportgen.iterations.analysis``
   (derived sets, patch distance, diff volume, tool error rate, thrash evidence, per-run
   spend). Prints attempts/s for ingest, for analyse and for both.
3. Compares the rapidfuzz patch similarity (what the SQL and the Recorder use) with difflib's
   ``SequenceMatcher.ratio`` on PAIRS pairs of 20 KB patches (refined and rewritten): time per
   pair, the speed-up, and how the two values compare."""

from __future__ import annotations

import argparse
import difflib
import json
import random
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from rapidfuzz import fuzz

from reportgen.archive import connect
from reportgen.failures import normalise_failures
from reportgen.ingest import ingest
from reportgen.iterations import analyse

WORDS = [
    *("login", "session", "token", "refresh", "cart", "price", "order", "invoice", "user"),
    *("config", "cache", "route", "handler", "store", "query", "migrate", "export", "import"),
    *("parse", "render", "payment", "refund", "audit", "metrics", "report"),
]
Gen = Callable[[random.Random], tuple[str | None, str]]


def _w(rng: random.Random) -> str:
    return rng.choice(WORDS)


def _camel(rng: random.Random, n: int = 2) -> str:
    return "".join(_w(rng).title() for _ in range(n))


def _snake(rng: random.Random, n: int = 2) -> str:
    return "_".join(_w(rng) for _ in range(n))


def _dur(rng: random.Random) -> str:
    return f"{rng.uniform(0, 9):.3f}"


def _tmp(rng: random.Random) -> str:
    return f"/tmp/agent-{rng.getrandbits(32):08x}"


def _addr(rng: random.Random) -> str:
    return f"0xc000{rng.getrandbits(24):06x}"


def _n(rng: random.Random, low: int = 1, high: int = 12) -> int:
    return rng.randint(low, high)


def gen_go_test(rng: random.Random) -> tuple[str | None, str]:
    lines = []
    for p in range(_n(rng, 2, 8)):
        pkg = f"example.com/shop/internal/{_w(rng)}{p}"
        failing = [f"Test{_camel(rng)}" for _ in range(rng.randint(0, 4))]
        for i in range(_n(rng, 3, 15)):
            lines += [f"=== RUN   TestPass{i}", f"--- PASS: TestPass{i} ({_dur(rng)}s)"]
        for name in failing:
            lines.append(f"--- FAIL: {name} ({_dur(rng)}s)")
            lines.append(f"    {_w(rng)}_test.go:{_n(rng, 10, 900)}: got {_addr(rng)}, want nil")
            if rng.random() < 0.3:
                lines.append(f"    --- FAIL: {name}/{_snake(rng)} ({_dur(rng)}s)")
        if failing:
            lines += ["FAIL", f"FAIL\t{pkg}\t{_dur(rng)}s"]
        else:
            lines.append(f"ok  \t{pkg}\t{_dur(rng)}s")
    lines.append("FAIL")
    return rng.choice(["go test ./...", None]), "\n".join(lines) + "\n"


def gen_go_build(rng: random.Random) -> tuple[str | None, str]:
    lines = [f"# example.com/shop/internal/{_w(rng)}"]
    for _ in range(_n(rng, 1, 8)):
        file = f"internal/{_w(rng)}/{_w(rng)}.go"
        message = rng.choice(
            [
                f"undefined: {_camel(rng)}",
                f"not enough arguments in call to {_camel(rng)}",
                f'"{_w(rng)}" imported and not used',
                f"declared and not used: {_w(rng)}",
                f"fmt.Sprintf format %d has arg {_w(rng)} of wrong type string",
            ]
        )
        lines.append(f"{file}:{_n(rng, 1, 900)}:{_n(rng, 1, 80)}: {message}")
    return rng.choice(["go build ./...", "go vet ./...", None]), "\n".join(lines) + "\n"


def gen_pytest(rng: random.Random) -> tuple[str | None, str]:
    failing = [
        f"tests/test_{_w(rng)}.py::test_{_snake(rng)}[{_n(rng, 0, 9)}]" for _ in range(_n(rng))
    ]
    tmp = f"/tmp/pytest-of-ci/pytest-{_n(rng, 1, 900)}"
    lines = [
        "============================= test session starts ==============================",
        f"rootdir: {_tmp(rng)}/repo",
        f"Using --randomly-seed={rng.getrandbits(32)}",
        f"collected {len(failing) + 20} items",
        "",
        "=================================== FAILURES ===================================",
    ]
    for name in failing:
        test = name.split("::")[-1]
        lines += [
            f"____________ {test} ____________",
            f"tmp_path = PosixPath('{tmp}/{test[:20]}0')",
            f"E       AssertionError: assert <obj at {_addr(rng)}> == {_n(rng)}",
            f"{name.split('::')[0]}:{_n(rng, 5, 500)}: AssertionError",
        ]
    lines.append("=========================== short test summary info ============================")
    lines += [f"FAILED {name} - AssertionError: assert {_n(rng)} == 0" for name in failing]
    lines.append(f"====== {len(failing)} failed, 20 passed in {_dur(rng)}s ======")
    return rng.choice(["pytest -rA", "python -m pytest", None]), "\n".join(lines) + "\n"


def gen_unittest(rng: random.Random) -> tuple[str | None, str]:
    lines = ["..F.E"]
    for _ in range(_n(rng, 1, 6)):
        cls, test = _camel(rng) + "Test", f"test_{_snake(rng)}"
        kind = rng.choice(["FAIL", "ERROR"])
        lines += [
            "=" * 70,
            f"{kind}: {test} (tests.test_{_w(rng)}.{cls}.{test})",
            "-" * 70,
            "Traceback (most recent call last):",
            f'  File "{_tmp(rng)}/repo/tests/test_x.py", line {_n(rng, 5, 400)}, in {test}',
            f"AssertionError: {_n(rng)} != {_n(rng)}",
            "",
        ]
    lines += ["-" * 70, f"Ran 30 tests in {_dur(rng)}s", "", "FAILED (failures=2)"]
    return rng.choice(["python -m unittest", None]), "\n".join(lines) + "\n"


def gen_cargo(rng: random.Random) -> tuple[str | None, str]:
    failing = [f"{_w(rng)}::tests::{_snake(rng)}" for _ in range(_n(rng, 1, 6))]
    lines = [
        f"   Compiling shop v0.3.1 ({_tmp(rng)}/shop)",
        f"     Running unittests src/lib.rs (target/debug/deps/shop-{rng.getrandbits(64):016x})",
        "",
        f"running {len(failing) + 3} tests",
    ]
    lines += [f"test {name} ... FAILED" for name in failing]
    lines += ["", "failures:", ""]
    for name in failing:
        lines += [
            f"---- {name} stdout ----",
            f"thread '{name}' panicked at src/{_w(rng)}.rs:{_n(rng, 1, 500)}:{_n(rng, 1, 60)}:",
            "assertion `left == right` failed",
            "",
        ]
    lines += ["failures:", *[f"    {name}" for name in failing], ""]
    lines.append(f"test result: FAILED. 3 passed; {len(failing)} failed; finished in {_dur(rng)}s")
    return rng.choice(["cargo test", None]), "\n".join(lines) + "\n"


def gen_rustc(rng: random.Random) -> tuple[str | None, str]:
    lines = [f"   Compiling shop v0.3.1 ({_tmp(rng)}/shop)"]
    for _ in range(_n(rng, 1, 6)):
        code, message = rng.choice(
            [
                ("E0308", "mismatched types"),
                ("E0425", f"cannot find function `{_snake(rng)}` in this scope"),
                ("E0599", f"no method named `{_snake(rng)}` found for struct `{_camel(rng)}`"),
            ]
        )
        line = _n(rng, 1, 800)
        lines += [
            f"error[{code}]: {message}",
            f" --> src/{_w(rng)}.rs:{line}:{_n(rng, 1, 60)}",
            "  |",
            f"{line} |     let x = {_snake(rng)}();",
            "",
        ]
    lines.append("error: could not compile `shop` (lib) due to previous errors")
    return rng.choice(["cargo build", "cargo check", None]), "\n".join(lines) + "\n"


def gen_jest(rng: random.Random) -> tuple[str | None, str]:
    lines = []
    for _ in range(_n(rng, 1, 4)):
        file = f"src/{_w(rng)}/{_w(rng)}.test.ts"
        lines.append(f"FAIL {file} ({_dur(rng)} s)")
        for _ in range(_n(rng, 1, 4)):
            lines += [
                f"  ● {_w(rng)} › {_snake(rng).replace('_', ' ')}",
                "",
                "    expect(received).toBe(expected) // Object.is equality",
                f"      at Object.<anonymous> ({file}:{_n(rng, 1, 400)}:{_n(rng, 1, 40)})",
                "",
            ]
    lines += ["Tests:       3 failed, 14 passed, 17 total", f"Time:        {_dur(rng)} s"]
    return rng.choice(["npx jest", None]), "\n".join(lines) + "\n"


def gen_vitest(rng: random.Random) -> tuple[str | None, str]:
    lines = ["", f" RUN  v2.1.4 {_tmp(rng)}/shop", ""]
    for _ in range(_n(rng, 1, 4)):
        file = f"src/{_w(rng)}/{_w(rng)}.test.ts"
        tests = [f"{_w(rng)} > {_snake(rng).replace('_', ' ')}" for _ in range(_n(rng, 1, 4))]
        lines.append(
            f" ❯ {file} ({len(tests) + 2} tests | {len(tests)} failed) {_n(rng, 1, 900)}ms"
        )
        lines += [f"   × {t} {_n(rng, 1, 900)}ms" for t in tests]
    lines += [" Test Files  2 failed | 1 passed (3)", f"   Start at  0{_n(rng, 0, 9)}:00:01"]
    return rng.choice(["npx vitest run", None]), "\n".join(lines) + "\n"


def gen_tsc(rng: random.Random) -> tuple[str | None, str]:
    lines = []
    for _ in range(_n(rng)):
        file = f"src/{_w(rng)}/{_w(rng)}.ts"
        message = rng.choice(
            [
                "TS2322: Type 'string' is not assignable to type 'number'.",
                f"TS2554: Expected {_n(rng, 1, 3)} arguments, but got {_n(rng, 0, 4)}.",
                f"TS2339: Property '{_w(rng)}' does not exist on type '{_camel(rng)}'.",
            ]
        )
        lines.append(f"{file}({_n(rng, 1, 900)},{_n(rng, 1, 80)}): error {message}")
    lines.append(f"Found {len(lines)} errors.")
    return rng.choice(["npx tsc --noEmit", None]), "\n".join(lines) + "\n"


def gen_mypy(rng: random.Random) -> tuple[str | None, str]:
    lines = []
    for _ in range(_n(rng)):
        file = f"app/{_w(rng)}.py"
        message, code = rng.choice(
            [
                (
                    f'Argument 1 to "{_w(rng)}" has incompatible type "int"; expected "str"',
                    "arg-type",
                ),
                (f'Name "{_w(rng)}" already defined on line {_n(rng, 1, 99)}', "no-redef"),
                ("Function is missing a return type annotation", "no-untyped-def"),
            ]
        )
        lines.append(f"{file}:{_n(rng, 1, 900)}: error: {message}  [{code}]")
    lines.append(f"Found {len(lines)} errors in 3 files (checked 40 source files)")
    return rng.choice(["mypy --strict app", None]), "\n".join(lines) + "\n"


def gen_ruff(rng: random.Random) -> tuple[str | None, str]:
    lines = []
    for _ in range(_n(rng)):
        code = rng.choice(["F401", "F841", "E711", "B006", "UP035", "SIM108"])
        lines.append(
            f"src/{_w(rng)}.py:{_n(rng, 1, 900)}:{_n(rng, 1, 80)}: {code} {_w(rng)} is wrong"
        )
    lines.append(f"Found {len(lines)} errors.")
    return rng.choice(["ruff check .", None]), "\n".join(lines) + "\n"


def gen_eslint(rng: random.Random) -> tuple[str | None, str]:
    lines = [""]
    for _ in range(_n(rng, 1, 4)):
        lines.append(f"{_tmp(rng)}/shop/src/{_w(rng)}.js")
        for _ in range(_n(rng, 1, 5)):
            rule = rng.choice(["no-unused-vars", "no-undef", "eqeqeq", "indent"])
            lines.append(f"  {_n(rng, 1, 900)}:{_n(rng, 1, 80)}  error  '{_w(rng)}' is bad  {rule}")
        lines.append("")
    lines.append("✖ 9 problems (9 errors, 0 warnings)")
    return rng.choice(["npx eslint src", None]), "\n".join(lines) + "\n"


def gen_junit(rng: random.Random) -> tuple[str | None, str]:
    cls = f"com.example.shop.{_camel(rng)}Test"
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuite name="{cls}" time="{_dur(rng)}" timestamp="2026-11-28T0{_n(rng, 0, 9)}:00:01">',
    ]
    for _ in range(_n(rng, 2, 10)):
        name = f"test{_camel(rng)}"
        lines.append(f'  <testcase name="{name}" classname="{cls}" time="{_dur(rng)}">')
        if rng.random() < 0.5:
            lines.append(
                f'    <failure message="expected 1">at {cls}.{name}({_camel(rng)}.java:'
                f"{_n(rng, 1, 500)})</failure>"
            )
        lines.append("  </testcase>")
    lines.append("</testsuite>")
    return rng.choice(["mvn -B test", None]), "\n".join(lines) + "\n"


GENERATORS: dict[str, Gen] = {
    "go test": gen_go_test,
    "go build/vet": gen_go_build,
    "pytest": gen_pytest,
    "unittest": gen_unittest,
    "cargo test": gen_cargo,
    "rustc": gen_rustc,
    "jest": gen_jest,
    "vitest": gen_vitest,
    "tsc": gen_tsc,
    "mypy": gen_mypy,
    "ruff": gen_ruff,
    "eslint": gen_eslint,
    "junit xml": gen_junit,
}


def bench_normalise(n_outputs: int, seed: int = 1) -> None:
    """Normalise ``n_outputs`` generated outputs, generated in chunks to bound memory."""
    rng = random.Random(seed)
    names = list(GENERATORS)
    seconds: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    size: dict[str, int] = defaultdict(int)
    n_ids = 0
    done = 0
    while done < n_outputs:
        chunk = [
            (name, *GENERATORS[name](rng))
            for name in (rng.choice(names) for _ in range(min(10_000, n_outputs - done)))
        ]
        for name, check, output in chunk:
            started = time.perf_counter()
            result = normalise_failures(output, check)
            seconds[name] += time.perf_counter() - started
            count[name] += 1
            size[name] += len(output)
            n_ids += len(result.ids)
        done += len(chunk)
    total_s = sum(seconds.values())
    total_mb = sum(size.values()) / 1e6
    print(f"1. normalise {done:,} check outputs ({total_mb:.0f} MB, {n_ids:,} failure ids)")
    print(f"   {done / total_s:,.0f} outputs/s, {total_mb / total_s:.1f} MB/s, {total_s:.1f} s")
    for name in names:
        rate = count[name] / seconds[name] if seconds[name] else 0.0
        kb = size[name] / count[name] / 1e3 if count[name] else 0.0
        print(f"   {name:13} {count[name]:6,} outputs  {kb:5.1f} KB avg  {rate:9,.0f} outputs/s")


def _patch(lines: list[str]) -> str:
    return "--- a/app.go\n+++ b/app.go\n" + "\n".join(lines) + "\n"


def write_records(path: Path, n_runs: int, n_attempts: int, seed: int = 2) -> None:
    """Seeded coding loops: steps of 1-8 attempts, shrinking or stuck failing sets, patches
    refined a few lines per attempt; one attempt in ten carries raw check output."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as handle:
        for r in range(n_runs):
            run_id = f"bench/run-{r:05d}"
            step, attempt = 0, 0
            failing: list[str] = []
            body: list[str] = []
            for i in range(1, n_attempts + 1):
                if not failing or attempt >= rng.randint(1, 8):
                    step, attempt = step + 1, 0
                    failing = [f"go:example.com/m/s{step}::Test{k}" for k in range(_n(rng, 1, 9))]
                    body = [f"+\tx{k} := handler(req, {k}) // step {step}" for k in range(40)]
                attempt += 1
                stuck = step % 3 == 0
                if not stuck:
                    failing = failing[: rng.randint(0, len(failing))]
                for _ in range(3):
                    body[rng.randrange(len(body))] = f"+\ty := compute(ctx, {rng.randrange(99)})"
                if stuck:
                    body.append(f"+\t// attempt {attempt}")
                record: dict[str, object] = {
                    "run": run_id,
                    "iter": i,
                    "step": f"s{step}",
                    "attempt": attempt,
                    "check": "go test ./...",
                    "exit": 0 if not failing else 1,
                    "patch": _patch(body),
                    "tool_calls": _n(rng, 3, 15),
                    "tool_errors": rng.randint(0, 2),
                    "tokens_in": rng.randint(5_000, 30_000),
                    "tokens_out": rng.randint(300, 4_000),
                    "usd": round(rng.uniform(0.01, 0.3), 4),
                }
                if rng.random() < 0.1:
                    names = [f.split("::")[1] for f in failing]
                    lines = [f"--- FAIL: {n} ({_dur(rng)}s)" for n in names]
                    lines += ["FAIL", f"FAIL\texample.com/m/s{step}\t{_dur(rng)}s"] if names else []
                    record["output"] = "\n".join(lines) + "\n"
                else:
                    record["failing"] = failing
                handle.write(json.dumps(record) + "\n")


def bench_archive(n_runs: int, n_attempts: int) -> None:
    """Ingest the records into an archive and compute every signal with analyse()."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "loops.jsonl"
        db = Path(folder) / "archive.duckdb"
        write_records(path, n_runs, n_attempts)
        n = n_runs * n_attempts
        mb = path.stat().st_size / 1e6
        started = time.perf_counter()
        report = ingest([path], db)
        ingest_s = time.perf_counter() - started
        assert report.counts["iterations"] == n
        con = connect(db, read_only=True)
        try:
            started = time.perf_counter()
            runs = analyse(con)
            analyse_s = time.perf_counter() - started
        finally:
            con.close()
    assert len(runs) == n_runs
    thrash = sum(len(r.thrash_steps) for r in runs)
    total = ingest_s + analyse_s
    print(f"2. {n_runs:,} runs x {n_attempts} attempts = {n:,} attempts ({mb:.0f} MB of JSONL)")
    print(f"   ingest   {ingest_s:6.1f} s  {n / ingest_s:9,.0f} attempts/s")
    print(f"   analyse  {analyse_s:6.1f} s  {n / analyse_s:9,.0f} attempts/s  ({thrash:,} thrash)")
    print(f"   both     {total:6.1f} s  {n / total:9,.0f} attempts/s")


def _big_patch(rng: random.Random, size: int) -> list[str]:
    lines: list[str] = []
    while sum(len(line) + 1 for line in lines) < size:
        lines.append(f"+\t{_snake(rng)} := {_camel(rng)}(ctx, {rng.randrange(10**4)}) // {_w(rng)}")
    return lines


def bench_patch_ratio(n_pairs: int, nojunk: int, size: int = 20_000, seed: int = 3) -> None:
    """rapidfuzz ratio against difflib SequenceMatcher.ratio on pairs of ~20 KB patches (and,
    on the first ``nojunk`` pairs, against SequenceMatcher without its autojunk heuristic,
    which difflib applies to any text over 200 characters and which is very slow to turn off)."""
    rng = random.Random(seed)
    pairs: list[tuple[str, str, str]] = []
    for k in range(n_pairs):
        before = _big_patch(rng, size)
        if k % 2 == 0:  # refined: a few lines changed, a few added
            after = list(before)
            for _ in range(10):
                after[rng.randrange(len(after))] = f"+\tfixed := {_camel(rng)}()"
            after += _big_patch(rng, 500)
            kind = "refined"
        else:  # rewritten
            after = _big_patch(rng, size)
            kind = "rewritten"
        pairs.append((kind, "\n".join(before), "\n".join(after)))
    rf_times, dl_times, rf_vals, dl_vals = [], [], [], []
    for _, a, b in pairs:
        started = time.perf_counter()
        rf_vals.append(fuzz.ratio(a, b) / 100)
        rf_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        dl_vals.append(difflib.SequenceMatcher(None, a, b).ratio())
        dl_times.append(time.perf_counter() - started)
    rf_ms, dl_ms = statistics.mean(rf_times) * 1e3, statistics.mean(dl_times) * 1e3
    kb = statistics.mean(len(a) for _, a, _ in pairs) / 1e3
    print(f"3. patch similarity on {n_pairs} pairs of {kb:.0f} KB patches")
    print(f"   rapidfuzz fuzz.ratio          {rf_ms:8.2f} ms/pair")
    print(f"   difflib SequenceMatcher.ratio {dl_ms:8.2f} ms/pair")
    print(f"   time ratio rapidfuzz / difflib {rf_ms / dl_ms:.4f} ({dl_ms / rf_ms:,.0f}x faster)")
    for kind in ("refined", "rewritten"):
        idx = [i for i, p in enumerate(pairs) if p[0] == kind]
        rf = statistics.mean(rf_vals[i] for i in idx)
        dl = statistics.mean(dl_vals[i] for i in idx)
        gap = max(abs(rf_vals[i] - dl_vals[i]) for i in idx)
        print(
            f"   {kind:9} value: rapidfuzz {rf:.3f}, difflib {dl:.3f}, "
            f"ratio {rf / dl:.3f}, max |diff| {gap:.3f}"
        )
    for kind, a, b in pairs[:nojunk]:
        started = time.perf_counter()
        exact = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
        seconds = time.perf_counter() - started
        print(
            f"   {kind:9} difflib autojunk=False: {exact:.3f} in {seconds:.1f} s"
            f" (rapidfuzz {fuzz.ratio(a, b) / 100:.3f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--outputs", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=1_000)
    parser.add_argument("--attempts", type=int, default=50)
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--nojunk", type=int, default=2, help="pairs also run without autojunk")
    args = parser.parse_args()
    bench_normalise(args.outputs)
    bench_archive(args.runs, args.attempts)
    bench_patch_ratio(args.pairs, args.nojunk)


if __name__ == "__main__":
    main()
