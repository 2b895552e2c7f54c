"""One cache of pickled values by key, in an SQLite database file (see cache.py).

A build's entries go in with one transaction, which is atomic (a build killed
before it commits leaves the previous database), and cost no file per entry; a
build opens it at its first entry and writes each entry as it comes (``begin``);
sizes and use times are kept apart from the values, so marking entries used
rewrites small rows and pruning reads no value. A database that is damaged,
locked or foreign only costs time: reads miss and the next commit replaces it.
"""

from __future__ import annotations

import contextlib
import pickle
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

K = TypeVar("K")

BUSY_SECONDS = 5.0  # how long to wait for another process (a serve and a build of one site) before giving up
# The values and their sizes and use times are apart: marking thousands of entries used (each build
# that reads them) rewrites small rows, never a blob, and pruning reads no blob.
_SCHEMA = (("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, size INTEGER NOT NULL, used REAL NOT NULL) "
            "WITHOUT ROWID"),
           "CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, data BLOB NOT NULL)")


class Store:
    """One cache of pickled values by key, in an SQLite database file.

    ``save`` keeps a value in memory; ``commit`` writes what was saved to the database, so
    that a failed build writes nothing (and ``check``, which never commits, neither): reading
    never creates the file, and a missing file is a miss. A store kept across rebuilds
    (``serve``) answers from memory first, then from the database. ``path`` None: memory only.
    After ``begin`` (a build), each value saved goes into the database at once, inside one
    transaction that ``commit`` ends and ``rollback`` drops: a large site's pages are neither
    held until the end nor read back then, and a failed build still writes nothing.

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
        self._wanted = False  # begin() was called: the transaction opens at the first value saved
        self._open_since: float | None = None  # when the transaction of begin() opened, while it is open
        self._created = False  # that transaction created the database file
        self._created_folder = False  # and the folder it is in

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
        return key in self._memory or self._query("SELECT 1 FROM blobs WHERE key = ?", key) is not None

    def load_pickled(self, key: str) -> bytes | None:
        """The entry's bytes as saved, not unpickled; None on a miss."""
        data = self._memory.get(key)
        if data is None:
            data = self._query("SELECT data FROM blobs WHERE key = ?", key)
            if not isinstance(data, bytes):
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
        if self.writes_at_once() and self._insert_now(key, data):
            return
        self._memory[key] = data
        self._pending.add(key)

    def begin(self) -> None:
        """Write each value saved from now on at once, inside one transaction that ``commit``
        ends and ``rollback`` drops (opened at the first value: a build that saves nothing
        creates no database). Another process's commit meanwhile waits up to BUSY_SECONDS, then
        is left unwritten. A store that cannot open it (locked, read-only, no path) keeps saving
        in memory; a damaged database is replaced first."""
        self._wanted = self.path is not None

    def writes_at_once(self) -> bool:
        """Does a value saved now go into the database at once? (The transaction of ``begin`` is
        opened here, at the first value.)"""
        if self._wanted:
            self._wanted = False  # one attempt
            with self._lock:
                self._open_transaction()
        return self._open_since is not None

    def rollback(self) -> None:
        """Drop what was saved since the last commit (a failed build), in memory and in the open
        transaction; a database that the transaction created is removed."""
        with self._lock:
            self._rollback()
            self._open_since, self._wanted = None, False
            if self._created and self.path is not None:
                self._replace()
                if self._created_folder:
                    with contextlib.suppress(OSError):
                        self.path.parent.rmdir()  # only when nothing else is in it (the chart cache)
                self._created = self._created_folder = False
        for key in self._pending:
            self._memory.pop(key, None)
        self._pending.clear()
        self._later.clear()
        self._used.clear()

    def _open_transaction(self) -> None:
        assert self.path is not None
        created, self._created_folder = not self.path.exists(), not self.path.parent.exists()
        for attempt in range(2):
            try:
                self._begin(self._writer())
            except (sqlite3.Error, OSError) as exc:
                self._rollback()
                if attempt or not _damaged(exc):
                    return
                self._replace()
                created = True
            else:
                self._open_since, self._unreadable, self._created = time.time(), False, created
                return

    def _insert_now(self, key: str, data: bytes) -> bool:
        """Into the open transaction; False when it failed (then rolled back: what was saved
        since ``begin`` is lost, a cache only saves time, and values are held for ``commit``)."""
        with self._lock:
            if self._db is None or self._open_since is None:
                return False
            try:
                _insert(self._db, key, data, self._open_since)
            except (sqlite3.Error, OSError):
                self._rollback()
                self._open_since = None
                return False
        return True

    def save_later(self, key: str, value: Callable[[], Any]) -> None:
        """Save what ``value()`` returns, at commit: for values the build holds anyway (rendered
        files), so that they are not held twice, once pickled, until the build is done."""
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
        later = sorted(self._later.items())
        self._later = {}
        if self.path is None:
            for key, value in later:
                self.save(key, value())
            self._used.clear()
            return
        pending = sorted(self._pending)
        used = sorted(self._used.difference(self._pending, (key for key, _ in later)))
        try:
            with self._lock:
                opened = self._open_since is not None and self._db is not None and self._db.in_transaction
                self._wanted, self._open_since, self._created, self._created_folder = False, None, False, False
                if opened:  # begin()'s transaction ends
                    with contextlib.suppress(sqlite3.Error, OSError):  # a full disk, say: left as it was
                        self._write(later, pending, used, opened=True)
                    return
                for attempt in range(2):
                    try:
                        self._write(later, pending, used)
                    except (sqlite3.Error, OSError) as exc:
                        if attempt or not _damaged(exc):
                            break  # locked by another process, disk full, read-only...: left as it is
                        self._replace()  # once more, into a new database (asking for each later value again)
                    else:
                        self._unreadable = False
                        break
        finally:
            for key in pending:
                self._memory.pop(key, None)
            self._pending.clear()
            self._used.clear()

    def close(self) -> None:
        """Close the connection (a later read or commit opens it again)."""
        with self._lock:
            self._close()

    def _write(self, later: list[tuple[str, Callable[[], Any]]], pending: list[str], used: list[str],
               opened: bool = False) -> None:
        """One transaction (``opened``: the one ``begin`` opened); rolled back on any error or
        exception, which propagates."""
        db = self._db if opened else self._writer()
        assert db is not None, "begin() opened it"
        now = time.time()
        try:
            if not opened:
                self._begin(db)
            for key, value in later:
                data = _pickled(value())
                if data is not None:
                    _insert(db, key, data, now)
                del data  # before the next value is asked for
            for key in pending:
                _insert(db, key, self._memory[key], now)
            db.executemany("UPDATE entries SET used = ? WHERE key = ?", ((now, key) for key in used))
            db.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    @staticmethod
    def _begin(db: sqlite3.Connection) -> None:
        db.execute("BEGIN IMMEDIATE")  # waits for another process's commit, up to BUSY_SECONDS
        for statement in _SCHEMA:
            db.execute(statement)

    def _query(self, sql: str, key: str) -> Any | None:
        """The first column of the first row ``sql`` finds for ``key``; None on a miss or any error."""
        if self.path is None or self._unreadable:
            return None
        with self._lock:
            try:
                db = self._reader()
                if db is None:
                    return None
                rows = db.execute(sql, (key,)).fetchall()  # fetched whole: no statement left holding a lock
            except (sqlite3.Error, OSError) as exc:
                self._unreadable = not _busy(exc)  # damaged, say: a miss, not an error each time
                return None
        return rows[0][0] if rows else None

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
        assert self.path is not None
        for suffix in ("", "-journal", "-wal", "-shm"):
            try:
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            except OSError:
                pass


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


def _pickled(value: Any) -> bytes | None:
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return None


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
    try:
        db.executescript("PRAGMA incremental_vacuum;")  # the freed pages leave the file (execute() frees one)
    except sqlite3.Error:
        pass
    return len(doomed)
