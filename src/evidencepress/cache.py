"""Content-addressed caches under ``.cache/``: what a build computed once, it reads back.

Keys are sha256 digests of everything a result depends on — the bytes of the
input, the schemas or templates, the configuration, and a fingerprint of this
package's own code — never file times, so a cache entry is right or absent.
Entries are written atomically (temporary file + rename). Each folder has a
size bound; :func:`prune` removes the least recently used entries past it,
never those the build that prunes wrote or used.
A cache that cannot be read or written only costs time: it never fails a build.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import __version__

PAGES = "pages"
RENDERED = "rendered"
CHARTS = "charts"
BUILDS = "builds"
BOUNDS = {PAGES: 256 << 20, RENDERED: 256 << 20, CHARTS: 256 << 20, BUILDS: 64 << 20}  # bytes per folder


@functools.cache
def code_fingerprint() -> str:
    """This package's version and source code: a changed parser or renderer invalidates everything."""
    digest = hashlib.sha256(f"{__version__} {sys.version}".encode())
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".js") and path.is_file():
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def key_of(*parts: bytes | str) -> str:
    """sha256 of the parts, each length-prefixed so that no two part lists collide."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


class Store:
    """One cache folder of pickled values by key.

    ``save`` keeps a value in memory; ``commit`` writes what was saved to the folder, so
    that a failed build writes nothing (and ``check``, which never commits, neither). A
    store kept across rebuilds (``serve``) answers from memory first, then from the
    folder. ``folder`` None: memory only.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._memory: dict[str, bytes] = {}
        self._pending: set[str] = set()
        self._later: dict[str, Callable[[], Any]] = {}
        self._used: set[str] = set()

    def load(self, key: str) -> Any | None:
        data = self.load_pickled(key)
        if data is None:
            return None
        try:
            return pickle.loads(data)
        except Exception:  # noqa: BLE001 - a truncated or foreign entry is a miss
            return None

    def has(self, key: str) -> bool:
        """Whether ``load`` would find an entry (it may still be unreadable)."""
        return key in self._memory or (self.folder is not None and (self.folder / key[:2] / key).is_file())

    def load_pickled(self, key: str) -> bytes | None:
        """The entry's bytes as saved, not unpickled; None on a miss."""
        data = self._memory.get(key)
        if data is None and self.folder is not None:
            try:
                data = (self.folder / key[:2] / key).read_bytes()
            except OSError:
                return None
            self._used.add(key)
        return data

    def save(self, key: str, value: Any) -> None:
        try:
            self.save_pickled(key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
            return

    def save_pickled(self, key: str, data: bytes) -> None:
        """Save a value pickled elsewhere (by a worker process)."""
        self._memory[key] = data
        self._pending.add(key)

    def save_later(self, key: str, value: Callable[[], Any]) -> None:
        """Save what ``value()`` returns, at commit: for values the build holds anyway (rendered
        files), so that they are not held twice, once pickled, until the build is done."""
        self._later[key] = value

    def commit(self) -> None:
        """Write the values saved since the last commit; a cache only saves time, so errors are ignored.
        Each entry leaves memory once it is on disk: a site's rendered files are never all held."""
        for key, value in sorted(self._later.items()):
            self.save(key, value())
            self._write_pending(key)
        self._later.clear()
        for key in sorted(self._pending):
            self._write_pending(key)
        if self.folder is not None:
            for key in sorted(self._used):
                _touch(self.folder / key[:2] / key)
        self._used.clear()

    def _write_pending(self, key: str) -> None:
        if self.folder is not None and key in self._pending:
            _write_entry(self.folder, key, self._memory.pop(key))
            self._pending.discard(key)


def _touch(path: Path) -> None:
    """Mark an entry recently used: prune() keeps it longest."""
    try:
        os.utime(path)
    except OSError:
        pass


def _write_entry(folder: Path, key: str, data: bytes) -> None:
    """Atomically: temporary file + rename, so a reader never sees half an entry."""
    target = folder / key[:2] / key
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{key}.", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temp, target)
    except OSError:
        Path(temp).unlink(missing_ok=True)


@dataclass(frozen=True)
class Caches:
    """The caches of one build (or of a dev server across its rebuilds), committed together."""

    pages: Store  # validated pages and their problems
    rendered: Store  # each article's index.html/json/md/csv, each record page's index.html/json/md

    def commit(self) -> None:
        self.pages.commit()
        self.rendered.commit()


def open_caches(root: Path | None) -> Caches:
    """The caches under ``root`` (``.cache/``); None keeps them in memory only (``--no-cache``)."""
    return Caches(Store(root / PAGES if root else None), Store(root / RENDERED if root else None))


def prune_caches(root: Path, used_since: float | None = None) -> None:
    """Keep every cache folder under ``root`` within its bound, beyond the entries written or
    used since ``used_since`` (a time.time() of the build's start): those are the site as it
    is now, and a bound that cut into them (a site of thousands of articles outgrows 256 MB)
    would make every later build render most pages again."""
    for name, bound in BOUNDS.items():
        prune(root / name, bound, used_since)


def prune(folder: Path, bound: int, used_since: float | None = None) -> int:
    """Remove the least recently used files of ``folder`` until it holds at most 3/4 of ``bound``
    bytes besides those used since ``used_since`` (only when it holds more than ``bound``
    besides them). Returns the number of files removed."""
    entries = [entry for entry in _files(folder) if used_since is None or entry[2] < used_since]
    total = sum(size for _, size, _ in entries)
    if total <= bound:
        return 0
    removed = 0
    for path, size, _ in sorted(entries, key=lambda entry: entry[2]):
        if total <= bound * 3 // 4:
            break
        try:
            path.unlink()
        except OSError:
            continue
        total -= size
        removed += 1
    return removed


def _files(folder: Path) -> Iterable[tuple[Path, int, float]]:
    if not folder.is_dir():
        return
    for directory, _, names in os.walk(folder):
        for name in names:
            path = Path(directory) / name
            try:
                status = path.stat()
            except OSError:
                continue
            yield path, status.st_size, status.st_mtime
