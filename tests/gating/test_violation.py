"""One shape of "what failed" (P17): a pair gate, a label-level gate, the convergence gate and an
iteration gate all report a Violation, whose JSON names the gate, the metric, the value, the
threshold and where the threshold came from."""

from __future__ import annotations

from reportgen.convergence.gate import convergence_gate
from reportgen.gating import Threshold, judge
from reportgen.gating.verdict import Violation
from reportgen.iterations.gates import GateVerdict
from reportgen.statistics.summary import label_violations

FIELDS = {"gate", "metric", "value", "threshold", "source"}


def test_every_gate_reports_the_same_shape() -> None:
    pair = {
        "pair_id": "s/t/n",
        "candidate_loops": 2,
        "loops_detected": [
            {"side": "candidate", "stagnant": True},
            {"side": "candidate", "stagnant": True},
        ],
    }
    found = judge(pair, [Threshold("loops", 0.0, "--max-loops")]).violations
    label, _ = label_violations(
        [{"metric": "success_rate", "delta": -0.5}],
        [Threshold("success_drop", 5.0, "--max-success-drop")],
    )
    group = {
        "suite": "s",
        "label": "c",
        "task_id": "t",
        "batch": "n",
        "num_runs": 3,
        "convergence_score": 0.2,
    }
    converged = convergence_gate([group], 0.5, "--min-convergence")
    run = GateVerdict(
        "r",
        "max_tool_error_rate",
        False,
        0.5,
        0.1,
        "tool_error_rate 0.5 > 0.1",
        "--max-tool-error-rate",
    ).violation()
    assert run is not None and isinstance(run, Violation)
    shapes = [found[0], label[0], converged[0], run.to_dict()]
    for shape in shapes:
        assert set(shape) >= FIELDS, shape
    assert [s["gate"] for s in shapes] == [
        "loops",
        "success_drop",
        "convergence",
        "max_tool_error_rate",
    ]
    assert [s["source"] for s in shapes] == [
        "--max-loops",
        "--max-success-drop",
        "--min-convergence",
        "--max-tool-error-rate",
    ]
    assert converged[0]["num_runs"] == 3 and converged[0]["message"].startswith("s/c/t @ n")
