"""The one sentence that opens every surface of a comparison (terminal, Markdown, ``--json``,
the site's index, comparison page and feed, ``demo``): what got worse, what got better, what
the data cannot tell yet, and what the gates said. Built from the label-level statistics
(``summary.metrics`` and ``summary.tasks``), so every surface says the same words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reportgen.statistics.report import verdict_parts, verdict_words

#: Tasks named in the sentence at most, per class; the rest are counted.
NAMED_TASKS = 3
#: Outcomes: when they cannot tell, the sentence says so and what more data would take.
PRIMARY = ("success_rate", "reward")
#: The infrastructure's metric: said in a sentence of its own.
ERROR_RATE = "error_rate"


def task_name(key: str) -> str:
    """A task key (``suite/task``) as the sentence names it: the task alone."""
    return key.rsplit("/", 1)[-1] if "/" in key else key


def named_tasks(names: Sequence[str]) -> str:
    """The tasks the sentence names, as it names them: ``migrate-db, review-pull-request``."""
    return ", ".join(task_name(n) for n in names[:NAMED_TASKS])


def _tasks(count: int, names: Sequence[str], what: str) -> str:
    shown = [task_name(n) for n in names[:NAMED_TASKS]]
    more = f", +{count - len(shown)} more" if count > len(shown) else ""
    listed = f" ({', '.join(shown)}{more})" if shown else ""
    return f"{count} task{'s' if count != 1 else ''} {what}{listed}"


def _change(entry: Mapping[str, Any]) -> str:
    parts = verdict_parts(entry)
    return f"{parts['label']} {parts['delta']}"


def _undecided(entry: Mapping[str, Any]) -> str:
    """``success -21.7 pp (inconclusive, needs about 564 tasks to see a change of 5.0 pp)``:
    the words of the metric's verdict line."""
    return f"{_change(entry)} ({verdict_words(entry)})"


def _errors(entry: Mapping[str, Any] | None) -> str:
    """``Broken infrastructure: errored runs 0.0 % → 30.0 % (significant; 12 environment).``
    when the error rate is significantly up, else ``3 runs errored (2 rate_limit, 1 sandbox),
    not scored.`` when any run errored, else ""."""
    if entry is None:
        return ""
    count = (entry.get("baseline_errored") or 0) + (entry.get("candidate_errored") or 0)
    if not count:
        return ""
    kinds: dict[str, int] = {}
    for side in entry.get("error_kinds", {}).values():
        for kind, n in side.items():
            kinds[kind] = kinds.get(kind, 0) + n
    said = ", ".join(
        f"{n} {kind}" for kind, n in sorted(kinds.items(), key=lambda x: (-x[1], x[0]))
    )
    runs = f"{count} run{'s' if count != 1 else ''} errored ({said}), not scored"
    if entry["verdict"] != "regression":
        return runs[0].upper() + runs[1:] + "."
    parts = verdict_parts(entry)
    return (
        f"Broken infrastructure, not a worse agent: {parts['label']} {parts['baseline']} → "
        f"{parts['candidate']} (significant); {runs}."
    )


def headline(
    metrics: Sequence[Mapping[str, Any]],
    tasks: Mapping[str, Any],
    *,
    gates: str | None = None,
) -> str:
    """One sentence: ``Worse: 2 tasks newly broken (migrate-db, review-pull-request); cost
    +38.5 %, tokens +21.9 % (significant); success -21.7 pp (inconclusive, needs about 60
    tasks to see a change of 5.0 pp). No gates set.`` ``gates``: the gates' outcome as a
    sentence of its own (None: none is said, as on a site page). Runs the infrastructure
    ended are said apart (they are in no other metric): ``3 runs errored (3 rate_limit), not
    scored.``, or, with the error rate significantly up, ``Broken infrastructure, not a worse
    agent: ...``; the error rate is never "worse" nor "better" in the lead."""
    by_name = {m["metric"]: m for m in metrics}
    infrastructure = _errors(by_name.get(ERROR_RATE))
    metrics = [m for m in metrics if m["metric"] != ERROR_RATE]
    worse, better, open_ = [], [], []
    if tasks.get("newly_broken"):
        worse.append(
            _tasks(tasks["newly_broken"], tasks.get("newly_broken_tasks", []), "newly broken")
        )
    if tasks.get("fixed"):
        better.append(_tasks(tasks["fixed"], tasks.get("fixed_tasks", []), "fixed"))
    regressions = [_change(m) for m in metrics if m["verdict"] == "regression"]
    improvements = [_change(m) for m in metrics if m["verdict"] == "improvement"]
    if regressions:
        worse.append(", ".join(regressions) + " (significant)")
    if improvements:
        better.append(", ".join(improvements) + " (significant)")
    for entry in metrics:
        if (
            entry["metric"] in PRIMARY
            and entry["verdict"] == "inconclusive"
            and entry["delta"] is not None
        ):
            open_.append(_undecided(entry))
    if worse and better:
        lead = f"Worse: {'; '.join(worse)}. Better: {'; '.join(better)}"
    elif worse:
        lead = f"Worse: {'; '.join(worse)}"
    elif better:
        lead = f"Better: {'; '.join(better)}"
    else:
        lead = "No significant change"
    sentence = lead + (f"; {'; '.join(open_)}" if open_ else "") + "."
    if infrastructure:
        sentence = f"{sentence} {infrastructure}"
    return f"{sentence} {gates}" if gates else sentence


def gates_sentence(gates_set: bool, passed: bool, failure: str = "") -> str:
    """What the gates said, as the headline's last sentence."""
    if not gates_set:
        return "No gates set."
    return "Gates passed." if passed else f"Gates failed: {failure}."
