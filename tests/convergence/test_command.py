"""``converge`` as a subcommand: JSON, exit codes and streams, per the conformance table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from reportgen.cli.converge import converge
from reportgen.cli.errors import exits_on_errors

runner = CliRunner()


def make_app() -> typer.Typer:
    """A two-command app, so ``converge`` is parsed as a real subcommand."""
    app = typer.Typer()
    app.command("converge")(exits_on_errors(converge))

    @app.command("other")
    def other() -> None:
        """Placeholder second command."""

    return app


APP = make_app()


def run(args: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(APP, ["converge", *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def compact(stdin: str, *extra: str) -> tuple[int, dict[str, object], str]:
    code, out, err = run(["--indent", "0", *extra, "-"], stdin)
    assert out.endswith("\n") and out.count("\n") == 1
    return code, json.loads(out), err


def test_paris_vs_lyon() -> None:
    code, out, err = compact(
        '["The capital of France is Paris.","the capital of france is Paris.",'
        '"The capital of France is Lyon."]'
    )
    assert (code, err) == (0, "")
    assert out == {
        "num_runs": 3,
        "exact_match_rate": 0.0,
        "token_metrics": {"avg_overlap": 0.81, "jaccard": 1.0},
        "convergence_score": 0.41,
        "divergence_point": {
            "diverges_at_token": "paris.",
            "token_position": 5,
            "num_tokens_to_divergence": 5,
        },
    }


CAT = '{"runs":["the cat sat on the mat","the cat sat on a mat","a dog ran"]}'


def test_runs_object_and_failed_minimum() -> None:
    code, out, err = compact(CAT)
    assert code == 0 and err == ""
    assert out["exact_match_rate"] == 0.0
    assert out["token_metrics"] == {"avg_overlap": 0.319, "jaccard": 0.833}
    assert out["convergence_score"] == 0.096
    assert out["divergence_point"] == {
        "diverges_at_token": "the",
        "token_position": 0,
        "num_tokens_to_divergence": 0,
    }
    code, out2, err = compact(CAT, "--min-convergence", "0.5")
    assert code == 3
    assert out2 == {**out, "minimum_convergence": {"threshold": 0.5, "passed": False}}
    assert list(out2)[-1] == "minimum_convergence"
    assert err.count("\n") == 1 and "0.096" in err


def test_minimum_is_inclusive() -> None:
    code, out, err = compact('["A","A","B"]', "--min-convergence", "0.266")
    assert (code, err) == (0, "")
    assert out["convergence_score"] == 0.266
    assert out["minimum_convergence"] == {"threshold": 0.266, "passed": True}
    assert out["exact_match_rate"] == 0.333
    assert out["token_metrics"] == {"avg_overlap": 0.333, "jaccard": 1.0}


@pytest.mark.parametrize(
    ("stdin", "fields"),
    [
        (
            '["alpha beta","alpha"]',
            (0.0, 0.5, 0.5, 0.25, None, 1),
        ),
        ('["x y","x z"]', (0.0, 0.333, 0.333, 0.2, "y", 1)),
        ('["a b c d","a b c d","a b x d","q"]', (0.167, 0.367, 1.0, 0.194, "a", 0)),
        ('["only one"]', (1.0, 1.0, 1.0, 1.0, None, 0)),
        ('["",""]', (1.0, 1.0, 1.0, 1.0, None, 0)),
        ('[" ","\\t"]', (0.0, 1.0, 1.0, 0.5, None, 0)),
    ],
)
def test_table_rows(stdin: str, fields: tuple[float, float, float, float, str | None, int]) -> None:
    code, out, err = compact(stdin)
    assert (code, err) == (0, "")
    exact, avg, jac, score, token, pos = fields
    assert out["num_runs"] == len(json.loads(stdin))
    assert out["exact_match_rate"] == exact
    assert out["token_metrics"] == {"avg_overlap": avg, "jaccard": jac}
    assert out["convergence_score"] == score
    assert out["divergence_point"] == {
        "diverges_at_token": token,
        "token_position": pos,
        "num_tokens_to_divergence": pos,
    }


def test_file_input_and_default_indent(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    path.write_text('["x y","x z"]', encoding="utf-8")
    code, out, err = run([str(path)])
    assert (code, err) == (0, "")
    expected = {
        "num_runs": 2,
        "exact_match_rate": 0.0,
        "token_metrics": {"avg_overlap": 0.333, "jaccard": 0.333},
        "convergence_score": 0.2,
        "divergence_point": {
            "diverges_at_token": "y",
            "token_position": 1,
            "num_tokens_to_divergence": 1,
        },
    }
    assert out == json.dumps(expected, indent=2) + "\n"
    code, out4, _ = run(["--indent", "4", str(path)])
    assert out4 == json.dumps(expected, indent=4) + "\n"
    code, out_neg, _ = run(["--indent", "-1", str(path)])
    assert out_neg == json.dumps(expected) + "\n"


@pytest.mark.parametrize(
    "stdin",
    ['{"runs":[]}', '{"foo":1}', '["a",1]', "[]", '"text"', "[1", "", '{"runs":"a"}'],
)
def test_bad_input_exits_1(stdin: str) -> None:
    code, out, err = run(["-"], stdin)
    assert code == 1
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1


def test_missing_file_and_directory_exit_1(tmp_path: Path) -> None:
    for target in (tmp_path / "nope.json", tmp_path):
        code, out, err = run([str(target)])
        assert (code, out) == (1, "")
        assert err.count("\n") == 1


def test_undecodable_file_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b'["\xff"]')
    code, out, err = run([str(path)])
    assert (code, out) == (1, "")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--min-convergence", "1.5", "-"],
        ["--min-convergence", "-inf", "-"],
        ["--min-convergence", "-Infinity", "-"],
        ["--min-convergence", "inf", "-"],
        ["--min-convergence", "nan", "-"],
        ["--min-convergence", "-0.1", "-"],
        ["--min-convergence", "abc", "-"],
        ["--indent", "x", "-"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    code, out, _ = run(args, '["a","a"]')
    assert code == 2
    assert out == ""


def test_threshold_edges_pass() -> None:
    for value, shown in (("0", 0.0), ("1", 1.0), ("-0.0", -0.0), ("1e-3", 0.001)):
        code, out, _ = compact('["a","a"]', "--min-convergence", value)
        assert code == 0
        assert out["minimum_convergence"] == {"threshold": shown, "passed": True}
