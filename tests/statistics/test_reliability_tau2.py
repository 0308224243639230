"""The reliability profile on real data: the tau2-bench airline results (grok-3, grok-3-mini,
grok-4; 4 tasks x 4 trials under each of two policies, so 8 tasks of 4 trials per label and
night). Outcome consistency is checked against the rewards read straight from the raw JSON;
the other measures against the pure-Python reference over the archived runs."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest

from reportgen.archive import connect
from reportgen.ingest import ingest
from reportgen.statistics.reliability import ReliabilityProfile, reliability_profiles
from tests.statistics.reliability_helpers import Run, reference

TAU2 = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "tau2-bench"
LABELS = ("xai/grok-3", "xai/grok-3-mini", "xai/grok-4")


@pytest.fixture(scope="module")
def archived(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    if not TAU2.is_dir():
        pytest.skip(f"{TAU2} is missing (the shared real data)")
    db = tmp_path_factory.mktemp("tau2") / "tau2.duckdb"
    ingest([TAU2], db)
    return connect(db, read_only=True)


@pytest.fixture(scope="module")
def profiles(archived: duckdb.DuckDBPyConnection) -> dict[str, ReliabilityProfile]:
    return {p.label: p for p in reliability_profiles(archived)}


def _raw_outcome_consistency() -> dict[str, float]:
    """label -> mean over (domain, task) of 1 - 4 p (1 - p), p its trials' share of reward 1."""
    rewards: dict[str, dict[tuple[str, str], list[float]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(TAU2.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        label = document["info"]["agent_info"]["llm"]
        domain = document["info"]["environment_info"]["domain_name"]
        for sim in document["simulations"]:
            rewards[label][(domain, str(sim["task_id"]))].append(sim["reward_info"]["reward"])
    out = {}
    for label, tasks in rewards.items():
        values = []
        for trials in tasks.values():
            p = sum(r == 1.0 for r in trials) / len(trials)
            values.append(1 - 4 * p * (1 - p))
        out[label] = sum(values) / len(values)
    return out


def test_one_profile_per_label_every_measure_in_range(
    profiles: dict[str, ReliabilityProfile],
) -> None:
    assert sorted(profiles) == list(LABELS)
    for profile in profiles.values():
        assert profile.get("robustness") is None  # no run carries meta.perturbation
        names = [m.name for m in profile.measures]
        assert names == [
            "outcome_consistency", "tool_consistency", "cost_consistency",
            "token_consistency", "latency_consistency",
        ]  # fmt: skip
        for m in profile.measures:
            assert (m.n_tasks, m.trials, m.too_few_repeats) == (8, 4.0, False)
            assert m.ci_low is not None and m.ci_high is not None
            assert 0.0 <= m.ci_low <= m.estimate <= m.ci_high <= 1.0


def test_outcome_consistency_matches_the_raw_rewards(
    profiles: dict[str, ReliabilityProfile],
) -> None:
    raw = _raw_outcome_consistency()
    for label in LABELS:
        measure = profiles[label].get("outcome_consistency")
        assert measure is not None
        assert measure.estimate == pytest.approx(raw[label])


def test_what_the_profile_says(profiles: dict[str, ReliabilityProfile]) -> None:
    """On these runs grok-4 passes or fails the same task least consistently (0.34: about half
    its tasks are coin flips over 4 trials) yet calls its tools most consistently (0.75);
    grok-3-mini is the most consistent in outcome (mostly all-fail) and in cost. With 8 tasks
    every interval is wide (more than 0.15): these are orderings of point estimates, not
    significant differences."""
    est = {(label, m.name): m.estimate for label, p in profiles.items() for m in p.measures}
    outcome = {label: est[(label, "outcome_consistency")] for label in LABELS}
    assert min(outcome, key=outcome.__getitem__) == "xai/grok-4"
    assert max(outcome, key=outcome.__getitem__) == "xai/grok-3-mini"
    tools = {label: est[(label, "tool_consistency")] for label in LABELS}
    assert max(tools, key=tools.__getitem__) == "xai/grok-4"
    cost = {label: est[(label, "cost_consistency")] for label in LABELS}
    assert max(cost, key=cost.__getitem__) == "xai/grok-3-mini"
    for p in profiles.values():
        for m in p.measures:
            assert m.ci_high is not None and m.ci_low is not None
            assert m.ci_high - m.ci_low > 0.15


def test_matches_the_reference_on_the_archived_runs(
    archived: duckdb.DuckDBPyConnection, profiles: dict[str, ReliabilityProfile]
) -> None:
    rows = archived.execute(
        "SELECT r.run_id, r.label, r.batch, r.suite, r.task_id, r.trial, r.success, "
        "t.cost_usd, t.tokens, t.latency_ms, "
        "coalesce(list(s.action ORDER BY s.idx) FILTER (WHERE s.type = 'tool'), []) "
        "FROM runs AS r JOIN rg_run_resolved() AS t USING (run_id) "
        "LEFT JOIN steps AS s USING (run_id) GROUP BY ALL"
    ).fetchall()
    runs = [
        Run(task, trial, success, tools, cost, tokens, latency, label, batch, suite, run_id=rid)
        for rid, label, batch, suite, task, trial, success, cost, tokens, latency, tools in rows
    ]
    expected = reference(runs)
    for (label, _batch, name), (n, mean) in expected.items():
        measure = profiles[label].get(name)
        assert measure is not None and measure.n_tasks == n
        assert measure.estimate == pytest.approx(mean, abs=1e-9)
