"""Progress of a long run on stderr: a live counter on a terminal, a line every few seconds otherwise.

A build in CI (stdout and stderr not a terminal) would otherwise print
nothing until it ends; a line such as ``progress: drawing charts 40/86 (10 s)``
every INTERVAL seconds shows it is alive without flooding the log. The
stages report through :meth:`Progress.update`, a ``StageProgress`` callback.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Self

from . import forking
from .forking import HEARTBEAT_THREAD

INTERVAL_SECONDS = 5.0

Echo = Callable[[str], None]  # writes text to stderr, no newline added
Clock = Callable[[], float]


class Progress:
    """Tracks the current stage; shows it live (terminal) or as a periodic line (log)."""

    def __init__(self, echo: Echo, terminal: bool, interval: float | None = None,
                 clock: Clock = time.monotonic) -> None:
        self._echo = echo
        self._terminal = terminal
        self._interval = INTERVAL_SECONDS if interval is None else interval
        self._clock = clock
        self._lock = threading.Lock()
        self._stage = ""
        self._done = self._total = 0
        self._started = clock()
        self._last_line = self._started
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._width = 0
        self._running = False  # between __enter__ and __exit__, the heartbeat's thread runs (but for a fork)
        self._pid = os.getpid()  # of the process whose heartbeat it is

    def update(self, stage: str, done: int, total: int) -> None:
        with self._lock:
            self._stage, self._done, self._total = stage, done, total
        if self._terminal:
            text = f"{stage} {done}/{total}" if total else stage
            self._echo("\r" + text.ljust(self._width))
            self._width = max(self._width, len(text))

    def due_line(self) -> str | None:
        """The log line to print now, or None when the last one is less than an interval old."""
        now = self._clock()
        with self._lock:
            if not self._stage or now - self._last_line < self._interval:
                return None
            self._last_line = now
            counter = f" {self._done}/{self._total}" if self._total else ""
            return f"progress: {self._stage}{counter} ({now - self._started:.0f} s)\n"

    def __enter__(self) -> Self:
        if not self._terminal:
            self._running, self._pid = True, os.getpid()
            self.resume()
            forking.pause_for_forks(self)
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        forking.forget(self)
        self._running = False
        self.pause()
        if self._terminal and self._width:
            self._echo("\r" + " " * self._width + "\r")

    def pause(self) -> None:
        """The heartbeat's thread ends (before a fork: no child starts beside it, or mid-write)."""
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None

    def resume(self) -> None:
        """The heartbeat's thread starts again (the interval runs on from the last line)."""
        if self._running and self._thread is None and self._pid == os.getpid():  # never in a forked worker
            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._heartbeat, args=(self._stop,), name=HEARTBEAT_THREAD,
                                            daemon=True)
            self._thread.start()

    def _heartbeat(self, stop: threading.Event) -> None:
        while not stop.wait(min(max(self._interval, 0.01), 1.0)):
            line = self.due_line()
            if line is not None:
                self._echo(line)
