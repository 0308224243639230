"""Write a site into a temporary folder beside the target and swap it in at the end.

A manifest of page hashes makes builds incremental: a page whose hash is unchanged is linked
(or copied) from the previous site instead of rendered. A failed build removes its temporary
folder and leaves the previous site as it was."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reportgen.errors import UsageError

MANIFEST = ".reportgen-manifest.json"
MANIFEST_FORMAT = 1


def _read_manifest(out: Path) -> dict[str, Any]:
    """The previous build's page entries; refuse to replace a folder that is not a site."""
    file = out / MANIFEST
    if not out.exists():
        return {}
    if not out.is_dir():
        raise UsageError(f"{out} exists and is not a folder")
    if not file.is_file():
        if any(out.iterdir()):
            raise UsageError(
                f"{out} is not empty and holds no reportgen site; refusing to replace it"
            )
        return {}
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except ValueError:
        return {}
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
        return {}
    pages = data.get("pages", {})
    return pages if isinstance(pages, dict) else {}


class SiteWriter:
    """Collect a site's files in a temp folder; ``commit`` swaps it in, ``abort`` drops it."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.previous = _read_manifest(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
        self.entries: dict[str, dict[str, Any]] = {}
        self.written = 0
        self.skipped = 0

    def _write(self, rel: str, data: bytes) -> None:
        target = self.tmp / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

    def _reuse(self, files: list[str]) -> bool:
        """Link the previous build's files into the new site; False if one is missing."""
        if not all((self.out / f).is_file() for f in files):
            return False
        for rel in files:
            target = self.tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(self.out / rel, target)
            except OSError:
                shutil.copy2(self.out / rel, target)
        return True

    def page(self, path: str, digest: str, render: Callable[[], dict[str, bytes]]) -> None:
        """Add a page: reuse the previous one when its hash is unchanged, else render it."""
        prev = self.previous.get(path)
        if isinstance(prev, dict) and prev.get("hash") == digest and self._reuse(prev["files"]):
            files = list(prev["files"])
            self.skipped += 1
        else:
            rendered = render()
            for rel, data in rendered.items():
                self._write(rel, data)
            files = sorted(rendered)
            self.written += 1
        self.entries[path] = {"hash": digest, "files": files}

    def file(self, rel: str, data: bytes) -> None:
        """Add a file that is not a page (assets, data)."""
        self._write(rel, data)

    def copy(self, rel: str, source: Path) -> None:
        """Add a copy of ``source``."""
        target = self.tmp / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)

    @property
    def removed(self) -> int:
        """Pages of the previous site that this build no longer has."""
        return len(set(self.previous) - set(self.entries))

    def commit(self) -> None:
        """Write the manifest and swap the new site in place of the old one."""
        manifest = {"format": MANIFEST_FORMAT, "pages": self.entries}
        text = json.dumps(manifest, sort_keys=True, indent=1) + "\n"
        self._write(MANIFEST, text.encode("utf-8"))
        self.tmp.chmod(0o755)
        if self.out.exists():
            trash = self.out.parent / f".{self.out.name}.old-{uuid.uuid4().hex[:8]}"
            os.replace(self.out, trash)
            os.replace(self.tmp, self.out)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.replace(self.tmp, self.out)

    def abort(self) -> None:
        """Drop the half-built site."""
        shutil.rmtree(self.tmp, ignore_errors=True)
