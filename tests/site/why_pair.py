"""A pair whose candidate broke, with every word the why panel shows (P18): the goal (long,
so it folds, and titles the runs), the scorer's reason, final answers (one with a script in it), an error
step, a long step and short steps. For the pair page tests and the --explain CLI test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GOAL = "Answer the customer's question about refunds.\n" + "".join(
    f"Rule {n}: be exact about the policy.\n" for n in range(1, 13)
)
SCORER = "Expected 30 days (policy §4); the answer says 60 days."
SCRIPT = "<script>alert(1)</script>"
BASE_ANSWER = "Refunds are issued within 30 days of the request."
CAND_ANSWER = f"Refunds are issued within 60 days of the request. {SCRIPT}"
ERROR = "PolicyNotFound: refunds.md"
LONG = "policy text " * 40  # 480 characters: its step stays folded


def _step(action: str, output: Any, status: str = "ok", **extra: Any) -> dict[str, Any]:
    return {"type": "tool", "action": action, "input": {"q": action}, "output": output,
            "status": status, "latency_ms": 10, **extra}  # fmt: skip


def runs() -> list[dict[str, Any]]:
    """The baseline (passed) and candidate (failed) runs of task ``refund-question``."""
    base = {
        "run_id": "2026-11-28/refund/baseline", "task_id": "refund-question",
        "label": "baseline", "suite": "support", "batch": "2026-11-28",
        "started_at": "2026-11-28T02:00:00Z", "success": True, "reward": 1.0,
        "output": BASE_ANSWER, "meta": {"goal": GOAL, "scorer": "Correct: 30 days."},
        "steps": [_step("read_file", "ok"), _step("search_docs", LONG), _step("answer", "sent")],
    }  # fmt: skip
    cand = {
        **base,
        "run_id": "2026-11-28/refund/candidate", "label": "candidate", "success": False,
        "reward": 0.0, "output": CAND_ANSWER,
        "meta": {"goal": GOAL, "scorer": SCORER},
        "steps": [_step("read_file", "ok"), _step("open_policy", None, "error", error=ERROR),
                  _step("search_docs", LONG), _step("answer", "sent")],
    }  # fmt: skip
    return [base, cand]


def write_traces(folder: Path) -> Path:
    """The two runs as a trace v1 .jsonl file in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "refund.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in runs()), encoding="utf-8")
    return path
