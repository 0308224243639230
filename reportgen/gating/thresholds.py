"""Thresholds: read from flags, a config file's ``[cli]`` or ``[assertions]`` section, or API
keywords; checked here and nowhere else; each remembers where it came from."""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from reportgen.errors import UsageError
from reportgen.gating.metrics import (
    LABEL_METRICS,
    OTHER_GATES,
    Gate,
    label_gates,
    metric_for_gate,
    pair_gates,
)

CONFIG_FILES = ("reportgen.toml", "pyproject.toml")
Section = Literal["cli", "assertions"]
#: [assertions] keys that are no threshold: ``allow_loops = false`` is ``max_loops = 0``.
ASSERTION_SWITCHES = ("allow_loops",)
#: Keys of both sections for the label-level verdicts (``--fail-on-regression``, ``--alpha``,
#: ``--min-effect``): ``fail_on_regression = true``, ``alpha = 0.1``,
#: ``min_effect = {success_rate = 0.1}``.
LABEL_OPTIONS = ("fail_on_regression", "alpha", "min_effect")
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True)
class Threshold:
    """A threshold in force, and where it came from (``--max-loops``, ``reportgen.toml [cli]``)."""

    gate: str
    value: float
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "gate": self.gate,
            "flag": gate_by_name(self.gate).flag,
            "value": self.value,
            "source": self.source,
        }


def gate_by_name(name: str) -> Gate:
    """A pair gate, or one of the other grains' gates, by name."""
    for gate in (*pair_gates(), *label_gates(), *OTHER_GATES):
        if gate.name == name:
            return gate
    raise KeyError(name)


def check_threshold(gate: Gate, value: object, source: str, name: str | None = None) -> float:
    """The one rule for every threshold: a finite number in the gate's range, else a usage
    error naming where it came from (``source``) and what (``name``, default the flag)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not gate.low <= value <= gate.high
    ):
        raise UsageError(f"{source}: {name or gate.flag} must be {gate.range_text}, got {value!r}")
    return float(value)


def parse_threshold(gate: Gate, text: str) -> float:
    """A threshold typed on a command line: a number, then :func:`check_threshold`."""
    try:
        number = float(text)
    except ValueError:
        raise UsageError(f"{gate.flag}: expected a number, got {text!r}") from None
    return check_threshold(gate, number, "command line")


#: Keys of the [site] section (read by ``reportgen build``): compare = ["BASE..CAND", ...].
SITE_KEYS = ("compare",)


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


def assertion_names(gate: Gate) -> tuple[str, ...]:
    """The names a pair gate's threshold goes by in [assertions] and as an API keyword: its
    one spelling (the [cli] key, ``max_cost_delta``) and, where it has one, AgentDiff's
    (``max_cost_increase_pct``), kept so that AgentDiff users' configs and calls still work."""
    if gate.keyword is None or gate.keyword == gate.config_key:
        return (gate.config_key,)
    return (gate.config_key, gate.keyword)


def known_keys(section: Section) -> set[str]:
    """The keys a config section may hold: every gate's config key ([cli]), or its names
    (:func:`assertion_names`) and the switches ([assertions])."""
    if section == "cli":
        keys = {g.config_key for g in (*pair_gates(), *label_gates(), *OTHER_GATES)}
        return keys | set(LABEL_OPTIONS)
    names = {n for g in pair_gates() for n in assertion_names(g)}
    names |= {g.config_key for g in label_gates()}
    others = {g.keyword for g in OTHER_GATES if g.keyword}
    return names | others | set(ASSERTION_SWITCHES) | set(LABEL_OPTIONS)


def load_config(path: Path | None) -> dict[str, dict[str, Any]]:
    """The [cli] and [assertions] sections of a config file; unknown keys are usage errors."""
    if path is None:
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read config: {exc}") from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("reportgen", {})
    sections: dict[str, dict[str, Any]] = {}
    for section, values in data.items():
        if section not in ("cli", "assertions", "site") or not isinstance(values, dict):
            raise UsageError(
                f"{path}: unknown section [{section}] (known: [cli], [assertions], [site])"
            )
        if section == "site":
            known = set(SITE_KEYS)
        else:
            known = known_keys("cli" if section == "cli" else "assertions")
        for key in values:
            if key not in known:
                raise UsageError(
                    f"{path}: [{section}] unknown key {key!r} (known: {', '.join(sorted(known))})"
                )
        sections[section] = values
    return sections


def _key(gate: Gate, section: Section, config: Mapping[str, Any], where: object) -> str | None:
    """The key ``config`` gives ``gate``'s threshold under (None: not given); both spellings
    of one threshold at once is a usage error."""
    if section == "cli":
        return gate.config_key if gate.config_key in config else None
    if gate in pair_gates():
        names: tuple[str | None, ...] = assertion_names(gate)
    elif gate in label_gates():
        names = (gate.config_key,)
    else:
        names = (gate.keyword,)
    given = [name for name in names if name and name in config]
    if len(given) > 1:
        raise UsageError(f"{where}: [{section}] sets both {' and '.join(given)}; keep one")
    return given[0] if given else None


def resolve_thresholds(
    flags: Mapping[str, float | None], config_path: Path | None, section: Section = "cli"
) -> list[Threshold]:
    """Pair-gate and label-level thresholds in force (``max_success_drop`` ...): flags (by
    gate name) override the config file's ``section``; gates set nowhere are off."""
    config = load_config(config_path).get(section, {})
    found: list[Threshold] = []
    for gate in (*pair_gates(), *label_gates()):
        key = _key(gate, section, config, config_path)
        flag_value = flags.get(gate.name)
        if flag_value is not None:
            found.append(
                Threshold(gate.name, check_threshold(gate, flag_value, "command line"), gate.flag)
            )
        elif key is not None:
            where = f"{config_path} [{section}] {key}"
            found.append(
                Threshold(
                    gate.name, check_threshold(gate, config[key], str(config_path), key), where
                )
            )
    allow_loops = config.get("allow_loops")
    if allow_loops is False and not any(t.gate == "loops" for t in found):
        found.append(Threshold("loops", 0.0, f"{config_path} [{section}] allow_loops = false"))
    elif allow_loops not in (None, True, False):
        raise UsageError(f"{config_path}: allow_loops must be true or false, got {allow_loops!r}")
    return found


def resolve_one(
    gate: Gate, flag_value: float | None, config_path: Path | None, section: Section = "cli"
) -> Threshold | None:
    """One gate's threshold in force (flag over config), for the gates of other grains."""
    if flag_value is not None:
        return Threshold(gate.name, check_threshold(gate, flag_value, "command line"), gate.flag)
    config = load_config(config_path).get(section, {})
    key = _key(gate, section, config, config_path)
    configured = config.get(key) if key else None
    if configured is None:
        return None
    where = f"{config_path} [{section}] {key}"
    return Threshold(gate.name, check_threshold(gate, configured, where, key), where)


def pair_gate_metric(name: str) -> str:
    """The JSON-contract key that gate ``name`` reads (the site marks that row)."""
    return metric_for_gate(name).key


@dataclass(frozen=True)
class LabelOptions:
    """How the label-level verdicts are judged: ``--fail-on-regression``, ``--alpha`` and the
    ``--min-effect`` overrides in force, with where each came from (``sources``)."""

    fail_on_regression: bool = False
    alpha: float = DEFAULT_ALPHA
    min_effect: dict[str, float] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)


def check_alpha(value: object, source: str) -> float:
    """The significance level: a number strictly between 0 and 1, else a usage error."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise UsageError(f"{source}: alpha must be a number in (0, 1), got {value!r}")
    return float(value)


def check_min_effects(values: object, source: str) -> dict[str, float]:
    """``{metric: X}`` with every metric a label-level one and every X a finite number >= 0."""
    known = [m.name for m in LABEL_METRICS]
    if not isinstance(values, Mapping):
        raise UsageError(f"{source}: min_effect must be a table of metric = number")
    out: dict[str, float] = {}
    for name, value in values.items():
        if name not in known:
            raise UsageError(
                f"{source}: min_effect: unknown metric {name!r} (known: {', '.join(known)})"
            )
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < 0
        ):
            raise UsageError(f"{source}: min_effect {name} must be a finite number >= 0")
        out[str(name)] = float(value)
    return out


def resolve_label_options(
    config_path: Path | None,
    section: Section = "cli",
    *,
    fail_on_regression: bool | None = None,
    alpha: float | None = None,
    min_effect: Mapping[str, float] | None = None,
) -> LabelOptions:
    """The label-level options in force: a given value (flag, keyword, pytest option) over
    the config file's ``section`` over the defaults (off, 0.05, the registry's effects);
    ``min_effect`` entries merge, the given ones winning."""
    config = load_config(config_path).get(section, {})
    where = f"{config_path} [{section}]"
    sources: dict[str, str] = {}
    fail = config.get("fail_on_regression")
    if fail is not None and not isinstance(fail, bool):
        raise UsageError(f"{where}: fail_on_regression must be true or false, got {fail!r}")
    if fail_on_regression:
        fail, sources["fail_on_regression"] = True, "given"
    elif fail is not None:
        sources["fail_on_regression"] = f"{where} fail_on_regression"
    level = DEFAULT_ALPHA
    if alpha is not None:
        level, sources["alpha"] = check_alpha(alpha, "given"), "given"
    elif "alpha" in config:
        level, sources["alpha"] = check_alpha(config["alpha"], where), f"{where} alpha"
    effects = check_min_effects(config.get("min_effect", {}), where)
    effects.update(check_min_effects(dict(min_effect or {}), "given"))
    return LabelOptions(bool(fail), level, effects, sources)
