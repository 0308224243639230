"""tau2-bench result files (sierra-research/tau2-bench ``data/simulations/``): one evaluation
run with ``info`` (agent and user models, domain), ``tasks`` and ``simulations``.

Each simulation is a run: the agent model is the label (the thing compared), the domain (or
policy variant, e.g. ``airline_tighter_policy``) names the suite (``tau2-bench/airline``), so
two models on one domain pair up by task and trial; ``trial`` is the trial,
``reward_info.reward`` the reward. Steps as in tau-bench, with
per-message usage, cost and timestamps; a tool message's ``error`` flag (or ``Error:`` text)
makes its call an error. A file with zero simulations (an aborted run) loads zero runs and
prints a notice."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import duckdb

from reportgen.formats.adapters.rows import (
    Collector,
    amount,
    count,
    notice,
    parse_document,
    require,
    stage_each,
)
from reportgen.formats.adapters.tau_bench import (
    ChatStep,
    emit,
    heard,
    is_tool_error,
    last_reply,
    take_pending,
)
from reportgen.formats.adapters.why import call_text, lines, why
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

WHAT = "tau2-bench results (an object with info, tasks and simulations)"
_INFO_KEYS = (Marked(rb'"agent_info"\s*:'), Marked(rb'"environment_info"\s*:'))
_SIM_KEYS = (
    Marked(rb'"simulations"\s*:', b'"simulations"'),
    Marked(rb'"termination_reason"\s*:', b'"termination_reason"'),
)


class Tau2Bench:
    name = "tau2-bench"
    description = "tau2-bench results (info, tasks, simulations)"
    maps = (
        "a simulation -> a run (label: agent model, suite: tau2-bench/<domain>, trial: trial); "
        "tool call -> tool step (error flag or 'Error:' -> error), text reply -> llm step"
    )

    def detect(self, source: SourceFile) -> bool:
        head = source.head
        return all(k.search(head) for k in _INFO_KEYS) or all(k.search(head) for k in _SIM_KEYS)

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        stage_each(con, sources, self.name, WHAT, _parse)


def _seconds(stamp: Any) -> float | None:
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return None


def _steps(messages: list[Any]) -> list[ChatStep]:
    steps: list[ChatStep] = []
    pending: dict[str, ChatStep] = {}
    previous: float | None = None
    since: list[Any] = []
    for message in messages:
        role = message.get("role")
        stamp = message.get("timestamp")
        now = _seconds(stamp)
        if role in ("user", "tool"):
            since.append(message)
        if role == "assistant":
            usage = message.get("usage") or {}
            calls = message.get("tool_calls") or []
            made = [
                ChatStep("tool", str(call.get("name") or "(unnamed)"), input=call.get("arguments"))
                for call in calls
            ]
            for call, step in zip(calls, made, strict=True):
                pending[str(call.get("id"))] = step
            if not made and message.get("content"):
                made = [ChatStep("llm", "reply", input=heard(since), output=message["content"])]
                since = []
            elif message.get("content"):
                since.append(message)  # text beside tool calls: shown with the next reply
            if made:
                first = made[0]
                first.tokens_in = count(usage.get("prompt_tokens"), "prompt_tokens")
                first.tokens_out = count(usage.get("completion_tokens"), "completion_tokens")
                first.cost_usd = amount(message.get("cost"), "cost")
                if now is not None and previous is not None and now >= previous:
                    first.latency_ms = (now - previous) * 1000.0
                for step in made:
                    step.started_at = stamp if isinstance(stamp, str) else None
                steps.extend(made)
        elif role == "tool":
            answered = take_pending(pending, message.get("id"))
            if answered is not None:
                content = message.get("content")
                answered.output = content
                answered.status = (
                    "error" if is_tool_error(content, message.get("error") is True) else "ok"
                )
        if now is not None:
            previous = now
    return steps


def _parse(rows: Collector, source: SourceFile) -> None:
    document = parse_document(source, WHAT)
    require(source, isinstance(document, dict), f"expected {WHAT}")
    for key in ("info", "simulations"):
        require(source, key in document, "required field is missing", key)
    info = document["info"]
    simulations = document["simulations"]
    require(source, isinstance(info, dict), "expected an object", "info")
    require(source, isinstance(simulations, list), "expected a list", "simulations")
    if not simulations:
        notice(source, "holds zero simulations (an aborted run?); no runs loaded")
        return
    env = info.get("environment_info") or {}
    agent = info.get("agent_info") or {}
    user = info.get("user_info") or {}
    domain = str(env.get("domain_name") or "") or None
    model = str(agent.get("llm") or "") or "unknown-model"
    stamp = document.get("timestamp")
    file_stamp = stamp if isinstance(stamp, str) else None
    tasks = {str(t.get("id")): t for t in document.get("tasks") or [] if isinstance(t, dict)}
    for position, sim in enumerate(simulations):
        where = f"simulations[{position}]"
        require(source, isinstance(sim, dict), "expected an object", where)
        for key in ("id", "task_id", "messages"):
            require(source, key in sim, "required field is missing", f"{where}.{key}")
        messages = sim["messages"]
        require(source, isinstance(messages, list), "expected a list", f"{where}.messages")
        reward_info = sim.get("reward_info") or {}
        reward = reward_info.get("reward") if isinstance(reward_info, dict) else None
        reward = float(reward) if isinstance(reward, (int, float)) else None
        duration = amount(sim.get("duration"), "duration")
        task = tasks.get(str(sim["task_id"])) or {}
        rows.begin(str(sim["id"]))
        emit(rows, _steps(messages))
        rows.end(
            source,
            task_id=str(sim["task_id"]),
            label=model,
            suite=f"tau2-bench/{domain or 'unknown-domain'}",
            trial=count(sim.get("trial"), "trial") or 0,
            started_at=(
                sim.get("start_time") if isinstance(sim.get("start_time"), str) else file_stamp
            ),
            reward=reward,
            success=None if reward is None else reward >= 1,
            cost_usd=amount(sim.get("agent_cost"), "agent_cost"),
            latency_ms=None if duration is None else duration * 1000.0,
            output=last_reply(messages),
            meta={
                "benchmark": "tau2-bench",
                "agent_llm": agent.get("llm"),
                "user_llm": user.get("llm"),
                "termination_reason": sim.get("termination_reason"),
                "user_cost": sim.get("user_cost"),
                "seed": sim.get("seed"),
                **why(
                    goal=_goal(task.get("user_scenario")),
                    title=(task.get("description") or {}).get("purpose"),
                    scorer=_scorer(reward_info, sim.get("termination_reason")),
                ),
                **_infrastructure_error(sim.get("termination_reason")),
            },
        )


_SCENARIO_PARTS = (
    ("reason_for_call", "Reason for call"),
    ("known_info", "Known info"),
    ("unknown_info", "Unknown info"),
    ("task_instructions", "Task instructions"),
)


def _goal(scenario: Any) -> str | None:
    """A task's user scenario as text: the persona and the simulated user's instructions
    (a string, or the parts of structured instructions, each under its name)."""
    if not isinstance(scenario, dict):
        return None
    persona = scenario.get("persona")
    instructions = scenario.get("instructions")
    if isinstance(instructions, dict):
        told = [
            f"{name}: {instructions[key]}"
            for key, name in _SCENARIO_PARTS
            if isinstance(instructions.get(key), str) and instructions[key].strip()
        ]
        text = "\n\n".join(told) or None
    else:
        text = instructions if isinstance(instructions, str) else None
    return lines(f"Persona: {persona}" if isinstance(persona, str) and persona else None, text)


def _scorer(info: Any, termination: Any) -> str | None:
    """The reward breakdown in words: the reward and its basis, each component's reward,
    the DB check, the action checks that failed (the expected call), the communicate and
    natural-language checks not met, the environment assertions that failed, how it ended."""
    if not isinstance(info, dict):
        return lines(f"termination: {termination}" if termination else None)
    basis = info.get("reward_basis") or []
    parts: list[str | None] = []
    reward = info.get("reward")
    if reward is not None:
        parts.append(
            f"reward {reward}" + (f" (basis: {', '.join(map(str, basis))})" if basis else "")
        )
    breakdown = info.get("reward_breakdown")
    if isinstance(breakdown, dict) and breakdown:
        parts.append("breakdown: " + ", ".join(f"{k} {v}" for k, v in breakdown.items()))
    db = info.get("db_check")
    if isinstance(db, dict) and "db_match" in db:
        parts.append("DB check: " + ("match" if db.get("db_match") else "no match"))
    checks = [c for c in info.get("action_checks") or [] if isinstance(c, dict)]
    failed = [c for c in checks if not c.get("action_match")]
    if checks:
        parts.append(f"action checks: {len(checks) - len(failed)} of {len(checks)} matched")
    for check in failed:
        action = check.get("action") or {}
        parts.append(
            "expected action not matched: " + call_text(action.get("name"), action.get("arguments"))
        )
    for check in info.get("communicate_checks") or []:
        if isinstance(check, dict) and not check.get("met"):
            parts.append(f"not communicated: {check.get('info')}")
    for check in info.get("nl_assertions") or []:
        if isinstance(check, dict) and not check.get("met"):
            parts.append(f"assertion not met: {check.get('nl_assertion')}")
    for check in info.get("env_assertions") or []:
        if isinstance(check, dict) and not check.get("met"):
            assertion = check.get("env_assertion") or {}
            name = assertion.get("func_name") if isinstance(assertion, dict) else assertion
            parts.append(f"environment assertion failed: {name}")
    if termination:
        parts.append(f"termination: {termination}")
    return lines(*parts)


def _infrastructure_error(reason: Any) -> dict[str, str]:
    """The error keys of a simulation the harness ended (docs/formats.md, "Outcome rules"):
    ``user_error``, the user simulator failing, is not the agent's; ``user_stop``,
    ``agent_stop``, ``max_steps``, ``too_many_errors`` (the agent's tool errors) and
    ``agent_error`` (which τ² also raises for the agent's own invalid messages) are scored."""
    if reason == "user_error":
        return {
            "error_kind": "harness",
            "error_reason": "tau2 termination_reason user_error: the user simulator failed",
        }
    return {}
