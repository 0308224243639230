"""The iteration UDFs, tested through SQL, and the check-kind rules."""

from __future__ import annotations

import duckdb
import pytest

from reportgen.iterations import check_kind, register_iteration_udfs


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    register_iteration_udfs(connection)
    register_iteration_udfs(connection)  # twice is harmless
    return connection


def test_patch_ratio_through_sql(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute(
        "SELECT rg_patch_ratio(a, b) FROM (VALUES ($p, $q, 1), ('', '', 2),"
        " (NULL, 'x', 3), ('abc', 'xyz', 4), ($h1, $h2, 5)) t(a, b, i) ORDER BY i",
        {
            "p": "+a\n+b\n+c\n+d\n",
            "q": "+a\n+b\n+c\n-e\n",
            # headers, hunk positions and context lines are not compared
            "h1": "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-old\n+new\n ctx\n",
            "h2": "--- a/y\n+++ b/y\n@@ -90,2 +90,2 @@\n-old\n+new  \n other\n",
        },
    ).fetchall()
    assert [r[0] for r in rows] == [0.75, 1.0, None, 0.0, 1.0]


def test_patch_lines_through_sql(con: duckdb.DuckDBPyConnection) -> None:
    diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n+more\n context\n"
    assert con.execute("SELECT rg_patch_lines(?), rg_patch_lines(NULL)", [diff]).fetchone() == (
        3,
        None,
    )


@pytest.mark.parametrize(
    ("check", "normaliser", "kind"),
    [
        ("go test ./...", None, "test-suite"),
        ("go build ./...", None, "build-only"),
        ("go vet ./...", None, "build-only"),
        ("cargo check", None, "build-only"),
        ("cargo test --workspace", None, "test-suite"),
        ("ruff check . && pytest -q", None, "test-suite"),
        ("npx tsc --noEmit", None, "build-only"),
        ("npm run test:unit", None, "test-suite"),
        ("./ci.sh", "pytest", "test-suite"),
        ("./ci.sh", "mypy", "build-only"),
        ("./ci.sh", "given", "unknown"),
        (None, None, "unknown"),
    ],
)
def test_check_kind(check: str | None, normaliser: str | None, kind: str) -> None:
    assert check_kind(check, normaliser) == kind


def test_check_kind_through_sql(con: duckdb.DuckDBPyConnection) -> None:
    assert con.execute("SELECT rg_check_kind('mvn -q test', NULL)").fetchone() == ("test-suite",)
