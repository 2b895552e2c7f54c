"""One cache of pickled values by key, in an SQLite database file (see caches.py).

Each entry is stored sealed (``core.seal``: a keyed digest of the database's name, the key and
the bytes) and read back only when its seal holds, through a reader that admits value types
only (``safepickle``): a damaged, moved, edited or foreign entry is a miss, counted in
``discarded``, and what it held is made again.

Entries go in with transactions, which are atomic (a process killed while it
commits leaves the database as it was), and cost no file per entry; a build
writes its entries in batches as it goes (``begin``), so that it never holds
them all and other processes (a dev server) are never kept waiting long;
sizes and use times are kept apart from the values, so marking entries used
rewrites small rows and pruning reads no value. A database that is damaged,
locked or foreign only costs time: reads miss and the next commit replaces it.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ..core.seal import seal, unseal
from . import safepickle

K = TypeVar("K")

BUSY_SECONDS = 5.0  # how long to wait for another process (a serve and a build of one site) before giving up
BATCH_BYTES = 16 << 20  # after begin(), what is saved is written once this much is held
LOAD_BATCH = 250  # the keys ``load_many`` reads in one query (below SQLite's oldest bound of 999 parameters)
# The values and their sizes and use times are apart: marking thousands of entries used (each build
# that reads them) rewrites small rows, never a blob, and pruning reads no blob.
_SCHEMA = (("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, size INTEGER NOT NULL, used REAL NOT NULL) "
            "WITHOUT ROWID"),
           "CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, data BLOB NOT NULL)")


class Store:
    """One cache of pickled values by key, in an SQLite database file.

    ``save`` keeps a value in memory; ``commit`` writes what was saved to the database, so
    that ``check``, which never commits, writes nothing: reading never creates the file, and a
    missing file is a miss. A store kept across rebuilds (``serve``) answers from memory first,
    then from the database. ``path`` None: memory only. After ``begin`` (a build), what is
    saved is written in a transaction of its own whenever BATCH_BYTES are held: a large site's
    pages are neither held until the end nor read back then, and the write lock is held only
    while a batch is written. A build that fails or is killed leaves the batches it wrote (each
    entry is right for its key: a later build may use it) and ``rollback`` drops the rest.

    The connection is opened at the first read (or commit), never at import, and is shared by
    the threads that use the store (the dev server rebuilds in its watcher's thread) under a
    lock. Forked build workers never use it. ``close`` closes it; so does garbage collection.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._memory: dict[str, bytes] = {}
        self._pending: set[str] = set()
        self._later: dict[str, Callable[[], Any]] = {}
        self._used: set[str] = set()
        self._lock = threading.Lock()  # guards the connection
        self._db: sqlite3.Connection | None = None
        self._opened: tuple[int, int] | None = None  # the file the connection opened (device, inode)
        self._closer: weakref.finalize[[], Store] | None = None
        self._unreadable = False  # the database failed a read: reads miss until a commit replaces it
        self._batches = False  # begin() was called: what is saved is written in batches
        self._held = 0  # bytes saved and not yet written
        self.discarded = 0  # entries read whose seal or content did not hold (see the module's docstring)
        # the values ``load`` gave, by key, when not None (a dev server: each rebuild loaded and
        # unpickled every page's rendered entry again, 0.09 s at 5,000 articles)
        self.kept: dict[str, Any] | None = None
        # the entries whose use a commit of this store has written already: a dev server's rebuild
        # wrote the use of every page's rendered entry again (5,000 updates, 0.1 s of each rebuild)
        self._marked: set[str] = set()
        # sealed entries read ahead by ``load_many``, by key (None: not in the database), until loaded
        self._fetched: dict[str, bytes | None] = {}

    @property
    def name(self) -> str:
        """What the entries are sealed with besides their keys: the database's file name."""
        return self.path.name if self.path is not None else ""

    def load(self, key: str) -> Any | None:
        if self.kept is not None and key in self.kept:
            self._used.add(key)
            return self.kept[key]
        data = self.load_pickled(key)
        if data is None:
            return None
        try:
            value = safepickle.loads(data)
        except Exception:  # noqa: BLE001 - an entry of types the cache does not admit is a miss
            self.discarded += 1
            return None
        if self.kept is not None:
            self.kept[key] = value  # a key names its value for good: the same for the next rebuild
        return value

    def load_many(self, keys: Sequence[str]) -> Iterator[Any | None]:
        """``load`` of each key, in order; the entries are read from the database LOAD_BATCH to a
        query (a query per key was 0.3 s of an edit of 5,000 articles, which loads each page's
        outcome and its verification)."""
        for batch in self._fetched_batches(keys):
            yield from map(self.load, batch)

    def load_many_pickled(self, keys: Sequence[str]) -> Iterator[bytes | None]:
        """``load_pickled`` of each key, in order, read LOAD_BATCH to a query (see ``load_many``)."""
        for batch in self._fetched_batches(keys):
            yield from map(self.load_pickled, batch)

    def _fetched_batches(self, keys: Sequence[str]) -> Iterator[Sequence[str]]:
        """``keys`` LOAD_BATCH at a time, the sealed entries of each batch that memory does not hold
        read in one query before it is given (what an earlier batch left unread is dropped)."""
        for start in range(0, len(keys), LOAD_BATCH):
            batch = keys[start:start + LOAD_BATCH]
            wanted = [key for key in batch if key not in self._memory and (self.kept is None or key not in self.kept)]
            self._fetched = dict.fromkeys(wanted)
            if wanted:
                marks = ", ".join("?" * len(wanted))
                self._fetched.update(self._rows(f"SELECT key, data FROM blobs WHERE key IN ({marks})", wanted))
            yield batch

    def has(self, key: str) -> bool:
        """Whether ``load`` would find an entry (it may still be unreadable)."""
        return key in self._memory or self._query("SELECT 1 FROM blobs WHERE key = ?", key) is not None

    def load_pickled(self, key: str) -> bytes | None:
        """The entry's bytes as saved, not unpickled; None on a miss (a stored entry whose seal
        does not hold is one: counted in ``discarded``)."""
        data = self._memory.get(key)
        if data is None:
            sealed = (self._fetched.pop(key) if key in self._fetched
                      else self._query("SELECT data FROM blobs WHERE key = ?", key))
            if not isinstance(sealed, bytes):
                return None
            data = unseal(self.name, key, sealed)
            if data is None:
                self.discarded += 1
                return None
            self._used.add(key)
        return data

    def mark_used(self, key: str) -> None:
        """Count the entry as used by this build (pruning keeps it longest) without reading it."""
        self._used.add(key)

    def save(self, key: str, value: Any) -> None:
        data = safepickle.dumps(value)
        if data is not None:
            self.save_pickled(key, data)
            if self.kept is not None:
                self.kept[key] = value  # what ``load`` gives back

    def save_pickled(self, key: str, data: bytes) -> None:
        """Save a value pickled elsewhere (by a worker process)."""
        self._memory[key] = data
        self._pending.add(key)
        self._held += len(data)
        if self._batches and self._held >= BATCH_BYTES:
            self._write_pending([], [])

    def begin(self) -> None:
        """From now until ``commit`` or ``rollback``, write what is saved whenever BATCH_BYTES are
        held (a build)."""
        self._batches = self.path is not None

    @property
    def writes_as_it_goes(self) -> bool:
        """Is what is saved now written before the commit (``begin``)?"""
        return self._batches

    def rollback(self) -> None:
        """Drop what was saved and not yet written (a failed build); end ``begin``."""
        for key in self._pending:
            self._memory.pop(key, None)
        self._pending.clear()
        self._later.clear()
        self._used.clear()
        self._batches, self._held = False, 0

    def save_later(self, key: str, value: Callable[[], Any], now: Any = None) -> None:
        """Save what ``value()`` returns, at commit: for values the build holds anyway (rendered
        files), so that they are not held twice, once pickled, until the build is done. ``now``:
        the value itself, in hand, which a store that writes as it goes (``begin``) saves at once
        (it is then never held, nor asked for again)."""
        if now is not None and self._batches:
            self.save(key, now)
        else:
            self._later[key] = value

    def commit(self) -> None:
        """Write the values saved since the last commit in one transaction (a build killed meanwhile
        leaves the database as it was), and mark the entries read since then as used now:
        ``prune_store`` keeps them longest. Each ``save_later`` value is asked for, pickled and
        inserted before the next is asked for, so a site's rendered files are never all held; the
        values given to ``save`` leave memory when the commit ends. A cache only saves time: a
        database locked by another process past ``BUSY_SECONDS``, a full disk or a read-only file
        leave this commit unwritten, and a damaged database (or a file that is not one) is
        replaced by a new one, into which the commit is written again. An exception raised by a
        ``save_later`` callable rolls the transaction back and propagates, but for an ``OSError``,
        which only leaves the commit unwritten."""
        self._batches = False
        later = sorted(self._later.items())
        self._later = {}
        if self.path is None:
            for key, value in later:
                self.save(key, value())
            self._used.clear()
            return
        used = sorted(self._used.difference(self._pending, self._marked, (key for key, _ in later)))
        written = [*self._pending, *(key for key, _ in later), *used]
        try:
            if self._write_pending(later, used):
                # an entry written now is used now too: a dev server's first rebuild after a start
                # that rendered the site marked all 5,000 rendered entries used again (0.1 s)
                self._marked.update(written)
        finally:
            self._used.clear()

    def _write_pending(self, later: list[tuple[str, Callable[[], Any]]], used: list[str]) -> bool:
        """Write the values saved and not yet written, and ``later`` and ``used`` (see commit), in
        one transaction; the saved values leave memory, written or not. Whether they were written."""
        pending = sorted(self._pending)
        written = False
        try:
            with self._lock:
                for attempt in range(2):
                    try:
                        self._write(later, pending, used)
                    except (sqlite3.Error, OSError) as exc:
                        if attempt or not _damaged(exc):
                            break  # locked by another process, disk full, read-only...: left as it is
                        self._replace()  # once more, into a new database (asking for each later value again)
                    else:
                        self._unreadable = False
                        written = True
                        break
        finally:
            for key in pending:
                self._memory.pop(key, None)
            self._pending.clear()
            self._held = 0
        return written

    def close(self) -> None:
        """Close the connection (a later read or commit opens it again)."""
        with self._lock:
            self._close()

    def _write(self, later: list[tuple[str, Callable[[], Any]]], pending: list[str], used: list[str]) -> None:
        """One transaction; rolled back on any error or exception, which propagates."""
        db = self._writer()
        now = time.time()
        try:
            db.execute("BEGIN IMMEDIATE")  # waits for another process's commit, up to BUSY_SECONDS
            for statement in _SCHEMA:
                db.execute(statement)
            for key, value in later:
                data = safepickle.dumps(value())
                if data is not None:
                    _insert(db, key, seal(self.name, key, data), now)
                del data  # before the next value is asked for
            for key in pending:
                _insert(db, key, seal(self.name, key, self._memory[key]), now)
            db.executemany("UPDATE entries SET used = ? WHERE key = ?", ((now, key) for key in used))
            db.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    def _query(self, sql: str, key: str) -> Any | None:
        """The first column of the first row ``sql`` finds for ``key``; None on a miss or any error."""
        rows = self._rows(sql, [key])
        return rows[0][0] if rows else None

    def _rows(self, sql: str, params: Sequence[str]) -> list[Any]:
        """The rows ``sql`` finds with ``params``; none on a miss or any error."""
        if self.path is None or self._unreadable:
            return []
        with self._lock:
            try:
                db = self._reader()
                if db is None:
                    return []
                return db.execute(sql, params).fetchall()  # fetched whole: no statement left holding a lock
            except (sqlite3.Error, OSError) as exc:
                self._unreadable = not _busy(exc)  # damaged, say: a miss, not an error each time
                return []

    def _reader(self) -> sqlite3.Connection | None:
        """The connection, opened if the database exists (reading never creates it)."""
        if self._db is None and self.path is not None and self.path.is_file():
            self._open(create=False)
        return self._db

    def _writer(self) -> sqlite3.Connection:
        """The connection, creating the database if it does not exist (page size and incremental
        vacuum are set before anything is written: they can be changed only then). A database
        removed or replaced since it was opened (``rm -rf .cache`` beside ``serve``) is opened anew."""
        assert self.path is not None
        if self._db is not None and self._opened != _identity(self.path):
            self._close()
        if self._db is None:
            self._open(create=True)
        assert self._db is not None
        (pages,), = self._db.execute("PRAGMA page_count").fetchall()
        if pages == 0:  # new (setting them on an existing database would write its header)
            self._db.execute("PRAGMA page_size = 16384")  # a blob leaves at most a page part unused
            self._db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # prune_store gives the space back
        return self._db

    def _open(self, create: bool) -> None:
        assert self.path is not None
        db = _connect(self.path, create)
        self._db, self._opened = db, _identity(self.path)
        self._closer = weakref.finalize(self, db.close)

    def _close(self) -> None:
        if self._closer is not None:
            self._closer()
        self._db = self._closer = None

    def _rollback(self) -> None:
        if self._db is not None and self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                self._close()

    def _replace(self) -> None:
        """Remove the database file (and any journal, which would otherwise be played into the new one)."""
        self._close()
        self._marked.clear()
        assert self.path is not None
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)


def _insert(db: sqlite3.Connection, key: str, data: bytes, now: float) -> None:
    db.execute("INSERT OR REPLACE INTO blobs (key, data) VALUES (?, ?)", (key, data))
    db.execute("INSERT OR REPLACE INTO entries (key, size, used) VALUES (?, ?, ?)", (key, len(data), now))


def _connect(path: Path, create: bool) -> sqlite3.Connection:
    """A connection to the database at ``path``; created when ``create``, else it must exist.
    Autocommit (transactions are explicit), usable from any thread (callers lock), and no sync to
    disk: a cache lost to a power cut is a miss (a damaged database is replaced)."""
    if create:
        path.parent.mkdir(parents=True, exist_ok=True)
    uri = f"{path.absolute().as_uri()}?mode={'rwc' if create else 'rw'}"
    db = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
    try:
        db.execute("PRAGMA synchronous = OFF")
        db.execute("PRAGMA journal_mode = DELETE").fetchall()
    except sqlite3.Error:
        db.close()
        raise
    return db


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_dev, status.st_ino


def _busy(exc: BaseException) -> bool:
    """The database is locked by another connection (past the busy timeout): not damaged."""
    return _code(exc) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _damaged(exc: BaseException) -> bool:
    """Not a database, a damaged one, or one whose table is not this version's (the statements
    are fixed: an SQL error is a foreign schema). A full disk, a read-only file, a lock: not damaged."""
    return _code(exc) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_ERROR)


def _code(exc: BaseException) -> int | None:
    """The primary SQLite result code of an sqlite3 error; None for any other exception."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def evict_oldest(entries: Sequence[tuple[K, int]], bound: int, remove: Callable[[K], bool]) -> int:
    """The pruning rule of every cache: when ``entries`` ((key, size), least recently used first;
    those the build used are not among them) total more than ``bound`` bytes, ``remove`` them in
    that order until they total at most 3/4 of it (an entry ``remove`` could not remove does
    not count). Returns the number removed."""
    total = sum(size for _, size in entries)
    if total <= bound:
        return 0
    removed = 0
    for key, size in entries:
        if total <= bound * 3 // 4:
            break
        if remove(key):
            total -= size
            removed += 1
    return removed


def prune_store(path: Path, bound: int, used_since: float | None = None) -> int:
    """Remove the least recently used entries of the database at ``path`` until it holds at most
    3/4 of ``bound`` bytes besides those used since ``used_since`` (only when it holds more than
    ``bound`` besides them), and give the space back to the file system. Returns the number of
    entries removed; a missing, locked or damaged database removes none (and is not created)."""
    if not path.is_file():
        return 0
    try:
        db = _connect(path, create=False)
    except sqlite3.Error:
        return 0
    try:
        return _prune_entries(db, bound, used_since)
    except sqlite3.Error:
        return 0
    finally:
        db.close()


def _prune_entries(db: sqlite3.Connection, bound: int, used_since: float | None) -> int:
    older = "WHERE used < ?" if used_since is not None else ""
    arguments = (used_since,) if used_since is not None else ()
    (total,), = db.execute(f"SELECT coalesce(sum(size), 0) FROM entries {older}", arguments).fetchall()
    if total <= bound:
        return 0
    db.execute("BEGIN IMMEDIATE")
    try:
        doomed: list[tuple[str]] = []

        def doom(key: str) -> bool:
            doomed.append((key,))
            return True

        # Summed again inside the transaction: no other process writes now.
        rows = db.execute(f"SELECT key, size FROM entries {older} ORDER BY used, key", arguments).fetchall()
        evict_oldest(rows, bound, doom)
        db.executemany("DELETE FROM entries WHERE key = ?", doomed)
        db.executemany("DELETE FROM blobs WHERE key = ?", doomed)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    with contextlib.suppress(sqlite3.Error):
        db.executescript("PRAGMA incremental_vacuum;")  # the freed pages leave the file (execute() frees one)
    return len(doomed)
