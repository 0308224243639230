"""Regenerate the bundled sample runs (seeded, so the output never changes).

    python sample_runs/generate.py

One suite ("nightly"), 12 tasks, labels baseline and candidate over 6 nights, three tasks
repeated 5 times per night (for convergence), and the iteration records of two coding loops on
the same backlog: one converging, one thrashing. The candidate regresses from the fourth night:
a stagnant search loop on fix-login, an abandoned migration step, more tool errors, and a
pricier model."""

from __future__ import annotations

import gzip
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20261128
NIGHTS = [f"2026-11-{day:02d}" for day in range(23, 29)]
REPEATED = {"summarize-incident": 5, "answer-billing-question": 5, "triage-bug-report": 5}

# task -> the steps a clean run takes: (type, action, input)
PLANS: dict[str, list[tuple[str, str, dict[str, object]]]] = {
    "fix-login": [
        ("llm", "plan", {"goal": "fix login redirect"}),
        ("tool", "search_code", {"query": "def login"}),
        ("tool", "read_file", {"path": "app/auth.py"}),
        ("tool", "edit_file", {"path": "app/auth.py", "diff": "redirect fix"}),
        ("tool", "run_tests", {"target": "tests/test_auth.py"}),
        ("llm", "summarize", {"style": "pr"}),
    ],
    "add-pagination": [
        ("llm", "plan", {"goal": "paginate /orders"}),
        ("tool", "read_file", {"path": "api/orders.py"}),
        ("tool", "edit_file", {"path": "api/orders.py", "diff": "limit/offset"}),
        ("tool", "edit_file", {"path": "tests/test_orders.py", "diff": "page tests"}),
        ("tool", "run_tests", {"target": "tests/test_orders.py"}),
        ("llm", "summarize", {"style": "pr"}),
    ],
    "migrate-db": [
        ("llm", "plan", {"goal": "add index to events"}),
        ("tool", "read_file", {"path": "db/schema.sql"}),
        ("tool", "write_file", {"path": "db/migrations/0042.sql", "content": "CREATE INDEX"}),
        ("tool", "run_command", {"cmd": "make migrate"}),
        ("tool", "run_tests", {"target": "tests/db"}),
        ("llm", "summarize", {"style": "pr"}),
    ],
    "refactor-config": [
        ("llm", "plan", {"goal": "split settings module"}),
        ("tool", "read_file", {"path": "app/settings.py"}),
        ("tool", "write_file", {"path": "app/settings/base.py", "content": "..."}),
        ("tool", "write_file", {"path": "app/settings/prod.py", "content": "..."}),
        ("tool", "run_tests", {"target": "tests"}),
    ],
    "update-dependencies": [
        ("tool", "run_command", {"cmd": "pip list --outdated"}),
        ("tool", "edit_file", {"path": "requirements.txt", "diff": "bumps"}),
        ("tool", "run_tests", {"target": "tests"}),
        ("llm", "summarize", {"style": "changelog"}),
    ],
    "write-release-notes": [
        ("tool", "run_command", {"cmd": "git log v1.4..HEAD"}),
        ("llm", "draft", {"audience": "users"}),
        ("llm", "review", {"checklist": "tone"}),
    ],
    "summarize-incident": [
        ("tool", "fetch_url", {"url": "https://status.example/incidents/812"}),
        ("tool", "search_logs", {"query": "level:error service:payments", "since": "24h"}),
        ("llm", "summarize", {"style": "postmortem"}),
    ],
    "answer-billing-question": [
        ("tool", "lookup_customer", {"email": "ana@example.com"}),
        ("tool", "list_invoices", {"customer_id": "c_1042"}),
        ("llm", "answer", {"tone": "friendly"}),
    ],
    "triage-bug-report": [
        ("tool", "read_issue", {"number": 3141}),
        ("tool", "search_code", {"query": "ZeroDivisionError"}),
        ("llm", "classify", {"labels": ["bug", "needs-info", "duplicate"]}),
    ],
    "review-pull-request": [
        ("tool", "read_diff", {"pr": 77}),
        ("tool", "run_tests", {"target": "tests"}),
        ("llm", "review", {"checklist": "security"}),
    ],
    "plan-sprint": [
        ("tool", "list_issues", {"milestone": "Q1"}),
        ("llm", "plan", {"goal": "two-week sprint"}),
    ],
    "translate-docs": [
        ("tool", "read_file", {"path": "docs/intro.md"}),
        ("llm", "translate", {"to": "de"}),
        ("tool", "write_file", {"path": "docs/de/intro.md", "content": "..."}),
    ],
}

ANSWERS = {
    "summarize-incident": [
        "Payments API returned 502s for 14 minutes after a bad config push; rolled back at 02:31 UTC.",
        "Payments API returned 502s for 14 minutes after a bad config push; rolled back at 02:31 UTC.",
        "A config push broke the payments API (502s, 14 min). Rollback fixed it.",
    ],
    "answer-billing-question": [
        "Your March invoice includes a prorated seat added on 12 March, which is why it is higher.",
        "Your March invoice includes a prorated seat added on 12 March, which is why it is higher.",
        "The extra charge is a seat added mid-month (12 March), billed pro rata.",
    ],
    "triage-bug-report": ["bug", "bug", "needs-info", "Bug"],
}

PRICE = {"baseline": (2.5e-6, 10e-6), "candidate": (3.0e-6, 12e-6)}  # USD per token in, out


def _output(rng: random.Random, step_type: str, action: str, status: str) -> str:
    if status == "error":
        return rng.choice(
            [
                "TimeoutError: tool did not answer in 30s",
                "HTTP 503 from upstream",
                "FileNotFoundError",
            ]
        )
    if status == "abandoned":
        return "gave up: migration lock held by another process"
    if step_type == "llm":
        return f"{action} done"
    return rng.choice(["ok", "3 matches", "42 lines", "all tests passed", "done"])


def _step(
    rng: random.Random,
    label: str,
    step_type: str,
    action: str,
    data: dict[str, object],
    status: str,
    clock: datetime,
    output: str | None = None,
) -> tuple[dict[str, object], datetime]:
    llm = step_type == "llm"
    tokens_in = rng.randint(800, 3000) if llm else rng.randint(60, 400)
    tokens_out = rng.randint(150, 700) if llm else rng.randint(10, 60)
    price_in, price_out = PRICE[label]
    latency = rng.randint(900, 4200) if llm else rng.randint(40, 1500)
    if status == "error":
        latency += rng.randint(2000, 8000)
    step = {
        "type": step_type,
        "action": action,
        "input": data,
        "output": output if output is not None else _output(rng, step_type, action, status),
        "status": status,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "cost_usd": round(tokens_in * price_in + tokens_out * price_out, 6),
        "latency_ms": latency,
        "started_at": clock.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
    }
    return step, clock + timedelta(milliseconds=latency + rng.randint(5, 80))


def make_run(
    rng: random.Random, night_no: int, night: str, label: str, task: str, trial: int
) -> dict[str, object]:
    """One run: the task's plan, perturbed by label, night and chance."""
    start = datetime.fromisoformat(night).replace(hour=2, tzinfo=UTC)
    clock = start + timedelta(minutes=rng.randint(0, 50), seconds=rng.randint(0, 59))
    started = clock
    regressed = label == "candidate" and night_no >= 3
    error_rate = 0.22 if regressed else 0.06
    steps: list[dict[str, object]] = []
    for step_type, action, data in PLANS[task]:
        if step_type == "tool" and rng.random() < error_rate:
            # an error, then a retry of the same call (recovery), sometimes via a detour
            step, clock = _step(rng, label, step_type, action, data, "error", clock)
            steps.append(step)
            if rng.random() < 0.5:
                step, clock = _step(
                    rng, label, "tool", "check_status", {"service": action}, "ok", clock
                )
                steps.append(step)
            step, clock = _step(
                rng, label, step_type, action, data, "retry", clock, output="ok (retried)"
            )
            steps.append(step)
            step, clock = _step(rng, label, step_type, action, data, "ok", clock)
            steps.append(step)
            continue
        if regressed and task == "fix-login" and action == "search_code":
            for _ in range(3):  # the same search, three times, same answer: a stagnant loop
                step, clock = _step(
                    rng, label, step_type, action, data, "ok", clock, output="0 matches"
                )
                steps.append(step)
            continue
        if regressed and task == "migrate-db" and action == "run_command":
            step, clock = _step(rng, label, step_type, action, data, "abandoned", clock)
            steps.append(step)
            step, clock = _step(
                rng,
                label,
                "tool",
                "run_command",
                {"cmd": "make migrate", "force": True},
                "ok",
                clock,
            )
            steps.append(step)
            continue
        step, clock = _step(rng, label, step_type, action, data, "ok", clock)
        steps.append(step)
    if label == "candidate" and task == "add-pagination":
        extra, clock = _step(rng, label, "tool", "run_linter", {"target": "api"}, "ok", clock)
        steps.insert(len(steps) - 1, extra)
    run: dict[str, object] = {
        "run_id": f"{night}/{task}/{label}" + (f"/t{trial}" if task in REPEATED else ""),
        "task_id": task,
        "label": label,
        "suite": "nightly",
        "batch": night,
        "trial": trial,
        "started_at": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "meta": {
            "model": "m-1" if label == "baseline" else "m-1.5-preview",
            "git_sha": f"{rng.getrandbits(28):07x}",
            "notes": "Candidate switches to **m-1.5-preview**."
            if label == "candidate" and night_no == 3
            else None,
        },
        "steps": steps,
    }
    if task in ANSWERS:
        choices = ANSWERS[task]
        weights = (
            [6, 3, 1, 1][: len(choices)] if label == "baseline" else [2, 2, 3, 3][: len(choices)]
        )
        run["output"] = rng.choices(choices, weights=weights)[0]
    else:
        run["output"] = f"{task}: done"
    run["success"] = all(s["status"] != "abandoned" for s in steps) and rng.random() > (
        0.25 if regressed else 0.08
    )
    return run


BACKLOG = [
    "parse-config",
    "load-users",
    "auth-middleware",
    "rate-limit",
    "audit-log",
    "metrics-endpoint",
]


def iteration_records(rng: random.Random, run_id: str, thrashing: bool) -> list[dict[str, object]]:
    """One coding loop over the backlog; the thrashing one is stuck on auth-middleware."""
    records: list[dict[str, object]] = []
    iteration = 0
    for number, step in enumerate(BACKLOG):
        failing = sorted(
            f"go:app/{step}::Test{step.title().replace('-', '')}{k}"
            for k in range(rng.randint(2, 5))
        )
        stuck = thrashing and step == "auth-middleware"
        attempts = 9 if stuck else rng.randint(1, 3)
        patch = f"--- a/{step}.go\n+++ b/{step}.go\n+func {step.replace('-', '_')}() {{}}\n"
        for attempt in range(1, attempts + 1):
            iteration += 1
            if stuck:
                churn = ["go:app/auth-middleware::TestSessionExpiry"] if attempt % 2 else []
                failing = sorted(set(failing[:2]) | set(churn))
                patch += f"+// try {attempt}\n"
            else:
                keep = max(0, len(failing) - rng.randint(1, 3)) if attempt < attempts else 0
                failing = failing[:keep]
            certified = not failing
            records.append(
                {
                    "run": run_id,
                    "iter": iteration,
                    "step": step,
                    "attempt": attempt,
                    "check": "go test ./..." if number % 2 == 0 else "go build ./...",
                    "exit": 0 if certified else 1,
                    "secs": round(rng.uniform(4, 40), 2),
                    "failing": failing,
                    "n_failing": len(failing),
                    "patch_lines": patch.count("\n"),
                    "patch": patch,
                    "tool_calls": rng.randint(3, 12),
                    "tool_errors": (attempt // 2 if stuck else rng.randint(0, 1)),
                    "tokens_in": rng.randint(9000, 30000),
                    "tokens_out": rng.randint(800, 4000),
                    "usd": round(rng.uniform(0.05, 0.3), 4),
                    "certified": certified,
                }
            )
            if stuck and attempt == attempts:
                break
        if stuck:
            break
    return records


def main() -> None:
    rng = random.Random(SEED)
    for night_no, night in enumerate(NIGHTS):
        folder = HERE / "nightly" / night
        folder.mkdir(parents=True, exist_ok=True)
        for label in ("baseline", "candidate"):
            runs = [
                make_run(rng, night_no, night, label, task, trial)
                for task in PLANS
                for trial in range(REPEATED.get(task, 1))
            ]
            lines = "".join(json.dumps(run, sort_keys=True) + "\n" for run in runs)
            path = folder / f"{label}.jsonl"
            if night == NIGHTS[0] and label == "baseline":
                with gzip.GzipFile(path.with_suffix(".jsonl.gz"), "wb", mtime=0) as handle:
                    handle.write(lines.encode())
            else:
                path.write_text(lines)
    folder = HERE / "iterations"
    folder.mkdir(exist_ok=True)
    for name, thrashing in (("backlog-converging", False), ("backlog-thrashing", True)):
        records = iteration_records(rng, f"2026-11-28/{name}", thrashing)
        (folder / f"{name}.jsonl").write_text(
            "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
        )


if __name__ == "__main__":
    main()
