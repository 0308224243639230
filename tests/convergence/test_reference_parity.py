"""Differential test: ``reportgen converge`` vs PyPI agent-convergence-scorer 0.3.0.

The reference runs in its own interpreter (env ``REPORTGEN_REF_CONVERGENCE_PYTHON``, else
/work/refvenv-conv/bin/python). One long-lived subprocess answers every example over a pipe,
calling the reference CLI's ``main`` and its library functions in-process, so hundreds of
inputs cost one interpreter start. Stdout must match byte for byte, exit codes exactly.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from reportgen.cli.converge import converge
from reportgen.cli.errors import exits_on_errors
from reportgen.convergence import (
    convergence_score,
    divergence_point,
    exact_match_rate,
    score_runs,
    token_overlap,
    tokenize,
)

DEFAULT_REF = "/work/refvenv-conv/bin/python"

# Runs inside the reference interpreter: one JSON request per line in, one answer per line out.
SERVER = r"""
import contextlib, io, json, sys
import agent_convergence_scorer as acs
from agent_convergence_scorer.cli import main

def cli(argv, stdin):
    out, err = io.StringIO(), io.StringIO()
    sys.stdin = io.StringIO(stdin)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except Exception as exc:  # an uncaught error ends the real process with 1
            print(repr(exc), file=sys.stderr)
            code = 1
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}

def lib(runs):
    answer = {}
    for name in ("score_runs", "exact_match_rate", "token_overlap", "divergence_point",
                 "convergence_score"):
        try:
            answer[name] = getattr(acs, name)(runs)
        except ValueError:
            answer[name] = "ValueError"
    answer["tokenize"] = [acs.tokenize(r) for r in runs]
    return answer

print(json.dumps({"version": acs.__version__}), flush=True)
for line in sys.stdin.buffer:
    req = json.loads(line)
    res = cli(req["argv"], req["stdin"]) if req["op"] == "cli" else lib(req["runs"])
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
"""


def _ref_python() -> str | None:
    path = os.environ.get("REPORTGEN_REF_CONVERGENCE_PYTHON") or (
        DEFAULT_REF if Path(DEFAULT_REF).exists() else None
    )
    return path


class Reference:
    """A pipe to the reference interpreter running SERVER."""

    def __init__(self, python: str) -> None:
        self.python = python
        self.proc = subprocess.Popen(
            [python, "-c", SERVER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        )
        hello = self._read()
        self.version = hello.get("version")

    def _read(self) -> Any:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("reference interpreter exited")
        return json.loads(line)

    def ask(self, request: dict[str, Any]) -> Any:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def ref() -> Iterator[Reference]:
    python = _ref_python()
    if python is None:
        pytest.skip(
            "reference agent-convergence-scorer 0.3.0 not available: set "
            f"REPORTGEN_REF_CONVERGENCE_PYTHON or create {DEFAULT_REF}"
        )
    try:
        reference = Reference(python)
    except (OSError, RuntimeError) as exc:
        pytest.skip(f"cannot start reference interpreter {python}: {exc}")
    if reference.version != "0.3.0":
        reference.close()
        pytest.skip(f"{python} has agent-convergence-scorer {reference.version}, need 0.3.0")
    yield reference
    reference.close()


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command("converge")(exits_on_errors(converge))

    @app.command("other")
    def other() -> None:
        """Placeholder second command."""

    return app


APP = _app()
RUNNER = CliRunner()


def ours(argv: list[str], stdin: str) -> dict[str, Any]:
    result = RUNNER.invoke(APP, ["converge", *argv], input=stdin)
    return {"code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr}


def assert_same_cli(ref: Reference, argv: list[str], stdin: str) -> None:
    theirs = ref.ask({"op": "cli", "argv": argv, "stdin": stdin})
    mine = ours(argv, stdin)
    assert mine["code"] == theirs["code"], (argv, stdin, mine, theirs)
    assert mine["stdout"] == theirs["stdout"], (argv, stdin)
    # Messages are worded differently on purpose; only their presence must agree.
    assert bool(mine["stderr"]) == bool(theirs["stderr"]), (argv, stdin, mine, theirs)
    if theirs["code"] in (1, 3):
        assert mine["stderr"].count("\n") == 1


def _lib(runs: list[str]) -> dict[str, Any]:
    answer: dict[str, Any] = {}
    for name, fn in (
        ("score_runs", score_runs),
        ("exact_match_rate", exact_match_rate),
        ("token_overlap", token_overlap),
        ("divergence_point", divergence_point),
        ("convergence_score", convergence_score),
    ):
        try:
            answer[name] = fn(runs)
        except ValueError:
            answer[name] = "ValueError"
    answer["tokenize"] = [tokenize(r) for r in runs]
    return answer


# --- inputs -------------------------------------------------------------------------------

_BASE = ["the", "cat", "sat", "on", "mat", "a", "paris", "answer", "is", "42"]
_WORD = st.sampled_from(_BASE).flatmap(
    lambda w: st.sampled_from(
        [w, w.upper(), w.capitalize(), w + ".", w + ",", "(" + w + ")", w + "!", w + "?"]
    )
)
_UNICODE_WORD = st.sampled_from(
    ["ΟΔΟΣ", "οδος", "ΣΑΣ", "İstanbul", "straße", "STRASSE", "é", "É", "ǅ", "ﬁ", "日本", "🙂"]
)
_SEP = st.sampled_from([" ", " ", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2003", "\x1f"])
_PHRASE = st.lists(st.tuples(st.one_of(_WORD, _UNICODE_WORD), _SEP), min_size=0, max_size=10).map(
    lambda parts: "".join(w + s for w, s in parts).strip(" ")
)
_RUN = st.one_of(
    _PHRASE,
    _PHRASE,
    st.sampled_from(["", " ", "\t", "\n \t", "\u3000"]),
    st.text(max_size=15),
)


@st.composite
def run_lists(draw: st.DrawFn) -> list[str]:
    """Lists with many repeats, prefixes and case/punctuation variants of one another."""
    runs = draw(st.lists(_RUN, min_size=1, max_size=5))
    extra = draw(st.integers(min_value=0, max_value=4))
    for _ in range(extra):
        base = draw(st.sampled_from(runs))
        kind = draw(st.sampled_from(["same", "prefix", "upper", "lower", "append"]))
        if kind == "same":
            runs.append(base)
        elif kind == "prefix":
            runs.append(base[: draw(st.integers(0, len(base)))])
        elif kind == "upper":
            runs.append(base.upper())
        elif kind == "lower":
            runs.append(base.lower())
        else:
            runs.append(base + draw(_SEP) + draw(_WORD))
    return draw(st.permutations(runs))


_THRESHOLD = st.one_of(
    st.none(),
    st.integers(0, 1000).map(lambda k: repr(k / 1000)),
    st.floats(0.0, 1.0).map(repr),
    st.sampled_from(["0", "1", "1.0", "0.5", "1e-3", "1.5", "-0.1", "nan", "-inf", "inf"]),
)
_INDENT = st.sampled_from([None, None, "0", "1", "2", "4", "-2"])
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(runs=run_lists(), as_object=st.booleans())
def test_cli_default_output_matches(ref: Reference, runs: list[str], as_object: bool) -> None:
    stdin = json.dumps({"runs": runs} if as_object else runs)
    assert_same_cli(ref, ["-"], stdin)


@SETTINGS
@given(runs=run_lists(), threshold=_THRESHOLD, indent=_INDENT)
def test_cli_options_match(
    ref: Reference, runs: list[str], threshold: str | None, indent: str | None
) -> None:
    argv: list[str] = []
    if indent is not None:
        argv += ["--indent", indent]
    if threshold is not None:
        argv += ["--min-convergence", threshold]
    assert_same_cli(ref, [*argv, "-"], json.dumps(runs))


@SETTINGS
@given(runs=st.one_of(run_lists(), st.just([])))
def test_library_matches(ref: Reference, runs: list[str]) -> None:
    theirs = ref.ask({"op": "lib", "runs": runs})
    assert json.loads(json.dumps(_lib(runs))) == theirs


@pytest.mark.parametrize(
    "stdin",
    [
        '{"runs":[]}',
        '{"foo":1}',
        '["a",1]',
        "[]",
        "[1",
        "",
        '"x"',
        "null",
        '{"runs":{"runs":["a"]}}',
        '{"runs":["a"],"runs":["b","b"]}',
        '["a", NaN]',
        '\ufeff["a"]',
    ],
)
def test_cli_odd_inputs_match(ref: Reference, stdin: str) -> None:
    assert_same_cli(ref, ["--indent", "0", "-"], stdin)


def test_real_console_script_on_conformance_rows(ref: Reference, tmp_path: Path) -> None:
    """The in-process answers above stand for the real command: check a few through a process."""
    rows = [
        '["The capital of France is Paris.","the capital of france is Paris.",'
        '"The capital of France is Lyon."]',
        '{"runs":["the cat sat on the mat","the cat sat on a mat","a dog ran"]}',
        '["A","A","B"]',
        '["alpha beta","alpha"]',
        '["x y","x z"]',
        '["a b c d","a b c d","a b x d","q"]',
        '["only one"]',
        '["",""]',
        '[" ","\\t"]',
        '{"runs":[]}',
    ]
    cases: list[tuple[list[str], str]] = [(["--indent", "0", "-"], row) for row in rows]
    cases += [
        (["--indent", "0", "--min-convergence", "0.5", "-"], rows[1]),
        (["--indent", "0", "--min-convergence", "0.266", "-"], rows[2]),
        (["--min-convergence", "1.5", "-"], rows[2]),
        (["--min-convergence", "-inf", "-"], rows[2]),
        ([], rows[2]),
        ([str(tmp_path / "missing.json")], ""),
    ]
    for argv, stdin in cases:
        proc = subprocess.run(
            [ref.python, "-m", "agent_convergence_scorer", *argv],
            input=stdin.encode(),
            capture_output=True,
            check=False,
        )
        mine = ours(argv, stdin)
        assert mine["code"] == proc.returncode, (argv, stdin)
        assert mine["stdout"].encode() == proc.stdout, (argv, stdin)
