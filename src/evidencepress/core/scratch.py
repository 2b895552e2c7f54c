"""A build's scratch folders in the system's temporary folder, and what killed builds left there.

A ``tempfile.TemporaryDirectory`` is removed when its block ends, but a build killed with SIGKILL
ends no block: its folder stayed in the temporary folder for good, with whatever it held (the
pickled record pages of a large site, tens of MB each; on many systems that folder is memory).
So each scratch folder is locked while its build uses it (``flock``: the kernel releases the
lock however the process ends), and making one first removes the folders of ours that nobody
holds. A folder is only taken for abandoned once it has not changed for a minute: a folder that
new may be between its making and its lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

PREFIX = "evidencepress-"
KINDS = ("records", "drawings")
ABANDONED_AFTER_SECONDS = 60.0
_OURS = re.compile(rf"{re.escape(PREFIX)}(?:{'|'.join(KINDS)})-")


@contextlib.contextmanager
def scratch_folder(kind: str) -> Iterator[Path]:
    """A new folder ``evidencepress-<kind>-*`` in the temporary folder, held (locked) until the
    block ends and then removed; the abandoned folders of killed builds are removed first."""
    assert kind in KINDS, kind
    parent = Path(tempfile.gettempdir())
    remove_abandoned(parent)
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{kind}-", dir=parent))
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)  # just made: nobody else holds it
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        os.close(descriptor)


def remove_abandoned(parent: Path, now: float | None = None) -> list[Path]:
    """Remove each scratch folder of ours in ``parent`` that no process holds and that is older
    than ``ABANDONED_AFTER_SECONDS``; the folders removed. Another user's folders, and anything
    that cannot be read or locked, are left alone."""
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        entries = [entry for entry in os.scandir(parent) if _OURS.match(entry.name)]
    except OSError:
        return removed
    for entry in entries:
        with contextlib.suppress(OSError):
            if _abandoned(entry, now) and _removed_unless_held(Path(entry.path)):
                removed.append(Path(entry.path))
    return removed


def _abandoned(entry: os.DirEntry[str], now: float) -> bool:
    if not entry.is_dir(follow_symlinks=False):
        return False
    status = entry.stat(follow_symlinks=False)
    return status.st_uid == os.getuid() and now - status.st_mtime > ABANDONED_AFTER_SECONDS


def _removed_unless_held(folder: Path) -> bool:
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # a build that runs holds it
        shutil.rmtree(folder, ignore_errors=True)
        return not folder.exists()
    finally:
        os.close(descriptor)
