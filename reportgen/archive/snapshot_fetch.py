"""Fetching a snapshot's files for ``restore``, bounded: every file is copied to a local
path with at most the bytes the manifest declares (the manifest itself at most
:data:`MANIFEST_BYTES`), the whole restore within one deadline (``REPORTGEN_RESTORE_DEADLINE_S``,
default :data:`DEADLINE_S`), and only regular files are read from a folder, in its own table
folders (``steps/``, never a symlink to elsewhere). The names fetched are the ones the
manifest check allows (reportgen/archive/snapshot_layout.py). Credentials in a URL
(``https://user:token@host/``) are sent as HTTP basic authentication and never shown: errors
name the URL without them."""

from __future__ import annotations

import base64
import os
import stat
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from reportgen.errors import InputError, UsageError

MANIFEST = "manifest.json"
MANIFEST_BYTES = 32 << 20
"""The manifest lists every night file (about 300 bytes each, four a night): 32 MiB holds
a hundred thousand."""
DEADLINE_S = 600.0
_READ_TIMEOUT_S = 60.0
_CHUNK = 1 << 16


def deadline_from_env() -> float:
    """The restore's deadline (a ``time.monotonic`` value) from ``REPORTGEN_RESTORE_DEADLINE_S``."""
    raw = os.environ.get("REPORTGEN_RESTORE_DEADLINE_S", "").strip()
    try:
        seconds = float(raw) if raw else DEADLINE_S
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < 1e9:
        raise UsageError(
            f"REPORTGEN_RESTORE_DEADLINE_S {raw[:40]!r} is not a number of seconds above 0"
        )
    return time.monotonic() + seconds


def is_url(source: str) -> bool:
    return urllib.parse.urlsplit(source).scheme in ("http", "https")


def public_url(url: str) -> str:
    """``url`` without the user name and password it may carry."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


@dataclass(frozen=True)
class Fetcher:
    """Where the snapshot is (as errors show it) and how one of its files is copied."""

    where: str
    copy: Callable[[str, Path, int], None]  # name, local target, byte limit


def fetcher(source: str, deadline: float) -> Fetcher:
    """The fetcher for a site (folder or http(s) URL) or its ``data/`` folder."""
    if is_url(source):
        return _url_fetcher(source, deadline)
    root = Path(source).expanduser()
    data = root if (root / MANIFEST).is_file() else root / "data"
    if not (data / MANIFEST).is_file():
        raise InputError(
            source, f"no {MANIFEST} here or under data/: not a site built by reportgen ≥ 0.1"
        )

    def copy_file(name: str, target: Path, limit: int) -> None:
        shown = str(data / name)
        folder, sep, _file = name.rpartition("/")
        if sep and (not (data / folder).is_dir() or (data / folder).is_symlink()):
            raise InputError(str(data / folder), "not a folder of the snapshot (or a symlink)")
        try:
            fd = os.open(data / name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError as exc:
            raise InputError(shown, f"cannot read: {exc.strerror}") from None
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise InputError(shown, "not a regular file (a device, FIFO or socket)")
            _copy(handle.read, target, limit, deadline, shown)

    return Fetcher(str(data), copy_file)


def _url_fetcher(source: str, deadline: float) -> Fetcher:
    parts = urllib.parse.urlsplit(source)
    headers = {}
    if parts.username is not None or parts.password is not None:
        user = urllib.parse.unquote(parts.username or "")
        secret = urllib.parse.unquote(parts.password or "")
        token = base64.b64encode(f"{user}:{secret}".encode()).decode()
        headers["Authorization"] = f"Basic {token}"
    shown_source = public_url(source)
    base = shown_source if shown_source.endswith("/") else shown_source + "/"
    if not base.endswith("/data/"):
        base = urllib.parse.urljoin(base, "data/")

    def copy_url(name: str, target: Path, limit: int) -> None:
        url = urllib.parse.urljoin(base, name)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise InputError(url, "restore took longer than its deadline")
        request = urllib.request.Request(url, headers=headers)
        try:
            with urllib.request.urlopen(
                request, timeout=min(_READ_TIMEOUT_S, remaining)
            ) as response:
                _copy(response.read1, target, limit, deadline, url)
        except urllib.error.HTTPError as exc:
            raise InputError(url, f"cannot download: HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, OSError, TimeoutError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise InputError(url, f"cannot download: {reason}") from None

    return Fetcher(base, copy_url)


def _copy(
    read: Callable[[int], bytes], target: Path, limit: int, deadline: float, shown: str
) -> None:
    """Copy from ``read`` into ``target``: at most ``limit`` bytes, before ``deadline``."""
    written = 0
    out: BinaryIO
    with target.open("wb") as out:
        while block := read(_CHUNK):
            written += len(block)
            if written > limit:
                raise InputError(shown, f"more than the {limit:,} bytes it should have")
            out.write(block)
            if time.monotonic() > deadline:
                raise InputError(shown, "restore took longer than its deadline")
