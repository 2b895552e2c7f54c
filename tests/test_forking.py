"""Work spread over forked workers: same results in the same order as one process, whatever
dies, and never a fork beside another thread (the progress heartbeat and the writer's threads
end for each fork and start again after it)."""

from __future__ import annotations

import _thread
import functools
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sitekit import many_pages, running, tree

from evidencepress.build.validating import validate_source, validate_sources
from evidencepress.cache.caches import Store
from evidencepress.cache.pages import load_pages, save_page
from evidencepress.cli import main
from evidencepress.content.read import read_content
from evidencepress.core import forking
from evidencepress.core.forking import HEARTBEAT_THREAD, WRITER_THREADS, fork_is_safe, ordered_map
from evidencepress.output.writer import staged_folders
from evidencepress.schemas.load import load_schemas, schema_folder

PARENT = os.getpid()


@pytest.fixture
def two_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers are started on a machine of any size (a CI runner may have one core)."""
    monkeypatch.setattr(forking.os, "cpu_count", lambda: 2)


@contextmanager
def running_thread(name: str) -> Iterator[None]:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


BOTH_WORKERS = multiprocessing.get_context("fork").Barrier(2, timeout=60)  # the timeout only ends a hang
_met = False  # in a worker: it has met the other one


def meet_the_other_worker() -> None:
    """A worker's first item waits until the other worker has taken one too: neither can take
    every chunk before the other starts, however fast the items or slow the machine."""
    global _met
    if os.getpid() != PARENT and not _met:
        _met = True
        BOTH_WORKERS.wait()


def square_and_pid(number: int) -> tuple[int, int]:
    meet_the_other_worker()
    return number * number, os.getpid()


@pytest.mark.forks
def test_results_come_back_in_order_from_several_workers(two_cores: None) -> None:
    outcomes = list(ordered_map(square_and_pid, list(range(100)), jobs=2, min_per_worker=10, chunk=3))
    assert [square for square, _ in outcomes] == [n * n for n in range(100)]
    workers = {pid for _, pid in outcomes}
    assert PARENT not in workers and len(workers) == 2


def slow_first(number: int) -> tuple[int, int]:
    if number < 2:  # the two heavy items: each waits for the other, so one worker cannot draw both
        BOTH_WORKERS.wait()
    return number, os.getpid()


@pytest.mark.forks
def test_heavy_items_go_one_to_a_chunk_and_the_rest_fill_the_workers_around_them(two_cores: None) -> None:
    assert forking._chunks(10, 4, 3) == [(0, 1), (1, 1), (2, 1), (3, 4), (7, 3)]
    assert forking._chunks(2, 4, 3) == [(0, 1), (1, 1)]
    outcomes = list(ordered_map(slow_first, list(range(40)), jobs=2, min_per_worker=1, chunk=8, heavy=2))
    assert [number for number, _ in outcomes] == list(range(40))
    assert outcomes[0][1] != outcomes[1][1]  # the two slow items were drawn by different workers
    assert len({pid for _, pid in outcomes}) == 2 and PARENT not in {pid for _, pid in outcomes}


def test_few_items_or_one_job_stay_in_this_process(two_cores: None) -> None:
    assert {pid for _, pid in ordered_map(square_and_pid, list(range(10)), jobs=2, min_per_worker=32)} == {PARENT}
    assert {pid for _, pid in ordered_map(square_and_pid, list(range(100)), jobs=1, min_per_worker=1)} == {PARENT}


def die_in_a_worker_at_40(number: int) -> tuple[int, int]:
    if number == 40 and os.getpid() != PARENT:
        os._exit(9)  # a worker killed mid-chunk: the pool is broken
    return square_and_pid(number)


@pytest.mark.forks
def test_a_dead_worker_leaves_the_rest_to_this_process(two_cores: None) -> None:
    outcomes = list(ordered_map(die_in_a_worker_at_40, list(range(100)), jobs=2, min_per_worker=10, chunk=4))
    assert [square for square, _ in outcomes] == [n * n for n in range(100)]
    assert outcomes[40][1] == PARENT  # redone here, where it does not die
    assert any(pid != PARENT for _, pid in outcomes[:40])


def fail_at_40(number: int) -> tuple[int, int]:
    if number == 40:
        raise ValueError(f"item {number} fails in process {os.getpid()}")
    return square_and_pid(number)


@pytest.mark.forks
def test_a_failure_in_a_worker_is_raised_here_with_its_own_traceback(two_cores: None) -> None:
    """Redone in this process: the exception is not a pickled copy without its traceback."""
    outcomes = ordered_map(fail_at_40, list(range(100)), jobs=2, min_per_worker=10, chunk=4)
    with pytest.raises(ValueError, match=f"item 40 fails in process {PARENT}$") as raised:
        list(outcomes)
    assert "fail_at_40" in [frame.name for frame in raised.traceback]
    assert raised.value.__cause__ is None


@pytest.mark.forks
def test_a_template_error_met_in_a_worker_names_its_template_line(tmp_path: Path, two_cores: None) -> None:
    root = many_pages(tmp_path, 80)
    (root / "templates").mkdir()
    (root / "templates" / "page.html").write_text(
        '{% extends "base.html" %}\n{% block main %}\n<h1>{{ page.front.title }}</h1>\n{{ nope }}\n{% endblock %}\n')
    for jobs in ("1", "2"):
        result = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", jobs, "--no-cache"])
        assert result.exit_code == 1
        assert result.stderr.startswith(
            "templates/page.html:4:1: error: template error: 'nope' is undefined [template]\n"), jobs
        assert not (root / "_site").exists()


@pytest.mark.forks
def test_only_large_record_pages_are_rendered_apart_and_they_read_the_same(tmp_path: Path, two_cores: None,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A record page with APART_RESULTS results or more is rendered in a child of the worker; a small
    one in the worker itself (a fork for each of the 880 small records of the example articles ×40
    took 40 CPU-s). The pages are the same either way."""
    from evidencepress.build import render

    root = many_pages(tmp_path / "site", 80)  # 7 records: 3 of 12 results, 4 of 11
    spilled = tmp_path / "spilled"
    spilled.mkdir()
    spill = forking.spill

    def counted(function: Any, path: str) -> Any:
        (spilled / os.path.basename(path)).touch()  # in the worker: the test process sees the file
        return spill(function, path)

    monkeypatch.setattr(render, "spill", counted)
    built = []
    for apart in (12, 10_000):
        monkeypatch.setattr(render, "APART_RESULTS", apart)
        outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "2", "--no-cache"])
        assert outcome.exit_code == 0, outcome.output
        built.append(tree(root / "_site"))
        if apart == 12:
            assert sorted(path.name for path in spilled.iterdir()) == ["0.pickle", "1.pickle", "2.pickle"]
    assert built[0] == built[1]


@pytest.mark.forks
def test_fork_is_safe_beside_the_heartbeat_and_the_writer_only(tmp_path: Path, two_cores: None) -> None:
    assert fork_is_safe()
    with running_thread(HEARTBEAT_THREAD):
        assert fork_is_safe()
    with running_thread("a dev server thread"):
        assert not fork_is_safe()
    with staged_folders([tmp_path / "out"], tmp_path / "journal.json") as folders:
        folders[tmp_path / "out"].put("a.html", b"a")  # the writer's threads now run
        assert any(t.name.startswith(WRITER_THREADS) for t in threading.enumerate())
        assert fork_is_safe()
        pids = set(ordered_map(lambda _: os.getpid(), list(range(64)), jobs=2, min_per_worker=8))
        assert PARENT not in pids  # pages put after the first file are still rendered in workers


@pytest.mark.forks
def test_a_thread_python_does_not_know_of_keeps_work_in_this_process(two_cores: None) -> None:
    """A native library's thread (here one of ``_thread``, which ``threading`` does not list)."""
    assert fork_is_safe()
    started, stop = threading.Event(), threading.Lock()
    stop.acquire()

    def native() -> None:
        started.set()
        with stop:
            pass

    _thread.start_new_thread(native, ())
    started.wait()
    try:
        assert not fork_is_safe()
        assert {pid for _, pid in ordered_map(square_and_pid, list(range(100)), jobs=2, min_per_worker=10)} == {PARENT}
        assert forking.drawing_context().get_start_method() != "fork"
    finally:
        stop.release()
    for _ in range(1_000_000):  # until the OS has let the thread go (the next test forks again)
        if not forking._unknown_threads():
            break
        os.sched_yield()
    assert fork_is_safe()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts the threads in /proc")
def test_a_chart_drawn_in_this_process_leaves_no_thread_that_would_stop_forks() -> None:
    """numpy's OpenBLAS, imported with matplotlib, started a thread per core beside this one."""
    script = ("import os; from evidencepress.charts import drawing; from evidencepress.charts import draw; "
              "from evidencepress.core.forking import fork_is_safe; "
              "print(len(os.listdir('/proc/self/task')), fork_is_safe())")
    env = {name: value for name, value in os.environ.items() if name != "OPENBLAS_NUM_THREADS"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert result.stdout.split() == ["1", "True"]


@pytest.mark.forks
def test_a_thread_just_joined_does_not_count_as_one_python_does_not_know_of() -> None:
    """Python 3.11 and 3.12 return from join a moment before the OS thread has gone."""
    for _ in range(300):
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
        assert not forking._unknown_threads()


def test_lean_workers_are_not_children_of_this_process() -> None:
    """Chart workers start from a small server (or afresh), so they hold none of a large site."""
    context = forking.lean_context()
    with running_thread("a dev server thread"), ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        assert pool.submit(os.getppid).result() != PARENT  # safe whatever threads run


@pytest.mark.forks
def test_drawing_workers_are_forked_only_from_a_small_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forking, "FORK_BELOW_BYTES", 2**60)  # this process counts as small
    assert forking.drawing_context().get_start_method() == "fork"
    with running_thread("a dev server thread"):
        assert forking.drawing_context().get_start_method() == "forkserver"
    monkeypatch.setattr(forking, "FORK_BELOW_BYTES", 0)  # and now as large
    assert forking.drawing_context().get_start_method() == "forkserver"


def test_a_thread_that_is_not_the_heartbeat_keeps_work_in_this_process(two_cores: None) -> None:
    with running_thread("a dev server thread"):
        assert {pid for _, pid in ordered_map(square_and_pid, list(range(100)), jobs=2, min_per_worker=10)} == {PARENT}


FORK_BESIDE_THREADS = """
import os, sys, threading, warnings
from pathlib import Path
from typing import Any

seen = []  # at each fork, after evidencepress's own hook (hooks registered earlier run later)
os.register_at_fork(before=lambda: seen.append((threading.active_count(), len(os.listdir("/proc/self/task")))))
warnings.simplefilter("always")  # Python 3.12 on: "multi-threaded, use of fork() ..." (an error would be ignored)

from evidencepress.core import forking
from evidencepress.core.progress import Progress
from evidencepress.output.writer import staged_folders

forking.os.cpu_count = lambda: 2
out = Path(sys.argv[1])
with Progress(lambda text: None, terminal=False, interval=0.01), staged_folders([out], out.with_suffix(".json")) as folders:
    folders[out].put("a.html", b"a")  # the writer's threads run
    names = {t.name for t in threading.enumerate()}
    assert names == {"MainThread", forking.HEARTBEAT_THREAD} | {t.name for t in threading.enumerate()
                                                               if t.name.startswith(forking.WRITER_THREADS)}, names
    assert len(names) > 2
    pids = set(forking.ordered_map(lambda _: os.getpid(), list(range(64)), jobs=2, min_per_worker=8))
    assert os.getpid() not in pids, pids
    assert any(t.name == forking.HEARTBEAT_THREAD for t in threading.enumerate())  # started again
    folders[out].put("b.html", b"b")  # and the writer's threads, for the next file
print(seen)
assert len(seen) == 2 and all(count == (1, 1) for count in seen), seen
assert (out / "a.html").read_bytes() == b"a" and (out / "b.html").read_bytes() == b"b"
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts the threads in /proc")
def test_no_thread_runs_beside_a_fork_not_even_the_heartbeat_or_the_writer(tmp_path: Path) -> None:
    """The heartbeat and the writer's threads end for each fork and start again after it (a fresh
    process: pytest-xdist runs a thread of its own in this one)."""
    result = subprocess.run([sys.executable, "-c", FORK_BESIDE_THREADS, str(tmp_path / "out")],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "multi-threaded" not in result.stderr


@pytest.mark.forks
def test_pages_validated_in_workers_equal_pages_validated_here(tmp_path: Path, two_cores: None) -> None:
    root = many_pages(tmp_path, 70)
    schemas = load_schemas(schema_folder(root))
    sources = [s for s in read_content(root)[0].pages]
    in_workers = [outcome for outcome, _ in validate_sources(sources, schemas, jobs=2)]
    here = [validate_source(source, schemas) for source in sources]
    assert in_workers == here
    assert all(outcome.page is not None and outcome.facts is not None for outcome in here)


def test_a_cached_page_keeps_its_record_ids(tmp_path: Path) -> None:
    root = many_pages(tmp_path, 1)
    schemas = load_schemas(schema_folder(root))
    source = read_content(root)[0].pages[0]
    (outcome, data), = validate_sources([source], schemas, jobs=1)
    store = Store(None)
    save_page(store, "key", data)
    cached, = load_pages(store, ["key"], [source])
    assert cached is not None and cached.page is not None and outcome.page is not None
    # the cache keeps no tokens (a page rendered again is parsed again for them: the same tokens)
    assert cached == replace(outcome, page=replace(outcome.page, parsed_tokens=None))
    assert outcome.page.parsed_tokens
    # and the claims on its sources, made from the export when verification asks, are the same
    assert cached.page.claims() == outcome.page.claims() != ()
    assert cached.page.tokens == outcome.page.tokens
    assert cached.page.source.text == source.text
    assert cached.page.record_ids == frozenset({"record-0"})




def test_stopping_a_pool_whose_manager_thread_a_signal_kept_from_starting_raises_nothing() -> None:
    """SIGTERM inside ``submit`` (while the pool's manager thread starts) left a thread that was never
    started: ``shutdown(wait=True)`` raised "cannot join thread before it is started" (a traceback, exit 1)."""
    pool = ProcessPoolExecutor(max_workers=1)
    pool._executor_manager_thread = threading.Thread(target=lambda: None)  # type: ignore[attr-defined]
    forking.stop_workers(pool)


def process_pairs() -> Iterator[tuple[str, int]]:
    yield "pid", os.getpid()
    yield "parent", os.getppid()


def pids_apart(number: int, folder: str = "") -> tuple[int, dict[str, int] | forking.Spilled]:
    """(this process, the process ``spill`` ran the work in and its parent, as they came back)."""
    return os.getpid(), forking.spill(process_pairs, os.path.join(folder, f"{number}.pickle"))


def fails_in_a_child() -> Iterator[tuple[str, int]]:
    yield "pid", os.getpid()  # made and written before the failure: what is read back is all or nothing
    if os.getpid() != PARENT and os.getppid() != PARENT:  # neither this process nor a worker of it
        raise ValueError("a child of a worker fails")


@pytest.mark.forks
def test_work_spilled_runs_in_a_child_of_the_worker_and_comes_back_through_a_file(tmp_path: Path,
                                                                                  two_cores: None) -> None:
    """A record page of a large site is rendered in a child of the worker, whose memory (what it
    allocated, what of the worker's it touched) leaves when it exits, and its files wait on disk
    until the main process takes them."""
    found = list(ordered_map(functools.partial(pids_apart, folder=str(tmp_path)), list(range(40)), jobs=2,
                             min_per_worker=10, chunk=4))
    workers = {worker for worker, _ in found}
    assert PARENT not in workers and len(workers) == 2
    assert all(isinstance(spilled, forking.Spilled) for _, spilled in found)
    assert len(list(tmp_path.iterdir())) == 40
    back = [(worker, forking.unspill(spilled)) for worker, spilled in found]
    assert all(pairs["parent"] == worker for worker, pairs in back)  # every pair, in the order made
    children = {pairs["pid"] for _, pairs in back}
    assert not children & (workers | {PARENT}) and len(children) == 40  # one child each
    assert not any(map(running, children)) and not list(tmp_path.iterdir())  # read back, then removed
    here = pids_apart(0, str(tmp_path))
    assert here == (PARENT, {"pid": PARENT, "parent": os.getppid()}) and not list(tmp_path.iterdir())  # here: here


def fails_apart(number: int, folder: str = "") -> tuple[int, dict[str, int] | forking.Spilled]:
    return os.getpid(), forking.spill(fails_in_a_child, os.path.join(folder, f"{number}.pickle"))


@pytest.mark.forks
def test_work_that_fails_in_the_child_is_done_again_in_the_worker(tmp_path: Path, two_cores: None) -> None:
    """A failure in the child (a template error) is not lost: the worker does the work itself, and a
    failure there is raised like any other (``ordered_map`` then redoes it here, with its traceback)."""
    found = list(ordered_map(functools.partial(fails_apart, folder=str(tmp_path)), list(range(40)), jobs=2,
                             min_per_worker=10, chunk=4))
    assert all(isinstance(pairs, dict) and worker == pairs["pid"] != PARENT for worker, pairs in found)
    assert not list(tmp_path.iterdir())


def item_and_process(item: int) -> tuple[int, int]:
    return item, os.getpid()


@pytest.mark.forks
def test_workers_are_forked_afresh_for_each_run_of_items(two_cores: None) -> None:
    """With ``renew_after``, each run of about that many items has workers of its own: a worker copies
    what it touches of the site's memory, and 5,000 articles left each at 390 MB (issue 27)."""
    found = list(ordered_map(item_and_process, list(range(60)), jobs=2, min_per_worker=10, chunk=4, renew_after=20))
    assert [item for item, _ in found] == list(range(60))
    runs = [{pid for item, pid in found if start <= item < start + 20} for start in (0, 20, 40)]
    assert all(1 <= len(run) <= 2 and PARENT not in run for run in runs)  # a fast worker may take a whole run
    assert not runs[0] & runs[1] and not runs[1] & runs[2] and not runs[0] & runs[2]
    assert len({pid for _, pid in ordered_map(item_and_process, list(range(60)), jobs=2, min_per_worker=10,
                                                chunk=4)}) <= 2  # without it, one pool


def fails_at_30_in_a_worker(item: int) -> tuple[int, int]:
    if item == 30 and os.getpid() != PARENT:
        raise ValueError("fails in a worker")
    return item, os.getpid()


@pytest.mark.forks
def test_a_run_that_fails_leaves_the_rest_to_this_process(two_cores: None) -> None:
    found = list(ordered_map(fails_at_30_in_a_worker, list(range(60)), jobs=2, min_per_worker=10, chunk=4,
                             renew_after=20))
    assert [item for item, _ in found] == list(range(60))
    assert {pid for item, pid in found if item >= 28} == {PARENT}  # from the chunk that failed (28..31) on
    assert PARENT not in {pid for item, pid in found if item < 28}


def test_runs_split_the_chunks_as_evenly_as_they_allow() -> None:
    chunks = forking._chunks(1005, 8, 5)  # 5 heavy items alone, then 125 chunks of 8
    assert forking._generations(chunks, 1005, None) == [chunks]
    assert forking._generations(chunks, 1005, 1_000) == [chunks]  # 1,005 items: one run, not one of 5 more
    runs = forking._generations(chunks, 1005, 300)
    assert [len(run) for run in runs] == [43, 43, 44] and [c for run in runs for c in run] == chunks
    assert forking._generations(chunks[:2], 9, 1) == [chunks[:1], chunks[1:2]]  # never an empty run


def alone_apart(number: int, folder: str = "") -> tuple[int, dict[str, int] | forking.Spilled]:
    return os.getpid(), forking.spill(functools.partial(busy_alone, folder), os.path.join(folder, f"{number}.pickle"))


def busy_alone(folder: str) -> Iterator[tuple[str, int]]:
    """Fails when another child is busy at the same time (its marker is there)."""
    marker = os.path.join(folder, "busy")
    handle = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    time.sleep(0.05)
    os.close(handle)
    os.unlink(marker)
    yield "pid", os.getpid()


@pytest.mark.forks
def test_one_child_at_a_time_runs_work_apart(tmp_path: Path, two_cores: None) -> None:
    """Each child copies what it reads of the site (a record of 26,000 results: 250 MB): two at once
    made the peak of a build of 5,000 articles (issue 27). A worker waits for the other's child."""
    found = list(ordered_map(functools.partial(alone_apart, folder=str(tmp_path)), list(range(12)), jobs=2,
                             min_per_worker=2, chunk=1))
    assert len({worker for worker, _ in found}) == 2
    assert all(isinstance(spilled, forking.Spilled) for _, spilled in found)  # none failed and was redone
    assert len({forking.unspill(spilled)["pid"] for _, spilled in found}) == 12  # type: ignore[arg-type]


WAITS_APART = """
import os, sys, time
from evidencepress.core import forking
forking._job = (None, ())  # as in a worker of ordered_map: spill forks
def pairs():
    with open(sys.argv[1] + ".new", "w") as file:
        file.write(str(os.getpid()))
    os.rename(sys.argv[1] + ".new", sys.argv[1])
    time.sleep(120)
    yield "never", 0
forking.spill(pairs, sys.argv[2])
"""


@pytest.mark.forks
def test_a_child_apart_dies_with_its_worker(tmp_path: Path) -> None:
    """A worker dies with the build (SIGKILL included), and so does the child rendering a record page
    for it: the fork hook makes every child a worker, this one too."""
    told = tmp_path / "child"
    worker = subprocess.Popen([sys.executable, "-c", WAITS_APART, str(told), str(tmp_path / "page.pickle")])
    child = None
    try:
        deadline = time.monotonic() + 60
        while not told.exists():
            assert time.monotonic() < deadline and worker.poll() is None, "the child never started"
            time.sleep(0.01)
        child = int(told.read_text())
        worker.kill()
        worker.wait(timeout=60)
        deadline = time.monotonic() + 10
        while running(child):
            assert time.monotonic() < deadline, "the child outlived its worker"
            time.sleep(0.01)
    finally:
        worker.kill()
        if child is not None and running(child):
            os.kill(child, signal.SIGKILL)
