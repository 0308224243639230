"""Harbor job folders (``jobs/<job>/``: ``config.json``, ``result.json``, ``lock.json``, one
folder per trial): a trial's ``result.json`` is a run, its agent's ATIF
``agent/trajectory.json`` the steps.

- Identity: run id ``<job folder>/<trial_name>``; task = ``task_name``; label = the agent as
  the job config names it, ``<agent name>/<model_name>`` (``terminus-2/openai/gpt-4o``;
  ``oracle``); suite = the dataset (``source``, else the folder holding the task's path);
  trial = the trial's position among its job's trials of the same task, by start time
  (0, 1, ...); batch = the job folder (Harbor names it by its start time by default).
- Outcome: reward = ``verifier_result.rewards.reward`` (the other rewards in
  ``meta.rewards``); success = reward >= 1. ``exception_info`` is placed in a phase (the one
  running at ``occurred_at``) and classed by its type: an infrastructure failure (the
  environment, the verifier, a timeout outside the agent, rate limits, quota, auth, network,
  a harness crash) is not the agent's: success NULL, ``meta.error_kind`` and
  ``meta.error_reason``. ``AgentTimeoutError`` (the agent ran out of its time), a context or
  output length overflow and a safety refusal are the agent's own failure: success False
  unless the verifier still gave full reward.
- Steps: the trajectory's, read as the ``atif`` adapter reads them, then a ``stop`` step for
  the exception (``abandoned`` for the agent's own, ``error`` for infrastructure) and a
  ``check`` step for the verifier (``ok`` at full reward, else ``error``).
- Tokens and cost: ``agent_result`` (``n_input_tokens``, ``n_output_tokens``, ``cost_usd``;
  cached tokens in meta), else the trajectory's ``final_metrics``. Latency: the
  ``agent_execution`` phase; each phase's seconds in ``meta.phases``.
- Every other file of a job folder (configs, locks, the job's result, manifests, reward
  files, the trajectory itself) is recognised and loads no run of its own."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

import duckdb
import orjson

from reportgen.formats.adapters import atif
from reportgen.formats.adapters.harbor_layout import harbor_folder, near_agent_folder
from reportgen.formats.adapters.rows import (
    Collector,
    amount,
    count,
    epoch_from_iso,
    explained,
    notice,
    parse_document,
    require,
)
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile, measure

WHAT = "Harbor trial result (result.json with trial_name, task_name and agent_info)"
_TRIAL = (Marked(rb'"trial_name"\s*:'), Marked(rb'"task_name"\s*:'))
# The files Harbor writes in job and trial folders besides agent/ (all of which is the agent's).
HARBOR_FILES = frozenset(
    {"config.json", "lock.json", "result.json", "manifest.json", "reward.json"}
)
PHASES = ("environment_setup", "agent_setup", "agent_execution", "verifier")
REASON_CHARS = 300

# The exception types that are the agent's own failure (Harbor's errors and LiteLLM's).
AGENT_FAILURES = frozenset(
    {
        "AgentTimeoutError",
        "AgentSafetyRefusalError",
        "ContextLengthExceededError",
        "OutputLengthExceededError",
    }
)
# Infrastructure failures known by type; others are placed by their phase (see error_kind).
KINDS = {
    "ApiUsageLimitError": "quota",
    "RateLimitError": "rate_limit",
    "AgentAuthenticationError": "auth",
    "AuthenticationError": "auth",
    "VerifierTimeoutError": "timeout",
    "EnvironmentStartTimeoutError": "timeout",
    "RewardFileNotFoundError": "harness",
    "RewardFileEmptyError": "harness",
    "VerifierOutputParseError": "harness",
    "ModelNotFoundError": "harness",
    "UnsupportedModelParametersError": "harness",
}
_NETWORK = re.compile(r"Connect|Network|DNS|SSL|RemoteProtocol|ReadError", re.IGNORECASE)
_PHASE_KINDS = {"environment_setup": "environment", "agent_setup": "environment"}


class HarborJob:
    name = "harbor"
    description = "Harbor job and trial folders (result.json + agent/trajectory.json)"
    maps = (
        "a trial's result.json -> a run (reward = verifier reward, exception_info -> the "
        "agent's failure or an infrastructure error); agent/trajectory.json (ATIF) -> steps"
    )

    def detect(self, source: SourceFile) -> bool:
        if source.lines:
            return False
        if source.path.name == "result.json" and all(k.search(source.head) for k in _TRIAL):
            return True
        if source.path.name not in HARBOR_FILES and not near_agent_folder(source.path):
            return False  # whatever folder it is in (every file of a load is asked: no I/O)
        folder = harbor_folder(source.path.parent)
        if folder is None:
            return False
        return source.path.name in HARBOR_FILES or "agent" in source.path.relative_to(folder).parts

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        rows = Collector(self.name)
        for source in sources:
            if source.path.name == "result.json" and all(k.search(source.head) for k in _TRIAL):
                with explained(source, WHAT):
                    _trial(rows, source, options)
        rows.flush(con)


def _read(path: Path) -> dict[str, Any]:
    """A small JSON object beside the trial (a config, the job's result); {} when unreadable."""
    try:
        value = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@lru_cache(maxsize=64)
def _trial_order(job: Path) -> dict[str, int]:
    """trial folder name -> its position among the job's trials of the same task, by start
    time then name."""
    by_task: dict[str, list[tuple[str, str]]] = {}
    for result in sorted(job.glob("*/result.json")):
        document = _read(result)
        if isinstance(document.get("trial_name"), str):
            by_task.setdefault(str(document.get("task_name")), []).append(
                (str(document.get("started_at") or ""), result.parent.name)
            )
    return {
        name: position
        for trials in by_task.values()
        for position, (_, name) in enumerate(sorted(trials))
    }


def _label(result: dict[str, Any]) -> str:
    agent = _obj(_obj(result.get("config")).get("agent"))
    info = _obj(result.get("agent_info"))
    name = agent.get("name") or info.get("name") or "harbor"
    model = agent.get("model_name")
    if not model and _obj(info.get("model_info")).get("name"):
        model_info = _obj(info.get("model_info"))
        provider = model_info.get("provider")
        model = f"{provider}/{model_info['name']}" if provider else model_info["name"]
    return f"{name}/{model}" if model else str(name)


def _suite(result: dict[str, Any]) -> str:
    if isinstance(result.get("source"), str) and result["source"]:
        return str(result["source"])
    path = _obj(result.get("task_id")).get("path")
    if isinstance(path, str) and "/" in path.strip("/"):
        return PurePosixPath(path).parent.name
    return "harbor"


def _phase(result: dict[str, Any], occurred: float | None) -> str | None:
    """The phase running when the exception occurred: the last one started by then."""
    found = None
    for phase in PHASES:
        started = epoch_from_iso(_obj(result.get(phase)).get("started_at"))
        if started is not None and (occurred is None or started <= occurred):
            found = phase
    return found


def error_kind(exception_type: str, phase: str | None) -> str | None:
    """The infrastructure kind of an exception, None when it is the agent's own failure."""
    if exception_type in AGENT_FAILURES:
        return None
    if exception_type in KINDS:
        return KINDS[exception_type]
    if phase in _PHASE_KINDS:
        return _PHASE_KINDS[phase]
    if _NETWORK.search(exception_type):
        return "network"
    if "Timeout" in exception_type:
        return "timeout"
    return "harness"


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= REASON_CHARS else line[: REASON_CHARS - 1] + "…"


def _trial(rows: Collector, source: SourceFile, options: StageOptions) -> None:
    result = parse_document(source, WHAT)
    require(source, isinstance(result, dict), f"expected {WHAT}")
    for key in ("trial_name", "task_name"):
        require(
            source,
            isinstance(result.get(key), str) and bool(result[key]),
            "expected text",
            key,
        )
    trial_dir = source.path.parent
    job_dir = trial_dir.parent
    job_config = _read(job_dir / "config.json")
    job_name = str(job_config.get("job_name") or job_dir.name)
    run_id = f"{job_name}/{result['trial_name']}"
    rows.begin(run_id)
    walk = atif.Walk()
    trajectory: dict[str, Any] | None = None
    embedded: list[atif.Embedded] = []
    path = trial_dir / "agent" / "trajectory.json"
    if path.is_file():
        traj_source = measure(path, str(path), options.max_record_bytes)
        with explained(traj_source, atif.WHAT):
            trajectory = atif.header(traj_source)
            atif.walk_steps(rows, traj_source, trajectory, walk)
            embedded = atif.subagents(traj_source, [trajectory], run_id)
    rewards = _obj(_obj(result.get("verifier_result")).get("rewards"))
    reward = amount(rewards.get("reward"))
    if reward is None and len(rewards) == 1:
        reward = amount(next(iter(rewards.values())))
    exception = _obj(result.get("exception_info"))
    kind: str | None = None
    reason: str | None = None
    phase: str | None = None
    etype = str(exception.get("exception_type") or "")
    if exception:
        phase = _phase(result, epoch_from_iso(exception.get("occurred_at")))
        kind = error_kind(etype, phase)
        reason = _one_line(f"{etype}: {exception.get('exception_message') or ''}".strip(": "))
        rows.step(
            "stop",
            etype or "exception",
            "abandoned" if kind is None else "error",
            output={"phase": phase, "message": exception.get("exception_message")},
            started_at=exception.get("occurred_at")
            if isinstance(exception.get("occurred_at"), str)
            else None,
            error=reason,
        )
    if result.get("verifier_result") is not None:
        rows.step(
            "check",
            "verifier",
            "ok" if reward is not None and reward >= 1 else "error",
            output=rewards,
        )
    if kind is not None:
        success = None
    elif reward is not None:
        success = reward >= 1
    else:
        success = False if exception else None
    agent_result = _obj(result.get("agent_result"))
    final = _obj(trajectory.get("final_metrics")) if trajectory else {}
    phases = {
        phase_name: round(end - start, 3)
        for phase_name in PHASES
        if (start := epoch_from_iso(_obj(result.get(phase_name)).get("started_at"))) is not None
        and (end := epoch_from_iso(_obj(result.get(phase_name)).get("finished_at"))) is not None
    }
    scorer = _scorer(reward, rewards, etype, phase, kind, exception)
    meta = {
        **(atif.run_meta(trajectory, walk, embedded) if trajectory else {}),
        "tool": "harbor",
        "job": job_name,
        "job_id": _obj(result.get("config")).get("job_id"),
        "trial_id": result.get("id"),
        "trial_name": result["trial_name"],
        "agent": _obj(result.get("agent_info")).get("name"),
        "agent_version": _obj(result.get("agent_info")).get("version"),
        "rewards": rewards or None,
        "cached_tokens": count(agent_result.get("n_cache_tokens"))
        if agent_result
        else count(final.get("total_cached_tokens")),
        "phases": phases or None,
        "exception": {
            "type": etype,
            "phase": phase,
            "message": _one_line(str(exception.get("exception_message") or "")),
            "occurred_at": exception.get("occurred_at"),
        }
        if exception
        else None,
        "error_kind": kind,
        "error_reason": reason if kind is not None else None,
        "scorer": scorer,
    }
    agent_time = phases.get("agent_execution")
    task = str(result["task_name"])
    suite = _suite(result)
    rows.end(
        source,
        task_id=task,
        label=_label(result),
        suite=suite,
        batch=job_dir.name,
        trial=_trial_order(job_dir).get(trial_dir.name, 0),
        started_at=result.get("started_at") if isinstance(result.get("started_at"), str) else None,
        output=walk.output,
        success=success,
        reward=reward,
        tokens_in=count(agent_result.get("n_input_tokens"))
        if agent_result
        else count(final.get("total_prompt_tokens")),
        tokens_out=count(agent_result.get("n_output_tokens"))
        if agent_result
        else count(final.get("total_completion_tokens")),
        cost_usd=amount(agent_result.get("cost_usd"))
        if agent_result
        else amount(final.get("total_cost_usd")),
        latency_ms=agent_time * 1000.0 if agent_time is not None else atif.latency(walk),
        meta={k: v for k, v in meta.items() if v is not None},
    )
    if trajectory is None and not exception:
        notice(source, "no agent/trajectory.json beside it: a run without agent steps")
    if embedded:
        atif.emit_subagents(
            rows, source, embedded, walk, run_id, task=task, suite=suite, batch=job_dir.name
        )


def _scorer(
    reward: float | None,
    rewards: dict[str, Any],
    etype: str,
    phase: str | None,
    kind: str | None,
    exception: dict[str, Any],
) -> str:
    """The verdict in words: the rewards, and the exception with its phase and whose it is."""
    parts = []
    if rewards:
        parts.append("verifier rewards: " + ", ".join(f"{k} {v}" for k, v in rewards.items()))
    else:
        parts.append("no reward")
    if exception:
        whose = "the agent's failure" if kind is None else f"not scored ({kind} error)"
        where = f" in {phase}" if phase else ""
        message = _one_line(str(exception.get("exception_message") or ""))
        parts.append(f"{etype}{where}: {message} ({whose})")
    return "; ".join(parts)[:2000]
