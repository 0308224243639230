"""pytest plugin: ``--reportgen-*`` options and fixtures that gate a test suite on
reportgen's metrics. Heavy imports wait until a fixture is used, so the plugin costs nothing
when unused. Thresholds are checked when options are read: a bad one is a usage error."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# option dest -> [assertions] keyword of reportgen.api.assert_no_regressions
OPTIONS = {
    "reportgen_max_divergence": "max_divergence",
    "reportgen_max_wasted_effort": "max_wasted_effort",
    "reportgen_max_loops": "max_loops",
    "reportgen_max_recovery_ratio": "max_recovery_step_ratio",
    "reportgen_max_cost_delta": "max_cost_increase_pct",
    "reportgen_max_token_delta": "max_token_increase_pct",
    "reportgen_max_latency_delta": "max_latency_increase_pct",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reportgen", "reportgen regression gates")
    for dest in OPTIONS:
        flag = "--" + dest.replace("_", "-")
        group.addoption(
            flag,
            dest=dest,
            default=None,
            metavar="X",
            help=f"fail reportgen_check when {flag.removeprefix('--reportgen-max-')} > X",
        )
    group.addoption(
        "--reportgen-config",
        dest="reportgen_config",
        default=None,
        metavar="PATH",
        help="reportgen.toml or pyproject.toml whose [assertions] section holds defaults",
    )


def pytest_configure(config: pytest.Config) -> None:
    for dest in OPTIONS:
        raw = config.getoption(dest)
        if raw is None:
            continue
        try:
            value = float(raw)
        except ValueError:
            raise pytest.UsageError(
                f"--{dest.replace('_', '-')}: expected a number, got {raw!r}"
            ) from None
        if not math.isfinite(value) or value < 0:
            raise pytest.UsageError(
                f"--{dest.replace('_', '-')}: must be a finite number >= 0, got {raw!r}"
            )


@pytest.fixture
def reportgen_thresholds(request: pytest.FixtureRequest) -> dict[str, float]:
    """Thresholds given on the pytest command line, as assert_no_regressions keywords."""
    found = {}
    for dest, keyword in OPTIONS.items():
        raw = request.config.getoption(dest)
        if raw is not None:
            found[keyword] = float(raw)
    return found


@pytest.fixture
def reportgen_check(
    request: pytest.FixtureRequest, reportgen_thresholds: dict[str, float]
) -> Callable[..., Any]:
    """``reportgen_check(baseline, candidate, **thresholds)``: compare two trace files or
    folders and fail the test on a regression. Keyword thresholds override the command line,
    which overrides the config file's [assertions] section."""
    from reportgen.api import assert_no_regressions, compare

    raw_config = request.config.getoption("reportgen_config")
    config: Path | bool = Path(raw_config) if raw_config else True

    def check(baseline: Any, candidate: Any, **thresholds: float) -> Any:
        comparison = compare(baseline, candidate)
        assert_no_regressions(comparison, config=config, **{**reportgen_thresholds, **thresholds})
        return comparison

    return check
