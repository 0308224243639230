"""Regenerate the bundled sample runs (seeded, so the output never changes).

    python sample_runs/generate.py

One suite ("nightly"), 12 tasks, labels baseline and candidate over 6 nights, three tasks
repeated 5 times per night (for convergence), and the iteration records of two coding loops on
the same backlog: one converging, one thrashing. The candidate regresses from the fourth night:
a stagnant search loop on fix-login, an abandoned migration step, more tool errors, and a
pricier model.

Every run says what it was asked and how it was judged: ``meta.goal`` (the task's goal),
``meta.scorer`` (the scorer's reason in words) and a final answer in ``output``. A run that
fails fails for a reason one can see on its page: it called a tool with a wrong argument
(FAILURES), got an error, and answered differently from a passing run; the candidate's
migrate-db skips the dry run from the fourth night, hits the migration lock and forces it."""

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
        ("tool", "run_command", {"cmd": "make migrate --dry-run"}),
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

GOALS = {
    "fix-login": "Users who log in are sent back to /login instead of /dashboard. Fix the "
    "redirect in app/auth.py and make tests/test_auth.py pass.",
    "add-pagination": "GET /orders returns every order at once. Add limit/offset pagination "
    "in api/orders.py, with tests.",
    "migrate-db": "Add an index on events.created_at as migration 0042. Dry-run it with "
    "make migrate --dry-run before applying it, then run tests/db.",
    "refactor-config": "Split app/settings.py into app/settings/base.py and prod.py without "
    "breaking the tests.",
    "update-dependencies": "Bump the outdated packages in requirements.txt and check that the "
    "tests still pass.",
    "write-release-notes": "Write the user-facing release notes for every change since v1.4 "
    "(git log v1.4..HEAD).",
    "summarize-incident": "Summarise incident 812 (payments API errors) for the postmortem, "
    "from its status page and the error logs.",
    "answer-billing-question": "ana@example.com asks why her March invoice is higher than "
    "February's. Answer her from her invoices.",
    "triage-bug-report": "Read issue 3141 (a ZeroDivisionError report) and label it bug, "
    "needs-info or duplicate.",
    "review-pull-request": "Review pull request 77 for security problems and say whether it can "
    "be merged.",
    "plan-sprint": "Plan a two-week sprint from the open issues of the Q1 milestone.",
    "translate-docs": "Translate docs/intro.md into German, as docs/de/intro.md.",
}

# The final answer of a passing run of the tasks without ANSWERS, and what the scorer expects.
PASSED = {
    "fix-login": "Fixed the login redirect in app/auth.py: users land on /dashboard; "
    "tests/test_auth.py passes.",
    "add-pagination": "Added limit/offset pagination to /orders in api/orders.py, with page "
    "tests; the tests pass.",
    "migrate-db": "Added migration 0042 (index on events.created_at): the dry run was clean, "
    "it is applied and tests/db pass.",
    "refactor-config": "Split app/settings.py into app/settings/base.py and prod.py; the tests "
    "pass.",
    "update-dependencies": "Bumped 6 outdated packages in requirements.txt; the tests pass.",
    "write-release-notes": "Release notes for v1.5: 14 changes since v1.4, grouped for users.",
    "review-pull-request": "Changes requested: the new /export endpoint of pull request 77 "
    "skips the auth check.",
    "plan-sprint": "Two-week sprint: 9 issues of the Q1 milestone, the login and export bugs "
    "first.",
    "translate-docs": "Translated docs/intro.md into German at docs/de/intro.md.",
}
EXPECTED = {
    "fix-login": "the redirect fixed in app/auth.py and tests/test_auth.py passing",
    "add-pagination": "limit/offset pagination in api/orders.py with the tests passing",
    "migrate-db": "migrate-db to run make migrate with --dry-run first",
    "refactor-config": "the settings split with the tests passing",
    "update-dependencies": "the bumps in requirements.txt with the tests passing",
    "write-release-notes": "notes covering git log v1.4..HEAD",
    "summarize-incident": "a summary of incident 812 from its status page and logs",
    "answer-billing-question": "ana@example.com's March invoice explained",
    "triage-bug-report": "issue 3141 labelled",
    "review-pull-request": "the missing auth check on /export in pull request 77 flagged",
    "plan-sprint": "a plan from the Q1 milestone's issues",
    "translate-docs": "the German translation at docs/de/intro.md",
}
# How a failing run of each task goes wrong: the tool it calls with a wrong argument (the
# first call of that action gets this input), the error it gets, its final answer (tasks
# without ANSWERS) and the scorer's words for it.
FAILURES: dict[str, tuple[str, dict[str, object], str, str | None, str]] = {
    "fix-login": ("read_file", {"path": "app/login.py"}, "FileNotFoundError: app/login.py",
                  "Could not find the login handler (app/login.py); nothing changed.",
                  "it read app/login.py, which does not exist, and changed nothing"),
    "add-pagination": ("edit_file", {"path": "api/order.py", "diff": "limit/offset"},
                       "FileNotFoundError: api/order.py",
                       "Added pagination to api/order.py.",
                       "it edited api/order.py, which does not exist"),
    "migrate-db": ("run_command", {"cmd": "make migrate"},
                   "refused: migration lock held; run make migrate --dry-run first",
                   "Migration 0042 was not applied: the migration lock was held.",
                   "it skipped the dry run and the migration was refused"),
    "refactor-config": ("run_tests", {"target": "test"},
                        "ERROR: file or directory not found: test",
                        "Split app/settings.py into base.py and prod.py (tests not run).",
                        "it ran the tests on 'test', which does not exist"),
    "update-dependencies": ("edit_file", {"path": "requirement.txt", "diff": "bumps"},
                            "FileNotFoundError: requirement.txt",
                            "Bumped 6 packages in requirement.txt.",
                            "it edited requirement.txt, which does not exist"),
    "write-release-notes": ("run_command", {"cmd": "git log v1.4"},
                            "fatal: ambiguous argument 'v1.4': unknown revision",
                            "No user-facing changes since v1.4.",
                            "it asked git for the unknown revision v1.4 and found no changes"),
    "summarize-incident": ("fetch_url", {"url": "https://status.example/incidents/821"},
                           "HTTP 404 from status.example", None,
                           "it fetched incident 821 (404) instead of 812"),
    "answer-billing-question": ("lookup_customer", {"email": "ana@example.org"},
                                "no customer with email ana@example.org", None,
                                "it looked up ana@example.org, who is not a customer"),
    "triage-bug-report": ("read_issue", {"number": 3114}, "HTTP 404: issue 3114 not found",
                          None, "it read issue 3114 (not found) instead of 3141"),
    "review-pull-request": ("read_diff", {"pr": 7}, "HTTP 404: pull request 7 not found",
                            "Looks good to me: no security problems found.",
                            "it asked for pull request 7 (not found) and approved without "
                            "reading the diff"),
    "plan-sprint": ("list_issues", {"milestone": "Q2"}, "no milestone named Q2",
                    "Sprint plan: no open issues to schedule.",
                    "it listed the issues of milestone Q2, which does not exist"),
    "translate-docs": ("write_file", {"path": "docs/intro.md", "content": "..."},
                       "PermissionError: docs/intro.md is read-only",
                       "Translated docs/intro.md into German in place.",
                       "it wrote over the English docs/intro.md instead of docs/de/intro.md"),
}  # fmt: skip
FORCED = (
    "Forced migration 0042 past the migration lock; no dry run, tests/db not checked.",
    "it ran make migrate without --dry-run, hit the migration lock and forced it",
)

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
            step, clock = _step(
                rng,
                label,
                step_type,
                action,
                {"cmd": "make migrate"},
                "abandoned",
                clock,
                output="gave up: migration lock held by another process (no dry run first)",
            )
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
            "goal": GOALS[task],
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
        run["output"] = PASSED[task]
    forced = any(s["status"] == "abandoned" for s in steps)
    run["success"] = not forced and rng.random() > (0.25 if regressed else 0.08)
    meta: dict[str, object] = run["meta"]  # type: ignore[assignment]
    if run["success"]:
        meta["scorer"] = f"pass: {EXPECTED[task]}"
    elif forced:
        run["output"] = FORCED[0]
        meta["scorer"] = f"fail: expected {EXPECTED[task]}; {FORCED[1]}"
    else:
        action, wrong, error, answer, why = FAILURES[task]
        step = next(s for s in steps if s["action"] == action)
        step.update(input=wrong, status="error", output=error)
        if answer is not None:
            run["output"] = answer
        meta["scorer"] = f"fail: expected {EXPECTED[task]}; {why}"
    return run


# The modernisation backlog both coding loops work through: (step, certifying check).
BACKLOG: list[tuple[str, str]] = [
    ("go-modules", "go build ./..."),
    ("drop-pkg-errors", "go vet ./..."),
    ("session-tokens", "go test ./..."),
    ("slog-logging", "go test ./..."),
    ("context-deadlines", "go test ./..."),
    ("stdlib-router", "go test ./..."),
    ("pgx-v5", "go test ./..."),
    ("config-env", "go test ./..."),
    ("generic-helpers", "go vet ./... && go test ./..."),
    ("tools-py312", "pytest -rA tools/tests"),
    ("otel-metrics", "go test ./..."),
    ("golangci-lint", "golangci-lint run ./..."),
]
MODULE = "example.com/shop"
GO_PACKAGES = [
    f"{MODULE}/{p}"
    for p in (
        "cmd/server",
        "internal/api",
        "internal/auth",
        "internal/config",
        "internal/http",
        "internal/logging",
        "internal/store",
        "internal/xslices",
    )
]


def _tests(package: str, *names: str) -> list[str]:
    return [f"go:{MODULE}/{package}::{name}" for name in names]


# What fails on a step before any attempt touches it (the same for both runs).
FAILING: dict[str, list[str]] = {
    "go-modules": [
        'go:cmd/server/main.go:could not import github.com/pkg/errors (no required module provides package "github.com/pkg/errors")',
        'go:internal/store/store.go:could not import github.com/lib/pq (no required module provides package "github.com/lib/pq")',
        'go:internal/config/load.go:could not import github.com/kelseyhightower/envconfig (no required module provides package "github.com/kelseyhightower/envconfig")',
    ],
    "drop-pkg-errors": [
        "go:internal/store/store.go:undefined: errors.Wrap",
        "go:internal/store/orders.go:undefined: errors.Wrapf",
        "go:internal/api/handlers.go:undefined: errors.Cause",
        "go:internal/api/handlers.go:fmt.Errorf format %w has arg msg of wrong type string",
    ],
    # the nine that never move in the stuck run
    "session-tokens": _tests(
        "internal/auth",
        "TestParseSessionToken",
        "TestParseSessionToken/expired_token",
        "TestParseSessionToken/bad_signature",
        "TestSessionRefresh",
        "TestSessionRevoke",
        "TestAuthMiddleware",
        "TestAuthMiddleware/rejects_expired",
        "TestAuthMiddleware/sets_user",
        "TestLogoutClearsCookie",
    ),
    "slog-logging": _tests(
        "internal/logging",
        "TestLoggerJSON",
        "TestRequestLog",
        "TestRequestLog/redacts_auth_header",
        "TestAccessLogFormat",
    ),
    "context-deadlines": _tests("internal/store", "TestQueryTimeout", "TestTxCancel"),
    "stdlib-router": _tests(
        "internal/http",
        "TestRoutes",
        "TestRoutes/GET_orders_id",
        "TestRoutes/POST_orders",
        "TestMethodNotAllowed",
        "TestPathValue",
    ),
    "pgx-v5": _tests(
        "internal/store", "TestStoreOrders", "TestStoreTx", "TestStoreTx/rollback", "TestMigrate"
    ),
    "config-env": _tests(
        "internal/config", "TestLoadEnv", "TestLoadEnv/missing_port", "TestDefaults"
    ),
    "generic-helpers": _tests("internal/xslices", "TestMapKeys", "TestFilter", "TestSortBy"),
    "tools-py312": [
        "pytest:tools/tests/test_release.py::test_changelog_sections",
        "pytest:tools/tests/test_release.py::test_bump_version[1.4.0-minor]",
        "pytest:tools/tests/test_release.py::test_bump_version[2.0.0rc1-patch]",
        "pytest:tools/tests/test_gen_openapi.py::test_schema_roundtrip",
        "pytest:tools/tests/test_gen_openapi.py::test_enum_names",
        "pytest:tools/tests/test_seed_db.py::test_seed_idempotent",
        "pytest:tools/tests/test_seed_db.py::TestFixtures::test_load_orders",
    ],
}
# Three failures the stuck run breaks in one attempt and clears in the next.
CHURN = [
    "go:internal/http/router.go:not enough arguments in call to auth.ParseSessionToken",
    *_tests("internal/api", "TestLoginHandler", "TestLoginHandler/valid_credentials"),
]
# n_failing per attempt of each step: the converging run shrinks every set to zero and is on
# its tenth step; the stuck run certifies two steps, then holds nine failures on step three
# (twelve on its fourth attempt there) until the budget is gone.
CONVERGING = [[0], [2, 0], [9, 5, 2, 0], [1, 0], [0], [3, 0], [2, 0], [0], [3, 1, 0], [7, 4, 2, 1]]
STUCK = [[3, 1, 0], [4, 3, 1, 0], [9, 9, 9, 12, *[9] * 11]]
# (run, iter) of the records that carry raw check output instead of failure ids
RAW_OUTPUT = {("stuck", 8), ("stuck", 11), ("stuck", 12), ("stuck", 22), ("converging", 6)}
TOTAL_TOKENS = 380_000
PRICE_IN, PRICE_OUT = 3e-6, 15e-6  # USD per token

# Small coherent edits a patch is made of ({v} variable, {f} function, {a} argument, {n} number).
_GO_EDITS = [
    [
        "-\t{v} := {f}({a})",
        "+\t{v}, err := {f}(ctx, {a})",
        "+\tif err != nil {{",
        '+\t\treturn nil, fmt.Errorf("{f}: %w", err)',
        "+\t}}",
    ],
    ["+\tctx, cancel := context.WithTimeout(ctx, {n}*time.Second)", "+\tdefer cancel()"],
    ['-\tlog.Printf("{f}: %v", {v})', '+\tslog.DebugContext(ctx, "{f}", "id", {a})'],
    ["+\tif {v}.ExpiresAt.Before(s.clock.Now()) {{", "+\t\treturn nil, ErrExpired", "+\t}}"],
    ["+\t// {f} must not outlive the request: see {a}"],
    ["-\tif {v} == nil {{", "+\tif {v} == nil || {v}.Revoked {{"],
    ["+\tdefer {v}.Close()"],
    ['+\t{v}.Set("{a}", strconv.Itoa({n}))'],
]
_NAMES = ["tok", "sess", "claims", "row", "cfg", "req", "key", "user", "tx", "cookie"]
_FUNCS = [
    "parseSessionToken",
    "lookupSession",
    "verifySignature",
    "refreshToken",
    "loadUser",
    "newStore",
    "withTx",
    "readClaims",
    "signCookie",
    "rotateKey",
]
_ARGS = ["raw", "id", "r.Header", "s.secret", "now", "opts", "name", "req.Context()"]
_FILES = {
    "go-modules": ["go.mod", "cmd/server/main.go"],
    "drop-pkg-errors": ["internal/store/store.go", "internal/api/handlers.go"],
    "session-tokens": [
        "internal/auth/session.go",
        "internal/auth/middleware.go",
        "internal/auth/cookie.go",
    ],
    "tools-py312": ["tools/release.py", "tools/gen_openapi.py"],
}


def _hunk(rng: random.Random, lines: int) -> list[str]:
    """One diff hunk of about ``lines`` changed lines of Go, made of small coherent edits."""
    body: list[str] = []
    while len(body) < lines:
        edit = rng.choice(_GO_EDITS)
        words = {
            "v": rng.choice(_NAMES),
            "f": rng.choice(_FUNCS),
            "a": rng.choice(_ARGS),
            "n": rng.randint(2, 30),
        }
        body += [line.format(**words) for line in edit]
    removed = sum(1 for line in body if line.startswith("-"))
    start = rng.randint(10, 400)
    header = (
        f"@@ -{start},{removed + 3} +{start},{len(body) - removed + 3} @@"
        f" func (s *Store) {rng.choice(_FUNCS)}(ctx context.Context) error {{"
    )
    return [header, *body]


def _patch_text(step: str, hunks: list[list[str]]) -> str:
    """A unified diff of the step's files, the hunks spread over them in turn."""
    files = _FILES.get(step, [f"internal/{step.split('-')[0]}/{step.replace('-', '_')}.go"])
    text = []
    for k, name in enumerate(files):
        mine = hunks[k :: len(files)]
        if mine:
            text += [f"diff --git a/{name} b/{name}", f"--- a/{name}", f"+++ b/{name}"]
            text += [line for hunk in mine for line in hunk]
    return "\n".join(text) + "\n"


def _changed_lines(patch: str) -> int:
    return sum(
        1
        for line in patch.splitlines()
        if line.startswith(("+", "-")) and not line.startswith(("+++ ", "--- "))
    )


def _go_test_output(rng: random.Random, failing: list[str]) -> str:
    """`go test ./...` output naming ``failing`` (tests and build errors), with the durations,
    line numbers and addresses that change on every run."""
    tests: dict[str, list[str]] = {}
    builds: dict[str, list[str]] = {}
    for fid in failing:
        body = fid.removeprefix("go:")
        if "::" in body:
            package, name = body.split("::")
            tests.setdefault(package, []).append(name)
        else:
            path, message = body.split(":", 1)
            builds.setdefault(f"{MODULE}/{path.rsplit('/', 1)[0]}", []).append(
                f"{path}:{rng.randint(12, 300)}:{rng.randint(2, 40)}: {message}"
            )
    lines = []
    for package in GO_PACKAGES:
        if package in builds:
            lines.append(f"# {package} [{package}.test]")
            lines += builds[package]
            lines.append(f"FAIL\t{package} [build failed]")
        elif package in tests:
            for name in sorted(tests[package]):
                depth = name.count("/")
                lines.append(f"{'    ' * depth}--- FAIL: {name} ({rng.uniform(0, 0.4):.2f}s)")
                if depth or not any(t.startswith(f"{name}/") for t in tests[package]):
                    lines.append(
                        f"{'    ' * (depth + 1)}{package.rsplit('/', 1)[-1]}_test.go:"
                        f"{rng.randint(20, 240)}: got <nil>, want error"
                        f" (token at 0xc000{rng.getrandbits(24):06x})"
                    )
            lines.append("FAIL")
            lines.append(f"FAIL\t{package}\t{rng.uniform(0.01, 1.5):.3f}s")
        elif rng.random() < 0.5:
            lines.append(f"ok  \t{package}\t(cached)")
        else:
            lines.append(f"ok  \t{package}\t{rng.uniform(0.01, 0.9):.3f}s")
    lines.append("FAIL")
    return "\n".join(lines) + "\n"


def _pytest_output(rng: random.Random, failing: list[str]) -> str:
    """`pytest -rA` output naming ``failing``, with a temp dir, seed and timings of its own."""
    names = [fid.removeprefix("pytest:") for fid in failing]
    passed = [
        "tools/tests/test_release.py::test_tag_name",
        "tools/tests/test_seed_db.py::test_connect",
    ]
    tmp = f"/tmp/pytest-of-ci/pytest-{rng.randint(3, 400)}"
    lines = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0",
        "rootdir: /home/ci/work/shop",
        "configfile: pyproject.toml",
        "plugins: randomly-3.15.0",
        f"Using --randomly-seed={rng.getrandbits(32)}",
        f"collected {len(names) + len(passed)} items",
        "",
        "=================================== FAILURES ===================================",
    ]
    for name in names:
        test = name.split("::")[-1]
        lines += [
            f"{'_' * 20} {test} {'_' * 20}",
            "",
            f"tmp_path = PosixPath('{tmp}/{test[:30]}0')",
            ">       assert load(tmp_path / 'out.json') == expected",
            f"E       AssertionError: assert {{'at': '2026-11-28T0{rng.randint(0, 9)}:1{rng.randint(0, 9)}:00Z'}} == {{}}",
            "",
            f"{name.split('::')[0]}:{rng.randint(10, 200)}: AssertionError",
        ]
    lines.append("==================================== PASSES ====================================")
    lines.append("=========================== short test summary info ============================")
    lines += [f"PASSED {name}" for name in passed]
    lines += [f"FAILED {name} - AssertionError: assert {{...}} == {{}}" for name in names]
    lines.append(
        f"========== {len(names)} failed, {len(passed)} passed in {rng.uniform(2, 9):.2f}s =========="
    )
    return "\n".join(lines) + "\n"


def _split_tokens(rng: random.Random, weights: list[float]) -> list[tuple[int, int]]:
    """Split TOTAL_TOKENS over the attempts in proportion to ``weights``: (in, out) each."""
    totals = [round(TOTAL_TOKENS * w / sum(weights)) for w in weights]
    totals[-1] += TOTAL_TOKENS - sum(totals)
    pairs = []
    for total in totals:
        out = round(total * rng.uniform(0.07, 0.13))
        pairs.append((total - out, out))
    return pairs


def iteration_records(rng: random.Random, run_id: str, stuck: bool) -> list[dict[str, object]]:
    """One coding loop over BACKLOG, as the seed tells it. Both runs spend TOTAL_TOKENS in 22
    iterations. The converging one certifies nine steps, each failing set shrinking and each
    patch smaller than the last; the stuck one certifies two, then holds the same nine failures
    on session-tokens while its patch grows, its tool errors climb and its attempts cost more."""
    plan = STUCK if stuck else CONVERGING
    kind = "stuck" if stuck else "converging"
    steps = [(BACKLOG[k], counts) for k, counts in enumerate(plan)]
    n_iters = sum(len(counts) for _, counts in steps)
    weights: list[float] = []
    for (step, _), counts in steps:
        for attempt in range(len(counts)):
            thrashing = stuck and step == "session-tokens"
            weights.append(
                17_000 + 600 * attempt
                if thrashing
                else rng.uniform(6_500, 11_000)
                if stuck
                else rng.uniform(13_000, 21_000)
            )
    tokens = _split_tokens(rng, weights)
    records: list[dict[str, object]] = []
    iteration = 0
    for (step, check), counts in steps:
        thrashing = stuck and step == "session-tokens"
        universe = FAILING[step]
        if thrashing:  # starts near 190 changed lines, grows by about 22 an attempt
            hunks = [_hunk(rng, 18) for _ in range(10)]
        else:  # starts larger than it ends: each attempt drops a hunk
            hunks = [_hunk(rng, rng.randint(8, 16)) for _ in range(len(counts) + 2)]
        failing: list[str] = []
        for attempt, n in enumerate(counts, 1):
            iteration += 1
            if thrashing:
                failing = sorted(universe + (CHURN if n > len(universe) else []))
                if attempt > 1:
                    hunks.append(_hunk(rng, rng.randint(19, 25)))
                    old = hunks[rng.randrange(len(hunks) - 1)]  # and touches up an earlier one
                    old[-1] = (
                        f"+\t// retry {attempt}: {rng.choice(_FUNCS)} keeps {rng.choice(_ARGS)}"
                    )
            else:
                failing = sorted(rng.sample(failing or universe, n)) if n else []
                if attempt > 1:
                    hunks.pop(rng.randrange(len(hunks)))
            patch = _patch_text(step, hunks)
            certified = not failing
            tokens_in, tokens_out = tokens[iteration - 1]
            calls = rng.randint(8, 13) + (attempt // 3 if thrashing else 0)
            record: dict[str, object] = {
                "run": run_id,
                "iter": iteration,
                "step": step,
                "attempt": attempt,
                "check": check,
                "exit": 0 if certified else 1,
                "secs": round(rng.uniform(3, 9) if "pytest" in check else rng.uniform(14, 70), 2),
            }
            if (kind, iteration) in RAW_OUTPUT or step == "tools-py312":
                render = _pytest_output if step == "tools-py312" else _go_test_output
                record["output"] = render(rng, failing)
            else:
                record["failing"] = failing
                record["n_failing"] = len(failing)
                record["normaliser"] = "pytest" if step == "tools-py312" else "go"
            record.update(
                {
                    "patch_lines": _changed_lines(patch),
                    "patch": patch,
                    "tool_calls": calls,
                    "tool_errors": round(5 * (attempt - 1) / (len(counts) - 1))
                    if thrashing
                    else int(rng.random() < 0.2),
                    "tokens_in": tokens_in,
                    "tokens_out": tokens_out,
                    "usd": round(tokens_in * PRICE_IN + tokens_out * PRICE_OUT, 4),
                    "certified": certified,
                }
            )
            records.append(record)
    assert iteration == n_iters == 22
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
    for name, stuck in (("backlog-converging", False), ("backlog-thrashing", True)):
        records = iteration_records(rng, f"2026-11-28/{name}", stuck)
        (folder / f"{name}.jsonl").write_text(
            "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
        )


if __name__ == "__main__":
    main()
