"""A rich progress bar that shows itself only when work takes longer than a second."""

from __future__ import annotations

import time
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID


class DelayedProgress:
    """Use as a context manager; pass ``hook`` as a ProgressHook. Silent without a
    ``console`` (``--quiet``, ``--json``), on a console that is not a terminal, and for work
    that finishes within ``delay`` seconds; rich's progress bar is imported only to show."""

    def __init__(self, console: Console | None, *, delay: float = 1.0) -> None:
        self._console = console if console is not None and console.is_terminal else None
        self._delay = delay
        self._started_at = time.monotonic()
        self._progress: Progress | None = None
        self._tasks: dict[str, TaskID] = {}

    def hook(self, phase: str, done: int, total: int) -> None:
        if self._console is None:
            return
        if self._progress is None:
            if time.monotonic() - self._started_at < self._delay:
                return
            self._progress = _bar(self._console)
            self._progress.start()
        if phase not in self._tasks:
            self._tasks[phase] = self._progress.add_task(phase, total=max(total, 1))
        self._progress.update(self._tasks[phase], completed=done, total=max(total, 1))

    def __enter__(self) -> DelayedProgress:
        self._started_at = time.monotonic()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._progress is not None:
            self._progress.stop()


def _bar(console: Console) -> Progress:
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
