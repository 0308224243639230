"""Gates: strict '>', thresholds from flags and config files, unknown keys are usage errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reportgen.errors import UsageError
from reportgen.gating import Threshold, find_config, judge, load_config, resolve_thresholds

PAIR = {
    "trajectory_divergence_index": 0.25,
    "candidate_wei": 0.1,
    "loops_detected": [
        {"side": "candidate", "stagnant": True},
        {"side": "candidate", "stagnant": False},
        {"side": "baseline", "stagnant": True},
    ],
    "recovery_step_ratio": 1.5,
    "cost_delta_percentage": 10.0,
    "token_delta_percentage": None,
    "latency_delta_percentage": -5.0,
}


def test_equal_passes_greater_fails() -> None:
    at = [Threshold("recovery_ratio", 1.5, "flag"), Threshold("divergence", 0.25, "flag")]
    assert judge(PAIR, at).passed
    below = [Threshold("recovery_ratio", 1.4999, "flag")]
    verdict = judge(PAIR, below)
    assert not verdict.passed and verdict.violations[0]["gate"] == "recovery_ratio"


def test_loops_gate_counts_stagnant_candidate_loops_only() -> None:
    assert judge(PAIR, [Threshold("loops", 1, "flag")]).passed
    assert not judge(PAIR, [Threshold("loops", 0, "flag")]).passed


def test_unknown_delta_is_not_evaluated() -> None:
    verdict = judge(PAIR, [Threshold("token_delta", 0, "flag")])
    assert verdict.passed and verdict.unknown[0]["gate"] == "token_delta"


def test_flags_override_config_and_sources_are_recorded(tmp_path: Path) -> None:
    config = tmp_path / "reportgen.toml"
    config.write_text(
        "[cli]\nmax_divergence = 0.3\nmax_loops = 2\n\n[assertions]\nmax_recovery_step_ratio = 1.5\n"
    )
    found = resolve_thresholds({"divergence": 0.1, "loops": None}, config)
    by_gate = {t.gate: t for t in found}
    assert by_gate["divergence"].value == 0.1 and by_gate["divergence"].source == "--max-divergence"
    assert by_gate["loops"].value == 2 and by_gate["loops"].source == f"{config} [cli] max_loops"
    assertions = resolve_thresholds({}, config, section="assertions")
    assert [(t.gate, t.value) for t in assertions] == [("recovery_ratio", 1.5)]


def test_pyproject_tool_section_is_found(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname='x'\n\n[tool.reportgen.cli]\nmax_recovery_ratio = 2\n"
    )
    (tmp_path / "sub").mkdir()
    path = find_config(tmp_path / "sub")
    assert path == tmp_path / "pyproject.toml"
    assert load_config(path) == {"cli": {"max_recovery_ratio": 2}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[cli]\nmax_divergense = 0.3\n", "unknown key 'max_divergense'"),
        ("[gates]\nmax_loops = 1\n", "unknown section [gates]"),
        ("[cli]\nmax_loops = 'many'\n", "max_loops must be a finite number >= 0"),
        ("[cli]\nmax_loops = -1\n", "max_loops must be a finite number >= 0"),
        ("[cli\n", "cannot read config"),
    ],
)
def test_bad_config_is_a_usage_error(tmp_path: Path, text: str, message: str) -> None:
    config = tmp_path / "reportgen.toml"
    config.write_text(text)
    with pytest.raises(UsageError, match=re.escape(message)):
        resolve_thresholds({}, config)


def test_bad_flag_value_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="--max-cost-delta"):
        resolve_thresholds({"cost_delta": float("nan")}, None)


def test_one_spelling_everywhere_and_agentdiffs_too(tmp_path: Path) -> None:
    """[assertions] takes the [cli] key of a threshold or AgentDiff's name, not both."""
    config = tmp_path / "reportgen.toml"
    config.write_text("[assertions]\nmax_cost_delta = 5\nmax_recovery_step_ratio = 2\n")
    found = resolve_thresholds({}, config, section="assertions")
    assert sorted((t.gate, t.value) for t in found) == [("cost_delta", 5), ("recovery_ratio", 2)]
    config.write_text("[assertions]\nmax_cost_delta = 5\nmax_cost_increase_pct = 6\n")
    with pytest.raises(UsageError, match="sets both max_cost_delta and max_cost_increase_pct"):
        resolve_thresholds({}, config, section="assertions")
    config.write_text("[cli]\nmax_cost_increase_pct = 5\n")  # [cli] has one spelling
    with pytest.raises(UsageError, match="unknown key 'max_cost_increase_pct'"):
        resolve_thresholds({}, config)


def test_api_keywords_take_either_spelling() -> None:
    from reportgen.api import thresholds_for

    (one,) = thresholds_for(False, max_cost_delta=5)
    (other,) = thresholds_for(False, max_cost_increase_pct=5)
    assert (one.gate, one.value, one.source) == ("cost_delta", 5, "max_cost_delta=")
    assert (other.gate, other.source) == ("cost_delta", "max_cost_increase_pct=")
    with pytest.raises(TypeError, match="given twice, as max_cost_delta and max_cost_increase_pct"):
        thresholds_for(False, max_cost_delta=5, max_cost_increase_pct=6)
