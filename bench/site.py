"""Site benchmark: a seeded archive of 1,000 runs (100 tasks x 5 nights x 2 labels, ~100 steps
each), built into a static site from scratch, then again after one more night is ingested.

    python bench/site.py [--tasks 100] [--nights 5] [--steps 100] [--profile]

Prints the full build's seconds, the incremental build's seconds (and pages written/skipped),
their ratio, the site's total size, the largest page and the largest comparison page (HTML plus
the chart data files beside it; shared assets and data/ excluded), the search index's size and
the time from typing a word to its first result in Chromium (file://). Targets: full build under
60 s (goal 30), incremental under 10 s (goal 5), a comparison page under 300 KB. ``--profile``
writes a cProfile of each build to bench/_data/site-*.prof."""

from __future__ import annotations

import argparse
import cProfile
import json
import random
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from reportgen.ingest import ingest
from reportgen.site import BuildReport, build_site

DATA = Path(__file__).resolve().parent / "_data"
FIRST_NIGHT = datetime(2026, 11, 20, 2, 0, tzinfo=UTC)
BUILD_TIME = "2026-12-01T06:00:00Z"
TOOLS = [
    ("read_file", ("path",)),
    ("search_code", ("query",)),
    ("edit_file", ("path", "diff")),
    ("run_tests", ("target",)),
    ("run_command", ("cmd",)),
    ("list_dir", ("path",)),
]
LLM = ["plan", "reflect", "summarize", "draft"]
PRICE = {"baseline": (2.5e-6, 10e-6), "candidate": (3.0e-6, 12e-6)}
ERRORS = ["TimeoutError: tool did not answer in 30s", "HTTP 503 from upstream", "FileNotFoundError"]


def task_plan(rng: random.Random, n_steps: int) -> list[tuple[str, str, dict[str, Any]]]:
    """A task's clean path: ``n_steps`` (type, action, input) triples."""
    plan: list[tuple[str, str, dict[str, Any]]] = []
    for i in range(n_steps):
        if rng.random() < 0.2:
            plan.append(("llm", rng.choice(LLM), {"goal": f"step {i}", "context": "x" * 40}))
        else:
            action, keys = rng.choice(TOOLS)
            plan.append(("tool", action, {k: f"src/mod{rng.randint(1, 40)}/{k}.py" for k in keys}))
    return plan


def _step(
    rng: random.Random,
    label: str,
    kind: str,
    action: str,
    data: dict[str, Any],
    status: str,
    clock: datetime,
    output: str | None = None,
) -> tuple[dict[str, Any], datetime]:
    """One step with tokens, cost and latency in realistic ranges."""
    llm = kind == "llm"
    tokens_in = rng.randint(800, 3000) if llm else rng.randint(60, 400)
    tokens_out = rng.randint(150, 700) if llm else rng.randint(10, 60)
    price_in, price_out = PRICE[label]
    latency = (rng.randint(900, 4200) if llm else rng.randint(40, 1500)) + (
        rng.randint(2000, 8000) if status == "error" else 0
    )
    if output is None:
        if status == "error":
            output = rng.choice(ERRORS)
        elif llm:
            output = " ".join(
                rng.choice(["the", "fix", "test", "module", "passes", "edit"])
                for _ in range(rng.randint(20, 80))
            )
        else:
            output = "\n".join(
                f"line {k}: {'ok ' * rng.randint(1, 8)}" for k in range(rng.randint(1, 12))
            )
    step = {
        "type": kind, "action": action, "input": data, "output": output, "status": status,
        "tokens_in": tokens_in, "tokens_out": tokens_out,
        "cost_usd": round(tokens_in * price_in + tokens_out * price_out, 6),
        "latency_ms": latency,
        "started_at": clock.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
    }  # fmt: skip
    return step, clock + timedelta(milliseconds=latency + rng.randint(5, 80))


def make_run(
    rng: random.Random,
    plan: list[tuple[str, str, dict[str, Any]]],
    task: str,
    night: int,
    label: str,
) -> dict[str, Any]:
    """One run of ``task``: its plan with errors and retries, and (for the candidate from the
    third night on) more errors and a stagnant loop now and then."""
    day = FIRST_NIGHT + timedelta(days=night)
    clock = day + timedelta(minutes=rng.randint(0, 50), seconds=rng.randint(0, 59))
    started = clock
    regressed = label == "candidate" and night >= 2
    error_rate = 0.08 if regressed else 0.03
    steps: list[dict[str, Any]] = []
    for kind, action, data in plan:
        if rng.random() < 0.03:  # a detour this run takes
            detour, clock = _step(rng, label, "tool", "list_dir", {"path": "src"}, "ok", clock)
            steps.append(detour)
        if kind == "tool" and rng.random() < error_rate:
            step, clock = _step(rng, label, kind, action, data, "error", clock)
            steps.append(step)
            step, clock = _step(rng, label, kind, action, data, "retry", clock, "ok (retried)")
            steps.append(step)
        if regressed and action == "search_code" and rng.random() < 0.2:
            for _ in range(3):
                step, clock = _step(rng, label, kind, action, data, "ok", clock, "0 matches")
                steps.append(step)
            continue
        step, clock = _step(rng, label, kind, action, data, "ok", clock)
        steps.append(step)
    return {
        "run_id": f"{day:%Y-%m-%d}/{task}/{label}",
        "task_id": task,
        "label": label,
        "suite": "bench",
        "started_at": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "meta": {"model": "m-1" if label == "baseline" else "m-2", "git_sha": f"{rng.getrandbits(28):07x}"},
        "output": f"{task}: done",
        "success": rng.random() > (0.2 if regressed else 0.08),
        "steps": steps,
    }  # fmt: skip


def write_night(folder: Path, night: int, n_tasks: int, n_steps: int, seed: int) -> Path:
    """All runs of one night (both labels) as one JSONL file."""
    path = folder / f"night-{night}.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for t in range(n_tasks):
            plan = task_plan(random.Random(f"{seed}/plan/{t}"), n_steps)
            for label in ("baseline", "candidate"):
                rng = random.Random(f"{seed}/{night}/{t}/{label}")
                run = make_run(rng, plan, f"task-{t:03d}", night, label)
                handle.write(json.dumps(run) + "\n")
    return path


def folder_bytes(folder: Path) -> int:
    """Total size of the files under ``folder``."""
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def page_sizes(site: Path) -> dict[str, int]:
    """Each page's bytes: its HTML plus the chart data files written beside it."""
    manifest = json.loads((site / ".reportgen-manifest.json").read_text(encoding="utf-8"))
    return {
        page: sum((site / f).stat().st_size for f in entry["files"])
        for page, entry in manifest["pages"].items()
    }


def timed_build(db: Path, out: Path, profile: Path | None) -> tuple[float, float, BuildReport]:
    """Wall seconds, CPU seconds of this process (the machine may be shared) and report of
    one build (under cProfile when ``profile`` is given)."""
    profiler = cProfile.Profile() if profile else None
    cpu = time.process_time()
    started = time.perf_counter()
    if profiler:
        profiler.enable()
    report = build_site(db, out, build_time=BUILD_TIME)
    if profiler and profile:
        profiler.disable()
        profiler.dump_stats(profile)
    return time.perf_counter() - started, time.process_time() - cpu, report


def first_result_seconds(site: Path) -> float | None:
    """Seconds from typing a word into the index's search box to its first result, in a
    headless Chromium from file:// (None without /usr/bin/chromium or playwright)."""
    chromium = Path("/usr/bin/chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not chromium.exists():
        return None
    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update"]  # fmt: skip
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), headless=True, args=args)
        page = browser.new_page()
        page.goto((site / "index.html").as_uri(), wait_until="load")
        started = time.perf_counter()
        page.fill("#search-box", "search_code")
        page.wait_for_selector(".search-results li a", timeout=60_000)
        seconds = time.perf_counter() - started
        browser.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--nights", type=int, default=5)
    parser.add_argument("--steps", type=int, default=100, help="steps of a task's clean path")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    DATA.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "traces").mkdir()
        files = [
            write_night(tmp / "traces", n, args.tasks, args.steps, args.seed)
            for n in range(args.nights + 1)
        ]
        db = tmp / "bench.duckdb"
        started = time.perf_counter()
        loaded = ingest(files[:-1], db)
        counts = loaded.counts
        print(
            f"ingested {counts.get('runs', 0):,} runs, {counts.get('steps', 0):,} steps in {time.perf_counter() - started:.1f} s"
        )
        out = tmp / "site"
        prof = DATA / "site-full.prof" if args.profile else None
        full_s, full_cpu, full = timed_build(db, out, prof)
        sizes = page_sizes(out)
        total = folder_bytes(out)
        assets = folder_bytes(out / "assets") + folder_bytes(out / "data")
        ingest(files[-1:], db)
        prof = DATA / "site-incremental.prof" if args.profile else None
        inc_s, inc_cpu, inc = timed_build(db, out, prof)
        compare = {
            p: b
            for p, b in sizes.items()
            if p.startswith("compare/") and not p.endswith("/index.html")
        }
        big_page = max(sizes, key=lambda p: sizes[p])
        big_pair = max(compare, key=lambda p: compare[p])
        mean_pair = sum(compare.values()) / len(compare)
        print(
            f"\nsite of {full.pages:,} pages from {args.tasks} tasks x {args.nights} nights x 2 labels"
        )
        print(
            f"full build          {full_s:7.1f} s  (target < 60 s, goal 30; {full_cpu:.1f} s CPU)"
        )
        print(
            f"incremental build   {inc_s:7.1f} s  (target < 10 s, goal 5; {inc_cpu:.1f} s CPU): +1 night, {inc.pages:,} pages, {inc.written:,} written, {inc.skipped:,} unchanged"
        )
        print(f"incremental / full  {inc_s / full_s:7.2f}")
        print(
            f"site size           {total / 1e6:7.1f} MB  ({(total - assets) / 1e6:.1f} MB pages, {assets / 1e6:.1f} MB assets + data/)"
        )
        print(f"largest page        {sizes[big_page] / 1e3:7.0f} KB  {big_page}")
        print(
            f"largest comparison  {compare[big_pair] / 1e3:7.0f} KB  {big_pair} (target < 300 KB; mean {mean_pair / 1e3:.0f} KB)"
        )
        search = folder_bytes(out / "search")
        shards = len(list((out / "search").glob("w-*.js")))
        print(f"search index        {search / 1e6:7.1f} MB  in {shards} word shards")
        first = first_result_seconds(out)
        if first is not None:
            print(f"first search result {first:7.2f} s   (Chromium, file://, word 'search_code')")
        if args.profile:
            print(f"profiles in {DATA}/site-*.prof")
        shutil.rmtree(tmp / "traces")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
