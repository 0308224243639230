"""Every real trace file in ../shared/data ingests, each with the adapter its folder implies
(ATIF trajectories too, though the native trace detector also matches them: they have
``steps``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.formats.source import is_input_file
from reportgen.ingest.loader import ingest

from .helpers import DATA, needs_data

EXPECTED = {
    "agentdiff": "agentdiff",
    "atif": "atif",
    "atif-v1.7": "atif",
    "claude-code": "claude-code",
    "codex-cli": "codex-cli",
    "copilot-cli": "copilot-cli",
    "gemini-cli": "gemini-cli",
    "harbor-jobs": "harbor",
    "inspect": "inspect",
    "langfuse": "langfuse",
    "langsmith": "langsmith",
    "mini-swe-agent": "mini-swe-agent",
    "openai-agents": "openai-agents",
    "openhands-sdk": "openhands-sdk",
    "otel-genai": "otel",
    "otel-genai-2026": "otel",
    "swe-agent": "swe-agent",
    "swe-bench-experiments": "swe-bench-submission",
    "swe-bench-harness": "swe-bench-harness",
    "tau-bench": "tau-bench",
    "tau2-bench": "tau2-bench",
}


def _files() -> list[Path]:
    """The shared files of the formats reportgen reads (other folders await their adapter)."""
    if not DATA.is_dir():
        return []
    return sorted(
        p
        for p in DATA.rglob("*")
        if p.is_file() and is_input_file(p) and p.relative_to(DATA).parts[0] in EXPECTED
    )


@needs_data
@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(DATA)))
def test_each_shared_file(path: Path, tmp_path: Path) -> None:
    folder = path.relative_to(DATA).parts[0]
    report = ingest([path], tmp_path / "a.duckdb")
    assert [row["format"] for row in report.loaded] == [EXPECTED[folder]]


@needs_data
@pytest.mark.parametrize("folder", sorted(EXPECTED.keys() - {"agentdiff"}))
def test_each_shared_folder_at_once(folder: str, tmp_path: Path) -> None:
    """A whole folder in one load: ids do not clash; identical files are skipped."""
    report = ingest([DATA / folder], tmp_path / "a.duckdb")
    assert report.counts["runs"] > 0
    assert {row["format"] for row in report.loaded} == {EXPECTED[folder]}


@needs_data
def test_all_supported_folders_together(tmp_path: Path) -> None:
    folders = [DATA / f for f in sorted(EXPECTED) if (DATA / f).is_dir()]
    report = ingest(folders, tmp_path / "a.duckdb")
    assert {row["format"] for row in report.loaded} == set(EXPECTED.values()) - {"agentdiff"}
