"""Thresholds: read from flags, a config file's ``[cli]`` or ``[assertions]`` section, or API
keywords; checked here and nowhere else; each remembers where it came from."""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from reportgen.errors import UsageError
from reportgen.gating.metrics import (
    ITERATION_GATES,
    LABEL_METRICS,
    MIN_CONVERGENCE,
    OTHER_GATES,
    Gate,
    label_gates,
    metric_for_gate,
    pair_gates,
    reliability_gates,
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


#: Who reads thresholds: the commands, and ``assertions`` for ``assert_no_regressions`` and
#: the pytest plugin (the [assertions] section; every command reads [cli]).
Command = Literal["compare", "gate", "build", "iterations", "converge", "assertions"]
COMMANDS: tuple[Command, ...] = ("compare", "gate", "build", "iterations", "converge", "assertions")
#: Who judges the label-level verdicts, and so reads LABEL_OPTIONS.
LABEL_COMMANDS: tuple[Command, ...] = ("compare", "gate", "assertions")
#: Keys that name a gate but that nothing reading their section applies: refused with why,
#: rather than accepted and ignored (a config that sets one would pass where it should fail).
REFUSED: dict[Section, dict[str, str]] = {
    "cli": {},
    "assertions": {
        "min_convergence": "assert_no_regressions and the pytest plugin judge the pairs of a "
        "comparison, not groups of repeated runs of a task; set min_convergence in [cli] for "
        "`reportgen gate` and `reportgen converge`",
    },
}


def section_of(command: Command) -> Section:
    """The config section ``command`` reads: [assertions] for the API and plugin, else [cli]."""
    return "assertions" if command == "assertions" else "cli"


def command_gates(command: Command) -> tuple[Gate, ...]:
    """The gates ``command`` applies, each from its flag (keyword) over its config key."""
    pair_level = (*pair_gates(), *label_gates())
    if command in ("build", "assertions"):
        return pair_level
    if command == "compare":
        return (*pair_level, *reliability_gates())
    if command == "gate":
        return (*pair_level, *reliability_gates(), MIN_CONVERGENCE)
    if command == "converge":
        return (MIN_CONVERGENCE,)
    return ITERATION_GATES


def _names(gate: Gate, section: Section) -> tuple[str, ...]:
    """The keys ``gate``'s threshold goes by in ``section`` (in [assertions]: both spellings
    of a pair gate)."""
    if section == "assertions" and gate in pair_gates():
        return assertion_names(gate)
    return (gate.config_key,)


def key_commands(section: Section) -> dict[str, tuple[Command, ...]]:
    """Every key ``section`` accepts -> who reads it (``assertions``: assert_no_regressions
    and the pytest plugin). A key is read by the commands that have its flag; the others
    leave it to them."""
    owners: dict[str, list[Command]] = {}
    for command in COMMANDS:
        if section_of(command) != section:
            continue
        keys = [name for gate in command_gates(command) for name in _names(gate, section)]
        keys += LABEL_OPTIONS if command in LABEL_COMMANDS else ()
        keys += ASSERTION_SWITCHES if section == "assertions" else ()
        for key in keys:
            owners.setdefault(key, []).append(command)
    return {key: tuple(commands) for key, commands in owners.items()}


def known_keys(section: Section) -> set[str]:
    """The keys a config section may hold, each read by some command (:func:`key_commands`)."""
    return set(key_commands(section))


def refused_keys(section: Section) -> dict[str, str]:
    """Keys of ``section`` refused with a usage error, and why (:data:`REFUSED`)."""
    return dict(REFUSED[section])


def section_name(path: Path | None, section: str) -> str:
    """How ``section`` is written in the file ``path``: ``[cli]``, ``[tool.reportgen.cli]``."""
    if path is not None and path.name == "pyproject.toml":
        return f"[tool.reportgen.{section}]"
    return f"[{section}]"


def load_config(path: Path | None) -> dict[str, dict[str, Any]]:
    """The [cli], [assertions] and [site] sections of a config file ([prices] is read by
    reportgen.formats.pricing); an unknown section or key, or a refused one
    (:func:`refused_keys`), is a usage error naming file, section, key."""
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
        if section == "prices":  # model prices, read at ingest (reportgen.formats.pricing)
            continue
        if section not in ("cli", "assertions", "site") or not isinstance(values, dict):
            raise UsageError(
                f"{path}: unknown section {section_name(path, section)} "
                "(known: [cli], [assertions], [site], [prices])"
            )
        refused: dict[str, str] = {}
        if section == "site":
            known = set(SITE_KEYS)
        else:
            known = known_keys("cli" if section == "cli" else "assertions")
            refused = refused_keys("cli" if section == "cli" else "assertions")
        for key in values:
            if key in refused:
                raise UsageError(
                    f"{path}: {section_name(path, section)} {key} is refused: {refused[key]}"
                )
            if key not in known:
                raise UsageError(
                    f"{path}: {section_name(path, section)} unknown key {key!r} "
                    f"(known: {', '.join(sorted(known))})"
                )
        sections[section] = values
    return sections


def _key(gate: Gate, section: Section, config: Mapping[str, Any], where: str) -> str | None:
    """The key ``config`` gives ``gate``'s threshold under (None: not given); both spellings
    of one threshold at once is a usage error."""
    given = [name for name in _names(gate, section) if name in config]
    if len(given) > 1:
        raise UsageError(f"{where}: sets both {' and '.join(given)}; keep one")
    return given[0] if given else None


def _resolve_gate(
    gate: Gate, given: float | bool | None, config: Mapping[str, Any], where: str, section: Section
) -> Threshold | None:
    """One gate's threshold in force: the given value (a flag, keyword or pytest option) over
    the config's key over off. A switch (``--fail-on-thrash``) in force is a threshold of 1:
    its key must be true or false."""
    if given is not None and given is not False:
        if gate.bound == "switch":
            return Threshold(gate.name, 1.0, gate.flag)
        return Threshold(gate.name, check_threshold(gate, given, "command line"), gate.flag)
    key = _key(gate, section, config, where)
    if key is None:
        return None
    value = config[key]
    if gate.bound == "switch":
        if not isinstance(value, bool):
            raise UsageError(f"{where}: {key} must be true or false, got {value!r}")
        return Threshold(gate.name, 1.0, f"{where} {key}") if value else None
    return Threshold(gate.name, check_threshold(gate, value, where, key), f"{where} {key}")


@dataclass(frozen=True)
class LabelOptions:
    """How the label-level verdicts are judged: ``--fail-on-regression``, ``--alpha`` and the
    ``--min-effect`` overrides in force, with where each came from (``sources``)."""

    fail_on_regression: bool = False
    alpha: float = DEFAULT_ALPHA
    min_effect: dict[str, float] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Resolved:
    """What one command gates on: the thresholds in force, in registry order (a switch that
    is on is a threshold of 1), and the label-level options, each saying where it came from."""

    command: Command
    thresholds: tuple[Threshold, ...] = ()
    label: LabelOptions = field(default_factory=LabelOptions)

    def get(self, gate: Gate) -> Threshold | None:
        """``gate``'s threshold in force (None: off)."""
        return next((t for t in self.thresholds if t.gate == gate.name), None)

    def of(self, gates: Sequence[Gate]) -> list[Threshold]:
        """The thresholds in force of ``gates``."""
        names = {g.name for g in gates}
        return [t for t in self.thresholds if t.gate in names]


def resolve(
    command: Command,
    config_path: Path | None,
    given: Mapping[str, float | bool | None] | None = None,
    *,
    fail_on_regression: bool | None = None,
    alpha: float | None = None,
    min_effect: Mapping[str, float] | None = None,
) -> Resolved:
    """The one place thresholds are resolved, for every command and the API: for each gate
    ``command`` applies (:func:`command_gates`), the ``given`` value (flags, keywords, pytest
    options, by gate name; None or False: not given) over the config file's section for it
    ([assertions] for ``assertions``, else [cli]) over off; the label-level options likewise
    for the commands that judge them. The whole file is checked first: an unknown or refused
    key in any section is a usage error, and so is a bad value of a key the command reads.
    Keys of other commands' gates are theirs (``compare`` leaves ``max_tool_error_rate`` to
    ``iterations``)."""
    section = section_of(command)
    config = load_config(config_path).get(section, {})
    where = f"{config_path} {section_name(config_path, section)}"
    gates = command_gates(command)
    stray = set(given or {}) - {g.name for g in gates}
    if stray:
        raise ValueError(f"{command} applies no gate named {', '.join(sorted(stray))}")
    found = [
        threshold
        for gate in gates
        if (threshold := _resolve_gate(gate, (given or {}).get(gate.name), config, where, section))
    ]
    if section == "assertions":
        allow_loops = config.get("allow_loops")
        if allow_loops not in (None, True, False):
            raise UsageError(f"{where}: allow_loops must be true or false, got {allow_loops!r}")
        if allow_loops is False and not any(t.gate == "loops" for t in found):
            found.append(Threshold("loops", 0.0, f"{where} allow_loops = false"))
    if command not in LABEL_COMMANDS:
        if fail_on_regression or alpha is not None or min_effect:
            raise ValueError(f"{command} judges no label-level verdicts")
        return Resolved(command, tuple(found))
    label = _label_options(config, where, fail_on_regression, alpha, min_effect)
    return Resolved(command, tuple(found), label)


def resolve_thresholds(
    flags: Mapping[str, float | None], config_path: Path | None, section: Section = "cli"
) -> list[Threshold]:
    """The pair-gate and label-level thresholds :func:`resolve` finds for ``compare`` (or,
    with ``section="assertions"``, for the API)."""
    command: Command = "assertions" if section == "assertions" else "compare"
    return list(resolve(command, config_path, flags).thresholds)


def pair_gate_metric(name: str) -> str:
    """The JSON-contract key that gate ``name`` reads (the site marks that row)."""
    return metric_for_gate(name).key


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


def _label_options(
    config: Mapping[str, Any],
    where: str,
    fail_on_regression: bool | None,
    alpha: float | None,
    min_effect: Mapping[str, float] | None,
) -> LabelOptions:
    """The label-level options in force: a given value (flag, keyword, pytest option) over
    the config section over the defaults (off, 0.05, the registry's effects); ``min_effect``
    entries merge, the given ones winning."""
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


def resolve_label_options(
    config_path: Path | None,
    section: Section = "cli",
    *,
    fail_on_regression: bool | None = None,
    alpha: float | None = None,
    min_effect: Mapping[str, float] | None = None,
) -> LabelOptions:
    """The label-level options :func:`resolve` finds for ``compare`` (or, with
    ``section="assertions"``, for the API)."""
    command: Command = "assertions" if section == "assertions" else "compare"
    return resolve(
        command,
        config_path,
        fail_on_regression=fail_on_regression,
        alpha=alpha,
        min_effect=min_effect,
    ).label
