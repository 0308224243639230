"""The delayed progress bar: drawn on a terminal once work outlasts its delay, else silent."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from reportgen.reports.progress import DelayedProgress


@pytest.fixture(autouse=True)
def _capable_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """rich draws no live display on a dumb terminal (TERM=dumb, as CI sets it)."""
    monkeypatch.setenv("TERM", "xterm-256color")


def _terminal() -> tuple[Console, io.StringIO]:
    sink = io.StringIO()
    return Console(file=sink, force_terminal=True, width=80), sink


def test_a_bar_is_drawn_once_work_outlasts_the_delay() -> None:
    console, sink = _terminal()
    with DelayedProgress(console, delay=0) as progress:
        progress.hook("checking files", 3, 10)
        progress.hook("writing", 1, 1)
    assert "checking files" in sink.getvalue()
    assert "writing" in sink.getvalue()


def test_silent_within_the_delay_without_a_console_or_a_terminal() -> None:
    console, sink = _terminal()
    with DelayedProgress(console, delay=60) as progress:
        progress.hook("checking files", 3, 10)
    assert sink.getvalue() == ""
    piped = io.StringIO()
    for quiet in (DelayedProgress(None, delay=0), DelayedProgress(Console(file=piped), delay=0)):
        with quiet as progress:
            progress.hook("checking files", 3, 10)
    assert piped.getvalue() == ""
