"""SIGINT and SIGTERM as an exception, so that every ``finally`` of a command runs.

A command runs inside ``interrupts()``: Ctrl-C (SIGINT), SIGTERM and SIGHUP
raise :class:`Interrupted` in the main thread, which unwinds the build like any
error: staged folders and temporary worktrees are removed, worker processes
are killed (``core.forking``). ``deferred()`` holds a signal back until a step
that must not be cut in two (the writer's swap) has ended. The exit code of an
interrupted command is 128 + the signal's number, as a shell reports it
(130 for Ctrl-C, 143 for SIGTERM).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

HANDLED = tuple(sig for sig in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if sig is not None)


class Interrupted(KeyboardInterrupt):
    """A signal asked the command to stop (a KeyboardInterrupt, so that what stops on Ctrl-C stops on it too)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


_deferring = 0  # how many deferred() blocks are open in the main thread
_held: list[int] = []  # signals received meanwhile


def _raise(signum: int, frame: FrameType | None) -> None:
    if _deferring:
        _held.append(signum)
        return
    raise Interrupted(signum)


@contextmanager
def interrupts() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP raise ``Interrupted`` while the block runs (in the main thread only:
    elsewhere Python cannot set handlers, and the block runs as it is)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _raise) for sig in HANDLED}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextmanager
def deferred() -> Iterator[None]:
    """A signal that arrives while the block runs is raised once it has ended (when ``interrupts``
    handles them; Python's own SIGINT handler still raises at once)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    hold()
    try:
        yield
    finally:
        signum = _release()
    if signum is not None:
        raise Interrupted(signum)


def hold() -> None:
    """Signals wait from now until ``release`` (for a fork: raised inside one of the fork's hooks,
    the exception would be printed and ignored, and the build would go on), then ``raise_held``."""
    global _deferring
    _deferring += 1


def release() -> None:
    """The end of ``hold``. A signal that came meanwhile stays held until ``raise_held``: raised in
    a fork's hook, or by a handler that runs inside one (even ``os.kill`` of this process calls it
    there), the exception would be printed and ignored."""
    global _deferring
    _deferring -= 1


def raise_held() -> None:
    """Raise the signal held by ``hold`` (outside any hold), if one came."""
    if not _deferring and _held:
        signum = _held[0]
        _held.clear()
        raise Interrupted(signum)


def forget_held() -> None:
    """In a forked child: nothing is held for it (what the parent received is the parent's)."""
    global _deferring
    _deferring = 0
    _held.clear()


def _release() -> int | None:
    global _deferring
    _deferring -= 1
    if _deferring or not _held:
        return None
    signum = _held[0]
    _held.clear()
    return signum
