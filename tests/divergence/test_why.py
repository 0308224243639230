"""The why of a pair (divergence/why.py), on a hand-built pair and runs: the goal, the
answers' word diff, the scorer's reason, the first error and the first divergence; and the
run titles (divergence/run_text.py)."""

from __future__ import annotations

import json
from typing import Any, cast

from reportgen.divergence.explain import why_lines
from reportgen.divergence.records import PairRecord
from reportgen.divergence.run_text import goal, title
from reportgen.divergence.textdiff import Piece
from reportgen.divergence.why import why
from reportgen.escape import term_text


def _step(
    action: str, status: str = "ok", error: str | None = None, output: Any = "ok"
) -> dict[str, Any]:
    return {"action": action, "status": status, "error": error, "output": output}


BASE = [_step("read_file"), _step("search"), _step("answer")]
CAND = [_step("read_file"), _step("run_tests", "error", output={"stderr": "E: 1 failed"}),
        _step("answer", error="refused: policy")]  # fmt: skip


def _pair() -> PairRecord:
    rows = [
        {"status": "matched", "baseline_index": 0, "candidate_index": 0, "action": "read_file",
         "baseline_step": BASE[0], "candidate_step": CAND[0]},
        {"status": "removed", "baseline_index": 1, "candidate_index": None, "action": "search",
         "baseline_step": BASE[1]},
        {"status": "added", "baseline_index": None, "candidate_index": 1, "action": "run_tests",
         "candidate_step": CAND[1]},
        {"status": "matched", "baseline_index": 2, "candidate_index": 2, "action": "answer",
         "baseline_step": BASE[2], "candidate_step": CAND[2]},
    ]  # fmt: skip
    return cast(
        PairRecord,
        {
            "pair_id": "p", "task_id": "t", "baseline_run_id": "b", "candidate_run_id": "c",
            "step_diffs": rows,
            "first_divergence": {"position": 1, "baseline_index": 1, "candidate_index": 1},
            "baseline_success": True, "candidate_success": False,
            "baseline_reward": 1.0, "candidate_reward": 0.0,
        },
    )  # fmt: skip


def _run(meta: dict[str, Any], output: str | None, **extra: Any) -> dict[str, Any]:
    return {"meta": json.dumps(meta), "output": output, **extra}


def test_the_why_of_a_broken_pair() -> None:
    base = _run({"goal": "Say how long refunds take.\nCite the policy."}, "Refunds take 30 days.")
    cand = _run(
        {"goal": "Say how long refunds take.\nCite the policy.", "scorer": "Expected 30 days."},
        "Refunds take 60 days.",
    )
    w = why(_pair(), base, cand)
    assert w.goal == "Say how long refunds take.\nCite the policy." and w.baseline_goal is None
    assert (w.baseline.outcome, w.candidate.outcome) == ("success", "failure")
    assert (w.baseline.reward, w.candidate.reward) == (1.0, 0.0)  # from the record
    assert w.candidate.scorer == "Expected 30 days." and w.baseline.scorer is None
    assert w.candidate.final_answer == "Refunds take 60 days."
    assert w.answers_diff is not None and w.answers_diff.kind == "diff"
    assert Piece("del", "30") in w.answers_diff.pieces
    assert Piece("ins", "60") in w.answers_diff.pieces
    d = w.first_divergence
    assert d is not None and (d.position, d.baseline_action, d.candidate_action) == (
        1, "search", "run_tests",
    )  # fmt: skip
    # the first failed step: status error without a message shows its output
    assert w.first_error is not None
    assert (w.first_error.side, w.first_error.index, w.first_error.action) == (
        "candidate", 1, "run_tests",
    )  # fmt: skip
    assert "E: 1 failed" in w.first_error.text
    assert w.baseline.first_error is None


def test_goals_that_differ_are_both_kept_and_the_prompt_stands_in() -> None:
    base = _run({"prompt": "fix the bug"}, None)
    cand = _run({"goal": "fix the bug properly"}, "done")
    w = why(_pair(), base, cand)
    assert (w.goal, w.baseline_goal) == ("fix the bug properly", "fix the bug")
    assert w.answers_diff is None and w.baseline.final_answer is None
    only_base = why(_pair(), base, _run({}, "done"))
    assert (only_base.goal, only_base.baseline_goal) == ("fix the bug", None)


def test_steps_given_as_rows_override_the_attached_ones() -> None:
    steps = [{"idx": 0, "action": "x", "status": "ok", "error": None, "output": None},
             {"idx": 1, "action": "y", "status": "retry", "error": "timeout", "output": None}]  # fmt: skip
    w = why(_pair(), _run({}, "a"), _run({}, "a"), steps, steps)
    assert w.first_error is not None and (w.first_error.index, w.first_error.text) == (1, "timeout")
    assert w.answers_diff is None  # the same answer


def test_the_why_in_words_and_no_agent_text_starts_a_line() -> None:
    hostile = "::error::pwned\n::warning::x\x1b[31m"
    cand = _run({"goal": hostile * 3, "scorer": hostile}, hostile)
    text = "\n".join(term_text(line) for line in why_lines(why(_pair(), _run({}, "fine"), cand)))
    lines = text.splitlines()  # as explain() prints them
    assert lines[0].startswith("Goal: ") and lines[1].startswith("  | ")
    assert any(
        line.startswith("Outcome: baseline success (reward 1), candidate failure") for line in lines
    )
    assert any(line.startswith("Scorer (candidate): ") for line in lines)
    assert any(line.startswith("First divergence (row 1): baseline #1 search") for line in lines)
    assert any(line.startswith("First error (candidate step #1 run_tests): ") for line in lines)
    assert not any(line.lstrip().startswith("::") for line in lines)
    assert "\x1b" not in text


def test_titles() -> None:
    assert title({"title": "Refund policy", "goal": "x"}) == "Refund policy"
    assert title(json.dumps({"goal": "\n  Fix the   login\nredirect"})) == "Fix the login"
    assert title({"prompt": "p" * 200}) == "p" * 79 + "…"
    assert title({}) is None and title(None) is None and title("not json") is None
    assert goal({"goal": "  ", "prompt": "asked"}) == "asked"


def test_a_run_the_infrastructure_ended_is_an_error_not_a_failure() -> None:
    pair = cast(
        PairRecord,
        {**_pair(), "candidate_success": None, "candidate_reward": None,
         "candidate_error_kind": "environment", "candidate_error_reason": "sandbox did not start"},
    )  # fmt: skip
    got = why(pair, _run({}, "Refunds take 30 days."), _run({}, None))
    assert got.baseline.outcome == "success" and got.baseline.infrastructure is None
    assert got.candidate.outcome == "error"
    assert got.candidate.infrastructure == "environment: sandbox did not start"
    assert (
        "Outcome: baseline success (reward 1), candidate error, not scored"
        " (environment: sandbox did not start)." in why_lines(got)
    )
