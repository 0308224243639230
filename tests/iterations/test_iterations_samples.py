"""The bundled sample loops: the converging run certifies everything and never thrashes; the
thrashing one is flagged on auth-middleware, with the attempts the evidence covers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from reportgen.archive import connect
from reportgen.ingest import ingest
from reportgen.iterations import analyse, compare_page_data, page_data
from reportgen.resources import shipped_dir

CONVERGING = "2026-11-28/backlog-converging"
THRASHING = "2026-11-28/backlog-thrashing"


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    db: Path = tmp_path_factory.mktemp("samples") / "a.duckdb"
    ingest([shipped_dir("sample_runs") / "iterations"], db)
    connection = connect(db, read_only=True)
    yield connection
    connection.close()


def test_runs_are_told_apart(con: duckdb.DuckDBPyConnection) -> None:
    good, bad = analyse(con)
    assert (good.run_id, bad.run_id) == (CONVERGING, THRASHING)
    assert good.certified_steps == good.n_steps == 6
    assert good.thrash_steps == []
    assert all(s.thrash is None or not s.thrash.flagged for s in good.steps)
    assert bad.certified_steps == 2 and bad.thrash_steps == ["auth-middleware"]
    assert bad.usd_per_certified_step is not None and good.usd_per_certified_step is not None
    assert bad.tokens_per_certified_step is not None and good.tokens_per_certified_step is not None
    assert bad.tokens_per_certified_step > 2 * good.tokens_per_certified_step
    assert bad.usd_per_certified_step > 2 * good.usd_per_certified_step
    assert bad.marginal_attempts == 9 and good.marginal_attempts == 1


def test_thrash_evidence_on_auth_middleware(con: duckdb.DuckDBPyConnection) -> None:
    (bad,) = analyse(con, [THRASHING])
    step = next(s for s in bad.steps if s.step == "auth-middleware")
    assert not step.certified and step.check_kind == "test-suite"
    t = step.thrash
    assert t is not None and t.flagged
    # attempt 2 reached the low (2 failing); attempts 3-9 never went below it
    assert (t.anchor_attempt, t.attempts, t.iters) == (2, list(range(3, 10)), list(range(6, 13)))
    assert t.failing_set == "churning"
    assert t.core_failing == [
        "go:app/auth-middleware::TestAuthMiddleware0",
        "go:app/auth-middleware::TestAuthMiddleware1",
    ]
    assert t.growing_diff and t.rising_tool_errors
    assert not t.low_patch_distance  # the sample's patch only grows: refining, not rewriting


def test_pages(con: duckdb.DuckDBPyConnection) -> None:
    page = page_data(con, THRASHING)
    steps = {s["step"]: s for s in page["steps"]}
    assert steps["auth-middleware"]["series"]["persisting"][1:] == [2] * 8
    assert page["progress"]["certified_steps"][-1] == 2
    both = compare_page_data(con, CONVERGING, THRASHING)
    assert [s["step"] for s in both["steps"]][:3] == [
        "parse-config",
        "load-users",
        "auth-middleware",
    ]
    auth = both["steps"][2]
    assert auth["a"]["certified"] and not auth["b"]["certified"] and auth["b"]["thrash"]
    assert both["steps"][3]["b"] is None  # the thrashing run never reached rate-limit


def test_unknown_run_is_an_input_error(con: duckdb.DuckDBPyConnection) -> None:
    from reportgen.errors import InputError

    with pytest.raises(InputError):
        page_data(con, "no-such-run")
