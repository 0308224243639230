"""Case 5: token counts that 64-bit sums could wrap are refused at ingest (and so by compare,
which ingests its files); counts at the limit compare and build without overflow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reportgen.ingest.loader import MAX_TOKENS
from tests.conftest import make_run, make_step
from tests.hostile.conftest import cli, one_line, write_runs
from tests.hostile.fingerprint import archive_fingerprint

HUGE = 9_000_000_000_000_000_000  # fits int64 alone; two of them wrap


def run_with_tokens(run_id: str, *tokens: int, **extra: object) -> dict[str, object]:
    steps = [make_step(f"a{i}", tokens_in=t, tokens_out=0) for i, t in enumerate(tokens)]
    return make_run("t", run_id=run_id, steps=steps, **extra)


@pytest.fixture
def baseline(tmp_path: Path) -> Path:
    return write_runs(tmp_path / "baseline" / "runs.jsonl", [run_with_tokens("b", 10, 10)])


@pytest.mark.parametrize(
    ("run", "field"),
    [
        (run_with_tokens("c", HUGE, HUGE), "].tokens_in: 9000000000000000000 is out of range"),
        (run_with_tokens("c", MAX_TOKENS + 1), "steps[0].tokens_in"),
        (run_with_tokens("c", 1, tokens_in=HUGE), "tokens_in"),
        (
            run_with_tokens("c", MAX_TOKENS // 2 + 1, MAX_TOKENS // 2 + 1),
            "tokens_in (sum of the steps)",
        ),
    ],
)
def test_compare_and_ingest_refuse_counts_that_could_wrap(
    run: dict[str, object], field: str, baseline: Path, tmp_path: Path, archive: Path
) -> None:
    candidate = write_runs(tmp_path / "candidate" / "runs.jsonl", [run])
    result = cli("compare", baseline, candidate, "--max-token-delta", "10")
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(candidate), field)
    before = archive_fingerprint(archive)
    result = cli("ingest", candidate, "--db", archive)
    assert result.exit_code == 1, result.output
    one_line(result.stderr, str(candidate), field)
    assert archive_fingerprint(archive) == before
    # the archive the refused load left alone still builds
    result = cli("build", "--out", tmp_path / "site", "--db", archive)
    assert result.exit_code == 0, result.output


def test_counts_at_the_limit_compare_and_build(baseline: Path, tmp_path: Path) -> None:
    candidate = write_runs(
        tmp_path / "candidate" / "runs.jsonl",
        [run_with_tokens("c", MAX_TOKENS // 2, MAX_TOKENS // 2, tokens_out=MAX_TOKENS)],
    )
    result = cli("compare", baseline, candidate, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    pair = data["pairs"][0] if "pairs" in data else data  # one pair prints as that pair
    assert pair["candidate_totals"]["tokens"] == 2 * MAX_TOKENS
    assert pair["token_delta_percentage"] > 1e9  # a huge increase, never a wrapped negative
    result = cli("compare", baseline, candidate, "--max-token-delta", "10")
    assert result.exit_code == 3, result.output
    db = tmp_path / "a.duckdb"
    assert cli("ingest", baseline, candidate, "--db", db, "-q").exit_code == 0
    result = cli("build", "--out", tmp_path / "site", "--db", db)
    assert result.exit_code == 0, result.output
