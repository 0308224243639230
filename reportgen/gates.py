"""Thresholds, where they came from, and verdicts. One place decides what "fails" means.

A gate fails when the value is strictly greater than its threshold (equal passes), for every
metric, in the CLI, the API and the pytest plugin alike. A metric that is unknown for a pair
(a delta against a zero or unknown baseline) cannot fail a gate; the verdict says so."""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportgen.errors import UsageError


def _stagnant_candidate_loops(pair: Mapping[str, Any]) -> float:
    return float(
        sum(
            1 for loop in pair["loops_detected"] if loop["side"] == "candidate" and loop["stagnant"]
        )
    )


@dataclass(frozen=True)
class Gate:
    """One gateable metric: its CLI flag, its config keys, and how to read it off a pair."""

    name: str
    flag: str
    cli_key: str
    assertion_key: str
    label: str
    read: Callable[[Mapping[str, Any]], float | None]

    @property
    def metric(self) -> str:
        """The JSON-contract key this gate reads (the site marks that row)."""
        return {
            "wasted_effort": "candidate_wei",
            "loops": "loops_detected",
            "divergence": "trajectory_divergence_index",
            "recovery_ratio": "recovery_step_ratio",
        }.get(self.name, self.name.replace("delta", "delta_percentage"))


GATES: tuple[Gate, ...] = (
    Gate(
        "divergence",
        "--max-divergence",
        "max_divergence",
        "max_divergence",
        "trajectory divergence (TDI)",
        lambda p: p["trajectory_divergence_index"],
    ),
    Gate(
        "wasted_effort",
        "--max-wasted-effort",
        "max_wasted_effort",
        "max_wasted_effort",
        "candidate wasted effort (WEI)",
        lambda p: p["candidate_wei"],
    ),
    Gate(
        "loops",
        "--max-loops",
        "max_loops",
        "max_loops",
        "stagnant loops in the candidate",
        _stagnant_candidate_loops,
    ),
    Gate(
        "recovery_ratio",
        "--max-recovery-ratio",
        "max_recovery_ratio",
        "max_recovery_step_ratio",
        "recovery step ratio (RSR)",
        lambda p: p["recovery_step_ratio"],
    ),
    Gate(
        "cost_delta",
        "--max-cost-delta",
        "max_cost_delta",
        "max_cost_increase_pct",
        "cost change (%)",
        lambda p: p["cost_delta_percentage"],
    ),
    Gate(
        "token_delta",
        "--max-token-delta",
        "max_token_delta",
        "max_token_increase_pct",
        "token change (%)",
        lambda p: p["token_delta_percentage"],
    ),
    Gate(
        "latency_delta",
        "--max-latency-delta",
        "max_latency_delta",
        "max_latency_increase_pct",
        "latency change (%)",
        lambda p: p["latency_delta_percentage"],
    ),
)
GATES_BY_NAME = {gate.name: gate for gate in GATES}
CONFIG_FILES = ("reportgen.toml", "pyproject.toml")
# Keys a config section may hold besides thresholds (read by other commands).
OTHER_KEYS = {
    "cli": {
        "min_convergence",
        "max_spend_per_certified_step",
        "max_tool_error_rate",
        "fail_on_thrash",
    },
    "assertions": {"min_convergence", "allow_loops"},
}


@dataclass(frozen=True)
class Threshold:
    """A threshold in force, and where it came from (``--max-loops``, ``reportgen.toml [cli]``)."""

    gate: str
    value: float
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "gate": self.gate,
            "flag": GATES_BY_NAME[self.gate].flag,
            "value": self.value,
            "source": self.source,
        }


@dataclass
class Verdict:
    """Which thresholds one pair broke."""

    passed: bool = True
    violations: list[dict[str, Any]] = field(default_factory=list)
    unknown: list[dict[str, Any]] = field(default_factory=list)


def check_value(name: str, value: object, source: str) -> float:
    """A threshold must be a finite, non-negative number: anything else is a usage error."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
    ):
        raise UsageError(f"{source}: {name} must be a finite number >= 0, got {value!r}")
    return float(value)


def find_config(start: Path | None = None) -> Path | None:
    """The nearest reportgen.toml, or pyproject.toml with a [tool.reportgen] table."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        for name in CONFIG_FILES:
            candidate = folder / name
            if candidate.is_file() and (
                name == "reportgen.toml" or b"[tool.reportgen" in candidate.read_bytes()
            ):
                return candidate
    return None


def load_config(path: Path | None) -> dict[str, dict[str, Any]]:
    """The [cli] and [assertions] sections of a config file; unknown keys are usage errors."""
    if path is None:
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read config: {exc}") from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("reportgen", {})
    sections: dict[str, dict[str, Any]] = {}
    for section, values in data.items():
        if section not in ("cli", "assertions") or not isinstance(values, dict):
            raise UsageError(f"{path}: unknown section [{section}] (known: [cli], [assertions])")
        known = {g.cli_key if section == "cli" else g.assertion_key for g in GATES} | OTHER_KEYS[
            section
        ]
        for key in values:
            if key not in known:
                raise UsageError(
                    f"{path}: [{section}] unknown key {key!r} (known: {', '.join(sorted(known))})"
                )
        sections[section] = values
    return sections


def resolve_thresholds(
    flags: Mapping[str, float | None], config_path: Path | None, section: str = "cli"
) -> list[Threshold]:
    """Thresholds in force: flags override the config file's ``section``; gates set nowhere are off."""
    config = load_config(config_path).get(section, {})
    found: list[Threshold] = []
    for gate in GATES:
        key = gate.cli_key if section == "cli" else gate.assertion_key
        flag_value = flags.get(gate.name)
        if flag_value is not None:
            found.append(
                Threshold(gate.name, check_value(gate.flag, flag_value, "command line"), gate.flag)
            )
        elif key in config:
            where = f"{config_path} [{section}] {key}"
            found.append(
                Threshold(gate.name, check_value(key, config[key], str(config_path)), where)
            )
    allow_loops = config.get("allow_loops")
    if allow_loops is False and not any(t.gate == "loops" for t in found):
        found.append(Threshold("loops", 0.0, f"{config_path} [{section}] allow_loops = false"))
    elif allow_loops not in (None, True, False):
        raise UsageError(f"{config_path}: allow_loops must be true or false, got {allow_loops!r}")
    return found


def judge(pair: Mapping[str, Any], thresholds: list[Threshold]) -> Verdict:
    """The verdict for one pair: a violation for every value strictly above its threshold."""
    verdict = Verdict()
    for threshold in thresholds:
        gate = GATES_BY_NAME[threshold.gate]
        value = gate.read(pair)
        entry = {
            "gate": gate.name,
            "metric": gate.label,
            "value": value,
            "threshold": threshold.value,
            "source": threshold.source,
        }
        if value is None:
            verdict.unknown.append(entry)
        elif value > threshold.value:
            verdict.violations.append(entry)
    verdict.passed = not verdict.violations
    return verdict


def verdicts_by_metric(pair: Mapping[str, Any], thresholds: list[Threshold]) -> dict[str, bool]:
    """For the site: JSON-contract metric key -> passed, for every gate that could be judged."""
    verdict = judge(pair, thresholds)
    failed = {v["gate"] for v in verdict.violations}
    unknown = {u["gate"] for u in verdict.unknown}
    return {
        GATES_BY_NAME[t.gate].metric: t.gate not in failed
        for t in thresholds
        if t.gate not in unknown
    }
