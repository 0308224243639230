"""The reliability profile: each measure on small tables worked by hand, the intervals, what
counts (clean, scored, not errored runs), "too few repeats", and the SQL against a slow
pure-Python reference on random archives."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.spatial.distance import jensenshannon

from reportgen.gating.metrics import RELIABILITY_METRICS
from reportgen.statistics.reliability import ReliabilityProfile, reliability_profiles
from tests.statistics.reliability_helpers import Run, archive, js_distance, reference


def _profile(runs: list[Run]) -> ReliabilityProfile:
    (profile,) = reliability_profiles(archive(runs))
    return profile


def _estimate(profile: ReliabilityProfile, name: str) -> float:
    measure = profile.get(name)
    assert measure is not None
    return measure.estimate


def _outcomes(task: str, passed: int, trials: int) -> list[Run]:
    return [Run(task, k, success=k < passed) for k in range(trials)]


def test_outcome_consistency_by_hand() -> None:
    # p = 1, 1/2, 1/4 -> 1 - 4 p (1 - p) = 1, 0, 1/4: the mean 5/12
    runs = _outcomes("a", 4, 4) + _outcomes("b", 2, 4) + _outcomes("c", 1, 4)
    measure = _profile(runs).get("outcome_consistency")
    assert measure is not None
    assert measure.estimate == pytest.approx(5 / 12)
    assert (measure.n_tasks, measure.trials, measure.too_few_repeats) == (3, 4.0, False)
    # the t interval over the three tasks, clipped to [0, 1]
    half = stats.t.ppf(0.975, 2) * stats.tstd([1.0, 0.0, 0.25]) / math.sqrt(3)
    assert measure.ci_low == max(0.0, 5 / 12 - half) == 0.0
    assert measure.ci_high == min(1.0, 5 / 12 + half) == 1.0


def test_outcome_interval_unclipped() -> None:
    # tasks of 4 trials passing 4, 4, 3, 0, 4 times: 1, 1, 1/4, 1, 1
    runs = [r for t, k in zip("abcde", (4, 4, 3, 0, 4), strict=True) for r in _outcomes(t, k, 4)]
    measure = _profile(runs).get("outcome_consistency")
    assert measure is not None
    values = [1.0, 1.0, 0.25, 1.0, 1.0]
    half = stats.t.ppf(0.975, 4) * stats.tstd(values) / math.sqrt(5)
    assert measure.estimate == pytest.approx(0.85)
    assert measure.ci_low == pytest.approx(0.85 - half)
    assert measure.ci_high == 1.0  # 0.85 + half = 1.266..., clipped


def test_too_few_repeats() -> None:
    measure = _profile(_outcomes("a", 1, 3) + _outcomes("b", 3, 3)).get("outcome_consistency")
    assert measure is not None
    assert measure.trials == 3.0 and measure.too_few_repeats  # needs 4
    assert measure.ci_low is not None


def test_one_trial_per_task_gives_no_profile() -> None:
    assert reliability_profiles(archive([Run("a", 0), Run("b", 0)])) == []


def test_tool_consistency_by_hand() -> None:
    # task a: (a a b b) vs (a): P = (1/2, 1/2), Q = (1, 0), M = (3/4, 1/4);
    #   JSD = 1/2 (1/2 log2 (2/3) + 1/2 log2 2) + 1/2 log2 (4/3) = 0.311278, distance 0.557923
    # task b: (a b) vs (b a): the same frequencies, distance 0
    # task c: (a) vs (): one run without tools, distance 1
    runs = [
        Run("a", 0, tools=["a", "a", "b", "b"]), Run("a", 1, tools=["a"]),
        Run("b", 0, tools=["a", "b"]), Run("b", 1, tools=["b", "a"]),
        Run("c", 0, tools=["a"]), Run("c", 1, tools=[]),
    ]  # fmt: skip
    d = math.sqrt(0.5 * (0.5 * math.log2(2 / 3) + 0.5) + 0.5 * math.log2(4 / 3))
    assert d == pytest.approx(0.557923, abs=1e-6)
    assert d == pytest.approx(jensenshannon([0.5, 0.5], [1.0, 0.0], base=2))
    assert _estimate(_profile(runs), "tool_consistency") == pytest.approx((1 - d + 1 + 0) / 3)


def test_tool_consistency_averages_every_pair_of_trials() -> None:
    # three trials: (a) (a) (b): distances 0, 1, 1 -> 1 - 2/3
    runs = [Run("t", 0, tools=["a"]), Run("t", 1, tools=["a"]), Run("t", 2, tools=["b"])]
    measure = _profile(runs).get("tool_consistency")
    assert measure is not None
    assert measure.estimate == pytest.approx(1 / 3)
    assert measure.trials == 3.0 and not measure.too_few_repeats
    assert js_distance(["a"], ["b"]) == 1.0


def test_resource_consistency_by_hand() -> None:
    # costs 1, 2, 3: CV = 1 / 2 -> 0.5; costs 2, 2, 2: CV 0 -> 1; costs 1, 5, 9: sd 4, mean 5,
    # CV 0.8 -> 0.2; costs 0, 0, 0: mean 0, left out. Mean (0.5 + 1 + 0.2) / 3.
    costs = {"a": (1, 2, 3), "b": (2, 2, 2), "c": (1, 5, 9), "d": (0, 0, 0)}
    runs = [
        Run(t, k, cost=c, latency=100.0 * c) for t, cs in costs.items() for k, c in enumerate(cs)
    ]
    profile = _profile(runs)
    assert _estimate(profile, "cost_consistency") == pytest.approx(1.7 / 3)
    assert _estimate(profile, "latency_consistency") == pytest.approx(1.7 / 3)  # scale-free
    assert profile.get("token_consistency") is None  # no run gives tokens


def test_resource_cv_above_one_is_capped() -> None:
    # tokens 1, 1, 100: sd 57.16, mean 34, CV 1.68 -> capped at 1 -> consistency 0
    runs = [Run("t", k, tokens=v) for k, v in enumerate((1, 1, 100))]
    assert _estimate(_profile(runs), "token_consistency") == 0.0


def test_robustness_by_hand() -> None:
    # task a: clean 2/2 pass, perturbed 0/1 -> -1; task b: clean 1/2, perturbed 1/1 -> +1/2
    runs = [
        Run("a", 0), Run("a", 1), Run("a", 2, success=False, perturbation="typo"),
        Run("b", 0), Run("b", 1, success=False), Run("b", 2, perturbation="reworded"),
    ]  # fmt: skip
    profile = _profile(runs)
    assert _estimate(profile, "robustness") == pytest.approx(-0.25)
    # the perturbed runs are no trials of the consistency measures: a 2/2, b 1/2
    assert _estimate(profile, "outcome_consistency") == pytest.approx(0.5)


def test_no_perturbation_no_robustness_and_clean_spellings() -> None:
    runs = [Run("a", k, perturbation=p) for k, p in enumerate(("none", "CLEAN", "", "false"))]
    profile = _profile(runs)
    assert profile.get("robustness") is None
    assert _estimate(profile, "outcome_consistency") == 1.0


def test_errored_runs_are_left_out() -> None:
    runs = [Run("a", 0), Run("a", 1), Run("a", 2, success=None, error_kind="timeout", tools=["x"])]
    profile = _profile(runs)
    assert _estimate(profile, "outcome_consistency") == 1.0
    assert _estimate(profile, "tool_consistency") == 1.0  # two runs without tools


def test_every_label_and_night_at_once() -> None:
    runs = _outcomes("a", 2, 4) + [
        Run(r.task, r.trial, r.success, label="b", batch=n) for r in _outcomes("a", 4, 4)
        for n in ("n1", "n2")
    ]  # fmt: skip
    profiles = reliability_profiles(archive(runs))
    assert [(p.label, p.batch) for p in profiles] == [("a", "n1"), ("b", "n1"), ("b", "n2")]
    assert [_estimate(p, "outcome_consistency") for p in profiles] == [0.0, 1.0, 1.0]
    only = reliability_profiles(archive(runs), labels=["b"], batches=["n2"])
    assert [(p.label, p.batch) for p in only] == [("b", "n2")]


def test_profile_json_carries_every_field() -> None:
    profile = _profile(_outcomes("a", 4, 4) + _outcomes("b", 0, 4))
    out = profile.to_dict()
    assert out["label"] == "a" and out["batch"] == "n1"
    (measure,) = [m for m in out["measures"] if m["measure"] == "outcome_consistency"]
    assert measure == {
        "measure": "outcome_consistency", "estimate": 1.0, "ci_low": 1.0, "ci_high": 1.0,
        "ci_level": 0.95, "n_tasks": 2, "trials": 4.0, "min_trials": 4, "too_few_repeats": False,
    }  # fmt: skip


def test_every_registered_measure_is_computed() -> None:
    runs = [
        Run("a", k, success=k % 2 == 0, tools=["x"] * (k + 1) + ["y"], cost=1.0 + k,
            tokens=10 + k, latency=5.0 + k, perturbation="p" if k == 4 else None)
        for k in range(5)
    ]  # fmt: skip
    assert [m.name for m in _profile(runs).measures] == [m.name for m in RELIABILITY_METRICS]


TOOLS = st.lists(st.sampled_from("abc"), max_size=4)
RUNS = st.lists(
    st.builds(
        Run,
        task=st.sampled_from(["t1", "t2", "t3"]),
        trial=st.integers(0, 9),
        success=st.none() | st.booleans(),
        tools=TOOLS,
        # realistic magnitudes (a variance of 1e-300s underflows in any double arithmetic)
        cost=st.none() | st.just(0.0) | st.floats(1e-6, 10),
        tokens=st.none() | st.integers(0, 1000),
        latency=st.none() | st.just(0.0) | st.floats(1e-3, 1e4),
        label=st.sampled_from(["a", "b"]),
        batch=st.sampled_from(["n1", "n2"]),
        perturbation=st.sampled_from([None, None, None, "typo", "none"]),
        error_kind=st.sampled_from([None, None, None, None, "timeout"]),
    ),
    max_size=30,
    unique_by=lambda r: (r.label, r.batch, r.task, r.trial),
)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(RUNS)
def test_sql_matches_the_python_reference(runs: list[Run]) -> None:
    expected = reference(runs)
    got = {
        (p.label, p.batch, m.name): (m.n_tasks, m.estimate)
        for p in reliability_profiles(archive(runs))
        for m in p.measures
    }
    assert got.keys() == expected.keys()
    for key, (n, mean) in expected.items():
        assert got[key][0] == n
        assert got[key][1] == pytest.approx(mean, abs=1e-9), key
    for p in reliability_profiles(archive(runs)):
        for m in p.measures:
            low = m.metric.low
            assert low <= m.estimate <= 1.0
            assert m.ci_low is None or low <= m.ci_low <= m.estimate <= (m.ci_high or 0) <= 1.0


def test_by_suite_one_profile_per_suite() -> None:
    runs = _outcomes("a", 4, 4) + [
        Run(r.task, r.trial, r.success, suite="s2") for r in _outcomes("a", 2, 4)
    ]
    (whole,) = reliability_profiles(archive(runs))
    assert whole.suite is None and _estimate(whole, "outcome_consistency") == 0.5
    per = reliability_profiles(archive(runs), by_suite=True)
    assert [(p.suite, _estimate(p, "outcome_consistency")) for p in per] == [
        ("s", 1.0),
        ("s2", 0.0),
    ]
    assert per[0].to_dict()["suite"] == "s"


def test_gate_reliability_fails_below_passes_equal_and_lists_no_data() -> None:
    from reportgen.gating.thresholds import Threshold
    from reportgen.statistics.reliability import gate_reliability

    runs = _outcomes("a", 2, 4) + _outcomes("b", 4, 4)  # outcome consistency 0.5
    profiles = reliability_profiles(archive(runs))
    flag = "--min-outcome-consistency"
    below = gate_reliability([], profiles, [Threshold("outcome_consistency", 0.6, flag)])
    (violation,) = below["violations"]
    assert violation["value"] == 0.5 and violation["label"] == "a" and violation["batch"] == "n1"
    assert violation["message"] == (
        "outcome_consistency: a @ n1: outcome consistency 0.5 < 0.6 "
        "(from --min-outcome-consistency; 2 tasks, 4 trials per task)"
    )
    equal = gate_reliability([], profiles, [Threshold("outcome_consistency", 0.5, flag)])
    assert equal["violations"] == [] and equal["not_evaluated"] == []
    robust = gate_reliability([], profiles, [Threshold("robustness", 0.0, "--min-robustness")])
    (unknown,) = robust["not_evaluated"]
    assert robust["violations"] == [] and unknown["gate"] == "robustness"
    assert [p["label"] for p in robust["candidate"]] == ["a"]
    other = gate_reliability([], profiles, [Threshold("max_loops", 0.0, "--max-loops")])
    assert other["violations"] == other["not_evaluated"] == []
