"""Ingest: raw check `output` without `failing` becomes stable failure ids at load time."""

from __future__ import annotations

from pathlib import Path

from reportgen.iterations import analyse
from tests.iterations.helpers import ingested

GO_1 = "--- FAIL: TestLogin (0.12s)\n    auth_test.go:19: bad\nFAIL\nFAIL\texample.com/shop/auth\t0.2s\n"
GO_2 = "--- FAIL: TestLogin (0.31s)\n    auth_test.go:23: bad\nFAIL\nFAIL\texample.com/shop/auth\t0.4s\n"
PYTEST = "FAILED tests/test_cart.py::test_total - assert 3 == 4\n1 failed, 2 passed in 0.12s\n"


def test_output_is_normalised_and_named(tmp_path: Path) -> None:
    records = [
        {
            "run": "r",
            "iter": 1,
            "step": "s",
            "attempt": 1,
            "check": "go test ./...",
            "output": GO_1,
        },
        {
            "run": "r",
            "iter": 2,
            "step": "s",
            "attempt": 2,
            "check": "go test ./...",
            "output": GO_2,
        },
        {"run": "r", "iter": 3, "step": "p", "attempt": 1, "output": PYTEST},
        {"run": "r", "iter": 4, "step": "p", "attempt": 2, "output": PYTEST, "failing": ["mine"]},
        {"run": "r", "iter": 5, "step": "p", "attempt": 3},
    ]
    con = ingested(tmp_path, records)
    try:
        stored = con.execute(
            "SELECT iter, failing, normaliser, check_output IS NOT NULL FROM iterations ORDER BY iter"
        ).fetchall()
        (run,) = analyse(con)
    finally:
        con.close()
    assert stored == [
        (1, ["go:example.com/shop/auth::TestLogin"], "go", True),
        (2, ["go:example.com/shop/auth::TestLogin"], "go", True),
        (3, ["pytest:tests/test_cart.py::test_total"], "pytest", True),  # sniffed, no check
        (4, ["mine"], "given", True),  # a given failing list wins over output
        (5, None, None, False),
    ]
    s = next(step for step in run.steps if step.step == "s")
    # same failure on a shifted line with another duration: persisting, not new
    assert s.attempts[1].persisting == ["go:example.com/shop/auth::TestLogin"]
    assert s.attempts[1].new == []
    assert s.normaliser == "go"


def test_many_outputs_in_one_load(tmp_path: Path) -> None:
    records = [
        {
            "run": f"r{i % 3}",
            "iter": i,
            "step": "s",
            "attempt": i,
            "check": "go test ./...",
            "output": GO_1.replace("TestLogin", f"TestCase{i % 7}"),
        }
        for i in range(700)
    ]
    con = ingested(tmp_path, records)
    try:
        rows = con.execute(
            "SELECT count(*), count(DISTINCT failing), min(normaliser), max(normaliser)"
            " FROM iterations"
        ).fetchone()
    finally:
        con.close()
    assert rows == (700, 7, "go", "go")
