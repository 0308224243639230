"""Label-level gates everywhere the per-pair gates are: flags, the config file's [cli] and
[assertions] sections, the Python API and the pytest plugin (fail-on-regression, alpha,
min-effect, max-success-drop, max-reward-drop)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reportgen.api import RegressionError, assert_no_regressions, compare
from reportgen.cli import make_app
from reportgen.errors import UsageError
from reportgen.gating.thresholds import resolve_label_options, resolve_thresholds
from tests.conftest import make_run

pytest_plugins = ["pytester"]
runner = CliRunner()


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """Twelve tasks, one run a side: every task passes in the baseline, ten fail after."""
    base, cand = tmp_path / "base", tmp_path / "cand"
    for folder, fails in ((base, 0), (cand, 10)):
        folder.mkdir()
        for i in range(12):
            run = make_run(f"task-{i:02d}", success=i >= fails, reward=1.0 if i >= fails else 0.2)
            (folder / f"{i}.json").write_text(json.dumps(run))
    return base, cand


def test_config_sections_take_label_level_keys(tmp_path: Path) -> None:
    config = tmp_path / "reportgen.toml"
    config.write_text(
        "[cli]\nfail_on_regression = true\nalpha = 0.1\nmax_success_drop = 5\n"
        "min_effect = {cost_usd = 0.2}\n\n"
        "[assertions]\nmax_reward_drop = 0.3\nalpha = 0.01\n"
    )
    cli = resolve_label_options(config, "cli")
    assert (cli.fail_on_regression, cli.alpha, cli.min_effect) == (True, 0.1, {"cost_usd": 0.2})
    assert [(t.gate, t.value) for t in resolve_thresholds({}, config)] == [("success_drop", 5.0)]
    assertions = resolve_label_options(config, "assertions", alpha=0.2)
    assert (assertions.fail_on_regression, assertions.alpha) == (False, 0.2)  # given wins
    found = resolve_thresholds({}, config, section="assertions")
    assert [(t.gate, t.value) for t in found] == [("reward_drop", 0.3)]
    for bad in ("alpha = 1", "fail_on_regression = 1", "min_effect = {nope = 1}",
                "min_effect = {cost_usd = -1}"):  # fmt: skip
        config.write_text(f"[cli]\n{bad}\n")
        with pytest.raises(UsageError):
            resolve_label_options(config, "cli")


def test_cli_reads_label_options_from_config_and_flags(
    folders: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    b, c = map(str, folders)
    app = make_app()
    config = tmp_path / "reportgen.toml"
    config.write_text("[cli]\nfail_on_regression = true\n")
    failed = runner.invoke(app, ["compare", b, c])
    assert failed.exit_code == 3 and "regression (--fail-on-regression)" in failed.stdout
    config.write_text("[cli]\nalpha = 0.5\n")
    out = json.loads(runner.invoke(app, ["compare", b, c, "--json"]).stdout)["summary"]
    assert out["alpha"] == 0.5
    config.write_text("")
    wide = runner.invoke(app, ["compare", b, c, "--json", "--min-effect", "success_rate=0.9"])
    metric = json.loads(wide.stdout)["summary"]["metrics"][0]
    assert (metric["min_effect"], metric["min_effect_source"]) == (0.9, "--min-effect")
    gated = runner.invoke(app, ["compare", b, c, "--json", "--max-success-drop", "30"])
    metric = json.loads(gated.stdout)["summary"]["metrics"][0]
    assert metric["min_effect"] == pytest.approx(0.3)
    assert metric["min_effect_source"] == "--max-success-drop"
    for bad in (["--min-effect", "nope=1"], ["--min-effect", "success_rate"], ["--alpha", "0"]):
        assert runner.invoke(app, ["compare", b, c, *bad]).exit_code == 2, bad


def test_api_label_level_keywords_and_assertions(
    folders: tuple[Path, Path], tmp_path: Path
) -> None:
    b, c = folders
    comparison = compare(b, c)
    assert_no_regressions(comparison, config=False)  # no gate set: passes
    with pytest.raises(RegressionError, match=r"success_drop: success drop 83\.3 > 50"):
        assert_no_regressions(comparison, config=False, max_success_drop=50)
    assert_no_regressions(comparison, config=False, max_success_drop=90)
    with pytest.raises(RegressionError, match="success_rate: regression"):
        assert_no_regressions(comparison, config=False, fail_on_regression=True)
    # at a tiny alpha the ten broken tasks are still a regression; the reward drop is gated
    config = tmp_path / "reportgen.toml"
    config.write_text("[assertions]\nmax_reward_drop = 0.5\nfail_on_regression = true\n")
    with pytest.raises(RegressionError) as raised:
        assert_no_regressions(comparison, config=config)
    assert "reward_drop" in str(raised.value) and "regression" in str(raised.value)
    with pytest.raises(UsageError):
        assert_no_regressions(comparison, config=False, alpha=2.0)


def test_plugin_label_level_options(pytester: pytest.Pytester, folders: tuple[Path, Path]) -> None:
    b, c = folders
    pytester.makepyfile(
        f"""
        def test_drop(reportgen_check):
            reportgen_check({str(b)!r}, {str(c)!r})
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)
    pytester.runpytest("--reportgen-max-success-drop", "90").assert_outcomes(passed=1)
    dropped = pytester.runpytest("--reportgen-max-success-drop", "50")
    dropped.assert_outcomes(failed=1)
    dropped.stdout.fnmatch_lines(["*success_drop*83.3 > 50*"])
    regressed = pytester.runpytest("--reportgen-fail-on-regression")
    regressed.assert_outcomes(failed=1)
    regressed.stdout.fnmatch_lines(["*success_rate: regression*"])
    bad = pytester.runpytest("--reportgen-alpha", "2")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad_effect = pytester.runpytest("--reportgen-min-effect", "nope=1")
    assert bad_effect.ret == pytest.ExitCode.USAGE_ERROR
