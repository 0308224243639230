"""A whole-archive ``gate`` works through the pairs a chunk at a time (a chunk: about
CHUNK_STEPS steps) and keeps of each pair only what its table reads, so its memory does not
grow with the archive's length: its every output is the same as in one chunk."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reportgen.archive import connect
from reportgen.cli import app
from reportgen.demo import run_demo
from reportgen.divergence import metrics
from reportgen.divergence.metrics import chunk_bounds
from reportgen.divergence.pairing import pair_labels
from reportgen.evaluation import Judging, evaluate_labels
from reportgen.gating import Threshold

runner = CliRunner()


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db, _, _ = run_demo(tmp_path_factory.mktemp("demo"))
    return db


def _gate(db: Path, *extra: str) -> tuple[int, str]:
    result = runner.invoke(app, ["gate", "--db", str(db), "--batch", "all", *extra])
    return result.exit_code, result.stdout


@pytest.mark.parametrize(
    "extra",
    [(), ("--markdown",), ("--json",), ("--max-loops", "0"), ("--json", "--max-loops", "0")],
)
def test_gate_in_small_chunks_says_the_same(
    demo_db: Path, extra: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo's six nights in one chunk, then in chunks of a few pairs (the last short):
    the same table, Markdown, JSON and exit code, failing pairs included."""
    whole = _gate(demo_db, *extra)
    monkeypatch.setattr(metrics, "CHUNK_STEPS", 120)
    monkeypatch.setattr(metrics, "CHUNK_PAIRS", 7)
    with connect(demo_db, read_only=True) as con:
        pairs = pair_labels(con, "baseline", "candidate").pairs
        assert len(chunk_bounds(con, pairs)) > 20
    assert _gate(demo_db, *extra) == whole
    assert whole[0] == (3 if "--max-loops" in extra else 0)


def test_chunk_bounds_hold_steps_and_pairs(demo_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks are consecutive, at most CHUNK_PAIRS pairs, and start a new chunk once the
    steps before a pair pass the next multiple of CHUNK_STEPS."""
    monkeypatch.setattr(metrics, "CHUNK_STEPS", 200)
    monkeypatch.setattr(metrics, "CHUNK_PAIRS", 9)
    with connect(demo_db, read_only=True) as con:
        pairs = pair_labels(con, "baseline", "candidate").pairs
        counts = dict(con.execute("SELECT run_id, n_steps FROM runs").fetchall())
        bounds = chunk_bounds(con, pairs)
    assert bounds[0] == 0 and bounds[-1] == len(pairs)
    assert all(0 < z - a <= 9 for a, z in pairwise(bounds))
    steps = [counts[p.baseline_run_id] + counts[p.candidate_run_id] for p in pairs]
    for a, z in pairwise(bounds):
        if z - a < 9 and z < len(pairs):  # cut by steps: the next pair starts past a bound
            assert sum(steps[:z]) // 200 > sum(steps[:a]) // 200
    with connect(demo_db, read_only=True) as con:
        assert chunk_bounds(con, []) == [0]


def test_records_without_details_keep_what_verdicts_read(demo_db: Path) -> None:
    """``details`` off: each record loses its step_diffs and its loops that are not stagnant,
    nothing else; the verdicts, statistics and headline are the same."""
    judging = Judging(thresholds=(Threshold("loops", 0.0, "test"),))
    with connect(demo_db, read_only=True) as con:
        full = evaluate_labels(con, "baseline", "candidate", judging, with_steps=False)
        lean = evaluate_labels(
            con, "baseline", "candidate", judging, with_steps=False, details=False
        )
    assert len(lean.pairs) == len(full.pairs) == 144
    assert any(p["loops_detected"] for p in full.pairs)
    for a, b in zip(full.pairs, lean.pairs, strict=True):
        assert b["step_diffs"] == []
        assert b["loops_detected"] == [loop for loop in a["loops_detected"] if loop["stagnant"]]
        assert {**a, "step_diffs": [], "loops_detected": []} == {
            **b,
            "loops_detected": [],
        }
    assert not full.passed and lean.passed == full.passed
    assert json.dumps(lean.statistics, sort_keys=True) == json.dumps(
        full.statistics, sort_keys=True
    )
    assert lean.headline == full.headline and lean.summary() == full.summary()
