"""Write stage: the only code that touches the output folders.

A build replaces whole folders (``_site/``, ``exports/``). Each new folder is
written in full into a hidden sibling (``._site.new-XXXX``), then exchanged
with the old one in a single ``renameat2(RENAME_EXCHANGE)`` call, so at every
instant each folder is either its complete previous tree or its complete new
tree. A journal written before the first exchange lists every exchange of the
build; a run killed between two exchanges is finished by the next run
(:func:`recover`), so the folders end up from the same build. The old trees
are removed by a thread of their own once the exchanges are done, off the
build's critical path (:class:`Removals`): the build records and reports
meanwhile, and the process waits for it at exit. Leftover hidden siblings (a
build killed while staging, an old tree not yet deleted) are removed by the
next run.

Where the kernel or file system cannot exchange two folders (not Linux, some
network file systems), the swap is two renames; the journal then also lets
the next run put back a folder that a kill left missing.

A cached build keeps the tree it replaced as the folder's standby tree (in
the site's ``.cache/standby/``) instead of removing it, and the next build
stages in it: it keeps each file that holds what it would write (its
signature is the one the build that wrote it recorded, ``core.filestate``),
writes the others anew (never through an old file), and removes those it did
not put, then swaps it in. An edit of one page thus writes a few files and
removes none. A file of the live tree that the staged tree lacks is
hard-linked into it, not copied: the two trees then name one file, which no
build writes through (a changed file is removed and written anew). The link
changes the file's status, so the standby tree's signature of it no longer
vouches for it; the live tree's, taken after the link, does for both names
while they are one file (same inode). A build with no standby tree yet (a
cold one) makes it as it writes: each file is linked into it too, so that the
two trees are twins and the next build stages in it rather than linking the
whole site (25,000 files for 5,000 articles). A kill while staging leaves a
half-written standby tree, whose changed files no signature vouches for any
more: the next build writes them again.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import errno
import hashlib
import json
import os
import shutil
import stat
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..core import forking, signals
from ..core.filestate import Vouched, signature_of, vouched_digest
from ..core.forking import WRITER_THREADS

Tree = Mapping[str, bytes]  # POSIX relative path -> bytes
Checkpoint = Callable[[str], None]

JOURNAL_VERSION = 1
REMOVE_THREADS = 4
WRITE_THREADS = 2  # file creation is kernel time: threads overlap it with rendering
_STANDBY, _LIVE = "standby", "live"  # which tree holds a file (``StagedFolder._holder``)
LINK_BATCH = 128  # files linked by one writer thread's task (a task of its own costs more than a link)
MAX_PENDING = 64  # files handed to the writer threads and not yet written
REMOVE_ALONE = 256  # entries below which one thread removes a tree


@dataclass(frozen=True)
class Swap:
    """One folder of a build: ``staged`` (complete new tree) replaces ``target``."""

    target: Path
    staged: Path
    inode: int  # of the staged folder: tells after a kill whether the exchange happened

    def as_json(self) -> dict[str, object]:
        return {"target": str(self.target), "staged": str(self.staged), "inode": self.inode}


def _no_checkpoint(step: str) -> None:
    return None


class FileSink(Protocol):
    """Where the render stage puts files: a staged output folder, or memory. Put only: what a
    later step needs is handed to it by the step that made it, never read back from here."""

    def put(self, rel: str, data: bytes, digest: bytes | None = None) -> None:
        """A file (``digest``: its sha256, when the caller has it)."""

    def put_chunks(self, rel: str, chunks: Iterable[bytes]) -> None:
        """A file given piece by piece (a large data file is never held whole)."""

    def can_link(self, rel: str, digest: str) -> bool:
        """Does the output this one replaces hold the file ``rel`` with that sha256 (hex), vouched
        for by its signature (``core.filestate``)? Then ``link`` puts it without its bytes."""

    def link(self, rel: str, digest: str) -> None:
        """Put the previous output's file ``rel`` (``can_link`` said it holds these bytes)."""

    def held(self, rel: str) -> bytes | None:
        """The bytes of the previous output's file ``rel`` when the sink holds them in memory (a
        file ``can_link`` vouched for), else None: an output folder is never read back."""


class MemoryFiles(dict[str, bytes]):
    """Rendered files kept in memory, by POSIX path (the dev server, the review, tests).
    ``previous``: the files of the last rebuild (the dev server), whose files with the same
    sha256 are taken over by ``link``."""

    def __init__(self, previous: MemoryFiles | None = None) -> None:
        super().__init__()
        self.digests: dict[str, str] = {}  # hex sha256 of the files put with theirs, by path
        self._previous = previous

    def put(self, rel: str, data: bytes, digest: bytes | None = None) -> None:
        self[rel] = data
        if digest is not None:
            self.digests[rel] = digest.hex()
        else:
            self.digests.pop(rel, None)

    def put_chunks(self, rel: str, chunks: Iterable[bytes]) -> None:
        data = b"".join(chunks)
        self.put(rel, data, hashlib.sha256(data).digest())

    def can_link(self, rel: str, digest: str) -> bool:
        return self._previous is not None and self._previous.digests.get(rel) == digest

    def link(self, rel: str, digest: str) -> None:
        if self._previous is None or self._previous.digests.get(rel) != digest:
            raise ValueError(f"{rel}: not in the previous files with that digest")
        self.put(rel, self._previous[rel], bytes.fromhex(digest))

    def held(self, rel: str) -> bytes | None:
        return self._previous.get(rel) if self._previous is not None else None

    def sorted(self) -> MemoryFiles:
        """These files in path order (with their digests), without the previous ones."""
        ordered = MemoryFiles()
        for rel in sorted(self):
            ordered[rel] = self[rel]
        ordered.digests = dict(self.digests)
        return ordered


class FolderWriter:
    """Files written under one folder by POSIX relative path, each parent folder made once (a site
    writes thousands of files, several to a folder)."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self._made = {""}

    def write_chunks(self, rel: str, chunks: Iterable[bytes]) -> int:
        """Write the file; its size."""
        self._make_parent(rel)
        with open(os.path.join(self.root, rel), "wb") as handle:
            return sum(handle.write(chunk) for chunk in chunks)

    def write_or_link(self, rel: str, data: bytes, previous: str) -> int:
        """Write the file, or hard-link the file of the same path under ``previous`` (the tree this
        one replaces) when that is a regular file holding exactly ``data``: creating a file costs
        far more than reading a small one, and an unchanged file keeps its modification time
        (what rsync and static hosts compare). Neither tree's files are ever changed in place."""
        old = os.path.join(previous, rel)
        try:
            status = os.lstat(old)
            if stat.S_ISREG(status.st_mode) and status.st_size == len(data):
                with open(old, "rb") as handle:
                    same = handle.read(len(data) + 1) == data
                if same:
                    self._make_parent(rel)
                    os.link(old, os.path.join(self.root, rel), follow_symlinks=False)
                    return len(data)
        except OSError:
            pass  # no such file, another file system, links not allowed...: written
        return self.write_chunks(rel, (data,))

    def replace(self, rel: str, data: bytes) -> int:
        """Write the file anew: whatever is at its path is removed first, never written through."""
        self._make_parent(rel)
        _clear(os.path.join(self.root, rel))
        return self.write_chunks(rel, (data,))

    def link(self, rel: str, previous: str, replacing: bool = False) -> None:
        """Hard-link the file of the same path under ``previous`` (the tree this one replaces);
        ``replacing``: whatever is at the path is removed first (a standby tree staged in again)."""
        self._make_parent(rel)
        path = os.path.join(self.root, rel)
        try:
            os.link(os.path.join(previous, rel), path, follow_symlinks=False)
        except FileExistsError:
            if not replacing:
                raise
            _clear(path)
            os.link(os.path.join(previous, rel), path, follow_symlinks=False)

    def _make_parent(self, rel: str) -> None:
        parent = rel.rpartition("/")[0]
        if parent not in self._made:
            self._make_parent(parent)  # its own parent first: one mkdir each, not makedirs' walk
            path = os.path.join(self.root, parent)
            try:
                os.mkdir(path)
            except FileExistsError:  # a writer thread made it meanwhile, or a tree staged in again has it
                if not os.path.isdir(path) or os.path.islink(path):  # a file (or link) of that name
                    _clear(path)
                    os.mkdir(path)
            self._made.add(parent)


class StagedFolder:
    """The new tree of one target, written file by file into a hidden sibling (or the target's
    standby tree) until the swap.

    ``put`` hands the file to a writer thread, so a large site is never held in memory whole
    and the renderer does not wait for the file system (creating a file costs more time in the
    kernel than rendering a small page); at most MAX_PENDING files wait. ``put_chunks`` writes
    in the caller's thread when its chunks are made as they are written (a generator), else it
    is ``put``. ``read`` and ``read_chunks`` give a file back (from the target once the swap is
    done). ``swap`` and ``close`` wait for every write: a write's error is raised there, or by a
    later ``put``.
    """

    def __init__(self, target: Path, checkpoint: Checkpoint, hashed: bool = False,
                 previous: Vouched | None = None, standby: Standby | None = None) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        self.target = target
        # the files of the tree this one replaces, with the sha256 and signature the build that
        # wrote them recorded: one whose signature holds is linked without its bytes (``link``)
        self._vouched: Vouched = previous or {}
        # staged in the standby tree (the output before the last one), where its files are kept
        # that are what this build would write, and the others written over; else a new folder
        self.standby = standby
        # A file of the live tree that the standby tree lacks is linked into it (never written
        # through afterwards); one that both name is vouched for by the live tree's signature.
        self._reusing = standby is not None and _can_stage_in(standby.path, target)
        self._kept: Vouched = standby.files if standby is not None and self._reusing else {}
        self._holding: dict[str, str] = {}  # what ``can_link`` found the standby tree holds: ``link`` keeps it
        self.path = standby.path if standby is not None and self._reusing else Path(
            tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
        # No standby tree yet (a cold build): each file is also linked into one as it is written,
        # so that the next build stages in it instead of linking the whole site then
        self._twin = FolderWriter(standby.path) if standby is not None and _can_twin(standby.path, self.path) else None
        self.sizes: dict[str, int] = {}  # every file written, by POSIX path
        # ``hashed``: the sha256 of every file written, by POSIX path, taken from the bytes as they
        # are written (by the writer threads), so that the tree's digest needs no second reading
        self.hashes: dict[str, bytes] | None = {} if hashed else None
        self._checkpoint = checkpoint
        self._files = FolderWriter(self.path)
        self._previous = str(target)  # unchanged files are linked from it
        self._threads: ThreadPoolExecutor | None = None
        self._pending: deque[Future[int]] = deque()
        self._links: list[str] = []  # files to link not yet handed to a writer thread

    def put(self, rel: str, data: bytes, digest: bytes | None = None) -> None:
        self._first(rel)
        self._submit(self._write, rel, data, digest)
        self.sizes[rel] = len(data)

    def held(self, rel: str) -> bytes | None:
        return None  # never read back from the output

    def can_link(self, rel: str, digest: str) -> bool:
        found = self._holder(rel, digest)
        if found == _STANDBY:
            self._holding[rel] = digest
        return found is not None

    def _holder(self, rel: str, digest: str) -> str | None:
        """Which tree holds the file ``rel`` with sha256 ``digest`` (hex), as signatures vouch: the
        standby tree this one is staged in (_STANDBY), else the live tree (_LIVE), else None."""
        standby = _status(self.path, rel) if self._reusing else None
        if standby is not None and _vouches(self._kept, rel, standby, digest):
            return _STANDBY
        live = _status(self._previous, rel) if self._vouched else None
        if live is None or not _vouches(self._vouched, rel, live, digest):
            return None
        if standby is not None and (standby.st_ino, standby.st_dev) == (live.st_ino, live.st_dev):
            return _STANDBY  # the standby tree names the live tree's file (an earlier build's link)
        return _LIVE

    def link(self, rel: str, digest: str) -> None:
        self._first(rel)
        if self._holding.pop(rel, None) != digest:  # linked by a writer thread, LINK_BATCH at a time
            self._links.append(rel)
            if len(self._links) >= LINK_BATCH:
                self._submit(self._link_all, self._links)
                self._links = []
        known = self._vouched.get(rel) or self._kept.get(rel)
        self.sizes[rel] = known[1][1] if known is not None and known[1] is not None else 0  # can_link saw it
        if self.hashes is not None:
            self.hashes[rel] = bytes.fromhex(digest)

    def _link_all(self, rels: list[str]) -> int:
        """A writer thread's task: the live tree's files ``rels`` linked into this one."""
        for rel in rels:
            self._files.link(rel, self._previous, replacing=self._reusing)
            self._link_into_twin(rel)
        return 0

    @property
    def twinned(self) -> bool:
        """Is the standby tree made by this build, a twin of this tree (see ``_link_into_twin``)?"""
        return self._twin is not None

    def _link_into_twin(self, rel: str) -> None:
        """The file just written, linked into the standby tree being made: the two trees name the
        same files, and their signatures (taken once the build is done) vouch for both."""
        if self._twin is not None:
            self._twin.link(rel, str(self.path), replacing=True)

    def _submit(self, task: Callable[..., int], *arguments: object) -> None:
        if self._threads is None:
            self._threads = ThreadPoolExecutor(WRITE_THREADS, thread_name_prefix=WRITER_THREADS)
            forking.pause_for_forks(self)  # for the next fork (it may have paused them already)
        self._pending.append(self._threads.submit(task, *arguments))
        while len(self._pending) > MAX_PENDING:
            self._pending.popleft().result()

    def put_chunks(self, rel: str, chunks: Iterable[bytes]) -> None:
        if isinstance(chunks, (tuple, list)):  # made already: to a writer thread, or linked, like put
            self.put(rel, b"".join(chunks))
            return
        self._first(rel)
        if self._reusing:
            with contextlib.suppress(FileNotFoundError):  # written anew, never through the old file
                os.unlink(os.path.join(self.path, rel))
        if self.hashes is None:
            self.sizes[rel] = self._files.write_chunks(rel, chunks)
        else:
            digest = hashlib.sha256()
            self.sizes[rel] = self._files.write_chunks(rel, _hashing(chunks, digest.update))
            self.hashes[rel] = digest.digest()
        self._link_into_twin(rel)

    def _write(self, rel: str, data: bytes, digest: bytes | None) -> int:
        """A writer thread's task (hashing, like writing, lets the other threads run)."""
        if self.standby is not None:
            digest = digest if digest is not None else hashlib.sha256(data).digest()
            found = self._holder(rel, digest.hex())
            if found == _LIVE:
                self._files.link(rel, self._previous, replacing=self._reusing)  # the search index's 5,000 files
            elif found is None:
                self._files.replace(rel, data)
            size = len(data)
        else:
            size = self._files.write_or_link(rel, data, self._previous)
        self._link_into_twin(rel)
        if self.hashes is not None:
            self.hashes[rel] = digest if digest is not None else hashlib.sha256(data).digest()
        return size

    def _first(self, rel: str) -> None:
        if not self.sizes:
            self._checkpoint(f"staging {self.target.name}")
        if rel in self.sizes:
            self.wait()  # a file put again: the last version wins, as written in order
            folders = [str(self.path)] + ([self._twin.root] if self._twin is not None else [])
            for folder in folders:
                with contextlib.suppress(FileNotFoundError):  # never written through: it may be a link
                    os.unlink(os.path.join(folder, rel))  # to the previous tree's file

    def wait(self) -> None:
        """Every file put so far is written (or its error raised)."""
        if self._links:
            self._submit(self._link_all, self._links)
            self._links = []
        while self._pending:
            self._pending.popleft().result()

    def close(self) -> None:
        """Wait for the writes and end the threads, raising the first write error."""
        try:
            self.wait()
        finally:
            if self._threads is not None:
                self._threads.shutdown(wait=True, cancel_futures=True)
                self._threads = None
            forking.forget(self)
            self._pending.clear()
            self._links = []

    def pause(self) -> None:
        """Before a fork: the files put so far are written (their errors kept for ``wait``) and the
        threads end; the next ``put`` starts them again."""
        if self._threads is not None:
            self._threads.shutdown(wait=True)
            self._threads = None

    def resume(self) -> None:
        """Nothing to do: ``put`` starts the threads when it has a file for them."""

    def swap(self) -> Swap:
        self.close()
        if self._reusing:
            _remove_others(self.path, self.sizes)  # the standby tree's files this build did not put
        self.path.chmod(0o755)  # mkdtemp makes 0700; a published folder must be readable
        self._checkpoint(f"staged {self.target.name}")
        return Swap(self.target, self.path, self.path.stat().st_ino)


@contextlib.contextmanager
def staged_folders(targets: Sequence[Path], journal: Path, checkpoint: Checkpoint | None = None,
                   hashed: Sequence[Path] = (), previous: Mapping[Path, Vouched] | None = None,
                   standby: Mapping[Path, Standby] | None = None) -> Iterator[dict[Path, StagedFolder]]:
    """New trees for ``targets``, filled inside the ``with`` block, then swapped in together.
    The folders of ``hashed`` keep the sha256 of each file written (``StagedFolder.hashes``);
    ``previous``: what the last build recorded of each target's files (``StagedFolder.link``);
    ``standby``: where each target's standby tree is kept (see the module's docstring).

    An exception inside the block (or while staging) removes the new trees: no target has
    changed. Raises OSError (disk full, permission denied ...) with every target as it was.
    ``checkpoint`` is called between steps (fault-injection tests kill the process there).
    """
    checkpoint = checkpoint or _no_checkpoint
    recover(journal, list(targets))
    folders: dict[Path, StagedFolder] = {}
    try:
        for target in sorted(targets):
            folders[target] = StagedFolder(target, checkpoint, hashed=target in hashed,
                                           previous=(previous or {}).get(target), standby=(standby or {}).get(target))
        yield folders
        swaps = [folders[target].swap() for target in sorted(folders)]
    except BaseException:
        for folder in folders.values():
            with contextlib.suppress(OSError):
                folder.close()  # no thread writes into the tree while it is removed
            remove_tree(folder.path)
            if folder.standby is not None and folder.twinned:
                remove_tree(folder.standby.path)
        raise
    # a tree with a twin has its standby tree already: the tree it replaces (if any) goes
    _swap_in(swaps, journal, checkpoint, {target: folder.standby.path for target, folder in folders.items()
                                          if folder.standby is not None and not folder.twinned})


@dataclass(frozen=True)
class Standby:
    """Where a target's standby tree is kept (the output before the last), and what the build that
    wrote it recorded of its files."""

    path: Path
    files: Vouched


def _can_stage_in(standby: Path, target: Path) -> bool:
    """Is there a standby tree, on the target's file system (the swap exchanges the two folders)?"""
    try:
        return (standby.is_dir() and not standby.is_symlink()
                and standby.stat().st_dev == target.parent.stat().st_dev)
    except OSError:
        return False


def _can_twin(standby: Path, staged: Path) -> bool:
    """Make the standby tree beside the build's new tree (``staged``) when there is none (True): its
    folder is made now, and kept only on the new tree's file system (a hard link cannot cross one)."""
    try:
        if os.path.lexists(standby):
            return False
        standby.parent.mkdir(parents=True, exist_ok=True)
        standby.mkdir()
        if standby.stat().st_dev == staged.stat().st_dev:
            return True
        standby.rmdir()
    except OSError:
        pass
    return False


def _vouches(recorded: Vouched, rel: str, status: os.stat_result, digest: str) -> bool:
    return stat.S_ISREG(status.st_mode) and vouched_digest(recorded, rel, signature_of(status)) == digest


def _status(folder: str | Path, rel: str) -> os.stat_result | None:
    try:
        return os.lstat(os.path.join(folder, rel))
    except OSError:
        return None


def _clear(path: str) -> None:
    """Remove whatever is at ``path``: a file, a link, a folder (a standby tree staged in again may
    hold a folder where a file goes, or the other way round)."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _remove_others(folder: Path, kept: Mapping[str, int]) -> None:
    """Remove every file (or link) under ``folder`` that is not in ``kept`` (POSIX paths), then the
    folders left empty."""
    base = os.fspath(folder)
    for directory, dirs, names in os.walk(base, topdown=False):
        inner = os.path.relpath(directory, base)
        prefix = "" if inner == os.curdir else inner.replace(os.sep, "/") + "/"
        for name in names + [name for name in dirs if os.path.islink(os.path.join(directory, name))]:
            if prefix + name not in kept:
                os.unlink(os.path.join(directory, name))
        if prefix and not os.listdir(directory):
            os.rmdir(directory)


def _hashing(chunks: Iterable[bytes], update: Callable[[bytes], object]) -> Iterator[bytes]:
    """``chunks``, each handed to ``update`` (a hash) on its way."""
    for chunk in chunks:
        update(chunk)
        yield chunk


def write_trees(trees: Mapping[Path, Tree], journal: Path, checkpoint: Checkpoint | None = None) -> None:
    """Replace each target folder by a folder holding exactly its files (see staged_folders)."""
    with staged_folders(list(trees), journal, checkpoint) as folders:
        for target in sorted(trees):
            for rel in sorted(trees[target]):
                folders[target].put(rel, trees[target][rel])


def _swap_in(swaps: list[Swap], journal: Path, checkpoint: Checkpoint, standby: Mapping[Path, Path]) -> None:
    """Journal, exchanges, then the old trees kept as the standby trees (``standby``: where, by
    target) or removed; a signal waits for the end (a swap cut in two is finished by the next run,
    but its leftovers would stay until then). A failure before the last exchange leaves every
    target as it was, and no staged tree or journal behind."""
    with signals.deferred():
        try:
            _write_journal(journal, swaps, checkpoint)
            _exchange_all(swaps, checkpoint)
        except _Unfinished:
            raise  # neither old nor new everywhere: the journal lets the next run finish the swap
        except BaseException:
            _forget_journal(journal)
            for swap in swaps:
                remove_tree(swap.staged)
            raise
        _forget_journal(journal)  # the new trees are in: a journal left would only be finished again
        checkpoint("journal removed")
    removed = [swap.staged for swap in swaps if not _kept_as_standby(swap, standby.get(swap.target))]
    REMOVALS.start(removed)  # now the previous trees, under their hidden names
    for swap in swaps:
        checkpoint(f"removing old {swap.target.name}")


def _kept_as_standby(swap: Swap, standby: Path | None) -> bool:
    """Keep the previous tree (now at the staged path) as the target's standby tree: where it is
    already when the build staged in the standby tree, else moved there (a standby tree that was not
    used goes). False when there is no standby (or it cannot be moved there): it is removed."""
    if standby is None:
        return False
    if swap.staged == standby:
        return True
    try:
        if os.path.lexists(standby):
            aside = Path(tempfile.mkdtemp(prefix=f".{standby.name}.old-", dir=standby.parent))
            os.replace(standby, aside / standby.name)
            REMOVALS.start([aside])
        standby.parent.mkdir(parents=True, exist_ok=True)
        os.rename(swap.staged, standby)
    except OSError:
        return False
    return True


class Removals:
    """Old trees removed by a thread of their own, off the critical path: a site of thousands of
    pages is tens of thousands of files, whose removal took 1.6 s of a 5,000-article build after its
    swap. The process waits for the removals at exit (``atexit``), and a fork first waits for them
    (``forking.pause_for_forks``: no thread runs at a fork). A kill leaves a tree under its hidden
    name (``._site.new-*``), which the next run removes (:func:`recover`)."""

    def __init__(self) -> None:
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._registered = False

    def start(self, paths: Sequence[Path]) -> None:
        thread = threading.Thread(target=_remove_all, args=(list(paths),), name="evidencepress-remove-old")
        with self._lock:
            if not self._registered:
                atexit.register(self.wait)
                self._registered = True
            self._threads.append(thread)
            forking.pause_for_forks(self)
        thread.start()

    def wait(self) -> None:
        """Every old tree handed over so far is removed."""
        with self._lock:
            threads, self._threads = self._threads, []
            forking.forget(self)
        for thread in threads:
            thread.join()

    def pause(self) -> None:
        self.wait()

    def resume(self) -> None:
        """Nothing to do: a removal starts its own thread."""


def _remove_all(paths: list[Path]) -> None:
    for path in paths:
        remove_tree(path)


REMOVALS = Removals()


def wait_for_removals() -> None:
    """The old trees of every build of this process so far are removed (tests; the exit waits itself)."""
    REMOVALS.wait()


class _Unfinished(OSError):
    """An exchange failed and so did putting back those done before it."""


def _forget_journal(journal: Path) -> None:
    for path in (journal, Path(f"{journal}.tmp")):
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def _exchange_all(swaps: list[Swap], checkpoint: Checkpoint) -> None:
    """Exchange every staged tree in; on an error, exchange back those done and re-raise
    (the previous trees are then in place again, the caller removes the staged ones)."""
    done: list[Swap] = []
    try:
        for swap in swaps:
            _exchange(swap.staged, swap.target)
            done.append(swap)
            checkpoint(f"exchanged {swap.target.name}")
    except BaseException as failed:
        try:
            for swap in reversed(done):
                _exchange(swap.staged, swap.target)
        except OSError as undo:
            raise _Unfinished(undo.errno, f"{failed}; then, putting back: {undo.strerror}", undo.filename) from failed
        raise


def recover(journal: Path, targets: list[Path]) -> None:
    """Finish the exchanges of a build that was killed, then remove leftover hidden folders."""
    for swap in _read_journal(journal):
        if _inode(swap.target) == swap.inode:
            continue  # exchanged before the kill
        if _inode(swap.staged) == swap.inode:
            _exchange(swap.staged, swap.target)
    journal.unlink(missing_ok=True)
    Path(f"{journal}.tmp").unlink(missing_ok=True)
    for target in targets:
        for leftover in _leftovers(target):
            remove_tree(leftover)


def remove_tree(path: Path) -> None:
    """``shutil.rmtree(path, ignore_errors=True)``, its second level of folders by several threads:
    unlinking is mostly the kernel's work, which threads share out (a site of thousands of pages
    is tens of thousands of files: 2.6 s alone, 1.3 s on 4 threads)."""
    if path.is_symlink():
        return  # never followed: what it points to is not ours
    try:
        tops = [entry for entry in os.scandir(path) if entry.is_dir(follow_symlinks=False)]
        parts = [entry.path for top in tops for entry in os.scandir(top.path)]
    except OSError:
        parts = []
    if len(parts) > REMOVE_ALONE:
        with ThreadPoolExecutor(max_workers=REMOVE_THREADS, thread_name_prefix="evidencepress-remove") as pool:
            list(pool.map(_remove_entry, parts, chunksize=64))
    shutil.rmtree(path, ignore_errors=True)


def _remove_entry(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _leftovers(target: Path) -> list[Path]:
    if not target.parent.is_dir():
        return []
    prefixes = (f".{target.name}.new-", f".{target.name}.old-")
    return sorted(p for p in target.parent.iterdir() if p.name.startswith(prefixes) and not p.is_symlink())


def _write_journal(journal: Path, swaps: list[Swap], checkpoint: Checkpoint) -> None:
    """Atomically (temp file + rename): a kill leaves either no journal or a whole one."""
    journal.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(f"{journal}.tmp")
    document = {"version": JOURNAL_VERSION, "swaps": [swap.as_json() for swap in swaps]}
    with open(temp, "w", encoding="utf-8") as handle:
        json.dump(document, handle)
        handle.flush()
        os.fsync(handle.fileno())
    checkpoint("journal staged")
    os.replace(temp, journal)
    checkpoint("journal written")


def _read_journal(journal: Path) -> list[Swap]:
    try:
        document = json.loads(journal.read_text(encoding="utf-8"))
        return [Swap(Path(s["target"]), Path(s["staged"]), int(s["inode"])) for s in document["swaps"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []  # no journal (the usual case) or an unreadable one: nothing to finish


def _inode(path: Path) -> int | None:
    try:
        return path.lstat().st_ino
    except OSError:
        return None


# --- swapping two folders -------------------------------------------------------

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _renameat2() -> Callable[..., int] | None:
    try:
        function: Callable[..., int] = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    return function


_RENAMEAT2 = _renameat2()


def _exchange(staged: Path, target: Path) -> None:
    """Put ``staged`` at ``target``; the previous ``target`` (if any) ends up at ``staged``."""
    if not os.path.lexists(target):
        os.replace(staged, target)
        return
    if _RENAMEAT2 is not None:
        if _RENAMEAT2(_AT_FDCWD, os.fsencode(staged), _AT_FDCWD, os.fsencode(target), _RENAME_EXCHANGE) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
            raise OSError(code, os.strerror(code), str(target))
    _two_renames(staged, target)


def _two_renames(staged: Path, target: Path) -> None:
    """The portable swap: old aside, new in, old to the staged name. A kill between the
    first two renames leaves ``target`` missing; :func:`recover` then renames the staged
    tree in (it still has the journal's inode)."""
    aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    os.rmdir(aside)
    os.replace(target, aside)
    try:
        os.replace(staged, target)
    except BaseException:
        os.replace(aside, target)  # a failed exchange changes nothing
        raise
    try:
        os.replace(aside, staged)
    except BaseException:
        os.replace(target, staged)
        os.replace(aside, target)
        raise


# --- which folders a build may replace --------------------------------------------

MARKER = ".evidencepress-output"
MARKER_TEXT = b"This folder is written by `evidencepress build`, which replaces it as a whole.\n"


@dataclass(frozen=True)
class Refusal:
    message: str
    hint: str


_OWN_FOLDER = "use a folder of its own, e.g. --out _site"


def refusal(out: Path, root: Path, reserved: frozenset[str], force: bool) -> Refusal | None:
    """Why the build must not replace ``out`` with the site, or None.

    Never: the site root, a folder above it, one of its own folders (``content/``,
    ``.git/`` ...), a file or a link. Without ``force``: a folder that holds anything
    but a previous build (which carries :data:`MARKER`).
    """
    resolved, real_root = out.resolve(), root.resolve()
    if resolved == real_root or resolved in real_root.parents:
        return Refusal(f"the output folder {out} holds the site root; building there would replace it", _OWN_FOLDER)
    for own in sorted(reserved):
        if resolved == real_root / own or (real_root / own) in resolved.parents:
            return Refusal(f"the output folder {out} is the site's own {own}/", _OWN_FOLDER)
    if os.path.lexists(out) and (out.is_symlink() or not out.is_dir()):
        return Refusal(f"the output path {out} is {'a link' if out.is_symlink() else 'a file'}, not a folder",
                       _OWN_FOLDER)
    if force or not out.exists() or (out / MARKER).is_file():
        return None
    try:
        holds_files = any(out.iterdir())
    except OSError as exc:
        return Refusal(f"the output folder {out} cannot be read: {exc.strerror or exc}", _OWN_FOLDER)
    if holds_files:
        return Refusal(f"the output folder {out} holds files that evidencepress did not write; "
                       "building would replace them", "empty the folder or choose another; --force replaces it anyway")
    return None


class FilesOnDisk(Mapping[str, bytes]):
    """The files under ``target`` by POSIX relative path, each read when looked up (for `check`, which
    compares them one at a time: it held all of exports/, 164 MB at 5,000 articles, beside what it made)."""

    def __init__(self, target: Path) -> None:
        self._paths = ({path.relative_to(target).as_posix(): path for path in sorted(target.rglob("*")) if path.is_file()}
                       if target.is_dir() else {})

    def __getitem__(self, rel: str) -> bytes:
        return self._paths[rel].read_bytes()

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)
