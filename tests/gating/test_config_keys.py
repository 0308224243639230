"""Every key a config section accepts works like its flag or keyword, or is refused.

The keys are enumerated from the code (``known_keys`` and ``refused_keys`` of [cli] and
[assertions]): a key without a case below fails here, so a new gate or option must come with
one. Each case writes the key into a ``reportgen.toml`` of a temporary folder, runs a command
that reads it (found by discovery, as in CI) on input that the threshold fails, and checks the
outcome (exit code, or what assert_no_regressions raises) equals what the equivalent flag or
keyword gives, and differs from what the command does without either."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import chdir
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from reportgen.api import RegressionError, assert_no_regressions, compare
from reportgen.cli import make_app
from reportgen.errors import UsageError
from reportgen.gating.thresholds import COMMANDS, key_commands, known_keys, refused_keys, resolve
from reportgen.ingest import ingest
from tests.iterations.helpers import write_records
from tests.iterations.test_iterations_handworked import RECORDS

runner = CliRunner()
APP = make_app()


def _keys(section: str) -> list[str]:
    if section == "cli":
        return sorted(known_keys("cli") | set(refused_keys("cli")))
    return sorted(known_keys("assertions") | set(refused_keys("assertions")))


# ---- inputs -------------------------------------------------------------------------------


def _tool(action: str, status: str = "ok", **inp: Any) -> dict[str, Any]:
    return {"type": "tool", "action": action, "status": status, "input": inp, "output": "a",
            "latency_ms": 100, "tokens_in": 50, "tokens_out": 25, "cost_usd": 0.001,
            "parent": 0}  # fmt: skip


def _write(path: Path, run: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(run), encoding="utf-8")


def _pair(folder: Path) -> list[str]:
    """One task: the candidate fails where the baseline passed, after a model call whose
    tool calls repeat a failing query three times unchanged (a stagnant loop, identical calls,
    avoidable spend); every pair metric and both outcome drops are above zero."""
    model = {"type": "llm", "action": "m", "status": "ok", "tokens_in": 10, "cost_usd": 0.04,
             "latency_ms": 100}  # fmt: skip
    good = [model, _tool("fetch"), _tool("query", q=1), _tool("synthesize")]
    failing = [_tool("query", "error", q=1) for _ in range(3)]
    loopy = [model, _tool("fetch"), *failing, _tool("synthesize")]
    _write(folder / "base" / "t.json", {"task_id": "t", "steps": good, "success": True,
                                        "reward": 1.0})  # fmt: skip
    _write(folder / "cand" / "t.json", {"task_id": "t", "steps": loopy, "success": False,
                                        "reward": 0.2})  # fmt: skip
    return [str(folder / "base"), str(folder / "cand")]


def _outcomes(folder: Path) -> list[str]:
    """Twelve tasks with the same steps on both sides, ten of them broken in the candidate:
    success rate and reward are regressions at alpha 0.05 (p about 0.012 and 1e-4), not at
    1e-9, where both are insufficient_data."""
    for side, broken in (("base", 0), ("cand", 10)):
        for i in range(12):
            steps = [{"type": "tool", "action": f"a{j}", "status": "ok", "input": {},
                      "cost_usd": 0.001 * j} for j in range(3)]  # fmt: skip
            ok = i >= broken
            run = {"task_id": f"task-{i:02d}", "steps": steps, "success": ok,
                   "reward": 1.0 if ok else 0.2}  # fmt: skip
            _write(folder / side / f"{i}.json", run)
    return [str(folder / "base"), str(folder / "cand")]


def _errors(folder: Path) -> list[str]:
    """Four tasks that pass on both sides, but one candidate run ended on a rate limit (an
    infrastructure error, not scored): an error rate of 25 %."""
    for side in ("base", "cand"):
        for i in range(4):
            run: dict[str, Any] = {"task_id": f"t{i}", "success": True,
                                   "steps": [{"type": "tool", "action": "f", "status": "ok"}]}  # fmt: skip
            if side == "cand" and i == 0:
                run["success"] = None
                run["meta"] = {"error_kind": "rate_limit", "error_reason": "429"}
            _write(folder / side / f"{i}.json", run)
    return [str(folder / "base"), str(folder / "cand")]


def _archive(folder: Path) -> list[str]:
    """An archive of one night: the baseline ran one task three times, passing, with like
    outputs; the candidate three times, failing, with an extra step and unlike outputs
    (convergence 0.2)."""
    outputs = {"baseline": ["the answer is four"] * 3,
               "candidate": ["the answer is four", "a completely different reply",
                             "nothing alike here at all"]}  # fmt: skip
    files = []
    for label, texts in outputs.items():
        ok = label == "baseline"
        steps = [{"type": "tool", "action": a, "status": "ok"} for a in ("a" if ok else "ab")]
        path = folder / f"{label}.jsonl"
        runs = [{"task_id": "t", "label": label, "batch": "2026-11-28", "trial": i, "output": o,
                 "success": ok, "steps": steps} for i, o in enumerate(texts)]  # fmt: skip
        path.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
        files.append(path)
    db = folder / "a.duckdb"
    ingest(files, db)
    return ["--db", str(db)]


def _repeats(folder: Path) -> list[str]:
    """An archive of one night: both labels ran two tasks four times each; the candidate
    passes half its trials of each task (outcome consistency 0), calls other tools each trial
    (tool-use consistency 0.15), spends 1, 10, 100, 1000 times a unit (cost, token and latency
    consistency 0), and fails a perturbed fifth run of each (robustness -0.5)."""
    files = []
    for label in ("baseline", "candidate"):
        runs = []
        for task in ("t1", "t2"):
            for trial in range(5):
                ok = label == "baseline" or trial % 2 == 0
                tools = (
                    ["a"] if label == "baseline" else [["a"], ["b"], ["a", "b"], ["c"]][trial % 4]
                )
                scale = 1 if label == "baseline" else 10 ** (trial % 4)
                steps = [
                    {
                        "type": "tool",
                        "action": t,
                        "status": "ok",
                        "cost_usd": 0.001 * scale,
                        "tokens_in": 10 * scale,
                        "latency_ms": 100 * scale,
                    }
                    for t in tools
                ]
                meta = {"perturbation": "typo"} if trial == 4 else {}
                runs.append({"task_id": task, "label": label, "batch": "2026-11-28",
                             "trial": trial, "success": ok and trial < 4, "steps": steps,
                             "meta": meta})  # fmt: skip
        path = folder / f"{label}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
        files.append(path)
    db = folder / "r.duckdb"
    ingest(files, db)
    return ["--db", str(db)]


def _outputs(folder: Path) -> list[str]:
    """Three outputs of one task for ``converge`` (convergence_score 0.266)."""
    path = folder / "runs.json"
    path.write_text(json.dumps(["the answer is four", "a different reply", "the answer is four"]))
    return [str(path)]


def _loop(folder: Path) -> list[str]:
    """The hand-worked coding loop: $1.6875 per certified step, 5 tool errors in 24 calls,
    thrash on step a."""
    return [str(write_records(folder / "loop.jsonl", RECORDS))]


INPUTS: dict[str, Callable[[Path], list[str]]] = {
    "pair": _pair,
    "outcomes": _outcomes,
    "archive": _archive,
    "repeats": _repeats,
    "errors": _errors,
    "outputs": _outputs,
    "loop": _loop,
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    return {name: make(tmp_path_factory.mktemp(name)) for name, make in INPUTS.items()}


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """An empty working folder (no config above it): the reportgen.toml of a case goes here."""
    work = tmp_path / "work"
    work.mkdir()
    with chdir(work):
        yield work


# ---- [cli] ----------------------------------------------------------------------------------


def exit_code(result: Result) -> object:
    return result.exit_code


def success_rate_verdict(result: Result) -> object:
    """The success-rate metric's minimum effect and verdict (``min_effect`` gates nothing: it
    turns an interval inside ± it into no_change)."""
    (metric,) = [m for m in json.loads(result.stdout)["summary"]["metrics"]
                 if m["metric"] == "success_rate"]  # fmt: skip
    return metric["min_effect"], metric["verdict"]


@dataclass(frozen=True)
class Case:
    """``command`` on ``input`` (plus ``extra`` arguments), with ``toml`` (the key's line) in
    the config, or with ``flag`` instead; ``observe`` reads the outcome (default: exit code)."""

    command: str
    input: str
    toml: str
    flag: tuple[str, ...]
    extra: tuple[str, ...] = ()
    observe: Callable[[Result], object] = exit_code
    fails: bool = True  # with the key set, the command fails (exit 3)


def _gate(command: str, key: str, value: str, input: str = "pair") -> Case:
    flag = "--" + key.replace("_", "-")
    return Case(command, input, f"{key} = {value}", (flag, value))


CLI_CASES: dict[str, tuple[Case, ...]] = {
    "max_divergence": (
        _gate("compare", "max_divergence", "0.1"),
        _gate("gate", "max_divergence", "0.1", "archive"),
    ),
    "max_wasted_effort": (_gate("compare", "max_wasted_effort", "0.1"),),
    "max_loops": (_gate("compare", "max_loops", "0"),),
    "max_identical_calls": (_gate("compare", "max_identical_calls", "0"),),
    "max_recovery_ratio": (_gate("compare", "max_recovery_ratio", "0.5"),),
    "max_cost_delta": (_gate("compare", "max_cost_delta", "1"),),
    "max_token_delta": (_gate("compare", "max_token_delta", "1"),),
    "max_latency_delta": (_gate("compare", "max_latency_delta", "1"),),
    "max_avoidable_cost": (_gate("compare", "max_avoidable_cost", "0.001"),),
    "max_success_drop": (
        _gate("compare", "max_success_drop", "5"),
        _gate("gate", "max_success_drop", "5", "archive"),
    ),
    "max_reward_drop": (_gate("compare", "max_reward_drop", "0.1"),),
    "max_error_rate": (_gate("compare", "max_error_rate", "20", "errors"),),
    "fail_on_regression": (
        Case("compare", "outcomes", "fail_on_regression = true", ("--fail-on-regression",)),
    ),
    "alpha": (
        Case(
            "compare",
            "outcomes",
            "alpha = 1e-9",
            ("--alpha", "1e-9"),
            extra=("--fail-on-regression",),
            fails=False,  # at alpha 1e-9 the broken tasks are no longer a regression
        ),
    ),
    "min_effect": (
        Case(
            "compare",
            "outcomes",
            "min_effect = {success_rate = 1.0}",
            ("--min-effect", "success_rate=1.0"),
            extra=("--json", "--alpha", "1e-9"),
            observe=success_rate_verdict,
        ),
    ),
    "min_outcome_consistency": (
        _gate("compare", "min_outcome_consistency", "0.5", "repeats"),
        _gate("gate", "min_outcome_consistency", "0.5", "repeats"),
    ),
    "min_tool_consistency": (_gate("gate", "min_tool_consistency", "0.9", "repeats"),),
    "min_cost_consistency": (_gate("gate", "min_cost_consistency", "0.5", "repeats"),),
    "min_token_consistency": (_gate("compare", "min_token_consistency", "0.5", "repeats"),),
    "min_latency_consistency": (_gate("gate", "min_latency_consistency", "0.5", "repeats"),),
    "min_robustness": (_gate("gate", "min_robustness", "0", "repeats"),),
    "min_convergence": (
        _gate("gate", "min_convergence", "0.9", "archive"),
        _gate("converge", "min_convergence", "0.99", "outputs"),
    ),
    "max_spend_per_certified_step": (
        _gate("iterations", "max_spend_per_certified_step", "1.5", "loop"),
    ),
    "max_tool_error_rate": (_gate("iterations", "max_tool_error_rate", "0.2", "loop"),),
    "fail_on_thrash": (Case("iterations", "loop", "fail_on_thrash = true", ("--fail-on-thrash",)),),
}
"""A case per [cli] key on a command that reads it; a refused key's case would name the
command its refusal is checked on."""


def test_every_config_key_has_a_case() -> None:
    for key in _keys("cli"):
        assert key in CLI_CASES, f"[cli] {key} has no case in CLI_CASES"
    for key in _keys("assertions"):
        assert key in ASSERTION_CASES, f"[assertions] {key} has no case in ASSERTION_CASES"
    assert set(CLI_CASES) == set(_keys("cli")), "a case for a key the code no longer has"
    assert set(ASSERTION_CASES) == set(_keys("assertions")), "a case for a key no longer there"


def test_one_resolution_each_command_reads_its_keys(tmp_path: Path) -> None:
    """resolve() gives each command the keys it reads (flag over key) and leaves the others
    to theirs; every key is read by some command."""
    config = tmp_path / "reportgen.toml"
    config.write_text(
        "[cli]\nmax_loops = 1\nmin_convergence = 0.5\nmax_tool_error_rate = 0.2\nalpha = 0.1\n"
    )
    found = {c: {t.gate: t.source for t in resolve(c, config).thresholds} for c in COMMANDS}
    where = f"{config} [cli]"
    assert found["compare"] == found["build"] == {"loops": f"{where} max_loops"}
    assert found["gate"] == {
        "loops": f"{where} max_loops",
        "convergence": f"{where} min_convergence",
    }
    assert found["converge"] == {"convergence": f"{where} min_convergence"}
    assert found["iterations"] == {"tool_error_rate": f"{where} max_tool_error_rate"}
    assert found["assertions"] == {}  # [assertions] is another section
    assert resolve("gate", config).label.alpha == 0.1
    assert resolve("iterations", config).label.alpha == 0.05  # judges no label-level verdicts
    flagged = resolve("iterations", config, {"tool_error_rate": 0.5, "thrash": True})
    assert [(t.gate, t.value, t.source) for t in flagged.thresholds] == [
        ("tool_error_rate", 0.5, "--max-tool-error-rate"),
        ("thrash", 1.0, "--fail-on-thrash"),
    ]
    for section in ("cli", "assertions"):
        assert all(key_commands(section).values()), section


def _invoke(command: str, args: list[str]) -> Result:
    return runner.invoke(APP, [command, *args])


@pytest.mark.parametrize("key", _keys("cli"))
def test_cli_key_works_like_its_flag(key: str, inputs: dict[str, list[str]], folder: Path) -> None:
    if key not in CLI_CASES:
        pytest.fail(f"[cli] {key} has no case: add one to CLI_CASES")
    refused = refused_keys("cli")
    for case in CLI_CASES[key]:
        args = [*inputs[case.input], *case.extra]
        config = folder / "reportgen.toml"
        if key in refused:
            config.write_text(f"[cli]\n{case.toml}\n")
            result = _invoke(case.command, args)
            assert result.exit_code == 2, result.output
            assert f"{config}: [cli] {key} is refused: {refused[key]}" in result.stderr
            config.unlink()
            continue
        assert case.command in key_commands("cli")[key], (key, case.command)
        without = _invoke(case.command, args)
        config.write_text(f"[cli]\n{case.toml}\n")
        by_config = _invoke(case.command, args)
        config.unlink()
        by_flag = _invoke(case.command, [*args, *case.flag])
        assert case.observe(by_config) == case.observe(by_flag), (key, case, by_config.output)
        assert case.observe(by_config) != case.observe(without), (key, case, without.output)
        if case.observe is exit_code:
            assert by_config.exit_code == (3 if case.fails else 0), by_config.output


def test_iteration_keys_name_their_source(inputs: dict[str, list[str]], folder: Path) -> None:
    """The iteration gates say where their threshold came from, and a flag wins over the
    config's key; a bad value is a usage error naming file, section and key."""
    config = folder / "reportgen.toml"
    config.write_text("[cli]\nmax_tool_error_rate = 0.2\nfail_on_thrash = false\n")
    failed = _invoke("iterations", [*inputs["loop"], "--json"])
    assert failed.exit_code == 3
    gates = json.loads(failed.stdout)["gates"]
    source = f"{config} [cli] max_tool_error_rate"
    assert gates["sources"] == {"max_tool_error_rate": source}
    assert gates["thresholds"]["fail_on_thrash"] is False  # false leaves the gate off
    assert [v["source"] for v in gates["verdicts"]] == [source]
    assert f"tool_error_rate: 0.2083 > 0.2 (from {source})" in failed.stderr
    assert _invoke("iterations", [*inputs["loop"], "--max-tool-error-rate", "0.25"]).exit_code == 0
    for bad, message in (
        ("max_tool_error_rate = 2", "[cli]: max_tool_error_rate must be a finite number in [0, 1]"),
        ("max_spend_per_certified_step = -1", "max_spend_per_certified_step must be"),
        ("fail_on_thrash = 1", "[cli]: fail_on_thrash must be true or false, got 1"),
    ):
        config.write_text(f"[cli]\n{bad}\n")
        result = _invoke("iterations", inputs["loop"])
        assert result.exit_code == 2 and str(config) in result.stderr, result.output
        assert message in result.stderr, result.stderr


def test_pyproject_section_and_explicit_config(inputs: dict[str, list[str]], folder: Path) -> None:
    (folder / "pyproject.toml").write_text(
        "[project]\nname = 'x'\n\n[tool.reportgen.cli]\nmax_spend_per_certified_step = 1.5\n"
    )
    result = _invoke("iterations", [*inputs["loop"], "--json"])
    assert result.exit_code == 3
    source = f"{folder / 'pyproject.toml'} [tool.reportgen.cli] max_spend_per_certified_step"
    assert json.loads(result.stdout)["gates"]["sources"] == {"max_spend_per_certified_step": source}
    elsewhere = folder / "sub" / "reportgen.toml"
    elsewhere.parent.mkdir()
    elsewhere.write_text("[cli]\nmin_convergence = 0.99\n")
    scored = _invoke("converge", [*inputs["outputs"], "--config", str(elsewhere)])
    assert scored.exit_code == 3
    assert f"minimum 0.99 (from {elsewhere} [cli] min_convergence)" in scored.stderr


# ---- [assertions] ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ApiCase:
    """assert_no_regressions on ``input`` (plus ``extra`` keywords) with ``toml`` in the
    config's [assertions], or with ``keyword`` instead; ``observe`` reads the outcome."""

    input: str
    toml: str
    keyword: dict[str, Any]
    extra: tuple[tuple[str, Any], ...] = ()


def _api(key: str, value: Any, input: str = "pair") -> ApiCase:
    return ApiCase(input, f"{key} = {json.dumps(value)}", {key: value})


ASSERTION_CASES: dict[str, ApiCase] = {
    "max_divergence": _api("max_divergence", 0.1),
    "max_wasted_effort": _api("max_wasted_effort", 0.1),
    "max_loops": _api("max_loops", 0),
    "max_identical_calls": _api("max_identical_calls", 0),
    "max_recovery_ratio": _api("max_recovery_ratio", 0.5),
    "max_recovery_step_ratio": _api("max_recovery_step_ratio", 0.5),
    "max_cost_delta": _api("max_cost_delta", 1),
    "max_cost_increase_pct": _api("max_cost_increase_pct", 1),
    "max_token_delta": _api("max_token_delta", 1),
    "max_token_increase_pct": _api("max_token_increase_pct", 1),
    "max_latency_delta": _api("max_latency_delta", 1),
    "max_latency_increase_pct": _api("max_latency_increase_pct", 1),
    "max_avoidable_cost": _api("max_avoidable_cost", 0.001),
    "max_success_drop": _api("max_success_drop", 5),
    "max_reward_drop": _api("max_reward_drop", 0.1),
    "max_error_rate": _api("max_error_rate", 20, "errors"),
    "allow_loops": _api("allow_loops", False),
    "fail_on_regression": _api("fail_on_regression", True, "outcomes"),
    "alpha": ApiCase(
        "outcomes", "alpha = 1e-9", {"alpha": 1e-9}, extra=(("fail_on_regression", True),)
    ),
    "min_effect": ApiCase(
        "outcomes",
        "min_effect = {success_rate = 1.0}",
        {"min_effect": {"success_rate": 1.0}},
        extra=(("alpha", 1e-9),),
    ),
    "min_convergence": _api("min_convergence", 0.9, "archive"),
}


def _judge(paths: list[str], config: bool, **keywords: Any) -> object:
    """What assert_no_regressions makes of a fresh comparison: passed or raised, and the
    success-rate verdict it judged with."""
    comparison = compare(*paths)
    try:
        assert_no_regressions(comparison, config=config, **keywords)
        outcome = "passed"
    except RegressionError:
        outcome = "raised"
    stats = comparison.statistics or {}
    (metric,) = [m for m in stats["metrics"] if m["metric"] == "success_rate"]
    return outcome, metric["min_effect"], metric["verdict"]


@pytest.mark.parametrize("key", _keys("assertions"))
def test_assertions_key_works_like_its_keyword(
    key: str, inputs: dict[str, list[str]], folder: Path
) -> None:
    if key not in ASSERTION_CASES:
        pytest.fail(f"[assertions] {key} has no case: add one to ASSERTION_CASES")
    case = ASSERTION_CASES[key]
    config = folder / "reportgen.toml"
    config.write_text(f"[assertions]\n{case.toml}\n")
    refused = refused_keys("assertions")
    if key in refused:
        comparison = compare(*inputs["pair"])
        with pytest.raises(UsageError) as raised:
            assert_no_regressions(comparison)
        assert str(raised.value) == f"{config}: [assertions] {key} is refused: {refused[key]}"
        with pytest.raises(TypeError, match=f"unexpected keyword argument.*{key}"):
            assert_no_regressions(comparison, config=False, **case.keyword)
        # the file is refused by every command, not only by the API
        assert _invoke("compare", inputs["pair"]).exit_code == 2
        return
    assert "assertions" in key_commands("assertions")[key]
    paths = inputs[case.input]
    extra = dict(case.extra)
    by_config = _judge(paths, True, **extra)
    by_keyword = _judge(paths, False, **case.keyword, **extra)
    without = _judge(paths, False, **extra)
    assert by_config == by_keyword, (key, by_config, by_keyword)
    assert by_config != without, (key, by_config, without)
