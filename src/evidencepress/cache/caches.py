"""Content-addressed caches under ``.cache/``: what a build computed once, it reads back.

Keys are sha256 digests of everything a result depends on — the bytes of the
input, the schemas or templates, the configuration, and a fingerprint of this
package's own code — never file times, so a cache entry is right or absent.
The page and rendered caches are each one SQLite database (``pages.sqlite``,
``rendered.sqlite``): a build's entries go in as they are made, a batch per
transaction, and cost no file per entry (``store.Store``); each entry is
right for its key, so what a failed or killed build wrote may serve the next.
The chart cache and the build records are folders of files. Each cache has a size
bound; :func:`prune_store` and :func:`prune` remove the least recently used
entries past it, never those the build that prunes wrote or used.
A cache that cannot be read or written only costs time: it never fails a build
(a damaged database is a miss, and is replaced by the next commit).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__
from ..content.read import ReadPages
from ..core.diagnostics import Location, Problem, note, shown_path
from ..core.filestate import DigestBook
from .store import Store, evict_oldest, prune_store

__all__ = [
    "BOUNDS",
    "CHARTS",
    "PAGES",
    "RENDERED",
    "Caches",
    "Store",
    "code_fingerprint",
    "key_of",
    "open_caches",
    "prune",
    "prune_caches",
    "prune_store",
]

PAGES = "pages.sqlite"
RENDERED = "rendered.sqlite"
CHARTS = "charts"
BUILDS = "builds"
VAULT_DIGESTS = "vault-digests"  # the vault documents' digests (``core.filestate.DigestBook``)
PAGE_DIGESTS = "page-digests"  # the digests of the pages' texts (``content.read.read_content``)
STORES = (PAGES, RENDERED)  # databases; the others are folders of files
BOUNDS = {PAGES: 256 << 20, RENDERED: 256 << 20, CHARTS: 256 << 20, BUILDS: 64 << 20}  # bytes of entries per cache
DISCARD_HINT = ("nothing of them was published; a cache copied from another machine or user is made again "
                "once (set EVIDENCEPRESS_CACHE_SECRET alike where caches are shared); if it recurs, check the disk")
OLD_FOLDERS = ("pages", "rendered")  # the page and rendered caches as earlier versions wrote them, a file per entry


@functools.cache
def code_fingerprint() -> str:
    """This package's version and source code: a changed parser or renderer invalidates everything."""
    digest = hashlib.sha256(f"{__version__} {sys.version}".encode())
    package = Path(__file__).resolve().parents[1]
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


@dataclass(frozen=True)
class Caches:
    """The caches of one build (or of a dev server across its rebuilds), committed together."""

    pages: Store  # validated pages and their problems
    rendered: Store  # each article's index.html/json/md/csv, each record page's index.html/json/md
    discarded_charts: list[Path] = field(default_factory=list)  # chart cache files whose seal did not hold
    # The validated pages of the last run by key, as read or made: a dev server, which keeps its
    # caches across rebuilds, does not read and unpickle every page again for each edit.
    outcomes: dict[str, object] = field(default_factory=dict)
    verified: dict[str, object] = field(default_factory=dict)  # the same for each page's verification
    read: ReadPages = field(default_factory=dict)  # the same for each page's file as read (``content.read``)
    # The vault documents' digests, vouched for by their stat signatures (saved at commit).
    vault: DigestBook = field(default_factory=lambda: DigestBook(None))
    pages_read: DigestBook = field(default_factory=lambda: DigestBook(None))  # the pages' texts (saved at commit)

    def discard_notes(self, root: Path, records: Sequence[Path] = ()) -> list[Problem]:
        """A note per cache that held entries whose seal did not hold (``core.seal``): they were
        made again, and nothing of them was published. ``records``: the build records that did not."""
        counts = [(store.path, store.discarded) for store in (self.pages, self.rendered) if store.path is not None]
        for files in (self.discarded_charts, records):
            if files:
                counts.append((files[0].parent, len(files)))
        return [note(Location(shown_path(path, root)), _discarded(count), "cache", hint=DISCARD_HINT)
                for path, count in counts if count]

    def begin(self) -> None:
        """A build: what is saved from now on is written in batches as it goes (Store.begin)."""
        self.pages.begin()
        self.rendered.begin()

    def commit(self) -> None:
        self.pages.commit()
        self.rendered.commit()
        self.vault.save()
        self.pages_read.save()

    def rollback(self) -> None:
        self.pages.rollback()
        self.rendered.rollback()

    def close(self) -> None:
        self.pages.close()
        self.rendered.close()


def _discarded(count: int) -> str:
    entries, its, was = ("1 entry", "its", "was") if count == 1 else (f"{count:,} entries", "their", "were")
    return (f"{entries} did not match {its} seal (damaged, edited, moved to another key, or written by "
            f"another machine or user) and {was} made again")


def open_caches(root: Path | None) -> Caches:
    """The caches under ``root`` (``.cache/``); None keeps them in memory only (``--no-cache``).
    Nothing is opened or created here."""
    return Caches(Store(root / PAGES if root else None), Store(root / RENDERED if root else None),
                  vault=DigestBook(root / VAULT_DIGESTS if root else None),
                  pages_read=DigestBook(root / PAGE_DIGESTS if root else None))


def prune_caches(root: Path, used_since: float | None = None) -> None:
    """Keep every cache under ``root`` within its bound, beyond the entries written or
    used since ``used_since`` (a time.time() of the build's start): those are the site as it
    is now, and a bound that cut into them (a site of thousands of articles outgrows 256 MB)
    would make every later build render most pages again. Removes the page and rendered
    folders of earlier versions (a file per entry), which nothing reads any more."""
    for name in OLD_FOLDERS:
        shutil.rmtree(root / name, ignore_errors=True)
    for name, bound in BOUNDS.items():
        if name in STORES:
            prune_store(root / name, bound, used_since)
        else:
            prune(root / name, bound, used_since)


def prune(folder: Path, bound: int, used_since: float | None = None) -> int:
    """Remove the least recently used files of ``folder`` until it holds at most 3/4 of ``bound``
    bytes besides those used since ``used_since`` (only when it holds more than ``bound``
    besides them). Returns the number of files removed."""
    entries = sorted((entry for entry in _files(folder) if used_since is None or entry[2] < used_since),
                     key=lambda entry: entry[2])
    return evict_oldest([(path, size) for path, size, _ in entries], bound, _unlinked)


def _unlinked(path: Path) -> bool:
    try:
        path.unlink()
    except OSError:
        return False
    return True


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
