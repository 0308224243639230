"""A metric declared once, in the registry, shows up everywhere a metric is named: the
compare JSON, the Markdown and terminal tables, the gate flags of compare and gate, the config
keys, the Python API's keywords and the pytest plugin's options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reportgen import pytest_plugin
from reportgen.api import RegressionError, assert_no_regressions, compare
from reportgen.cli import make_app
from reportgen.errors import UsageError
from reportgen.gating import Gate, PairMetric, load_config, pair_metrics, registered
from reportgen.gating.metrics import register
from reportgen.site.pages_compare import metric_rows as pair_page_metrics
from tests.conftest import make_run

runner = CliRunner()

EXTRA_STEPS = PairMetric(
    name="extra_steps",
    key="extra_steps",
    label="extra candidate steps",
    column="steps +",
    unit="steps",
    worse_when="higher",
    gate=Gate(
        "extra_steps",
        "--max-extra-steps",
        "max_extra_steps",
        "Fail when the candidate takes more than this many extra steps.",
        keyword="max_extra_steps_allowed",
    ),
    cell=lambda p: f"{p['extra_steps']:+.0f}",
    compute=lambda p: float(p["candidate_totals"]["steps"] - p["baseline_totals"]["steps"]),
)


@pytest.fixture
def traces(tmp_path: Path) -> tuple[Path, Path]:
    baseline, candidate = tmp_path / "b.json", tmp_path / "c.json"
    baseline.write_text(json.dumps(make_run(n_steps=3)))
    candidate.write_text(json.dumps(make_run(n_steps=5)))
    return baseline, candidate


class _Group:
    def __init__(self) -> None:
        self.flags: list[str] = []

    def addoption(self, *names: str, **_: Any) -> None:
        self.flags += names


class _Parser:
    def __init__(self) -> None:
        self.group = _Group()

    def getgroup(self, *_: Any) -> _Group:
        return self.group


def _pytest_flags() -> list[str]:
    parser = _Parser()
    pytest_plugin.pytest_addoption(parser)  # type: ignore[arg-type]
    return parser.group.flags


def test_one_declaration_reaches_every_surface(
    traces: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no config file of the repository applies
    b, c = map(str, traces)
    with registered(EXTRA_STEPS):
        app = make_app()
        for command in ("compare", "gate"):
            assert "--max-extra-steps" in runner.invoke(app, [command, "--help"]).stdout

        out = json.loads(runner.invoke(app, ["compare", b, c, "--json"]).stdout)
        assert out["extra_steps"] == 2.0 and out["passed"]

        failed = runner.invoke(app, ["compare", b, c, "--json", "--max-extra-steps", "1"])
        assert failed.exit_code == 3
        (violation,) = json.loads(failed.stdout)["violations"]
        assert violation["gate"] == "extra_steps" and violation["metric"] == "extra candidate steps"
        assert runner.invoke(app, ["compare", b, c, "--max-extra-steps", "2"]).exit_code == 0

        md = runner.invoke(app, ["compare", b, c, "--markdown"]).stdout
        header = next(line for line in md.splitlines() if line.startswith("| pair"))
        assert "| steps + |" in header and "| +2 |" in md
        assert "steps +" in runner.invoke(app, ["compare", b, c]).stdout

        config = tmp_path / "reportgen.toml"
        config.write_text(
            "[cli]\nmax_extra_steps = 0\n\n[assertions]\nmax_extra_steps_allowed = 1\n"
        )
        assert load_config(config)["cli"] == {"max_extra_steps": 0}
        gated = runner.invoke(app, ["compare", b, c, "--config", str(config)])
        assert gated.exit_code == 3 and "reportgen.toml [cli] max_extra_steps" in gated.stdout

        with pytest.raises(RegressionError, match="extra candidate steps = 2 > 1"):
            assert_no_regressions(compare(*traces), config=config)
        assert_no_regressions(compare(*traces), config=False, max_extra_steps_allowed=2)

        assert "--reportgen-max-extra-steps" in _pytest_flags()

        pair = compare(*traces).pairs[0]
        run = {"n_steps": 3, "cost_usd": None, "tokens": None, "latency_ms": None}
        (row,) = [r for r in pair_page_metrics(pair, run, run) if r.key == "extra_steps"]
        assert (row.name, row.change, row.worse) == ("extra candidate steps", "+2", True)

    app = make_app()  # gone again once unregistered
    assert "--max-extra-steps" not in runner.invoke(app, ["compare", "--help"]).stdout
    assert "--reportgen-max-extra-steps" not in _pytest_flags()
    with pytest.raises(UsageError, match="unknown key 'max_extra_steps'"):
        load_config(config)


def test_names_are_unique() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register(pair_metrics()[0])
    gates = [m.gate for m in pair_metrics() if m.gate]
    for attribute in ("name", "flag", "config_key", "keyword"):
        values = [getattr(g, attribute) for g in gates]
        assert len(values) == len(set(values)), attribute
