"""Where Harbor's job and trial folders are: shared by the ``harbor`` adapter (which reads
them) and the ``atif`` adapter (which leaves a trial's trajectory to it)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

_HARBOR_CONFIG = re.compile(rb'"(?:trials_dir|jobs_dir)"\s*:')


def harbor_folder(folder: Path) -> Path | None:
    """The Harbor job or trial folder ``folder`` is in (itself or up to three levels up): one
    whose ``config.json`` names ``trials_dir`` (a trial) or ``jobs_dir`` (a job)."""
    for candidate in [folder, *list(folder.parents)[:3]]:
        if _is_harbor(candidate):
            return candidate
    return None


@lru_cache(maxsize=256)
def _is_harbor(folder: Path) -> bool:
    try:
        with (folder / "config.json").open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return bool(_HARBOR_CONFIG.search(head))


def near_agent_folder(path: Path) -> bool:
    """Whether ``agent`` is one of the last 4 parts of ``path``: if not, ``path`` is under no
    Harbor ``agent/`` folder, whatever ``harbor_folder`` finds (a folder at most 3 levels
    above its parent), so no folder need be looked at."""
    return "agent" in path.parts[-4:]


def in_trial_agent_folder(path: Path) -> bool:
    """True for a file under a Harbor trial's ``agent/`` folder (its trajectory, its logs)."""
    if not near_agent_folder(path):
        return False
    folder = harbor_folder(path.parent)
    return folder is not None and "agent" in path.relative_to(folder).parts
