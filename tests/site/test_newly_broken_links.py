"""What broke is one click from its why (P18, first part): every newly broken task named on the
comparison page links to the diff of a pair of that task and night whose candidate failed where
the baseline passed; the index's "Worse on the latest night" never lists a pair whose outcome
was fixed."""

from __future__ import annotations

from pathlib import Path

from reportgen.site import BuildReport
from tests.site.html import parse_file


def test_newly_broken_tasks_link_to_their_diff(demo_site: tuple[Path, BuildReport]) -> None:
    site = demo_site[0]
    page = site / "compare" / "baseline..candidate" / "index.html"
    doc = parse_file(page)
    named = doc.select("p", class_="newly-broken")
    assert named, "the demo's latest night has newly broken tasks"
    checked = 0
    for paragraph in named:
        for link in paragraph.select("a"):
            task = link.text.strip()
            target = (page.parent / link.attrs["href"]).resolve()
            assert target.is_file(), target
            diff = target.read_text(encoding="utf-8")
            assert task.rsplit("/", 1)[-1] in diff
            outcome = parse_file(target).one("tr", id="metric-candidate_success").text
            assert "✓→✗" in outcome, outcome  # the baseline passed, the candidate failed
            checked += 1
    assert checked >= 2  # migrate-db and review-pull-request on the latest night


def test_worse_on_the_latest_night_lists_no_fixed_pair(demo_site: tuple[Path, BuildReport]) -> None:
    doc = parse_file(demo_site[0] / "index.html")
    table = doc.one("section", id="attention").select("tbody")[0]
    outcomes = [tr.select("td")[4].text for tr in table.select("tr")]
    assert outcomes and not any(o.strip() == "✗→✓" for o in outcomes)
    broken = [tr for tr in table.select("tr") if "worse" in tr.classes]
    assert broken and table.select("tr")[0] is broken[0]  # newly broken first


def test_the_index_links_each_newly_broken_task(demo_site: tuple[Path, BuildReport]) -> None:
    site = demo_site[0]
    links = parse_file(site / "index.html").one("p", class_="newly-broken").select("a")
    assert [a.text.strip() for a in links] == ["nightly/migrate-db", "nightly/review-pull-request"]
    for link in links:
        target = site / link.attrs["href"]
        assert "✓→✗" in parse_file(target).one("tr", id="metric-candidate_success").text


def test_gate_markdown_links_each_newly_broken_task_to_its_diff(
    demo_db: Path, demo_site: tuple[Path, BuildReport]
) -> None:
    """``gate --markdown --site-url URL`` (the nightly's PR comment or job summary): each
    newly broken task links to the page of its diff on the site published at URL."""
    import re

    from typer.testing import CliRunner

    from reportgen.cli import app

    url = "https://example.org/agents/"
    result = CliRunner().invoke(
        app, ["gate", "--db", str(demo_db), "--markdown", "--site-url", url]
    )
    assert result.exit_code == 0, result.output
    links = re.findall(r"^- newly broken: \[`([^`]+)`\]\((\S+)\)$", result.stdout, re.M)
    assert [task for task, _ in links] == ["nightly/migrate-db", "nightly/review-pull-request"]
    for _task, href in links:
        assert href.startswith(url)
        page = demo_site[0] / href.removeprefix(url)
        assert "✓→✗" in parse_file(page).one("tr", id="metric-candidate_success").text
