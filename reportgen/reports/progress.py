"""A rich progress bar that shows itself only when work takes longer than a second."""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn


class DelayedProgress:
    """Use as a context manager; pass ``hook`` as a ProgressHook. Silent when ``enabled`` is
    false (``--quiet``, ``--json``) and for loads that finish within ``delay`` seconds."""

    def __init__(self, console: Console, *, enabled: bool = True, delay: float = 1.0) -> None:
        self._enabled = enabled and console.is_terminal
        self._delay = delay
        self._started_at = time.monotonic()
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._tasks: dict[str, TaskID] = {}
        self._live = False

    def hook(self, phase: str, done: int, total: int) -> None:
        if not self._enabled:
            return
        if not self._live and time.monotonic() - self._started_at >= self._delay:
            self._progress.start()
            self._live = True
        if phase not in self._tasks:
            self._tasks[phase] = self._progress.add_task(phase, total=max(total, 1))
        self._progress.update(self._tasks[phase], completed=done, total=max(total, 1))

    def __enter__(self) -> DelayedProgress:
        self._started_at = time.monotonic()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._live:
            self._progress.stop()
