"""Draw plans to SVG: content-addressed cache first, then processes for the rest.

A cache hit only reads a file: matplotlib is imported (by ``draw``) only when
something has to be drawn, so an unchanged rebuild never pays for it. Each file
of the cache is the drawing behind its seal (``core.seal``: a keyed digest of
its key and bytes); a file whose seal does not hold (edited, truncated, another
key's, another machine's) is drawn again and overwritten.
"""

from __future__ import annotations

import contextlib
import gc
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ..core.forking import collector, drawing_context, ordered_map, pool_size
from ..core.seal import SEAL_BYTES, seal, unseal
from .model import ChartPlan

Progress = Callable[[int, int], None]
CACHE_KIND = "charts"  # what the cache's files are sealed with besides their keys
DRAWING_OFFSET = SEAL_BYTES  # where a cache file's drawing starts


def render_charts(
    plans: Sequence[ChartPlan], *, jobs: int, cache_dir: Path | None, progress: Progress | None = None
) -> list[bytes]:
    """SVG bytes for each plan, in order (``cache_dir`` None: no cache)."""
    svgs = [b""] * len(plans)
    for number, svg in iter_charts(plans, jobs=jobs, cache_dir=cache_dir, progress=progress):
        svgs[number] = svg
    return svgs


def iter_charts(
    plans: Sequence[ChartPlan], *, jobs: int, cache_dir: Path | None, progress: Progress | None = None,
    discarded: Callable[[Path], None] | None = None,
) -> Iterator[tuple[int, bytes]]:
    """(number of the plan, SVG bytes) for every plan: cache hits first, then drawings as they
    finish. Nothing is held: a site of thousands of charts never has them all in memory.
    ``discarded`` is told each cache file whose seal did not hold (it is drawn again)."""
    todo: dict[str, list[int]] = {}  # plans that share a key are drawn once
    total, count = len(plans), 0
    report = progress or (lambda _done, _total: None)
    for number, plan in enumerate(plans):
        cached = _read(cache_dir, plan.cache_key, discarded) if plan.cache_key not in todo else None
        if cached is None:
            todo.setdefault(plan.cache_key, []).append(number)
            continue
        count += 1
        yield number, cached
    if count:
        report(count, total)
    for plan, svg in _draw([plans[numbers[0]] for numbers in todo.values()], jobs):
        _write(cache_dir, plan.cache_key, svg)
        for number in todo[plan.cache_key]:
            count += 1
            yield number, svg
        report(count, total)


def _draw(todo: list[ChartPlan], jobs: int) -> Iterator[tuple[ChartPlan, bytes]]:
    """Yield (plan, svg) in order, drawn by up to ``jobs`` workers, one drawing per message."""
    if not todo:
        return
    workers = pool_size(jobs, len(todo))
    with collector(enabled=True), _frozen() if workers == 1 else contextlib.nullcontext():
        # matplotlib's figures are cycles: here, and in the workers forked here
        context = drawing_context([__package__ + ".draw"]) if workers > 1 else None
        yield from zip(todo, ordered_map(_draw_one, todo, jobs, min_per_worker=1, chunk=1, context=context),
                       strict=True)


_WORKER_THRESHOLD = (20_000, 20, 100)  # a drawing process collects less often (see ``_draw_one``)


@contextlib.contextmanager
def _frozen() -> Iterator[None]:
    """Drawings made in this process (one worker's worth: --jobs 1, or a single drawing) get
    what a drawing worker has: the objects that existed before them are left out of the cycle
    collector's walks, which collect less often, until they are done (7 % of a drawing)."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*_WORKER_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


_LOADED_BY = os.getpid()  # a drawing worker is another process (forked from this one or from a fork server)
_worker_tuned = False


def _draw_one(plan: ChartPlan) -> bytes:
    """``draw_chart`` (matplotlib is imported only now that something must be drawn). In a
    drawing worker, the objects it started with (matplotlib's modules, what it inherited) are
    frozen out of the cycle collector's walks and it collects less often: 8 % of each drawing
    went to walking them again."""
    global _worker_tuned
    from .draw import draw_chart

    if not _worker_tuned and os.getpid() != _LOADED_BY:
        gc.freeze()
        gc.set_threshold(*_WORKER_THRESHOLD)
        _worker_tuned = True
    return draw_chart(plan)


def cache_path(cache_dir: Path, key: str) -> Path:
    return cache_dir / f"{key}.svg"


def _read(cache_dir: Path | None, key: str, discarded: Callable[[Path], None] | None) -> bytes | None:
    if cache_dir is None:
        return None
    path = cache_path(cache_dir, key)
    try:
        sealed = path.read_bytes()
    except OSError:
        return None
    svg = unseal(CACHE_KIND, key, sealed)
    if svg is None and discarded is not None:
        discarded(path)
    return svg


def _write(cache_dir: Path | None, key: str, svg: bytes) -> None:
    """Write atomically (temp file + rename): a reader never sees half a file.

    The cache only saves time: when it cannot be written the drawing is still returned.
    """
    if cache_dir is None:
        return
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=cache_dir, prefix=f".{key}.", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(seal(CACHE_KIND, key, svg))
        os.replace(temp, cache_path(cache_dir, key))
    except OSError:
        Path(temp).unlink(missing_ok=True)
