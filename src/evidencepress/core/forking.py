"""When worker processes may be forked, and the threads that stop while they are.

Forked workers start at once with everything imported (matplotlib, the
compiled schemas), but forking while another thread runs would leave any lock
it holds held forever in the child (and Python 3.12 on warns of it:
"This process is multi-threaded, use of fork() may lead to deadlocks"). A
build runs two kinds of threads besides its own: the progress heartbeat (a log
line every few seconds) and the writer's threads, which create and write the
files of a staged output folder. Both are ``Pausable``: they register
themselves while their threads run, and every fork of this process (an
``os.register_at_fork`` hook) first ends their threads and starts them again
once the child exists, so no thread but the forking one is alive at a fork.
Any other thread (the dev server's) keeps the work in this process. Chart
drawing, which needs little of this process's memory but a lot of its own,
runs in ``drawing_context`` workers: forked while this process is small, else
started from a small server.

``ordered_map`` spreads work over worker processes (the pages of a large
site to validate and render, forked; charts to draw, in ``drawing_context``);
the results come back in order, so nothing depends on --jobs.

A worker never outlives the process that forked it: it asks the kernel for
SIGKILL when its parent dies (Linux's ``PR_SET_PDEATHSIG``; a build killed with
``kill -9`` left its drawing workers blocked forever, 85 MB each), leaves
Ctrl-C and SIGTERM to its parent, which kills its workers as soon as the work
is stopped (an interrupt, an error).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing
import os
import pickle
import signal
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing.context import BaseContext
from multiprocessing.synchronize import Lock
from pathlib import Path
from typing import Any, Protocol, TypeVar

from . import signals
from .pickled import load_each

T = TypeVar("T")
R = TypeVar("R")
K = TypeVar("K")
V = TypeVar("V")

HEARTBEAT_THREAD = "evidencepress-progress"
WRITER_THREADS = "evidencepress-write"  # the prefix of the writer's thread names
# Below this, a forked drawing worker starts faster than a server can import matplotlib; above it
# (the pages of a large site), forked workers copied most of this process (1 GB each at 5,000 pages).
FORK_BELOW_BYTES = 200 * 2**20  # the example site builds in ~110 MB; 1,000 articles pass 200 MB before drawing
THREAD_EXIT_YIELDS = 1_000  # at most this many sched_yield calls for an ended thread to leave the OS's count


class Pausable(Protocol):
    """Something that runs threads of its own which may stop for a fork."""

    def pause(self) -> None:
        """End every thread of this object (it may keep work to do after ``resume``)."""

    def resume(self) -> None:
        """Start the threads again, or let them start when next needed."""


_running: dict[int, Pausable] = {}  # by id(), in registration order: whose threads run now
_paused: dict[int, Pausable] = {}  # paused for a fork, until resume_after_forks


def pause_for_forks(owner: Pausable) -> None:
    """``owner`` runs threads: every fork of this process pauses it first (``resume_after_forks``
    starts it again)."""
    _running[id(owner)] = owner


def forget(owner: Pausable) -> None:
    """``owner``'s threads have ended for good."""
    _running.pop(id(owner), None)
    _paused.pop(id(owner), None)


def resume_after_forks() -> None:
    """The threads paused for the forks so far start again, and a signal held meanwhile is raised:
    call it once the workers are started.
    (Not at once after each fork: Python 3.13 counts the threads for its warning after the
    ``after_in_parent`` hooks, and a pool forks all its workers one after the other.)"""
    while _paused:
        _, owner = _paused.popitem()
        if id(owner) in _running:
            owner.resume()
    signals.raise_held()  # a signal that came during a fork stops the work now


def _pause_all() -> None:
    """Before a fork: every registered thread ends (and has left the process, as the OS counts)."""
    if not _running:
        return
    counted, alive = _os_threads(), threading.active_count()
    for key, owner in list(_running.items()):
        owner.pause()
        _paused[key] = owner
    if counted is not None:
        left = counted - (alive - threading.active_count())  # the OS's count once the ended threads are gone
        for _ in range(THREAD_EXIT_YIELDS):  # a joined thread may take a moment more to leave it (Python 3.12)
            if (_os_threads() or 0) <= left:
                break
            os.sched_yield()


_forked_by = os.getpid()  # set before each fork: the parent a child must die with


def _before_fork() -> None:
    global _forked_by
    _forked_by = os.getpid()
    signals.hold()  # until every hook of the fork has run (see ``_after_in_parent``)
    _pause_all()


def _after_in_parent() -> None:
    """Registered after ``logging``'s hooks (imported by ``concurrent.futures``), so it runs last."""
    signals.release()


def _in_child() -> None:
    """In the child: the threads were not copied, and nothing of the parent's is resumed here.
    It is a worker, which dies with its parent and leaves the signals to it."""
    _running.clear()
    _paused.clear()
    signals.forget_held()
    _become_worker(_forked_by)


PR_SET_PDEATHSIG = 1


def _become_worker(parent: int | None) -> None:
    """SIGKILL when the parent dies, no Ctrl-C (the terminal sends it to every process of the
    group: the parent stops the workers, which would print a traceback each) and SIGTERM's
    default (not the parent's handler, inherited). ``parent`` None: whoever the parent is now."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(parent)


def die_with_parent(parent: int | None) -> None:
    """This process gets SIGKILL when its parent dies (Linux; elsewhere, nothing happens).
    ``parent``: the pid it must still have (None: any)."""
    if _LIBC is None or _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL) != 0:
        return  # not Linux: the parent kills its workers when it stops, but not when it is killed
    if parent is not None and os.getppid() != parent:
        os._exit(1)  # the parent died before the request was made: nobody would kill this process


def _libc() -> ctypes.CDLL | None:
    try:
        library = ctypes.CDLL(None, use_errno=True)
        library.prctl  # noqa: B018 -- only Linux has it
    except (OSError, AttributeError):
        return None
    return library


_LIBC = _libc()


def give_back_memory() -> None:
    """Return the memory freed in the middle of the heap to the OS (glibc's ``malloc_trim``; elsewhere
    nothing). Freeing gives back only the heap's top: 130 MB of page texts let go stayed this
    process's, and every worker forked afterwards shared them in its count."""
    trim = getattr(_LIBC, "malloc_trim", None)
    if trim is not None:
        trim(0)


def _os_threads() -> int | None:
    """The threads of this process as the OS counts them (Linux), else None."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


# numpy's OpenBLAS starts a thread per core when imported (by matplotlib, when a chart is drawn in this
# process), and a thread this process cannot pause means no forked workers for the pages after it.
# Drawing multiplies no large matrices: one BLAS thread, unless the environment asks for more.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_in_parent, after_in_child=_in_child)


@contextlib.contextmanager
def collector(enabled: bool, restore: bool = True) -> Iterator[None]:
    """The cyclic garbage collector on or off until the block ends (workers forked meanwhile
    inherit it). A build and a check run with it off: they make millions of objects that live
    until the end (pages, tokens, rows) and hold no garbage cycles to speak of, and the collector
    walked them again and again (7 % of a build of 5,000 articles, for 2 % more memory at its
    peak). Drawing runs with it on: every matplotlib figure is a cycle of artists. Without
    ``restore`` it stays as the block set it (a process that ends with the block: turned on again,
    the collector's first pass walks every object the block made and still holds)."""
    was = gc.isenabled()
    _set_collector(enabled)
    try:
        yield
    finally:
        if restore:
            _set_collector(was)


def _set_collector(enabled: bool) -> None:
    if enabled:
        gc.enable()
    else:
        gc.disable()


def fork_is_safe() -> bool:
    """Fork is available (POSIX) and no thread but the heartbeat and the writer's (which pause
    for every fork) runs beside this one: none that Python started, nor one it does not know of
    (a native library's, such as OpenBLAS's once numpy is imported, or a test runner's)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    others = [t for t in threading.enumerate() if t is not threading.current_thread()]
    return threading.current_thread() is threading.main_thread() and not _unknown_threads() and all(
        t.name == HEARTBEAT_THREAD or t.name.startswith(WRITER_THREADS + "_") for t in others)


def _unknown_threads() -> bool:
    """The OS counts more threads in this process than ``threading`` knows of, and goes on
    counting them (a thread just joined can take a moment more to leave the OS's count)."""
    for _ in range(THREAD_EXIT_YIELDS):
        counted = _os_threads()
        if counted is None or counted <= threading.active_count():
            return False
        os.sched_yield()
    return True


def drawing_context(preload: Sequence[str] = ()) -> BaseContext:
    """For workers that need little of this process: ``fork`` while this process is small (they
    start at once, and there is little for them to copy), else ``lean_context``."""
    if fork_is_safe() and _peak_resident_bytes() < FORK_BELOW_BYTES:
        return multiprocessing.get_context("fork")
    return lean_context(preload)


def _peak_resident_bytes() -> int:
    """This process's peak memory: Linux's VmHWM (its own), else ru_maxrss, which Linux carries over
    from the parent across fork and exec (a build started by a large process, a test runner, took
    the fork server's path however small it was)."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii", errors="replace").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux (bytes on macOS: larger)


def lean_context(preload: Sequence[str] = ()) -> BaseContext:
    """Workers that do not inherit this process's memory (the validated pages of a large site,
    which a forked worker's garbage collector would copy page by page): forked from a small
    server process that imported ``preload`` once (``forkserver``), or ``spawn`` where there is
    none. Safe whatever threads run."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    # the guard makes the server die with this process; this module's fork hook makes its children workers
    context.set_forkserver_preload([f"{__package__}.forkserver_guard", __name__, *preload])  # read when the server starts: once per process
    return context


_job: tuple[Callable[[Any], Any], Sequence[Any]] | None = None  # in a worker: what it runs
_apart: Lock | None = None  # in a worker: held by the one whose child runs work apart (``spill``)
APART_WAIT_SECONDS = 600.0  # then the work goes apart anyway: a lock never given back stops nothing


def ordered_map(function: Callable[[T], R], items: Sequence[T], jobs: int, min_per_worker: int = 32,
                chunk: int = 8, in_flight: int = 2, context: BaseContext | None = None, heavy: int = 0,
                renew_after: int | None = None) -> Iterator[R]:
    """``function`` over ``items``, results in order, on up to ``jobs`` worker processes.
    The first ``heavy`` items (the slowest, put first so that lighter ones fill the workers
    around them) go one to a chunk, the others ``chunk`` at a time.

    Forked workers (the default, when fork is safe) inherit ``function`` and ``items``: nothing
    is pickled but indexes and results, so ``function`` may be a closure over compiled schemas
    or templates. With ``renew_after``, fresh workers are forked for every run of about that many
    items: a forked worker copies each page of memory it touches (reading an object writes its
    reference count), so one that renders every other article of 5,000 ends up holding a copy of
    most of the site. Workers of another ``context`` (``lean_context``) are sent each chunk's items
    and a module-level ``function``. At most ``in_flight`` chunks per worker are under way or
    waiting: memory is bounded by the pool, not by the site.

    The work stays in this process, one item after another, when there are no workers to use
    or the items are few; and from the first chunk that fails (a worker died, ``function``
    raised) on, so that a failure shows like any other.
    """
    workers = pool_size(jobs, len(items), min_per_worker)
    if workers > 1 and (context is None or context.get_start_method() == "fork"):
        # asked only when there is work for workers: it counts the process's threads, and waits
        # for those that are ending (a dev server's rebuild of one page paid 40 ms for it)
        context = multiprocessing.get_context("fork") if fork_is_safe() else None
    done = 0
    if workers > 1 and context is not None:
        for chunks in _generations(_chunks(len(items), chunk, heavy), len(items), renew_after):
            for result in _in_workers(function, items, workers, chunks, in_flight, context):
                yield result
                done += 1
            start, size = chunks[-1]
            if done < start + size:  # a chunk failed: the rest is done here
                break
    for item in items[done:]:
        yield function(item)


def pool_size(jobs: int, items: int, min_per_worker: int = 1) -> int:
    """Worker processes: what was asked, but never more than the machine's CPUs, nor one for
    fewer than ``min_per_worker`` items. (``--jobs 64`` on a 2-core machine once started 64
    matplotlib processes: 5 GB for 300 charts.)"""
    return max(1, min(jobs, os.cpu_count() or 1, items // max(1, min_per_worker)))


def _chunks(count: int, chunk: int, heavy: int) -> list[tuple[int, int]]:
    """(start, size) of each chunk of ``count`` items: the first ``heavy`` alone, then ``chunk`` at a time."""
    alone = min(heavy, count)
    return [(start, 1) for start in range(alone)] + [(start, min(chunk, count - start))
                                                     for start in range(alone, count, chunk)]


def _generations(chunks: list[tuple[int, int]], count: int, renew_after: int | None) -> list[list[tuple[int, int]]]:
    """The chunks split into runs of about ``renew_after`` items, as even as the chunks allow, each
    for a pool of its own (one run when ``renew_after`` is None)."""
    runs = 1 if renew_after is None else max(1, min(len(chunks), round(count / renew_after)))
    return [chunks[len(chunks) * run // runs:len(chunks) * (run + 1) // runs] for run in range(runs)]


def _in_workers(function: Callable[[T], R], items: Sequence[T], workers: int, chunks: list[tuple[int, int]],
                in_flight: int, context: BaseContext) -> Iterator[R]:
    """Results from the workers, in order, until all are done or a chunk fails (the caller
    does the rest in this process: an exception then carries its own traceback, which a
    template error needs for its line, and a dead worker is not fatal). Stopped early (an
    interrupt, the caller gave up), the workers are killed: nothing waits for their chunks."""
    todo = iter(chunks)
    inherit = context.get_start_method() == "fork"  # then initializer arguments are inherited, never pickled
    setup: dict[str, Any] = ({"initializer": _receive, "initargs": (function, items, context.Lock())} if inherit
                             else {"initializer": _become_worker, "initargs": (None,)})
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, **setup)

    def submit(start: int, size: int) -> Future[list[R]]:
        if inherit:
            return pool.submit(_run_chunk, start, size)
        return pool.submit(_call_each, function, items[start:start + size])

    pending: deque[Future[list[R]]] = deque()
    _pools[id(pool)] = pool
    try:
        while True:
            try:  # a broken pool raises on submit as well as on result
                while len(pending) < in_flight * workers and (next_chunk := next(todo, None)) is not None:
                    pending.append(submit(*next_chunk))
                resume_after_forks()  # the workers are forked by the first submit
                if not pending:
                    break
                results = pending.popleft().result()
            except Exception:  # noqa: BLE001 -- BrokenProcessPool, or the function failed: redone here
                pool.shutdown(wait=True, cancel_futures=True)
                return
            yield from results
    except BaseException:  # an interrupt, or the generator closed before its end
        stop_workers(pool)
        raise
    finally:
        _pools.pop(id(pool), None)
    pool.shutdown(wait=True)


_pools: dict[int, ProcessPoolExecutor] = {}  # by id(): the pools of the ordered_map calls under way


def stop_all_workers() -> None:
    """Kill the workers of every ``ordered_map`` under way. For an interrupt: it may stop the
    process while the consumer of a map's results runs, and the map (a suspended generator, kept
    by the traceback) would not be closed before the process exits."""
    while _pools:
        _, pool = _pools.popitem()
        stop_workers(pool)


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's processes at once and wait until they are gone (shutdown alone waits for
    every chunk submitted). The executor keeps its processes in ``_processes``: there is no
    public way before Python 3.14's ``kill_workers``."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        with contextlib.suppress(OSError, ValueError):
            process.kill()
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            process.join()
    try:
        pool.shutdown(wait=True, cancel_futures=True)
    except RuntimeError:  # a signal landed inside the start of the pool's manager thread: none to join
        pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class Spilled:
    """A result that a child of a worker left in a file (``spill``), for ``unspill``."""

    path: str


def spill(pairs: Callable[[], Iterable[tuple[K, V]]], path: str) -> dict[K, V] | Spilled:
    """``dict(pairs())``, in a worker of ``ordered_map``: made in a child forked for it, which
    pickles each pair into the new file ``path`` as it comes and exits; the worker returns
    Spilled(path), which the pool carries instead of the dict, and the process that asked reads it
    back with ``unspill`` when it takes it. What the child allocates, and what of the worker's
    memory it touches (copied on write: the data of every page it reads), leaves with it, and the
    result waits on disk, not in memory. A record page of a large site shows every result of the
    thousands of articles that cite it (50 MB of files): a worker that rendered one kept 300 MB of
    its own for the rest of the build, and the main process held four at a time as they came back.
    Anywhere else (this process, or a child that failed: the exception is then raised here, with
    its own traceback) the dict is made here."""
    if _job is None or not hasattr(os, "fork"):
        return dict(pairs())
    held = _apart is not None and _apart.acquire(timeout=APART_WAIT_SECONDS)
    try:
        child = _fork_apart(pairs, path)
        _, status = os.waitpid(child, 0)
    finally:
        if held and _apart is not None:
            _apart.release()
    if status != 0:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return dict(pairs())
    return Spilled(path)


def _fork_apart(pairs: Callable[[], Iterable[tuple[K, V]]], path: str) -> int:
    """The pid of a child that pickles ``pairs()`` into ``path``, exiting with 0 once all are there."""
    child = os.fork()
    if child == 0:  # the child: a worker forked by ordered_map has no other thread
        code = 1
        try:
            with open(path, "xb") as file:
                for pair in pairs():  # one at a time: a file made waits on disk while the next is made
                    pickle.dump(pair, file, protocol=pickle.HIGHEST_PROTOCOL)
            code = 0
        finally:
            os._exit(code)  # never the worker's own exit path: its queues are the parent's
    return child


def unspill(result: dict[K, V] | Spilled) -> dict[K, V]:
    """The dict itself: read back from its file (removed then) when it was spilled."""
    if not isinstance(result, Spilled):
        return result
    with open(result.path, "rb") as file:
        value: dict[K, V] = dict(load_each(file))
    os.unlink(result.path)
    return value


def _call_each(function: Callable[[T], R], items: Sequence[T]) -> list[R]:
    return [function(item) for item in items]


def _receive(function: Callable[[Any], Any], items: Sequence[Any], apart: Lock) -> None:
    global _job, _apart
    _job = (function, items)  # (a forked worker: the fork hook made it one already)
    _apart = apart


def _run_chunk(start: int, size: int) -> list[Any]:
    assert _job is not None, "workers are forked by ordered_map"
    function, items = _job
    return [function(item) for item in items[start:start + size]]
