"""The Divergence cases of shared/conformance.md as data, shared by the metric tests.

Unless a case says otherwise every step is a ``tool_call`` with status ok, empty input and
output, 100 ms, 50 + 25 tokens and $0.001; run totals are the sums of the steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reportgen.divergence.reference import Run, Step


def step(
    action: str,
    *keys: str,
    type: str = "tool_call",
    status: str = "ok",
    input: dict[str, Any] | None = None,
) -> Step:
    """A conformance step: ``keys`` become input keys (value "v") unless ``input`` is given."""
    payload = dict(input) if input is not None else dict.fromkeys(keys, "v")
    return Step(
        type=type,
        action=action,
        input=payload,
        output={},
        status=status,
        tokens_in=50,
        tokens_out=25,
        cost_usd=0.001,
        latency_ms=100.0,
    )


def run(*steps: Step) -> Run:
    """A run whose totals are the sums of its steps, folded left to right like the SQL."""
    cost = 0.0
    latency = 0.0
    for s in steps:
        cost += s.cost_usd or 0.0
        latency += s.latency_ms or 0.0
    return Run(
        steps=steps,
        tokens_in=sum(s.tokens_in or 0 for s in steps),
        tokens_out=sum(s.tokens_out or 0 for s in steps),
        cost_usd=cost,
        latency_ms=latency,
    )


@dataclass(frozen=True)
class Case:
    """One conformance row: the pair and the numbers AgentDiff 0.3.0 (or DESIGN.md) expects."""

    name: str
    baseline: Run
    candidate: Run
    expected: dict[str, Any] = field(default_factory=dict)


def _agent_flow() -> list[Step]:
    return [
        step("planner", type="llm_call"),
        step("search_database", "state"),
        step("search_web", "query"),
        step("synthesize", type="llm_call"),
    ]


_FLOW = _agent_flow()
_PLANNER, _SDB, _SWEB, _SYNTH = _FLOW

CASES: list[Case] = [
    Case(
        "identical",
        run(*_FLOW),
        run(*_FLOW),
        {
            "tdi": 0.0,
            "wei": (0.0, 0.0),
            "loops": [],
            "diffs": ["matched"] * 4,
            "recovery": (0, 0),
            "rsr": 0.0,
            "deltas": 0.0,
        },
    ),
    Case(
        "repeated call",
        run(*_FLOW),
        run(_PLANNER, _SDB, _SDB, _SDB, _SWEB, _SYNTH),
        {
            "tdi": 0.2,
            "wei": (0.0, 0.0),
            "loops": [("candidate", 1, 1, 3, ["search_database"], True)],
            "diffs": ["matched", "added", "added", "matched", "matched", "matched"],
            "recovery": (0, 0),
            "rsr": 0.0,
            "deltas": 50.0,
        },
    ),
    Case(
        "error then retry",
        run(*_FLOW),
        run(_PLANNER, step("search_database", "state", status="error"), _SDB, _SYNTH),
        {
            "tdi": 0.25,
            "wei": (0.0, 0.25),
            "loops": [("candidate", 1, 1, 2, ["search_database"], True)],
            "diffs": ["matched", "modified", "removed", "added", "matched"],
            "recovery": (0, 2),
            "unrecovered": (0, 0),
            "rsr": 2.0,
            "deltas": 0.0,
        },
    ),
    Case(
        "detour",
        run(step("fetch"), step("query"), step("synthesize")),
        run(
            step("fetch"),
            step("query", status="error"),
            step("extra_check"),
            step("query"),
            step("synthesize"),
        ),
        {
            "tdi": 0.25,
            "wei": (0.0, 0.2),
            "loops": [],
            "diffs": ["matched", "added", "added", "matched", "matched"],
            "recovery": (0, 2),
            "unrecovered": (0, 0),
            "rsr": 2.0,
            "deltas": 66.6667,
        },
    ),
    Case(
        "keys differ",
        run(step("a", "x"), step("b")),
        run(step("a", "y"), step("b")),
        {"tdi": 0.5, "diffs": ["removed", "added", "matched"]},
    ),
    Case(
        "values differ",
        run(step("a", input={"x": 1}), step("b")),
        run(step("a", input={"x": 2}), step("b")),
        {"tdi": 0.0, "diffs": ["modified", "matched"]},
    ),
    Case(
        "type differs",
        run(step("a")),
        run(step("a", type="llm_call")),
        {"tdi": 1.0, "diffs": ["removed", "added"]},
    ),
    Case(
        "empty",
        run(),
        run(),
        {"tdi": 0.0, "wei": (0.0, 0.0), "rsr": 0.0, "loops": [], "diffs": [], "deltas": None},
    ),
    Case(
        "non-stagnant loop",
        run(step("a")),
        run(step("a", input={"q": 1}), step("b"), step("a", input={"q": 2}), step("b")),
        {
            "tdi": 1.0,
            "loops": [("candidate", 0, 2, 2, ["a", "b"], False)],
            "deltas": 300.0,
        },
    ),
    Case(
        "two recoveries",
        run(step("a"), step("q", status="error"), step("q"), step("s")),
        run(
            step("a"),
            step("q", status="error"),
            step("x"),
            step("y"),
            step("q"),
            step("s"),
        ),
        {
            "tdi": 0.2,
            "wei": (0.25, 1 / 6),
            "recovery": (1, 3),
            "unrecovered": (0, 0),
            "rsr": 3.0,
            "deltas": 50.0,
            # reportgen reports loops of both runs: the baseline's q!, q is a (stagnant) loop.
            "loops": [("baseline", 1, 1, 2, ["q"], True)],
        },
    ),
    Case(
        "unrecovered tail",
        run(step("a"), step("b")),
        run(step("a"), step("b", status="abandoned"), step("c"), step("d")),
        {
            "tdi": 1 / 3,
            "wei": (0.0, 0.25),
            "recovery": (0, 2),
            "unrecovered": (0, 2),
            "rsr": 2.0,
            "deltas": 100.0,
        },
    ),
]
