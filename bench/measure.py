"""One command timed as a whole process tree: wall time, CPU seconds of every process it started, memory.

The bench makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``): a process the command started
and left behind (a fork server, the chart workers it forked, Pagefind) is re-parented to the bench
and reaped by it, so ``RUSAGE_CHILDREN`` counts the CPU time of the whole tree, children included,
when the run ends. A sampler reads ``/proc/<pid>/smaps_rollup`` of every process of the tree
every 50 ms: the peak of their PSS summed (shared pages counted once) and the largest RSS of one.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median

PR_SET_CHILD_SUBREAPER = 36
SAMPLE_SECONDS = 0.05


@dataclass(frozen=True)
class Timing:
    seconds: float
    cpu_seconds: float  # user and system of every process of the tree
    pss_mb: float  # the peak of the tree's PSS, summed over its processes
    largest_mb: float  # the largest RSS of one process of the tree
    ok: bool


def become_subreaper() -> None:
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def run(command: list[str], cwd: Path | None = None) -> Timing:
    """Run ``command`` to the end of its last process; see the module docstring for what is measured."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    sampler = _Sampler()
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sampler.start()
    errors: list[bytes] = []
    reader = threading.Thread(target=lambda: errors.append(process.stderr.read() if process.stderr else b""))
    reader.start()  # read while it runs: a process left behind may hold the pipe open after the command exits
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started  # the wall time of the command, as its user waits for it
    _reap_the_rest()
    sampler.stop()
    reader.join()
    stderr = b"".join(errors).decode(errors="replace")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    ok = os.waitstatus_to_exitcode(status) in (0, 1)
    if not ok:
        print(f"  ! {' '.join(command[:4])} … failed:\n{stderr[-1500:]}", file=sys.stderr)
    largest = max(sampler.largest_kb, usage.ru_maxrss) / 1024
    return Timing(elapsed, cpu, sampler.pss_kb / 1024, largest, ok)


def _reap_the_rest(timeout: float = 30.0) -> None:
    """Wait for the processes the command left behind (re-parented to the bench), up to ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.01)


class _Sampler(threading.Thread):
    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.pss_kb = 0
        self.largest_kb = 0
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(SAMPLE_SECONDS):
            self._sample()

    def stop(self) -> None:
        self._done.set()
        self.join()

    def _sample(self) -> None:
        total = 0
        for pid in _descendants(os.getpid()):
            pss, rss = _memory_kb(pid)
            total += pss
            self.largest_kb = max(self.largest_kb, rss)
        self.pss_kb = max(self.pss_kb, total)


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _memory_kb(pid: int) -> tuple[int, int]:
    """(PSS, RSS) of one process in kB; (0, 0) when it is gone."""
    values = {"Pss:": 0, "Rss:": 0}
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            name, _, rest = line.partition(" ")
            if name in values:
                values[name] = int(rest.split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return values["Pss:"], values["Rss:"]


def median_timing(timings: list[Timing]) -> Timing:
    """Each figure's median over the runs (wall and CPU medians need not come from one run)."""
    return Timing(median(t.seconds for t in timings), median(t.cpu_seconds for t in timings),
                  median(t.pss_mb for t in timings), median(t.largest_mb for t in timings),
                  all(t.ok for t in timings))
