"""Harbor job folders (../shared/data/harbor-jobs): a run per trial with the verifier's
reward and the exception's kind; counts against the raw result.json and trajectory.json
files and the job's own stats, read by the test itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reportgen.formats.adapters.harbor import error_kind
from reportgen.formats.registry import adapters, detect_format
from reportgen.formats.source import is_input_file, measure

from .helpers import DATA, load, needs_data

FOLDER = DATA / "harbor-jobs"
# How these exceptions are judged (docs/formats-adapters.md, Harbor): the environment could
# not start (e2b unreachable), the verifier wrote no reward, the agent ran out of time.
EXPECTED_KIND = {"ConnectError": "environment", "RewardFileNotFoundError": "harness"}
AGENTS_OWN = {"AgentTimeoutError"}


def _trials() -> list[tuple[Path, dict[str, Any]]]:
    found = []
    for path in sorted(FOLDER.rglob("result.json")):
        document = json.loads(path.read_text())
        if "trial_name" in document:
            found.append((path.parent, document))
    return found


def _raw_counts() -> dict[str, Any]:
    counts: dict[str, Any] = {"runs": 0, "steps": 0, "tool_calls": 0, "tokens_in": 0}
    outcomes = {"success": 0, "failure": 0, "error": 0}
    for folder, result in _trials():
        counts["runs"] += 1
        trajectory = folder / "agent" / "trajectory.json"
        if trajectory.is_file():
            for step in json.loads(trajectory.read_text())["steps"]:
                if step["source"] == "agent":
                    calls = len(step.get("tool_calls") or [])
                    counts["steps"] += 1 + calls
                    counts["tool_calls"] += calls
        counts["steps"] += bool(result.get("exception_info")) + bool(result.get("verifier_result"))
        counts["tokens_in"] += (result.get("agent_result") or {}).get("n_input_tokens") or 0
        exception = (result.get("exception_info") or {}).get("exception_type")
        reward = ((result.get("verifier_result") or {}).get("rewards") or {}).get("reward")
        if exception and exception not in AGENTS_OWN:
            outcomes["error"] += 1
        elif reward is not None and reward >= 1:
            outcomes["success"] += 1
        else:
            outcomes["failure"] += 1
    counts["outcomes"] = outcomes
    return counts


@needs_data
def test_counts_match_the_raw_files(tmp_path: Path) -> None:
    con = load(tmp_path, FOLDER)
    raw = _raw_counts()
    got = con.execute(
        """
        SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM steps),
               (SELECT count(*) FROM steps WHERE type = 'tool'),
               (SELECT count(*) FROM steps WHERE type = 'tool' AND status = 'error'),
               (SELECT sum(tokens_in) FROM runs)
        """
    ).fetchone()
    # the mock model's commands all succeed: no tool errors
    assert got == (raw["runs"], raw["steps"], raw["tool_calls"], 0, raw["tokens_in"])
    outcomes = con.execute(
        """
        SELECT count(*) FILTER (WHERE success),
               count(*) FILTER (WHERE NOT success),
               count(*) FILTER (WHERE success IS NULL AND error_kind IS NOT NULL)
        FROM runs
        """
    ).fetchone()
    assert outcomes == tuple(raw["outcomes"].values()) == (1, 3, 3)


@needs_data
def test_rewards_and_exceptions_as_the_job_counted_them(tmp_path: Path) -> None:
    """Each job's result.json lists its trials by reward and by exception type."""
    con = load(tmp_path, FOLDER)
    jobs = [p.parent for p in FOLDER.rglob("result.json") if "n_total_trials" in p.read_text()]
    assert len(jobs) == 2
    for job in sorted(jobs):
        stats = json.loads((job / "result.json").read_text())["stats"]["evals"]
        for evaluation in stats.values():
            for value, trials in evaluation["reward_stats"].get("reward", {}).items():
                for trial in trials:
                    assert con.execute(
                        "SELECT reward FROM runs WHERE run_id = ?", [f"{job.name}/{trial}"]
                    ).fetchone() == (float(value),)
            for etype, trials in evaluation["exception_stats"].items():
                for trial in trials:
                    row = con.execute(
                        "SELECT success, error_kind, meta->'exception'->>'type'"
                        " FROM runs WHERE run_id = ?",
                        [f"{job.name}/{trial}"],
                    ).fetchone()
                    assert row is not None and row[2] == etype
                    if etype in AGENTS_OWN:
                        assert row[:2] == (False, None)
                    else:
                        assert row[:2] == (None, EXPECTED_KIND[etype])


@needs_data
def test_identity(tmp_path: Path) -> None:
    con = load(tmp_path, FOLDER)
    rows = con.execute(
        "SELECT suite, task_id, label, trial, batch FROM runs ORDER BY ALL"
    ).fetchall()
    assert rows[0] == ("tasks", "hello-file", "oracle", 0, "oracle-e2b-offline")
    assert rows[1] == ("tasks", "hello-file", "oracle", 1, "oracle-e2b-offline")
    assert (
        "tasks2",
        "partial-credit",
        "terminus-2/openai/mock-scripted-model",
        0,
        "terminus-2-mock",
    ) in rows
    meta = json.loads(
        con.execute("SELECT meta FROM runs WHERE task_id = 'partial-credit'").fetchone()[0]
    )
    assert meta["goal"] == "Create /app/a.txt and /app/b.txt, each containing ok."
    assert meta["scorer"] == "verifier rewards: reward 0.5, files_ok 1"
    assert meta["rewards"] == {"reward": 0.5, "files_ok": 1}
    assert set(meta["phases"]) == {
        "environment_setup",
        "agent_setup",
        "agent_execution",
        "verifier",
    }


def test_error_kind_rules() -> None:
    assert error_kind("AgentTimeoutError", "agent_execution") is None
    assert error_kind("VerifierTimeoutError", "verifier") == "timeout"
    assert error_kind("ConnectError", "environment_setup") == "environment"
    assert error_kind("ConnectError", "agent_execution") == "network"
    assert error_kind("ApiUsageLimitError", "agent_execution") == "quota"
    assert error_kind("RuntimeError", "agent_execution") == "harness"


@needs_data
def test_every_file_of_a_job_is_harbor() -> None:
    for path in sorted(p for p in FOLDER.rglob("*") if p.is_file() and is_input_file(p)):
        source = measure(path, str(path), 1 << 26)
        assert [a.name for a in adapters() if a.detect(source)] == ["harbor"], path
        assert detect_format(source).name == "harbor"


def test_a_trajectory_outside_a_job_is_still_atif(tmp_path: Path) -> None:
    folder = tmp_path / "task__x" / "agent"
    folder.mkdir(parents=True)
    path = folder / "trajectory.json"
    path.write_text(json.dumps({"schema_version": "ATIF-v1.8", "agent": {}, "steps": []}))
    (tmp_path / "task__x" / "config.json").write_text('{"job_name": "not harbor"}')
    assert detect_format(measure(path, str(path), 1 << 26)).name == "atif"


def test_detection_looks_at_no_folder_for_files_harbor_cannot_hold(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Every file of a load is asked whether it is Harbor's: one that is not a Harbor file
    name and not within 4 parts of an ``agent/`` folder is not, with no folder looked at;
    under a trial's agent/ folder it still is."""
    from reportgen.formats.adapters import harbor_layout

    trial = tmp_path / "job" / "trial__x"
    (trial / "agent").mkdir(parents=True)
    (trial / "config.json").write_text('{"trials_dir": "x"}')
    other = tmp_path / "job" / "trial__x" / "logs" / "run" / "report.json"
    other.parent.mkdir(parents=True)
    other.write_text('{"a": {"resolved": true}}')
    inside = trial / "agent" / "notes.json"
    inside.write_text('{"b": 1}')
    harbor = next(a for a in adapters() if a.name == "harbor")
    assert harbor.detect(measure(inside, str(inside), 1 << 26))

    def no_io(folder: Path) -> bool:
        raise AssertionError(f"looked at {folder}")

    monkeypatch.setattr(harbor_layout, "_is_harbor", no_io)
    assert not harbor.detect(measure(other, str(other), 1 << 26))
