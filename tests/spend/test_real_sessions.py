"""Avoidable spend on the real Claude Code and Codex CLI sessions in ../shared/data: each
file loaded alone, its identical calls and re-reads counted again here from the raw records."""

from __future__ import annotations

import contextlib
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from reportgen.spend import avoidable_spend
from tests.formats.helpers import DATA, load, needs_data

WRITES = {"Edit", "Write", "MultiEdit", "NotebookEdit"}


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _records(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict):
            out.append(record)
    return out


def _claude_calls(path: Path) -> list[tuple[str, Any, Any]]:
    """(name, input, result content) of each tool call of the file's main thread, in order
    (a sub-agent file: all of it; a session: its non-sidechain records), each id once."""
    whole = path.name.startswith("agent-") or path.parent.name == "subagents"
    calls: dict[str, list[Any]] = {}
    for record in _records(path):
        if not whole and record.get("isSidechain"):
            continue
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("id", "") not in calls:
                key = block.get("id") or f"no-id-{len(calls)}"  # old logs: no ids
                calls[key] = [block.get("name"), block.get("input"), None]
            elif block.get("type") == "tool_result":
                key = block.get("tool_use_id") or next(
                    (k for k, c in calls.items() if k.startswith("no-id-") and c[2] is None), ""
                )
                if key in calls:
                    calls[key][2] = block.get("content")
    return [(n, i, c) for n, i, c in calls.values()]


def _identical(calls: list[tuple[str, Any, Any]]) -> int:
    seen: set[tuple[str, str, str]] = set()
    repeats = 0
    for name, inputs, result in calls:
        key = (name, _canon(inputs), _canon(result))
        repeats += key in seen
        seen.add(key)
    return repeats


SHELL_READ = re.compile(
    r"^\s*(cat|nl(?:\s+-ba)?|head(?:\s+-n\s*\d+|\s+-\d+)?|tail(?:\s+-n\s*\d+|\s+-\d+)?"
    r"|sed\s+-n\s+'?\d+(?:,\d+)?p'?)\s+([^\s;&|<>$`'\"]+)\s*$"
)
SHELLS = {"Bash", "exec_command", "shell", "apply_patch"}


def _command(inputs: dict[str, Any]) -> str | None:
    """A shell call's command line (Codex: cmd, or the script of [bash, -lc, X])."""
    command = inputs.get("cmd", inputs.get("command"))
    if isinstance(command, list):
        if len(command) == 3 and command[1] in ("-lc", "-c"):
            return str(command[2])
        return " ".join(str(c) for c in command)
    return command if isinstance(command, str) else None


def _lines(name: str, inputs: dict[str, Any]) -> tuple[str, float, float] | None:
    """(path, first line, last line) of a read call, else None."""
    if name == "Read" and inputs.get("file_path"):
        lo = float(inputs.get("offset") or 1)
        limit = inputs.get("limit")
        return inputs["file_path"], lo, math.inf if limit is None else lo + limit - 1
    command = _command(inputs) if name in SHELLS else None
    match = SHELL_READ.match(command) if command else None
    if match is None:
        return None
    how, path = match.groups()
    numbers = [float(n) for n in re.findall(r"\d+", how)]
    if how.startswith("sed"):
        return path, numbers[0], numbers[-1]
    if how.startswith("head"):
        return path, 1.0, numbers[0]
    return (path, math.inf, math.inf) if how.startswith("tail") else (path, 1.0, math.inf)


def _rereads(calls: list[tuple[str, Any, Any]]) -> int:
    """Reads whose lines a read since the last write to the path already covered."""
    since: dict[str, list[tuple[float, float]]] = {}  # path -> lines read since its last write
    found = 0
    for name, inputs, _result in calls:
        inputs = inputs if isinstance(inputs, dict) else {}
        if isinstance(inputs.get("input"), str) and name == "apply_patch":
            inputs = {"patch": inputs["input"]}
        read = _lines(name, inputs)
        if read is not None:
            path, lo, hi = read
            found += any(a <= lo and b >= hi for a, b in since.get(path, []))
            since.setdefault(path, []).append((lo, hi))
        elif name in WRITES and inputs.get("file_path"):
            since[inputs["file_path"]] = []
        elif name in SHELLS:
            text = _canon(inputs)
            for path in since:
                if path in text:
                    since[path] = []
    return found


def _files(folder: str) -> list[Path]:
    root = DATA / folder
    return sorted(p for p in root.rglob("*.jsonl")) if root.is_dir() else []


def _main_findings(con: Any, kind: str) -> int:
    report = avoidable_spend(con)
    return sum(
        1
        for run_id, spent in report.runs.items()
        if ":side-" not in run_id
        for f in spent.findings
        if f.kind == kind
    )


@needs_data
@pytest.mark.parametrize("path", _files("claude-code"), ids=lambda p: p.name)
def test_claude_code_file(path: Path, tmp_path: Path) -> None:
    calls = _claude_calls(path)
    con = load(tmp_path, path)
    assert _main_findings(con, "identical_call") == _identical(calls)
    assert _main_findings(con, "reread") == _rereads(calls)


def _codex_calls(path: Path) -> list[tuple[str, Any, Any]]:
    """(name, arguments, output) of each function / custom tool call, joined by call_id
    (arguments decoded from their JSON text, as the adapter does)."""
    calls: dict[str, list[Any]] = {}
    for record in _records(path):
        payload = record.get("payload")
        if record.get("type") != "response_item" or not isinstance(payload, dict):
            continue
        kind = payload.get("type")
        if kind in ("function_call", "custom_tool_call"):
            args = payload.get("arguments", payload.get("input"))
            calls[str(payload.get("call_id"))] = [payload.get("name"), args, None]
            if kind == "function_call" and isinstance(args, str):
                with contextlib.suppress(json.JSONDecodeError):
                    calls[str(payload.get("call_id"))][1] = json.loads(args)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            held = calls.get(str(payload.get("call_id")))
            if held is not None:
                held[2] = payload.get("output")
    return [(n, i, o) for n, i, o in calls.values()]


@needs_data
@pytest.mark.parametrize("path", _files("codex-cli"), ids=lambda p: p.name)
def test_codex_cli_file(path: Path, tmp_path: Path) -> None:
    con = load(tmp_path, path)
    calls = _codex_calls(path)
    assert _main_findings(con, "identical_call") == _identical(calls)
    assert _main_findings(con, "reread") == _rereads(calls)


@needs_data
def test_expensive_subagents_of_a_real_session(tmp_path: Path) -> None:
    """5c0375b4 starts two inline sub-agents (steps 8 and 11); each costs a share of the
    parent's own cost that the test sums again from the steps."""
    from reportgen.spend import SpendOptions

    session = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
    con = load(tmp_path, DATA / "claude-code" / "claude-code-viewer" / "sample-project")
    costs = dict(con.execute("SELECT run_id, sum(cost_usd) FROM steps GROUP BY run_id").fetchall())
    children = con.execute(
        "SELECT run_id, (meta->>'parent_step')::INT FROM runs WHERE meta->>'parent_run_id' = ?"
        " AND meta->>'parent_step' IS NOT NULL"
        " ORDER BY 2",
        [session],
    ).fetchall()
    shares = {step: costs[child] / costs[session] for child, step in children}
    assert sorted(shares) == [8, 11]
    for cut in (0.0, 0.4, 0.5):
        spent = avoidable_spend(con, [session], SpendOptions(subagent_share=cut)).run(session)
        found = {f.step: f for f in spent.findings if f.kind == "expensive_subagent"}
        assert sorted(found) == sorted(s for s, share in shares.items() if share > cut)
        for step, finding in found.items():
            assert finding.amount == pytest.approx(shares[step])
            child = next(c for c, s in children if s == step)
            assert finding.detail == child and finding.cost_usd == pytest.approx(costs[child])


@needs_data
def test_gate_values_in_chunks_equal_one_pass(tmp_path: Path) -> None:
    """The gate reads avoidable spend a few thousand runs at a time (bounded memory); run by
    run it gives each run the value one call over every run gives, sub-agents included."""
    from reportgen.spend import gate_values

    files = _files("claude-code") + _files("codex-cli")
    con = load(tmp_path, *files)
    ids = [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]
    whole = avoidable_spend(con, ids, findings=False)
    assert any(whole.gate_value(i) for i in ids)  # something to find
    assert gate_values(con, ids, chunk=1) == {i: whole.gate_value(i) for i in ids}
