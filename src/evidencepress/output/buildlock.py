"""One build of a site at a time: a lock on the site root folder itself.

Two builds of one site write the same ``exports/`` and the same journal, and
each removes the other's staged folders as leftovers of a killed build (the
second one's start deleted the first's ``._site.new-*``: "No such file or
directory"). The second build waits for the first, saying once whose build it
waits for, then goes on: its inputs are most often the first's, and it replays
that build at once. The lock is the kernel's (``flock`` on the folder): a build
killed with SIGKILL releases it, and no file is made for it (a build that
fails writes nothing at all). Linux's ``/proc/locks`` names the holder.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterator
from pathlib import Path

Waiting = Callable[[int | None], None]  # told the pid of the build waited for (None: unknown)


@contextlib.contextmanager
def one_build_at_a_time(root: Path, waiting: Waiting) -> Iterator[None]:
    """The block runs while no other build of the site at ``root`` does; ``waiting`` is called
    once, before a wait. A root that cannot be opened locks nothing: the build reports it."""
    try:
        descriptor = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waiting(_holder(os.fstat(descriptor)))
            fcntl.flock(descriptor, fcntl.LOCK_EX)  # a signal ends the wait (core.signals raises)
        yield
    finally:
        os.close(descriptor)  # releases the lock (forked workers, which share it, die with the build)


def _holder(folder: os.stat_result) -> int | None:
    """The process holding an flock on ``folder``, from ``/proc/locks`` (Linux), else None. A line
    reads ``1: FLOCK  ADVISORY  WRITE 1234 fe:00:5374191 0 EOF``: pid, then major:minor:inode."""
    wanted = f"{os.major(folder.st_dev):02x}:{os.minor(folder.st_dev):02x}:{folder.st_ino}"
    try:
        lines = Path("/proc/locks").read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == wanted and fields[4].isdigit():
            return int(fields[4])
    return None
