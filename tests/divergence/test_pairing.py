"""What pairs a baseline run with a candidate run (P16): two explicit inputs are two sides,
paired by task (and trial where both sides hold trials) whatever their suites, labels or
formats; ``--pair-by`` chooses the keys; nothing paired is an error (exit 1), never a pass;
unpaired runs say why."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from reportgen.archive import connect
from reportgen.cli import app
from reportgen.divergence.pairing import PAIR_KEYS, pair_runs, parse_pair_by
from reportgen.errors import UsageError
from reportgen.ingest import ingest

runner = CliRunner()
DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
TAU2 = DATA / "tau2-bench"


def _tau2_files() -> list[Path]:
    return sorted(TAU2.glob("*.json")) if TAU2.is_dir() else []


def _raw_tau2(path: Path) -> tuple[str, set[tuple[str, int]], dict[tuple[str, int], float]]:
    """The agent model, the (task, trial) combinations and their rewards, by json alone."""
    document = json.loads(path.read_text(encoding="utf-8"))
    sims = document["simulations"]
    combos = {(str(s["task_id"]), int(s["trial"])) for s in sims}
    rewards = {
        (str(s["task_id"]), int(s["trial"])): float(s["reward_info"]["reward"]) for s in sims
    }
    return document["info"]["agent_info"]["llm"], combos, rewards


def _domain(path: Path) -> str:
    return str(
        json.loads(path.read_text(encoding="utf-8"))["info"]["environment_info"]["domain_name"]
    )


def _model_pairs() -> list[tuple[Path, Path]]:
    files = _tau2_files()
    return [
        (a, b) for a, b in itertools.permutations(files, 2) if _raw_tau2(a)[0] != _raw_tau2(b)[0]
    ]


@pytest.mark.slow
def test_every_two_tau2_models_pair_exactly_the_combinations_both_hold() -> None:
    pairs = _model_pairs()
    if not pairs:
        pytest.skip(f"{TAU2} is missing (the shared real data)")
    assert len(pairs) == 24  # 6 files, each against the 4 of other models
    for a, b in pairs:
        result = runner.invoke(app, ["compare", str(a), str(b), "--json"])
        assert result.exit_code == 0, result.output
        out = json.loads(result.stdout)
        _, combos_a, _ = _raw_tau2(a)
        _, combos_b, _ = _raw_tau2(b)
        got = set()
        for pair in out["pairs"]:
            pid = pair["pair_id"]
            trial = int(pid.rsplit("#", 1)[1]) if "#" in pid else 0
            got.add((pair["task_id"], trial))
        assert got == combos_a & combos_b, (a.name, b.name)
        assert len(out["pairs"]) == len(combos_a & combos_b)
        same_domain = _domain(a) == _domain(b)  # the suite pairs too where both share it
        expected = ["suite", "task", "trial"] if same_domain else ["task", "trial"]
        assert out["summary"]["paired_by"] == expected


def test_a_success_drop_past_the_gate_exits_3() -> None:
    """Among the tau2 model pairs, one whose pass rate over tasks drops by more than 5 points
    fails --max-success-drop 5 (exit 3); a pair with no drop passes it."""
    pairs = _model_pairs()
    if not pairs:
        pytest.skip(f"{TAU2} is missing (the shared real data)")

    def rate(path: Path) -> float:  # mean over tasks of each task's pass rate over trials
        _, _, rewards = _raw_tau2(path)
        tasks = sorted({t for t, _ in rewards})
        per = [
            sum(r == 1.0 for (t, _), r in rewards.items() if t == task)
            / sum(1 for (t, _) in rewards if t == task)
            for task in tasks
        ]
        return sum(per) / len(per)

    dropping = next((a, b) for a, b in pairs if (rate(a) - rate(b)) * 100 > 5)
    result = runner.invoke(
        app, ["compare", str(dropping[0]), str(dropping[1]), "--max-success-drop", "5"]
    )
    assert result.exit_code == 3, result.output
    assert "max_success_drop" in result.output or "success" in result.output
    steady = next((a, b) for a, b in pairs if rate(a) <= rate(b))
    result = runner.invoke(
        app, ["compare", str(steady[0]), str(steady[1]), "--max-success-drop", "5"]
    )
    assert result.exit_code == 0, result.output


def _trace(folder: Path, name: str, task: str, suite: str, **extra: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    steps = [{"type": "tool", "action": "read", "status": "ok", "input": {"p": 1}}]
    path.write_text(json.dumps({"task_id": task, "suite": suite, "steps": steps, **extra}))
    return path


def test_two_suites_sharing_no_task_is_an_error(tmp_path: Path) -> None:
    for task in ("a", "b"):
        _trace(tmp_path / "base", task, task, "bench/one")
    for task in ("c", "d"):
        _trace(tmp_path / "cand", task, task, "bench/two")
    for args in (["compare", str(tmp_path / "base"), str(tmp_path / "cand")],):
        result = runner.invoke(app, args)
        assert result.exit_code == 1, result.output
        line = result.stderr.strip()
        assert "\n" not in line
        assert "no task in common" in line
        assert "baseline has 2 task(s) of suite bench/one" in line
        assert "candidate 2 of suite bench/two" in line
        assert "0 shared task id(s)" in line and "first baseline ids: a, b" in line


def test_two_formats_sharing_no_task_is_an_error(tmp_path: Path) -> None:
    if not TAU2.is_dir() or not (DATA / "tau-bench").is_dir():
        pytest.skip("the shared real data is missing")
    native = _trace(tmp_path / "native", "x", "not-a-benchmark-task", "mine")
    result = runner.invoke(app, ["compare", str(_tau2_files()[0]), str(native), "--json"])
    assert result.exit_code == 1, result.output
    assert "no task in common" in result.stderr
    assert result.stdout == ""  # nothing half-written for machines


def test_gate_with_nothing_paired_is_an_error(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    _trace(tmp_path / "baseline", "a", "a", "bench/one", batch="n1")
    _trace(tmp_path / "candidate", "c", "c", "bench/two", batch="n1")
    ingest([tmp_path / "baseline", tmp_path / "candidate"], db)
    result = runner.invoke(app, ["gate", "--db", str(db), "--batch", "n1"])
    assert result.exit_code == 1, result.output
    assert "no task in common" in result.stderr
    # the same task in two suites: paired by task alone it compares, by default it does not
    _trace(tmp_path / "b2", "s", "shared", "bench/one", batch="n2", label="baseline")
    _trace(tmp_path / "c2", "s", "shared", "bench/two", batch="n2", label="candidate")
    ingest([tmp_path / "b2", tmp_path / "c2"], db)
    result = runner.invoke(app, ["gate", "--db", str(db), "--batch", "n2"])
    assert result.exit_code == 1
    assert "no run pairs by suite, task, trial" in result.stderr
    assert "--pair-by task" in result.stderr
    result = runner.invoke(app, ["gate", "--db", str(db), "--batch", "n2", "--pair-by", "task"])
    assert result.exit_code == 0, result.output
    assert "1 pair(s) compared (paired by task)" in result.stdout


def test_unpaired_runs_are_listed_with_why_in_json(tmp_path: Path) -> None:
    for task in ("a", "b"):
        _trace(tmp_path / "base", task, task, "one")
    for task in ("a", "z"):
        _trace(tmp_path / "cand", task, task, "two")
    result = runner.invoke(
        app, ["compare", str(tmp_path / "base"), str(tmp_path / "cand"), "--json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert [p["task_id"] for p in out["pairs"]] == ["a"]
    why = {(u["side"], u["task_id"]): u["reason"] for u in out["unpaired"]}
    assert why == {
        ("baseline", "b"): "the candidate has no task b",
        ("candidate", "z"): "the baseline has no task z",
    }
    assert out["summary"]["paired_by"] == ["task"]


def test_pair_by_is_checked() -> None:
    assert parse_pair_by(None) is None
    assert parse_pair_by("trial, task") == ("task", "trial")
    assert parse_pair_by("task,suite,trial") == PAIR_KEYS
    for bad in ("trial", "task,night", ""):
        with pytest.raises(UsageError):
            parse_pair_by(bad)
    result = runner.invoke(app, ["compare", "a", "b", "--pair-by", "batch"])
    assert result.exit_code == 2


Run = tuple[str, str, int]  # suite, task, trial


def _oracle(base: list[Run], cand: list[Run], keys: tuple[str, ...]) -> int:
    """Pairs by a plain greedy match: each run, in order, takes the first free run of the other
    side with the same keys (what the SQL's row_number() join does for runs in id order)."""
    pick = {"suite": 0, "task": 1, "trial": 2}

    def key(run: Run) -> tuple[Any, ...]:
        return tuple(run[pick[k]] for k in keys)

    free: dict[tuple[Any, ...], int] = {}
    for run in cand:
        free[key(run)] = free.get(key(run), 0) + 1
    found = 0
    for run in base:
        if free.get(key(run), 0):
            free[key(run)] -= 1
            found += 1
    return found


runs = st.lists(
    st.tuples(st.sampled_from(["s1", "s2"]), st.sampled_from(["a", "b", "c"]), st.integers(0, 2)),
    max_size=8,
)


@settings(max_examples=40, deadline=None)
@given(runs, runs, st.sampled_from([("task",), ("task", "trial"), ("suite", "task", "trial")]))
def test_pairing_matches_a_plain_greedy_match(
    base: list[Run], cand: list[Run], keys: tuple[str, ...]
) -> None:
    con = connect(None)
    try:
        rows = [
            (f"{side}{n:03d}", suite, task, trial)
            for side, found in (("b", base), ("c", cand))
            for n, (suite, task, trial) in enumerate(found)
        ]
        for run_id, suite, task, trial in rows:
            con.execute(
                "INSERT INTO runs (run_id, suite, label, task_id, batch, trial, n_steps, format,"
                " source_file, content_hash) VALUES (?, ?, 'x', ?, 'n', ?, 0, 'f', 'f', 'h')",
                [run_id, suite, task, trial],
            )
        b_ids = [r[0] for r in rows if r[0].startswith("b")]
        c_ids = [r[0] for r in rows if r[0].startswith("c")]
        pairing = pair_runs(con, b_ids, c_ids, same_batch=True, keys=keys)
        assert len(pairing.pairs) == _oracle(base, cand, keys)
        assert len(pairing.pairs) * 2 + len(pairing.unpaired) == len(rows)
        assert all(u.reason for u in pairing.unpaired)
        assert pairing.keys == keys
    finally:
        con.close()
