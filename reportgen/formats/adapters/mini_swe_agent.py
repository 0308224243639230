"""mini-swe-agent trajectories (``<id>.traj.json``, ``trajectory_format: mini-swe-agent-1``) and
their SWE-bench evaluation reports (``logs/<id>/report.json``).

Messages alternate assistant (one fenced bash block = the action) and user (the observation,
``<returncode>N</returncode>...``). Each assistant message after the task is a ``tool`` step
named by its command's first word: return code 0 is ok, another code or a timeout an error; a
reply that the agent answers with "provide EXACTLY ONE action" was malformed, a retry. Usage
and cost come from ``extra.response.usage``; ``info.model_stats`` gives run totals. When
``report.json`` is found (beside the trajectory, or in ``../../logs/<id>/``) it gives the
outcome: ``resolved`` -> success, failing tests in meta. A report on its own loads no runs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import duckdb

from reportgen.formats.adapters.messages import content_text
from reportgen.formats.adapters.rows import (
    Collector,
    amount,
    count,
    iso_from_epoch,
    parse_document,
    require,
    stable_id,
    stage_each,
)
from reportgen.formats.adapters.swe_agent import first_word, model_stats
from reportgen.formats.adapters.why import swe_report, why
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

WHAT = "mini-swe-agent trajectory (an object with info, messages and trajectory_format)"
_MINI = re.compile(rb'"mini_version"\s*:|"trajectory_format"\s*:\s*"mini-swe-agent')
_MESSAGES = Marked(rb'"messages"\s*:\s*\[', b'"messages"')
_REPORT = (re.compile(rb'"tests_status"\s*:'), re.compile(rb'"(?:resolved|patch_is_None)"\s*:'))
_BLOCK = re.compile(r"```bash\s*\n(.*?)\n```", re.DOTALL)
_RETURNCODE = re.compile(r"\s*<returncode>(-?\d+)</returncode>")
_FORMAT_ERROR = re.compile(r"EXACTLY ONE action|exactly one bash code block", re.IGNORECASE)
_PR = re.compile(r"<pr_description>(.*?)</pr_description>", re.DOTALL)
_PR_LEAD = re.compile(r"^\s*Consider the following PR description:\s*")
_TIMEOUT = re.compile(r"^The last command .{0,400}? timed out", re.DOTALL)


class MiniSweAgent:
    name = "mini-swe-agent"
    description = "mini-swe-agent trajectory (.traj.json) and its report.json"
    maps = (
        "a .traj.json -> a run (task: instance_id); an assistant action -> a tool step named by "
        "its command; returncode!=0/timeout -> error, format error -> retry; report.json -> success"
    )

    def detect(self, source: SourceFile) -> bool:
        head = source.head
        if all(k.search(head) for k in _REPORT):
            return True
        if not _MESSAGES.search(head) and not source.path.name.endswith(".traj.json"):
            return False
        return bool(_MINI.search(head)) or source.path.name.endswith(".traj.json")

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        stage_each(con, sources, self.name, WHAT, _parse)


def _label(path: Path, instance: str) -> str | None:
    """The results folder: ``<run>/trajs/<id>/<id>.traj.json`` -> ``<run>``."""
    folder = path.resolve().parent
    if folder.name == instance:
        folder = folder.parent
    if folder.name == "trajs":
        folder = folder.parent
    return folder.name or None


def find_report(path: Path, instance: str) -> dict[str, Any] | None:
    """The evaluation report of ``instance``, beside the trajectory or in ../../logs/<id>/."""
    folder = path.resolve().parent
    candidates = [folder / "report.json"]
    for up in (folder.parent, folder.parent.parent):
        candidates.append(up / "logs" / instance / "report.json")
    for candidate in candidates:
        if candidate.is_file():
            try:
                report = json.loads(candidate.read_text("utf-8"))
            except (OSError, ValueError):
                return None
            if isinstance(report, dict) and isinstance(report.get(instance), dict):
                report = report[instance]  # the SWE-bench harness keys reports by instance
            return report if isinstance(report, dict) else None
    return None


def _failing(report: dict[str, Any]) -> list[str]:
    status = report.get("tests_status") or {}
    failing: list[str] = []
    for group in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        failing.extend(str(t) for t in (status.get(group) or {}).get("failure") or [])
    return failing


def _problem(messages: list[Any]) -> str | None:
    """The task: the first user message, or only its ``<pr_description>`` (the problem
    statement, without the template's "Consider the following PR description:")."""
    first = next((m for m in messages if isinstance(m, dict) and m.get("role") == "user"), None)
    text = content_text(first.get("content")) if first else None
    if text is None:
        return None
    found = _PR.search(text)
    return _PR_LEAD.sub("", found.group(1)) if found else text


def _observation_status(text: str) -> str:
    if _FORMAT_ERROR.search(text[:500]):
        return "retry"
    code = _RETURNCODE.match(text)
    if code:
        return "ok" if code.group(1) == "0" else "error"
    return "error" if _TIMEOUT.match(text) else "ok"


def _action(content: str) -> tuple[str, dict[str, Any]]:
    blocks = _BLOCK.findall(content)
    if not blocks:
        return "(no command)", {}
    return first_word(blocks[0]), {"command": blocks[0].strip()}


def _parse(rows: Collector, source: SourceFile) -> None:
    document = parse_document(source, WHAT)
    require(source, isinstance(document, dict), f"expected {WHAT}")
    if "tests_status" in document or (
        "messages" not in document
        and any(isinstance(v, dict) and "tests_status" in v for v in document.values())
    ):
        return  # an evaluation report: read with its trajectory
    version = document.get("trajectory_format", "mini-swe-agent-1")
    require(
        source,
        isinstance(version, str) and version.startswith("mini-swe-agent-1"),
        f"unsupported trajectory_format {version!r} (expected mini-swe-agent-1)",
        "trajectory_format",
    )
    require(source, "messages" in document, "required field is missing", "messages")
    messages = document["messages"]
    require(source, isinstance(messages, list), "expected a list", "messages")
    info = document.get("info") if isinstance(document.get("info"), dict) else {}
    instance = str(document.get("instance_id") or source.path.name.split(".")[0])
    rows.begin(stable_id(source, instance, 0))
    first_at: str | None = None
    for position, message in enumerate(messages):
        require(source, isinstance(message, dict), "expected an object", f"messages[{position}]")
        if message.get("role") != "assistant":
            continue
        content = str(message.get("content") or "")
        action, command = _action(content)
        reply = messages[position + 1] if position + 1 < len(messages) else None
        observation = (
            str(reply.get("content") or "")
            if isinstance(reply, dict) and reply.get("role") != "assistant"
            else None
        )
        response = (message.get("extra") or {}).get("response") or {}
        usage = response.get("usage") or {}
        started = response.get("created")
        started_at = iso_from_epoch(float(started)) if isinstance(started, (int, float)) else None
        first_at = first_at or started_at
        rows.step(
            "tool",
            action,
            "ok" if observation is None else _observation_status(observation),
            input=command,
            output=observation,
            tokens_in=count(usage.get("prompt_tokens"), "prompt_tokens"),
            tokens_out=count(usage.get("completion_tokens"), "completion_tokens"),
            cost_usd=amount(usage.get("cost"), "cost"),
            started_at=started_at,
            cache_read=count(_detail(usage, "prompt_tokens_details", "cached_tokens")),
            cache_write=count(
                usage.get("cache_creation_input_tokens"), "cache_creation_input_tokens"
            ),
            reasoning=count(_detail(usage, "completion_tokens_details", "reasoning_tokens")),
        )
    stats = model_stats(info.get("model_stats"))
    report = find_report(source.path, instance)
    resolved = report.get("resolved") if report else None
    model = ((info.get("config") or {}).get("model") or {}).get("model_name")
    submission = info.get("submission")
    rows.end(
        source,
        task_id=instance,
        label=_label(source.path, instance),
        suite="swe-bench",
        started_at=first_at,
        output=submission if isinstance(submission, str) else None,
        success=resolved if isinstance(resolved, bool) else None,
        cost_usd=amount(stats.get("instance_cost"), "instance_cost"),
        meta={
            "agent": "mini-swe-agent",
            "model": model,
            "mini_version": info.get("mini_version"),
            "exit_status": info.get("exit_status"),
            "api_calls": count(stats.get("api_calls"), "api_calls"),
            "failing_tests": _failing(report) if report else None,
            **why(
                goal=_problem(messages),
                scorer=swe_report(info.get("exit_status"), report),
            ),
        },
    )


def _detail(usage: dict[str, Any], block: str, key: str) -> Any:
    """``usage[block][key]`` of an OpenAI-style usage (litellm), or None."""
    details = usage.get(block)
    return details.get(key) if isinstance(details, dict) else None
