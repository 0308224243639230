"""The diff views' alignment (divergence/view.py): of the same length as AgentDiff's, matching
as early as possible; and the first divergence on a real τ² pair (task 24, grok-3, standard vs
tighter policy), where AgentDiff's traceback pairs the opening greeting with step 16."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from reportgen.cli import app
from reportgen.divergence.reference import Run, Step, compare_pair, first_divergence
from reportgen.divergence.view import earliest_rows
from tests.formats.helpers import DATA, needs_data


def _rows(b: list[str], c: list[str]) -> list[tuple[str, int | None, int | None]]:
    pair = compare_pair(Run(tuple(Step("t", a) for a in b)), Run(tuple(Step("t", a) for a in c)))
    view = earliest_rows(pair["step_diffs"], b, c, [0] * len(b), [0] * len(c))
    return [(r["status"], r["baseline_index"], r["candidate_index"]) for r in view]


def test_earliest_rows_by_hand() -> None:
    """AgentDiff pairs the baseline's `a` with the candidate's last `a`; the view, the first."""
    assert _rows(["a", "b"], ["a", "x", "a", "b"]) == [
        ("matched", 0, 0),
        ("added", None, 1),
        ("added", None, 2),
        ("matched", 1, 3),
    ]
    assert _rows([], ["a"]) == [("added", None, 0)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=14), st.lists(st.sampled_from("abc"), max_size=14))
def test_earliest_rows_keep_the_lcs_and_line_up_the_common_prefix(
    b: list[str], c: list[str]
) -> None:
    """Same number of aligned steps (so the same TDI), every step once, in order, and the
    common prefix matched pairwise."""
    rows = _rows(b, c)
    theirs = compare_pair(Run(tuple(Step("t", a) for a in b)), Run(tuple(Step("t", a) for a in c)))
    matched = [(i, j) for _, i, j in rows if i is not None and j is not None]
    assert len(matched) == sum(
        1
        for d in theirs["step_diffs"]
        if d["baseline_index"] is not None and d["candidate_index"] is not None
    )
    assert all(b[i] == c[j] for i, j in matched)
    assert [i for _, i, _ in rows if i is not None] == list(range(len(b)))
    assert [j for _, _, j in rows if j is not None] == list(range(len(c)))
    k = first_divergence(b, c)
    prefix = len(b) if k is None else k
    assert matched[:prefix] == [(i, i) for i in range(prefix)]


TAU2 = DATA / "tau2-bench"
GROK3 = (
    "2025-10-13T11:40:16.379079_airline_llm_agent_grok-3_user_simulator_grok-3.json",
    "2025-10-13T11:40:32.212900_airline_tighter_policy_llm_agent_grok-3_user_simulator_grok-3.json",
)


@needs_data
def test_tau2_task_24_first_divergence(tmp_path: Path) -> None:
    """Both runs open with the same greeting and a reply; the baseline then ends while the
    candidate goes on (cancelling, searching flights): the first divergence is candidate step
    #2, not "step #0 reply (added)" as the LCS tie-breaking made it look."""
    base, cand = (TAU2 / name for name in GROK3)
    pair_id = "tau2-bench/airline/24/2025-10-13"  # two paths pair by task: the baseline's suite
    result = CliRunner().invoke(app, ["compare", str(base), str(cand), "--json"])
    assert result.exit_code == 0, result.output
    pair = next(p for p in json.loads(result.stdout)["pairs"] if p["pair_id"] == pair_id)
    rows = pair["step_diffs"]
    # AgentDiff's traceback: the greeting b#0 pairs with c#16
    assert (rows[0]["status"], rows[0]["candidate_index"]) == ("added", 0)
    assert pair["first_divergence"] == {"position": 2, "baseline_index": None, "candidate_index": 2}
    opening = next(r for r in rows if r["baseline_index"] == 0)
    assert opening["baseline_step"]["output"] == "Hi! How can I help you today?"
    text = CliRunner().invoke(app, ["compare", str(base), str(cand), "--explain", "--tree"]).stdout
    block = text[text.index(f"== {pair_id}  (") :]
    block = block[: block.index("\n\n")]
    assert (
        "First divergence at step 2 of the path (the first 2 step(s) take the same path):"
        " the baseline ends; the candidate goes on with step #2 reply." in block
    )
    assert "Likely culprit: candidate step #2 reply (where the paths part)." in block
    tree = text[text.index(f"== {pair_id}: ") :]
    lines = [" ".join(line.split()) for line in tree.splitlines()[1:4]]
    assert lines == ["b#0 c#0 reply [ok]", "~ b#1 c#1 reply [ok]", "+ c#2 reply [ok]"]
