"""The two families of label-level verdicts: each metric's interval at its family's
Bonferroni level (``ci_level``), the verdict read from that interval, and the lines that
print it, by hand and over random comparisons."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from reportgen.gating.metrics import LABEL_METRICS
from reportgen.statistics.report import level_text, verdict_line
from reportgen.statistics.summary import label_statistics

WORSE_WHEN = {m.name: m.worse_when for m in LABEL_METRICS}


def _pair(
    task: str, trial: int, b: dict[str, Any], c: dict[str, Any], tdi: float
) -> dict[str, Any]:
    """One pair record from each side's values (``success``, ``reward``, ``wei``, ``cost``,
    ``tokens``, ``latency``, ``recovery``, ``loops``; None: unknown)."""

    def totals(side: dict[str, Any]) -> dict[str, Any]:
        return {"cost_usd": side["cost"], "tokens": side["tokens"], "latency_ms": side["latency"]}

    loops = [{"side": side, "stagnant": True}
             for side, values in (("baseline", b), ("candidate", c))
             for _ in range(values["loops"])]  # fmt: skip
    return {
        "pair_id": f"{task}#{trial}", "task_id": task,
        "baseline_success": b["success"], "candidate_success": c["success"],
        "baseline_reward": b["reward"], "candidate_reward": c["reward"],
        "baseline_wei": b["wei"], "candidate_wei": c["wei"],
        "trajectory_divergence_index": tdi,
        "baseline_totals": totals(b), "candidate_totals": totals(c),
        "baseline_recovery_steps": b["recovery"], "candidate_recovery_steps": c["recovery"],
        "loops_detected": loops,
    }  # fmt: skip


def _side(success: bool | None, reward: float | None, wei: float, cost: float) -> dict[str, Any]:
    return {"success": success, "reward": reward, "wei": wei, "cost": cost,
            "tokens": 100 * cost, "latency": 10 * cost, "recovery": 1 + round(cost),
            "loops": round(wei * 10) % 2}  # fmt: skip


# Four tasks, one trial a side. Reward changes by d = (-0.2, -0.2, 0.2, -0.1); WEI by
# (0.1, 0.0, 0.2, 0.1); every metric has data, TDI through each task's noise floor.
HAND = [
    ("a", _side(True, 0.8, 0.0, 1.0), _side(False, 0.6, 0.1, 1.5), 0.3),
    ("b", _side(True, 0.7, 0.1, 2.0), _side(True, 0.5, 0.1, 2.0), 0.2),
    ("c", _side(False, 0.3, 0.0, 1.0), _side(True, 0.5, 0.2, 3.0), 0.4),
    ("d", _side(True, 0.9, 0.1, 2.0), _side(True, 0.8, 0.2, 2.5), 0.1),
]
FLOORS = {"a": 0.1, "b": 0.2, "c": 0.1, "d": 0.3}


def _hand(floors: dict[str, float] | None = FLOORS) -> dict[str, dict[str, Any]]:
    pairs = [_pair(t, 0, b, c, tdi) for t, b, c, tdi in HAND]
    found = label_statistics(pairs, {}, floors)  # type: ignore[arg-type]
    return {m["metric"]: m for m in found}


def _t_interval(d: list[float], level: float) -> tuple[float, float]:
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    half = stats.t.ppf(1 - (1 - level) / 2, n - 1) * sd / math.sqrt(n)
    return mean - half, mean + half


def test_family_levels_by_hand() -> None:
    found = _hand()
    assert all(m["n_tasks"] == 4 for m in found.values())
    # two primaries: each at 1 - 0.05 / 2; seven secondaries: each at 1 - 0.05 / 7
    for name in ("success_rate", "reward"):
        assert (found[name]["family"], found[name]["ci_level"]) == ("primary", 0.975)
    # the error rate alone in its family: at 1 - 0.05
    assert (found["error_rate"]["family"], found["error_rate"]["ci_level"]) == (
        "infrastructure",
        0.95,
    )
    for name in set(found) - {"success_rate", "reward", "error_rate"}:
        assert found[name]["family"] == "secondary"
        assert found[name]["ci_level"] == pytest.approx(1 - 0.05 / 7)
    # reward: mean(d) = -0.075, sd(d) = 0.18930, se = 0.09465, t(1 - 0.025 / 2, 3) = 4.1765:
    # -0.075 ± 0.3953 = [-0.470, 0.320] (the 95 % interval would be -0.075 ± 0.301)
    reward = found["reward"]
    assert stats.t.ppf(1 - 0.025 / 2, 3) == pytest.approx(4.1765, abs=1e-4)
    assert (reward["ci_low"], reward["ci_high"]) == pytest.approx((-0.4703, 0.3203), abs=1e-4)
    assert (reward["ci_low"], reward["ci_high"]) == pytest.approx(
        _t_interval([-0.2, -0.2, 0.2, -0.1], 0.975)
    )
    assert reward["p_value"] == pytest.approx(min(1.0, 2 * reward["p_value_raw"]))
    # WEI: d = (0.1, 0, 0.2, 0.1), at 1 - 0.05 / 7 with t(1 - 0.05 / 14, 3)
    wei = found["candidate_wei"]
    assert (wei["ci_low"], wei["ci_high"]) == pytest.approx(
        _t_interval([0.1, 0.0, 0.2, 0.1], 1 - 0.05 / 7)
    )
    assert wei["p_value"] == pytest.approx(min(1.0, 7 * wei["p_value_raw"]))
    # the 95 % interval of WEI excludes 0 (p_raw 0.058 is close), the 99.3 % one does not
    low95, _ = _t_interval([0.1, 0.0, 0.2, 0.1], 0.95)
    assert low95 < 0 < wei["ci_high"] and wei["verdict"] == "inconclusive"
    assert "99.3 % CI" in verdict_line(wei) and "97.5 % CI" in verdict_line(reward)


def test_a_metric_without_data_costs_its_family_nothing() -> None:
    no_floor = _hand(floors=None)  # TDI has no noise floor: six secondaries with data
    assert no_floor["trajectory_divergence_index"]["n_tasks"] == 0
    assert no_floor["tokens"]["ci_level"] == pytest.approx(1 - 0.05 / 6)
    pairs = [_pair(t, 0, {**b, "success": None}, {**c, "success": None}, tdi)
             for t, b, c, tdi in HAND]  # fmt: skip
    found = {m["metric"]: m for m in label_statistics(pairs, {}, FLOORS)}  # type: ignore[arg-type]
    assert found["reward"]["ci_level"] == 0.95  # reward alone in the primary family
    assert found["reward"]["p_value"] == found["reward"]["p_value_raw"]
    assert verdict_line(found["success_rate"]) == (
        "success: no paired tasks with this metric: inconclusive"
    )


def test_level_text() -> None:
    assert [level_text(x) for x in (0.95, 0.975, 1 - 0.05 / 7, 0.9, 1 - 0.05 / 6)] == [
        "95", "97.5", "99.3", "90", "99.2",
    ]  # fmt: skip
    assert level_text(1 - 0.001 / 9) == "99.99"  # never "100"


def test_inconclusive_line_says_how_many_tasks() -> None:
    found = _hand()
    for name, effect in (("success_rate", "5.0 pp"), ("reward", "0.050"),
                         ("recovery_step_ratio", "10.0 %")):  # fmt: skip
        entry = found[name]  # in the delta's unit: points for a rate, % for a total
        assert entry["verdict"] == "inconclusive" and entry["tasks_needed"] > 4
        assert verdict_line(entry).endswith(
            f"): inconclusive, needs about {entry['tasks_needed']} tasks to see a change of "
            f"{effect}"
        )


SIDE = st.fixed_dictionaries({
    "success": st.sampled_from([True, False, True, None]),
    "reward": st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.floats(0, 1)),
    "wei": st.one_of(st.sampled_from([0.0, 0.1]), st.floats(0, 1)),
    "cost": st.one_of(st.sampled_from([0.0, 1.0, 2.0]), st.floats(0, 10)),
    "tokens": st.sampled_from([0, 100, 250, 1000]),
    "latency": st.floats(0, 5000),
    "recovery": st.integers(0, 3),
    "loops": st.integers(0, 2),
})  # fmt: skip
RUN = st.tuples(st.integers(0, 5), st.integers(0, 2), SIDE, SIDE, st.floats(0, 1))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(RUN, max_size=24), st.dictionaries(st.sampled_from(["t0", "t1", "t2", "t3"]),
                                                   st.floats(0, 1)))  # fmt: skip
def test_the_verdict_is_read_from_the_printed_interval(
    runs: list[tuple[int, int, dict[str, Any], dict[str, Any], float]], floors: dict[str, float]
) -> None:
    seen: set[str] = set()
    pairs = []
    for task, trial, b, c, tdi in runs:
        if f"t{task}#{trial}" not in seen:
            seen.add(f"t{task}#{trial}")
            pairs.append(_pair(f"t{task}", trial, b, c, tdi))
    for m in label_statistics(pairs, {}, floors):  # type: ignore[arg-type]
        low, high, verdict = m["ci_low"], m["ci_high"], m["verdict"]
        has = low is not None and high is not None
        worse = WORSE_WHEN[m["metric"]]
        regression = has and (low > 0 if worse == "higher" else high < 0)
        improvement = has and (high < 0 if worse == "higher" else low > 0)
        assert (verdict == "regression") == regression, m
        assert (verdict == "improvement") == improvement, m
        if verdict == "no_change":
            assert has and -m["min_effect"] <= low and high <= m["min_effect"], m
        assert any(m["ci_level"] == pytest.approx(1 - 0.05 / k) for k in range(1, 8))
        line = verdict_line(m)
        assert f": {verdict}" in line
        if has and m["n_tasks"]:
            assert f"{level_text(m['ci_level'])} % CI" in line
