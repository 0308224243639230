"""A comparison as a rich terminal table and as Markdown (a PR comment, a CI job summary)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from reportgen.divergence.compare import Comparison
from reportgen.divergence.findings import Finding, FindingsSummary, rate_text, summary
from reportgen.divergence.records import PairRecord
from reportgen.escape import md_code, md_text, term_text
from reportgen.gating import pair_metrics
from reportgen.gating.metrics import LABEL_METRICS
from reportgen.gating.thresholds import gate_by_name

#: Pair rows shown at most: at a terminal, and in Markdown (GitHub caps a PR comment at
#: 65,536 characters and a job summary at 1 MiB). Failed pairs come first; --json has all.
TERMINAL_ROWS = 50
MARKDOWN_ROWS = 200
#: Unpaired runs listed in the Markdown (the same limit); --json lists them all, with why.
UNPAIRED_ROWS = 20
#: The Markdown's size at most, in UTF-8 bytes: GitHub refuses a comment over 65,536
#: characters; the rest is room for the lines a workflow adds around it.
MARKDOWN_BYTES = 60_000
_CUT = "... (cut at GitHub's comment size; --json has everything)"


def columns() -> tuple[str, ...]:
    """The table header: the pair, one column per registered metric, the verdict."""
    return ("pair", *(m.column for m in pair_metrics()), "verdict")


def row(pair: PairRecord) -> tuple[str, ...]:
    """The table cells of one pair."""
    return (
        pair["pair_id"],
        *(m.text(pair) for m in pair_metrics()),
        "pass" if pair["passed"] else "FAIL: " + ", ".join(v["gate"] for v in pair["violations"]),
    )


def _lost(pair: PairRecord) -> bool:
    """The baseline passed and the candidate failed: the pair broke."""
    return bool(pair.get("baseline_success")) and pair.get("candidate_success") is False


def _ordered(comparison: Comparison) -> list[PairRecord]:
    """Failed pairs first, then pairs whose outcome broke (passed, then failed), then by
    divergence, so what got worse leads (the index's rule too)."""
    return sorted(
        comparison.pairs,
        key=lambda p: (
            p["passed"],
            not _lost(p),
            -p["trajectory_divergence_index"],
            p["pair_id"],
        ),
    )


def _shown(comparison: Comparison, limit: int) -> tuple[list[PairRecord], str | None]:
    """The pairs a table shows (at most ``limit``, regressions first) and, when some are left
    out, the line that says so."""
    ordered = _ordered(comparison)
    return ordered[:limit], _more_line(ordered[limit:])


def _more_line(rest: Sequence[PairRecord]) -> str | None:
    """The line saying which pairs a table leaves out, or None when it shows them all."""
    if not rest:
        return None
    failed = sum(1 for p in rest if not p["passed"])
    what = f"{failed} failed a gate" if failed else "all passed"
    return (
        f"... {len(rest)} more pair(s) not shown ({what}; broken outcomes, then by divergence,"
        " highest first); "
        "--json lists every pair."
    )


def thresholds_line(comparison: Comparison) -> str:
    if not comparison.thresholds:
        return "No gates set (pass --max-divergence, --max-loops, ... or a reportgen.toml [cli] section)."

    def side(gate: str) -> str:  # a min gate (--min-outcome-consistency) fails below
        return "<" if gate_by_name(gate).bound == "min" else ">"

    return "Gates: " + "; ".join(
        f"{t.gate} {side(t.gate)} {t.value:g} fails (from {t.source})"
        for t in comparison.thresholds
    )


def paired_by(comparison: Comparison) -> str:
    """Which keys paired the runs, in words: "paired by task, trial"."""
    keys = comparison.paired_by
    return f"paired by {', '.join(keys)}" if keys else "two single runs, paired as given"


#: Each label metric's short name, as the verdict lines name it ("recovery steps (RSR)").
_SHORT_NAMES = {m.name: m.label for m in LABEL_METRICS}


def findings(comparison: Comparison) -> list[str]:
    """What got worse, gated or not: the label-level regressions and the newly broken tasks
    (so that no report calls a regression a plain pass)."""
    stats = comparison.statistics
    if stats is None:
        return []
    found = []
    if stats["regressions"]:
        found.append(
            f"{len(stats['regressions'])} regression(s)"
            f" ({', '.join(_SHORT_NAMES.get(r, r) for r in stats['regressions'])})"
        )
    broken = stats["tasks"]["newly_broken"]
    if broken:
        found.append(f"{broken} task(s) newly broken")
    return found


def heading(comparison: Comparison) -> str:
    """The Markdown heading's verdict: failed, passed, or no gates set, never a plain pass
    beside something that got worse."""
    worse = findings(comparison)
    if not comparison.passed:
        return "❌ failed"
    if not comparison.gates_set:
        return "⚠️ no gates set; found " + "; ".join(worse) if worse else "no gates set"
    return "⚠️ passed its gates; found " + "; ".join(worse) if worse else "✅ passed"


def verdict_line(comparison: Comparison) -> str:
    s = comparison.summary()
    failed = len(s["failed_pairs"])
    head = (
        "FAILED" if not comparison.passed else "PASSED" if comparison.gates_set else "NO GATES SET"
    )
    line = (
        f"{head}: {s['pairs']} pair(s) compared ({paired_by(comparison)}), {failed} failed a"
        f" gate, {s['unpaired']} run(s) unpaired."
    )
    label_level = [
        f"{v['gate']} {v['value']:.3g} > {v['threshold']:g} (from {v['source']})"
        for v in comparison.label_violations
    ]
    if comparison.failing_regressions:
        label_level.append(
            "regression (--fail-on-regression): " + ", ".join(comparison.failing_regressions)
        )
    if label_level:
        line += " Label level: " + "; ".join(label_level) + "."
    worse = findings(comparison)
    if worse and comparison.passed:
        line += " Found: " + "; ".join(worse) + "."
    if comparison.convergence is not None:
        c = comparison.convergence
        line += (
            f" Convergence: {len(c['violations'])} of {c['groups']} group(s) of {c['label']}"
            f" below {c['threshold']:g} (from {c['source']})."
        )
    return line


def convergence_lines(comparison: Comparison) -> list[str]:
    """One line per group that failed the convergence gate."""
    if comparison.convergence is None:
        return []
    return [f"convergence: {v['message']}" for v in comparison.convergence["violations"]]


def print_terminal(console: Console, comparison: Comparison, lead: Sequence[str] = ()) -> None:
    """The comparison for people at a terminal; ``lead``: lines printed first (the
    label-level verdicts)."""
    for line in lead:
        console.print(Text(line), soft_wrap=True)
    if lead:
        console.print()
    table = Table(title="reportgen compare: baseline vs candidate", show_lines=False)
    for column in columns():
        table.add_column(  # pair ids stay whole while the headers can wrap instead
            column,
            justify="left" if column in ("pair", "verdict") else "right",
            overflow="fold",
            no_wrap=column == "pair",
        )
    shown, more = _shown(comparison, TERMINAL_ROWS)
    for pair in shown:
        cells = (term_text(pair["pair_id"]), *row(pair)[1:])
        style = None if pair["passed"] else "red"
        table.add_row(*(Text(c) for c in cells), style=style)
    console.print(table)
    if more:
        console.print(more, markup=False)
    # lines holding agent text are never wrapped, so agent text never starts a line
    for unpaired in comparison.unpaired:
        console.print(
            Text(
                f"unpaired {unpaired.side} run {term_text(unpaired.run_id)} (task "
                f"{term_text(unpaired.task_id)}, batch {term_text(unpaired.batch)}):"
                f" {term_text(unpaired.reason)}"
            ),
            soft_wrap=True,
        )
    for line in convergence_lines(comparison):
        console.print(Text(term_text(line), style="red"), soft_wrap=True)
    console.print(thresholds_line(comparison), markup=False)
    console.print(verdict_line(comparison), markup=False)


def _md_cell(text: str) -> str:
    """reportgen's own text (numbers, gate names, file paths) in a Markdown table cell or
    line: kept on one line, ``|`` escaped, no HTML. Agent text goes through ``md_text``."""
    return (
        text.replace("|", "\\|")
        .replace("\n", " ")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("`", "'")
    )


def markdown(
    comparison: Comparison, lead: Sequence[str] = (), pages: Mapping[str, str] | None = None
) -> str:
    """GitHub-flavoured Markdown for a PR comment or $GITHUB_STEP_SUMMARY; ``lead``: Markdown
    lines that come first under the heading (the label-level verdicts, already escaped);
    ``pages``: pair id -> URL of its pair page on a published site, linked from its row.
    At most :data:`MARKDOWN_BYTES`: pair rows are left out from the end (the line after the
    table counts them), and what still does not fit is cut with a line saying so."""
    head = [f"### reportgen: {heading(comparison)}", ""]
    if comparison.headline:
        head += [md_text(comparison.headline), ""]
    if lead:
        head += [*lead, ""]
    head += [verdict_line(comparison), ""]
    header = columns()
    head.append("| " + " | ".join(header) + " |")
    head.append("|" + "|".join("---" if c in ("pair", "verdict") else "---:" for c in header) + "|")
    ordered = _ordered(comparison)
    rows = []
    for pair in ordered[:MARKDOWN_ROWS]:
        name = md_text(pair["pair_id"])
        if pages and pair["pair_id"] in pages:
            name = f"[{name}]({pages[pair['pair_id']]})"
        cells = [name] + [_md_cell(c) for c in row(pair)[1:]]
        rows.append("| " + " | ".join(cells) + " |")
    tail: list[str] = []
    if comparison.unpaired:
        tail += ["", "Unpaired runs:", ""]
        tail += [
            f"- {u.side} {md_code(u.run_id)} (task {md_code(u.task_id)}): {md_text(u.reason)}"
            for u in comparison.unpaired[:UNPAIRED_ROWS]
        ]
        if len(comparison.unpaired) > UNPAIRED_ROWS:
            rest = len(comparison.unpaired) - UNPAIRED_ROWS
            tail.append(f"- and {rest} more (--json lists every unpaired run)")
    failing = convergence_lines(comparison)
    if failing:
        tail += ["", "Groups that did not converge:", ""] + [f"- {md_text(x)}" for x in failing]
    tail += ["", _md_cell(thresholds_line(comparison)), ""]
    fixed = _size(head) + _size(tail) + len(_more_line(ordered) or "") + 2
    kept = _fitting(rows, MARKDOWN_BYTES - fixed)
    more = _more_line(ordered[kept:])
    body = [*head, *rows[:kept], *(["", _md_cell(more)] if more else [])]
    found = findings_markdown(ordered[:kept], MARKDOWN_BYTES - fixed - _size(rows[:kept]))
    text = "\n".join([*body, *found, *tail])
    return _capped(text, MARKDOWN_BYTES)


#: The stable findings named per pair in the Markdown (as --explain names them).
MARKDOWN_FINDINGS = 12
_FINDINGS_HEAD = (
    "Trajectory findings (flap rate: how often the baseline's own repeats of the task"
    " differ the same way; stable below 5 % with at least 3 baseline runs; docs/statistics.md,"
    ' "Flap rate"):'
)


def _finding_md(item: Finding) -> str:
    return f"{item.kind} {md_code(item.key)} ({rate_text(item)})"


def _pair_findings_md(pair: PairRecord, found: FindingsSummary) -> list[str]:
    """One pair's findings as Markdown list lines: its headline, the stable ones by name and
    what is folded (the words of --explain; agent text in code spans)."""
    head = f"- {md_text(pair['pair_id'])}: {found.headline}"
    return [head, *found.detail_lines(_finding_md, MARKDOWN_FINDINGS, "  - ")]


def _fit(
    pairs: Sequence[tuple[PairRecord, FindingsSummary]], room: int
) -> tuple[list[str], int, int]:
    """The findings lines of as many of ``pairs`` (in order) as fit in ``room`` UTF-8 bytes:
    the lines, how many pairs they show and the room left."""
    lines: list[str] = []
    shown = 0
    for pair, found in pairs:
        entry = _pair_findings_md(pair, found)
        if _size(entry) > room:
            break
        lines += entry
        room -= _size(entry)
        shown += 1
    return lines, shown, room


def findings_markdown(pairs: Sequence[PairRecord], budget: int) -> list[str]:
    """The trajectory findings of ``pairs`` (the pairs the table shows, in its order), within
    ``budget`` UTF-8 bytes: the pairs with a stable finding listed, the other pairs with
    findings folded into a <details> block under a count line; the findings rendered from
    each pair record's ``findings``, as --json and --explain give them. Pairs that do not fit
    are counted in a line; nothing when no pair has findings."""
    judged = [(p, summary(p["findings"])) for p in pairs if p.get("findings")]
    if not judged:
        return []
    stable = [(p, f) for p, f in judged if f.stable]
    rest = [(p, f) for p, f in judged if not f.stable]
    flapping = sum(len(f.flapping) for _, f in rest)
    unjudged = sum(1 for _, f in rest if f.unjudged)
    lines = ["", _FINDINGS_HEAD, ""]
    closing = ["", "</details>"]
    cut = "... (the findings of {} more pair(s) are not shown; --json has every finding)"
    room = budget - _size(lines) - _size(closing) - len(cut) - 20
    left = len(judged)
    if room <= 0:  # the table took the room: one line, if even that fits
        line = cut.format(left)
        return ["", line] if _size(["", line]) <= budget else []
    entries, shown, room = _fit(stable, room)
    lines += entries
    left -= shown
    if rest and left == len(rest):
        what = [f"{flapping} flapping finding(s)"] if flapping else []
        if unjudged:
            what.append(f"{unjudged} pair(s) with too few baseline repeats")
        summary_line = (
            f"<details><summary>{len(rest)} pair(s) with findings but no stable one"
            f" ({', '.join(what)}): folded</summary>"
        )
        block = ["", summary_line, ""]
        if _size(block) < room:
            entries, shown, room = _fit(rest, room - _size(block))
            left -= shown
            lines += [*block, *entries, *closing]
    if left:
        lines += ["", cut.format(left)]
    return lines


def _size(lines: Sequence[str]) -> int:
    """UTF-8 bytes of ``lines`` joined by newlines (one newline counted after each)."""
    return sum(len(line.encode()) + 1 for line in lines)


def _fitting(lines: Sequence[str], budget: int) -> int:
    """How many of ``lines``, from the first, fit in ``budget`` bytes."""
    used = 0
    for n, line in enumerate(lines):
        used += len(line.encode()) + 1
        if used > budget:
            return n
    return len(lines)


def fit_markdown(blocks: Sequence[Sequence[str]], reserved: int) -> int:
    """How many of ``blocks`` (groups of lines kept or left out whole), from the first, fit
    in :data:`MARKDOWN_BYTES` with ``reserved`` bytes kept for what follows them."""
    return _fitting(["\n".join(b) for b in blocks], MARKDOWN_BYTES - reserved)


def capped_markdown(text: str) -> str:
    """``text`` cut to :data:`MARKDOWN_BYTES` as :func:`markdown` cuts a comment."""
    return _capped(text, MARKDOWN_BYTES)


def _capped(text: str, limit: int) -> str:
    """``text`` when it fits in ``limit`` UTF-8 bytes, else its whole lines that fit and a
    line saying it was cut (a long headline or lead can still exceed the limit alone)."""
    if len(text.encode()) <= limit:
        return text
    lines = text.split("\n")
    kept = _fitting(lines, limit - len(_CUT.encode()) - 2)
    return "\n".join([*lines[:kept], "", _CUT])
