"""pytest plugin: ``--reportgen-*`` options and fixtures that gate a test suite on
reportgen's metrics. Heavy imports wait until a fixture is used, so the plugin costs nothing
when unused. Thresholds are checked when options are read: a bad one is a usage error."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reportgen.gating.metrics import Gate, label_gates, pair_gates


def _options() -> list[tuple[Gate, str]]:
    """(gate, assert_no_regressions keyword) for every registered pair gate and every
    label-level one (``--reportgen-max-success-drop``, judged over the tasks)."""
    return [(gate, gate.config_key) for gate in (*pair_gates(), *label_gates())]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reportgen", "reportgen regression gates")
    for gate, _keyword in _options():
        group.addoption(
            gate.pytest_flag,
            dest=gate.pytest_dest,
            default=None,
            metavar="X",
            help=f"fail reportgen_check when {gate.pytest_flag.removeprefix('--reportgen-max-')} > X",
        )
    group.addoption(
        "--reportgen-fail-on-regression",
        dest="reportgen_fail_on_regression",
        action="store_true",
        default=None,
        help="also fail when a label-level verdict is 'regression' (as --fail-on-regression)",
    )
    group.addoption(
        "--reportgen-alpha",
        dest="reportgen_alpha",
        default=None,
        metavar="X",
        help="significance level of the label-level verdicts (default 0.05)",
    )
    group.addoption(
        "--reportgen-min-effect",
        dest="reportgen_min_effect",
        action="append",
        default=None,
        metavar="METRIC=X",
        help="minimum effect of interest of a label-level metric (repeatable)",
    )
    group.addoption(
        "--reportgen-config",
        dest="reportgen_config",
        default=None,
        metavar="PATH",
        help="reportgen.toml or pyproject.toml whose [assertions] section holds defaults",
    )
    group.addoption(
        "--reportgen-baselines",
        dest="reportgen_baselines",
        default="reportgen-baselines",
        metavar="DIR",
        help="folder of baseline traces for reportgen_trace (default: reportgen-baselines)",
    )
    group.addoption(
        "--reportgen-update-baselines",
        dest="reportgen_update_baselines",
        action="store_true",
        help="write each recorded trace as the new baseline instead of comparing",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Check every threshold option now: a bad one is a usage error before any test runs."""
    from reportgen.errors import UsageError
    from reportgen.gating.thresholds import parse_threshold

    for gate, _keyword in _options():
        raw = config.getoption(gate.pytest_dest)
        if raw is None:
            continue
        try:
            parse_threshold(gate, raw)
        except UsageError as error:
            message = str(error).replace(gate.flag, gate.pytest_flag)
            raise pytest.UsageError(message.removeprefix("command line: ")) from None
    try:
        _label_keywords(config)
    except UsageError as error:
        raise pytest.UsageError(str(error)) from None


def _label_keywords(config: pytest.Config) -> dict[str, Any]:
    """--reportgen-fail-on-regression, --reportgen-alpha and --reportgen-min-effect as
    assert_no_regressions keywords (only those given); a bad value is a UsageError."""
    from reportgen.errors import UsageError
    from reportgen.gating.thresholds import check_alpha, check_min_effects

    found: dict[str, Any] = {}
    if config.getoption("reportgen_fail_on_regression"):
        found["fail_on_regression"] = True
    raw = config.getoption("reportgen_alpha")
    if raw is not None:
        try:
            value = float(raw)
        except ValueError:
            raise UsageError(f"--reportgen-alpha: expected a number, got {raw!r}") from None
        found["alpha"] = check_alpha(value, "--reportgen-alpha")
    effects: dict[str, Any] = {}
    for text in config.getoption("reportgen_min_effect") or []:
        name, _, value_text = str(text).partition("=")
        try:
            effects[name.strip()] = float(value_text)
        except ValueError:
            raise UsageError(f"--reportgen-min-effect: expected METRIC=X, got {text!r}") from None
    if effects:
        found["min_effect"] = check_min_effects(effects, "--reportgen-min-effect")
    return found


def _given(config: pytest.Config) -> dict[str, Any]:
    """Thresholds and label-level options given on the pytest command line, as
    assert_no_regressions keywords."""
    found: dict[str, Any] = _label_keywords(config)
    for gate, keyword in _options():
        raw = config.getoption(gate.pytest_dest)
        if raw is not None:
            found[keyword] = float(raw)
    return found


@pytest.fixture
def reportgen_thresholds(request: pytest.FixtureRequest) -> dict[str, Any]:
    """Thresholds given on the pytest command line, as assert_no_regressions keywords (the
    label-level options too: ``fail_on_regression``, ``alpha``, ``min_effect``)."""
    return _given(request.config)


@pytest.fixture
def reportgen_check(
    request: pytest.FixtureRequest, reportgen_thresholds: dict[str, Any]
) -> Callable[..., Any]:
    """``reportgen_check(baseline, candidate, **thresholds)``: compare two trace files or
    folders and fail the test on a regression. Keyword thresholds override the command line,
    which overrides the config file's [assertions] section."""
    from reportgen.api import assert_no_regressions, compare

    raw_config = request.config.getoption("reportgen_config")
    config: Path | bool = Path(raw_config) if raw_config else True

    def check(baseline: Any, candidate: Any, **thresholds: Any) -> Any:
        comparison = compare(baseline, candidate)
        merged: dict[str, Any] = {**reportgen_thresholds, **thresholds}
        assert_no_regressions(comparison, config=config, **merged)
        return comparison

    return check


@pytest.fixture
def reportgen_trace(request: pytest.FixtureRequest) -> Any:
    """Record the steps of a run in this test (``reportgen_trace.step("search", input=...)``).
    When the test body has passed, the trace is compared with
    ``--reportgen-baselines/<test>.json`` and the test fails on a regression. A missing
    baseline fails the test too (run with --reportgen-update-baselines to record one)."""
    from reportgen.plugin_baselines import TraceRecorder

    return TraceRecorder(task_id=request.node.name)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """After a test body that used ``reportgen_trace`` passes, check its trace."""
    result = yield
    recorder = getattr(item, "funcargs", {}).get("reportgen_trace")
    if recorder is not None:
        _check_recorded(item, recorder)
    return result


def _check_recorded(item: pytest.Item, recorder: Any) -> None:
    from reportgen.api import assert_no_regressions, compare
    from reportgen.plugin_baselines import baseline_path

    config = item.config
    folder = Path(config.getoption("reportgen_baselines"))
    if not folder.is_absolute():
        folder = config.rootpath / folder
    baseline = baseline_path(folder, item.nodeid)
    if config.getoption("reportgen_update_baselines"):
        folder.mkdir(parents=True, exist_ok=True)
        baseline.write_text(recorder.to_json(), encoding="utf-8")
        return
    if not baseline.exists():
        pytest.fail(
            f"reportgen: no baseline trace at {baseline}; "
            "run pytest with --reportgen-update-baselines to record one",
            pytrace=False,
        )
    scratch = config.rootpath / ".reportgen-candidates"
    scratch.mkdir(exist_ok=True)
    candidate = scratch / baseline.name
    candidate.write_text(recorder.to_json(), encoding="utf-8")
    raw_config = config.getoption("reportgen_config")
    thresholds: dict[str, Any] = _given(config)
    assert_no_regressions(
        compare(baseline, candidate), config=Path(raw_config) if raw_config else True, **thresholds
    )
