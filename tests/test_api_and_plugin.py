"""The Python API and the pytest plugin apply the same gates as the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reportgen.api import RegressionError, assert_no_regressions, compare

pytest_plugins = ["pytester"]


def trace(path: Path, actions: list[tuple[str, str]]) -> Path:
    steps = [
        {"type": "tool", "action": a, "status": s, "input": {}, "cost_usd": 0.001}
        for a, s in actions
    ]
    path.write_text(json.dumps({"task_id": "t", "steps": steps}))
    return path


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    base = trace(tmp_path / "b.json", [("a", "ok"), ("q", "error"), ("q", "ok"), ("s", "ok")])
    cand = trace(
        tmp_path / "c.json",
        [("a", "ok"), ("q", "error"), ("x", "ok"), ("y", "ok"), ("q", "ok"), ("s", "ok")],
    )
    return base, cand


def test_api_numbers_and_strict_gate(pair: tuple[Path, Path]) -> None:
    comparison = compare(*pair)
    (result,) = comparison.pairs
    assert (result["baseline_recovery_steps"], result["candidate_recovery_steps"]) == (1, 3)
    assert result["recovery_step_ratio"] == 3.0
    assert_no_regressions(comparison, config=False, max_recovery_step_ratio=3.0)  # equal passes
    with pytest.raises(
        RegressionError,
        match=r"recovery step ratio \(RSR\) = 3 > 2.9 \(from max_recovery_step_ratio=\)",
    ):
        assert_no_regressions(comparison, config=False, max_recovery_step_ratio=2.9)


def test_api_reads_assertions_section(pair: tuple[Path, Path], tmp_path: Path) -> None:
    config = tmp_path / "reportgen.toml"
    config.write_text("[assertions]\nmax_cost_increase_pct = 10\n")
    with pytest.raises(RegressionError, match="cost change"):
        assert_no_regressions(compare(*pair), config=config)
    with pytest.raises(TypeError, match="unexpected keyword"):
        assert_no_regressions(compare(*pair), config=False, max_costs=1)  # type: ignore[call-arg]


def test_plugin_options_and_fixture(pytester: pytest.Pytester, pair: tuple[Path, Path]) -> None:
    pytester.makepyfile(
        f"""
        def test_ok(reportgen_check):
            reportgen_check({str(pair[0])!r}, {str(pair[1])!r})

        def test_tight(reportgen_check):
            reportgen_check({str(pair[0])!r}, {str(pair[1])!r}, max_recovery_step_ratio=1.0)
        """
    )
    result = pytester.runpytest("--reportgen-max-divergence", "0.5")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*RSR) = 3 > 1*"])
    strict = pytester.runpytest("--reportgen-max-divergence", "0.1")
    strict.assert_outcomes(failed=2)


def test_plugin_bad_threshold_is_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("--reportgen-max-loops", "many")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--reportgen-max-loops: expected a number, got 'many'*"])


RECORDING_TEST = """
import os

def test_agent(reportgen_trace):
    reportgen_trace.step("plan", type="llm", cost_usd=0.01)
    if os.environ.get("AGENT_LOOPS"):
        for _ in range(3):
            reportgen_trace.step("search", input={"q": "x"}, output="none", cost_usd=0.01)
    else:
        reportgen_trace.step("search", input={"q": "x"}, output="3 hits", cost_usd=0.01)
    reportgen_trace.step("answer", type="llm", cost_usd=0.01)
"""


def test_plugin_records_compares_and_reports_missing_baseline(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=RECORDING_TEST)
    missing = pytester.runpytest()
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(["*no baseline trace at*--reportgen-update-baselines*"])
    pytester.runpytest("--reportgen-update-baselines").assert_outcomes(passed=1)
    assert (pytester.path / "reportgen-baselines" / "test_agent.py__test_agent.json").exists()
    pytester.runpytest("--reportgen-max-loops", "0").assert_outcomes(passed=1)
    monkeypatch.setenv("AGENT_LOOPS", "1")
    regressed = pytester.runpytest("--reportgen-max-loops", "0")
    regressed.assert_outcomes(failed=1)
    regressed.stdout.fnmatch_lines(["*stagnant loops in the candidate = 1 > 0*"])


def test_evaluate_is_the_one_call(tmp_path: Path) -> None:
    """``reportgen.evaluate``: two paths, or two labels of an archive, judged once, with the
    headline every surface opens with; what ``compare`` and ``gate`` print is made from it."""
    import reportgen
    from reportgen.demo import run_demo
    from reportgen.evaluation import Judging
    from reportgen.gating import Threshold

    db, _report, _summary = run_demo(tmp_path / "demo", site=False)
    judged = reportgen.evaluate(
        db=db,
        judging=Judging((Threshold("loops", 0.0, "--max-loops"),)),
        baseline_batch="2026-11-28",
        candidate_batch="2026-11-28",
    )
    assert judged.headline.startswith("Worse: 2 tasks newly broken")
    assert judged.headline.endswith("Gates failed: 1 pair(s) failed a gate.")
    assert judged.gates_set and not judged.passed
    samples = Path(__file__).resolve().parents[1] / "sample_runs" / "nightly"
    nights = sorted(p for p in samples.iterdir() if p.is_dir())
    if len(nights) >= 2:
        pathwise = reportgen.evaluate([nights[0], nights[-1]])
        assert pathwise.headline and pathwise.paired_by
