"""Write a site into a temporary folder beside the target and swap it in at the end.

A manifest of page hashes makes builds incremental: a page whose hash is unchanged is linked
(or copied) from the previous site instead of rendered. The manifest also lists every file
the build wrote, with its SHA-256, so a site can be checked whole and files the user put in
``--out`` (a ``CNAME``, a folder of notes) are carried into the next site.

Safety, in order:

- a lock file beside the target (``.NAME.lock``, ``flock``, deleted when the build ends) is
  held for the whole build, so a second build of the same ``--out`` waits for the first (and
  never links from a site other than the one whose manifest it read);
- under the lock, temporary folders left by killed builds (``.NAME.build-*``,
  ``.NAME.old-*``) are removed, and a site a killed build had moved aside is put back;
- the new site replaces the old one in one atomic step (Linux ``renameat2`` with
  ``RENAME_EXCHANGE``), so ``--out`` holds a whole site at every instant; where that is not
  supported, two renames, with the recovery above if a build dies between them;
- a failed build removes its temporary folder and leaves the previous site as it was; an
  ``OSError`` (a full disk) becomes one line naming the folder, exit 1."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

import orjson

from reportgen.errors import ReportgenError, UsageError

MANIFEST = ".reportgen-manifest.json"
MANIFEST_FORMAT = 1
#: What a build writes besides its pages: a manifest without a ``files`` list (older
#: reportgen) is read as having written these too.
_BUILD_OWNED = (".nojekyll", MANIFEST, "assets/", "data/")
#: How long a build waits for another build of the same ``--out`` (seconds).
LOCK_WAIT = 600.0


class SiteWriteError(ReportgenError):
    """The site could not be written (a full disk, no permission): exit 1, one line."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _load(out: Path) -> dict[str, Any]:
    """The previous build's manifest; refuse to replace a folder that is not a site."""
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
    return data


def _read_manifest(out: Path) -> dict[str, Any]:
    """The previous build's page entries (see ``_load``)."""
    pages = _load(out).get("pages", {})
    return pages if isinstance(pages, dict) else {}


def _tree(root: Path) -> Iterator[tuple[str, str]]:
    """Every file and symlink under ``root`` (site-relative path, path), symlinks not followed.
    Plain strings and ``scandir``: a year's site holds tens of thousands of files."""
    stack = [("", os.fspath(root))]
    while stack:
        rel_dir, folder = stack.pop()
        leaves, subdirs = [], []
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    subdirs.append(entry.name)
                else:  # a file, or a symlink (to a file or a folder)
                    leaves.append(entry.name)
        for name in sorted(leaves):
            yield rel_dir + name, os.path.join(folder, name)
        for name in sorted(subdirs, reverse=True):
            stack.append((f"{rel_dir}{name}/", os.path.join(folder, name)))


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False where the
    system or file system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _lock(out: Path, wait: float) -> TextIO:
    """Hold ``.NAME.lock`` beside ``out`` (waiting up to ``wait`` seconds for another build).

    The holder deletes the file before it lets go, so a waiter that then gets the lock checks
    that it locked the file the path still names, and tries again if not."""
    path = out.parent / f".{out.name}.lock"
    deadline = time.monotonic() + wait
    while True:
        handle = path.open("a", encoding="utf-8")
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    handle.close()
                    raise UsageError(
                        f"another reportgen build of {out} is running (it holds {path}); "
                        "try again when it is done"
                    ) from None
                time.sleep(0.05)
        try:
            held, named = os.fstat(handle.fileno()), os.stat(path)
            if (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino):
                return handle
        except FileNotFoundError:
            pass
        handle.close()


def _release(handle: TextIO) -> None:
    """Delete the lock file, then let go of the lock (closing the file releases it)."""
    try:
        os.unlink(handle.name)
    except FileNotFoundError:
        pass
    finally:
        handle.close()


def _remove(path: Path) -> None:
    """Remove a temporary folder (or a symlink or file left in its place)."""
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)


def recover(out: Path) -> None:
    """Under the lock: put back a site a killed build moved aside, and remove the temporary
    folders killed builds left beside ``out`` (no live build holds them: we hold the lock)."""
    parent = out.parent
    old = sorted(parent.glob(f".{out.name}.old-*"), key=lambda p: p.stat().st_mtime)
    if not os.path.lexists(out) and old:
        os.replace(old.pop(), out)
    for stale in [*old, *parent.glob(f".{out.name}.build-*")]:
        _remove(stale)


class SiteWriter:
    """Collect a site's files in a temp folder; ``commit`` swaps it in, ``abort`` drops it."""

    def __init__(self, out: Path, *, lock_wait: float = LOCK_WAIT) -> None:
        self.out = out
        self._lock: TextIO | None = None
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            self._lock = _lock(out, lock_wait)
            recover(out)
            manifest = _load(out)
            self.tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
        except OSError as error:
            self._unlock()
            raise write_error(out, error) from None
        except BaseException:
            self._unlock()
            raise
        pages = manifest.get("pages", {})
        self.previous: dict[str, Any] = pages if isinstance(pages, dict) else {}
        files = manifest.get("files")
        self.previous_files: dict[str, str] | None = files if isinstance(files, dict) else None
        self.entries: dict[str, dict[str, Any]] = {}
        self.files: dict[str, str | None] = {}
        self.written = 0
        self.skipped = 0
        self.kept = 0
        self._folders: set[str] = set()

    def _unlock(self) -> None:
        if self._lock is not None:
            _release(self._lock)
            self._lock = None

    def _write(self, rel: str, data: bytes) -> None:
        target = os.path.join(self.tmp, rel)
        self._folder(os.path.dirname(target))
        with open(target, "wb") as file:
            file.write(data)
        self.files[rel] = _sha256(data)

    def _reuse(self, files: list[str]) -> bool:
        """Link the previous build's files into the new site; False if one is missing."""
        if any(not isinstance(f, str) or f.startswith("/") or ".." in f.split("/") for f in files):
            return False  # a manifest naming files outside the site: render instead
        out, tmp = os.fspath(self.out), os.fspath(self.tmp)
        if not all(os.path.isfile(os.path.join(out, f)) for f in files):
            return False
        known = self.previous_files or {}
        for rel in files:
            source, target = os.path.join(out, rel), os.path.join(tmp, rel)
            self._folder(os.path.dirname(target))
            try:
                os.link(source, target)
            except OSError:
                shutil.copy2(source, target)
            self.files[rel] = known.get(rel)
        return True

    def _folder(self, folder: str) -> None:
        """Make ``folder`` (and its parents) in the new site, once per build."""
        if folder not in self._folders:
            os.makedirs(folder, exist_ok=True)
            self._folders.add(folder)

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
        self.files[rel] = None

    @property
    def removed(self) -> int:
        """Pages of the previous site that this build no longer has."""
        return len(set(self.previous) - set(self.entries))

    def _owned_before(self, rel: str, page_files: set[str]) -> bool:
        """True when the previous build wrote ``rel`` (per its manifest)."""
        if self.previous_files is not None:
            return rel in self.previous_files or rel == MANIFEST
        return rel.startswith(_BUILD_OWNED) or rel in _BUILD_OWNED or rel in page_files

    def _keep_user_files(self) -> None:
        """Carry files the previous build did not write (a CNAME, the user's folders) into
        the new site, unless the new site has a file or folder at that path."""
        if not self.out.is_dir():
            return
        page_files = {
            f for entry in self.previous.values() if isinstance(entry, dict)
            for f in entry.get("files", ())
        }  # fmt: skip
        for rel, source in _tree(self.out):
            if self._owned_before(rel, page_files):
                continue
            target = self.tmp / rel
            clash = any(
                (self.tmp / p).is_file() for p in [*Path(rel).parents][:-1] if str(p) != "."
            )
            if os.path.lexists(target) or clash:
                continue  # a page of the new site wins
            target.parent.mkdir(parents=True, exist_ok=True)
            if os.path.islink(source):
                os.symlink(os.readlink(source), target)
            else:
                try:
                    os.link(source, target)
                except OSError:
                    shutil.copy2(source, target)
            self.kept += 1

    def commit(self) -> None:
        """Write the manifest and swap the new site in place of the old one."""
        try:
            self._commit()
        except OSError as error:
            raise write_error(self.out, error) from None

    def _commit(self) -> None:
        for rel, path in _tree(self.tmp):
            if rel not in self.files or self.files[rel] is None:
                self.files[rel] = _file_sha256(path)
        self.files.pop(MANIFEST, None)
        self._keep_user_files()
        manifest = {"format": MANIFEST_FORMAT, "pages": self.entries, "files": self.files}
        text = orjson.dumps(manifest, option=orjson.OPT_SORT_KEYS)
        (self.tmp / MANIFEST).write_bytes(text + b"\n")
        self.tmp.chmod(0o755)
        if not os.path.lexists(self.out):
            os.replace(self.tmp, self.out)
        elif _exchange(self.tmp, self.out):
            _remove(self.tmp)  # it now holds the old site
        else:
            trash = self.out.parent / f".{self.out.name}.old-{uuid.uuid4().hex[:8]}"
            os.replace(self.out, trash)
            os.replace(self.tmp, self.out)
            _remove(trash)
        self._unlock()

    def abort(self) -> None:
        """Drop the half-built site."""
        shutil.rmtree(self.tmp, ignore_errors=True)
        self._unlock()


def write_error(out: Path, error: OSError) -> SiteWriteError:
    """One line for an OSError while writing the site (the previous site is untouched)."""
    where = error.filename or out.parent
    reason = error.strerror or str(error)
    return SiteWriteError(
        f"cannot write the site {out}: {reason} ({where}); the previous site is unchanged"
    )
