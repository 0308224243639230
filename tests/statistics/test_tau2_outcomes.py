"""Outcomes on real data: the tau2-bench airline results (grok-3 as the baseline, grok-4 as the
candidate, on the standard and the tighter policy's domain). Per-run outcomes, per-task pass rates, the suite's rates and
the comparison's task classes must match counts taken here straight from the raw JSON files,
with nothing of reportgen's but the comparison under test."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from reportgen.archive import connect
from reportgen.divergence.compare import Comparison, compare_labels
from reportgen.gating.metrics import LABEL_METRICS
from reportgen.ingest import ingest
from reportgen.statistics import attach_statistics
from reportgen.statistics.summary import Grouping, task_sides

TAU2 = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "tau2-bench"
BASE, CAND = "xai/grok-3", "xai/grok-4"
Key = tuple[str, str]  # (suite, task)


def _raw() -> dict[str, dict[Key, dict[int, float]]]:
    """label -> (suite, task) -> trial -> reward, read with json alone. A simulation passes
    when its reward is 1 (tau-bench's definition of success)."""
    out: dict[str, dict[Key, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    for path in sorted(TAU2.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        label = document["info"]["agent_info"]["llm"]
        suite = "tau2-bench/" + document["info"]["environment_info"]["domain_name"]
        for sim in document["simulations"]:
            out[label][(suite, str(sim["task_id"]))][int(sim["trial"])] = float(
                sim["reward_info"]["reward"]
            )
    return out


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    if not TAU2.is_dir():
        pytest.skip(f"{TAU2} is missing (the shared real data)")
    db = tmp_path_factory.mktemp("tau2") / "tau2.duckdb"
    ingest([TAU2], db)
    con = connect(db, read_only=True)
    try:
        comparison = compare_labels(con, BASE, CAND)
    finally:
        con.close()
    attach_statistics(comparison)
    return comparison


def test_each_pair_carries_its_runs_raw_outcome(compared: Comparison) -> None:
    raw = _raw()
    seen = 0
    for pair in compared.pairs:
        suite, task = compared.task_keys[pair["pair_id"]].rsplit("/", 1)
        trial = int(pair["pair_id"].rsplit("#", 1)[-1]) if "#" in pair["pair_id"] else None
        trials_b, trials_c = raw[BASE][(suite, task)], raw[CAND][(suite, task)]
        assert trial is None or trial in trials_b
        rewards = (pair["baseline_reward"], pair["candidate_reward"])
        assert rewards[0] in trials_b.values() and rewards[1] in trials_c.values()
        assert pair["baseline_success"] == (pair["baseline_reward"] == 1.0)
        assert pair["candidate_success"] == (pair["candidate_reward"] == 1.0)
        seen += 1
    assert seen == sum(len(t) for t in raw[BASE].values()) == 32


def test_per_task_pass_rates_match_the_raw_counts(compared: Comparison) -> None:
    raw = _raw()
    success = next(m for m in LABEL_METRICS if m.name == "success_rate")
    grouping = Grouping.of(compared.pairs, compared.task_keys)
    sides = task_sides(compared.pairs, grouping, success)
    got = {
        grouping.tasks[t]: (float(b), float(c))
        for t, b, c in zip(sides.tasks, sides.base, sides.cand, strict=True)
    }
    expected = {}
    for key, trials in raw[BASE].items():
        cand = raw[CAND][key]
        rate_b = sum(r == 1.0 for r in trials.values()) / len(trials)
        rate_c = sum(r == 1.0 for r in cand.values()) / len(cand)
        expected[f"{key[0]}/{key[1]}"] = (rate_b, rate_c)
    assert got == expected  # quarters: exact in binary
    assert len(expected) == 8  # 2 domains x 4 tasks

    stats = compared.statistics
    assert stats is not None
    rate = next(m for m in stats["metrics"] if m["metric"] == "success_rate")
    n = len(expected)
    assert rate["baseline"] == pytest.approx(sum(b for b, _ in expected.values()) / n)
    assert rate["candidate"] == pytest.approx(sum(c for _, c in expected.values()) / n)
    passes_b = sum(r == 1.0 for t in raw[BASE].values() for r in t.values())
    passes_c = sum(r == 1.0 for t in raw[CAND].values() for r in t.values())
    assert rate["baseline_trial_rate"] == pytest.approx(passes_b / 32)
    assert rate["candidate_trial_rate"] == pytest.approx(passes_c / 32)
    assert (rate["n_tasks"], rate["n_trials_baseline"], rate["n_trials_candidate"]) == (8, 32, 32)
    reward = next(m for m in stats["metrics"] if m["metric"] == "reward")
    mean_b = sum(sum(t.values()) / len(t) for t in raw[BASE].values()) / n
    assert reward["baseline"] == pytest.approx(mean_b)


def test_task_classes_match_the_raw_counts(compared: Comparison) -> None:
    raw = _raw()
    counts: dict[str, list[str]] = defaultdict(list)
    for key in sorted(raw[BASE]):
        b = {r == 1.0 for r in raw[BASE][key].values()}
        c = {r == 1.0 for r in raw[CAND][key].values()}
        if len(b) > 1 or len(c) > 1:
            kind = "flaky"
        elif b == {True}:
            kind = "still_passing" if c == {True} else "newly_broken"
        else:
            kind = "fixed" if c == {True} else "still_failing"
        counts[kind].append(f"{key[0]}/{key[1]}")
    stats = compared.statistics
    assert stats is not None
    tasks = stats["tasks"]
    for kind in ("newly_broken", "fixed", "flaky", "still_failing", "still_passing"):
        assert tasks[kind] == len(counts[kind]), kind
    assert tasks["unknown"] == 0
    assert sorted(tasks["flaky_tasks"]) == sorted(counts["flaky"])
    assert sorted(tasks["newly_broken_tasks"]) == sorted(counts["newly_broken"])
