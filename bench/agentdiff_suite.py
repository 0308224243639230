"""Run AgentDiff's own tests against reportgen: a thin adapter, not part of the test suite.

AgentDiff 0.3.0's sdist ships no tests; its repository does. Put the test files of the
features reportgen has (``conftest.py``, ``test_aligner.py``, ``test_metrics.py``,
``test_loop_detector.py``, ``test_comparator.py``, ``test_recovery_steps.py``,
``test_edge_cases.py``; from the AgentDiff repository) in a folder, then:

    PYTHONPATH=. .venv/bin/python bench/agentdiff_suite.py FOLDER

The tests run twice in reportgen's interpreter, with AgentDiff 0.3.0's package (its
pydantic models, the tests' fixtures and assertions) importable from
``$REPORTGEN_REF_AGENTDIFF_PYTHON``'s site-packages:

1. *control*: AgentDiff's own engine, unpatched. A test that fails here was written for
   another AgentDiff version than the one installed; it is not counted against reportgen.
2. *reportgen*: the engine functions the tests call (``align_traces``, ``compare``,
   ``calculate_tdi``, ``calculate_wei``, ``compute_recovery_steps``,
   ``calculate_recovery_step_ratio``, ``detect_sequence_loops``, ``detect_graph_cycles``,
   ``detect_all_loops``, ``dict_diff``, ``step_signature``) are replaced by adapters that turn
   AgentDiff's traces into reportgen runs and compute with reportgen (the archive path: SQL
   plus the compiled kernels, via ``insert_runs`` and ``pair_metrics``), then turn the results
   back into AgentDiff's report objects. AgentDiff's assertion helpers (``assert_no_regressions``)
   stay AgentDiff's: they only read the report.

It prints, per test, both outcomes, and the counts. docs/agentdiff-parity.md lists the
deliberate differences the reportgen-only failures come from.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _ref_site_packages() -> str:
    python = os.environ.get("REPORTGEN_REF_AGENTDIFF_PYTHON", "/work/refvenv-diff/bin/python")
    out = subprocess.run(
        [
            python,
            "-c",
            "import agentdiff, os; print(os.path.dirname(os.path.dirname(agentdiff.__file__)))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


# --------------------------------------------------------------------------- the adapters


def _install() -> None:
    """Replace AgentDiff's engine functions by reportgen-backed adapters (in every module
    that re-exports them), before the test modules import them."""
    import math

    import agentdiff
    import agentdiff.engine as engine
    from agentdiff.engine import aligner, comparator, loop_detector, metrics
    from agentdiff.models.report import DiffReport, StepDiff, StepDiffStatus
    from agentdiff.models.trace import AgentTrace

    from reportgen.archive import connect
    from reportgen.divergence import reference as ref
    from reportgen.divergence.metrics import Pair, insert_runs, pair_metrics

    def to_run(trace: AgentTrace, label: str) -> tuple[Any, list[Any]]:
        """reportgen's run of an AgentDiff trace, as the AgentDiff adapter reads a file: steps
        in step_index order, parents by id, duplicate ids refused, a 0 run total not given."""
        steps = sorted(trace.steps, key=lambda s: s.step_index)
        place: dict[str, int] = {}
        for k, s in enumerate(steps):
            if s.step_id in place:
                raise ValueError(f"duplicate step_id {s.step_id!r} in the {label} trace")
            place[s.step_id] = k
        run_steps = []
        for s in steps:
            t = s.tokens
            t_in, t_out = t.prompt_tokens, t.completion_tokens
            if not t_in and not t_out and t.total_tokens:
                t_in, t_out = t.total_tokens, 0
            run_steps.append(
                ref.Step(
                    type=s.step_type.value,
                    action=s.name,
                    input=s.input_payload,
                    output=s.output_payload,
                    status=s.status.value,
                    tokens_in=t_in,
                    tokens_out=t_out,
                    cost_usd=t.estimated_cost_usd,
                    latency_ms=s.latency_ms,
                    parent=None if s.parent_id is None else place.get(s.parent_id),
                )
            )
        tot = trace.total_tokens
        t_in, t_out = tot.prompt_tokens, tot.completion_tokens
        if not t_in and not t_out and tot.total_tokens:
            t_in, t_out = tot.total_tokens, 0
        run = ref.Run(
            tuple(run_steps),
            tokens_in=t_in or None,
            tokens_out=None if not t_in and not t_out else t_out,
            cost_usd=tot.estimated_cost_usd or None,
            latency_ms=trace.total_latency_ms or None,
        )
        return run, steps

    def archived(b: Any, c: Any) -> dict[str, Any]:
        con = connect()
        try:
            insert_runs(con, {"b": b, "c": c})
            return dict(pair_metrics(con, [Pair("p", "t", "b", "c")])[0])
        finally:
            con.close()

    def report(baseline: AgentTrace, candidate: AgentTrace, detect_loops: bool = True,
               strict_tool_signatures: bool = False) -> DiffReport:  # fmt: skip
        if strict_tool_signatures:
            raise NotImplementedError("reportgen has no strict_tool_signatures")
        b, b_steps = to_run(baseline, "baseline")
        c, c_steps = to_run(candidate, "candidate")
        got = archived(b, c)
        rows = []
        for d in got["step_diffs"]:
            bi, ci = d["baseline_index"], d["candidate_index"]
            bs = None if bi is None else b_steps[bi]
            cs = None if ci is None else c_steps[ci]
            status = StepDiffStatus(d["status"])
            rows.append(
                StepDiff(
                    step_name=d["action"],
                    diff_status=status,
                    baseline_step=bs,
                    candidate_step=cs,
                    argument_diff=ref.argument_diff(bs.input_payload, cs.input_payload)
                    if bs and cs
                    else None,
                    output_diff=ref.argument_diff(bs.output_payload, cs.output_payload)
                    if bs and cs
                    else None,
                )
            )

        def pct(key: str) -> float:
            value = got[f"{key}_delta_percentage"]
            return math.nan if value is None else float(value)  # null: see the note

        loops = [
            {k: v for k, v in lp.items() if k != "side"}
            for lp in got["loops_detected"]
            if lp["side"] == "candidate"
        ] if detect_loops else []  # fmt: skip
        return DiffReport(
            baseline_id=baseline.trace_id,
            candidate_id=candidate.trace_id,
            trajectory_divergence_index=got["trajectory_divergence_index"],
            baseline_wei=got["baseline_wei"],
            candidate_wei=got["candidate_wei"],
            loops_detected=loops,
            cost_delta_percentage=pct("cost"),
            latency_delta_percentage=pct("latency"),
            token_delta_percentage=pct("token"),
            baseline_recovery_steps=got["baseline_recovery_steps"],
            candidate_recovery_steps=got["candidate_recovery_steps"],
            recovery_step_ratio=got["recovery_step_ratio"],
            step_diffs=rows,
            passed=True,
        )

    def align_traces(baseline: AgentTrace, candidate: AgentTrace,
                     strict_tool_signatures: bool = False) -> list[StepDiff]:  # fmt: skip
        return report(baseline, candidate, True, strict_tool_signatures).step_diffs

    def calculate_tdi(a: int, b: int, lcs: int) -> float:
        return ref.tdi(a, b, lcs)

    def calculate_wei(steps: list[Any]) -> float:
        return ref.wei([s.status.value for s in steps])

    def calculate_delta_percentage(baseline_val: float, candidate_val: float) -> float:
        value, _ = ref.pct_delta(baseline_val, candidate_val)
        return math.nan if value is None else value

    def compute_recovery_steps(step_diffs: list[StepDiff], side: str) -> int:
        if side not in ("baseline", "candidate"):
            raise ValueError("side must be 'baseline' or 'candidate'")
        walked = [
            (step.status.value, d.diff_status.value in ("matched", "modified"))
            for d in step_diffs
            if (step := d.baseline_step if side == "baseline" else d.candidate_step) is not None
        ]
        return ref.recovery([s for s, _ in walked], [a for _, a in walked])[0]

    def calculate_recovery_step_ratio(candidate_steps: int, baseline_steps: int) -> float:
        return ref.recovery_step_ratio(baseline=baseline_steps, candidate=candidate_steps)

    def detect_sequence_loops(trace: AgentTrace) -> list[dict[str, Any]]:
        run, steps = to_run(trace, "candidate")
        got = archived(ref.Run(()), run)
        out = []
        for lp in got["loops_detected"]:
            ids = [steps[lp["start_index"] + k].step_id for k in range(lp["length"])]
            out.append({k: v for k, v in lp.items() if k != "side"} | {"step_ids": ids})
        return out

    def detect_graph_cycles(trace: AgentTrace) -> list[list[str]]:
        run, steps = to_run(trace, "candidate")
        got = archived(ref.Run(()), run)
        if not got["candidate_parent_cycle"]:
            return []
        reached = set()
        generation = [i for i, s in enumerate(run.steps) if s.parent is None]
        while generation:  # the steps no root reaches lie on or below a cycle
            reached.update(generation)
            generation = [i for i, s in enumerate(run.steps) if s.parent in generation]
        return [[steps[i].step_id for i in range(len(steps)) if i not in reached]]

    def detect_all_loops(trace: AgentTrace) -> list[dict[str, Any]]:
        return detect_sequence_loops(trace)  # a parent cycle is a notice, not a loop

    def dict_diff(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any] | None:
        return ref.argument_diff(a, b)

    def step_signature(step: Any) -> tuple[Any, ...]:
        return ref.Step(step.step_type.value, step.name, step.input_payload).signature

    replaced = {
        "align_traces": align_traces,
        "compare": report,
        "calculate_tdi": calculate_tdi,
        "calculate_wei": calculate_wei,
        "calculate_delta_percentage": calculate_delta_percentage,
        "compute_recovery_steps": compute_recovery_steps,
        "calculate_recovery_step_ratio": calculate_recovery_step_ratio,
        "detect_sequence_loops": detect_sequence_loops,
        "detect_graph_cycles": detect_graph_cycles,
        "detect_all_loops": detect_all_loops,
        "dict_diff": dict_diff,
        "step_signature": step_signature,
    }
    for module in (agentdiff, engine, aligner, comparator, loop_detector, metrics):
        for name, func in replaced.items():
            if hasattr(module, name):
                setattr(module, name, func)


def pytest_configure(config: Any) -> None:
    """The pytest plugin hook (``-p agentdiff_suite``): install the adapters."""
    if os.environ.get("AGENTDIFF_SUITE_MODE") == "reportgen":
        _install()


# --------------------------------------------------------------------------- the runner


def _run(folder: Path, mode: str) -> dict[str, str]:
    env = dict(os.environ)
    env["AGENTDIFF_SUITE_MODE"] = mode
    env["PYTHONPATH"] = os.pathsep.join(
        [str(HERE), str(HERE.parent), env.get("PYTHONPATH", ""), _ref_site_packages()]
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "agentdiff_suite",
         "-p", "no:cacheprovider", "--rootdir", str(folder), str(folder)],
        capture_output=True, text=True, env=env, cwd=folder, check=False,
    )  # fmt: skip
    outcomes: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        for word in ("PASSED", "FAILED", "ERROR"):
            if line.startswith(word + " "):
                outcomes[line[len(word) + 1 :].split(" - ")[0]] = word
    if not outcomes:
        print(proc.stdout[-3000:], proc.stderr[-3000:])
    return outcomes


def main() -> None:
    folder = Path(sys.argv[1]).resolve()
    control, ours = _run(folder, "control"), _run(folder, "reportgen")
    applicable = [t for t, o in control.items() if o == "PASSED"]
    for test in sorted(control):
        print(f"{control[test]:7s} {ours.get(test, 'MISSING'):7s} {test}")
    passed = sum(1 for t in applicable if ours.get(t) == "PASSED")
    print(
        f"\n{len(control)} tests; {len(applicable)} pass on AgentDiff 0.3.0 itself (the others"
        f" were written for another version); of those, reportgen passes {passed} and fails"
        f" {len(applicable) - passed}."
    )


if __name__ == "__main__":
    main()
