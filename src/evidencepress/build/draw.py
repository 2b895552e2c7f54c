"""Draw stage of the build: every chart of the site to SVG, as a value the render stage reads.

A site's charts are drawn once (cache hits first, then the rest on every
core) before anything is rendered. Their SVG is not held in memory (a site
of thousands of charts would hold them all): each file stays where the draw
stage put it, in the chart cache or in the build's own folder of drawings,
and ``Drawings`` says where, with its sha256. The render stage reads each
drawing from there to inline it into its article and to write it beside it,
and checks it against that sha256 (a cache file changed since it was drawn or
verified fails the build rather than reach the site); nothing is read back from
the output folder.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..cache.caches import CHARTS
from ..charts.drawing import DRAWING_OFFSET, cache_path, iter_charts
from ..core.options import BuildOptions, StageProgress
from ..core.scratch import scratch_folder
from .plan import SitePlan, caches_of


@dataclass(frozen=True)
class Drawing:
    """One drawn chart file of a page: ``<id>.svg`` (wide) or ``<id>.narrow.svg`` (phone)."""

    name: str  # the file name beside the page
    sha256: str  # of the SVG
    path: Path  # where the draw stage keeps it: the chart cache, or the build's folder of drawings
    offset: int = 0  # where the SVG starts in that file (after the seal of a chart cache file)

    def svg(self) -> bytes:
        svg = self.path.read_bytes()[self.offset:]
        if hashlib.sha256(svg).hexdigest() != self.sha256:
            raise OSError(errno.EIO, "a chart drawing changed while the build ran; build again", str(self.path))
        return svg


@dataclass(frozen=True)
class Drawings:
    """Every drawn chart file of the site, by page URL, in the order of the page's charts."""

    pages: Mapping[str, tuple[Drawing, ...]]

    def svgs(self, url: str) -> dict[str, bytes]:
        """The page's chart files by name, read from where they were drawn."""
        return {drawing.name: drawing.svg() for drawing in self.pages.get(url, ())}

    def digests(self, url: str) -> dict[str, str]:
        """The sha256 of each of the page's chart files, by name (part of its rendered cache key)."""
        return {drawing.name: drawing.sha256 for drawing in self.pages.get(url, ())}


@contextlib.contextmanager
def drawing_folder() -> Iterator[Path]:
    """The build's own folder for drawings the chart cache does not keep (--no-cache, or a cache
    that cannot be written); removed when the build ends, or by a later build if this one is killed."""
    with scratch_folder("drawings") as folder:
        yield folder


def draw_charts(plan: SitePlan, options: BuildOptions, folder: Path, progress: StageProgress | None = None,
                discarded: Callable[[Path], None] | None = None) -> Drawings:
    """Draw every chart twice, <id>.svg (wide) and <id>.narrow.svg (phone), through the chart
    cache (none with --no-cache); a drawing the cache does not hold goes into ``folder``.
    ``discarded``: told each cache file whose seal did not hold."""
    files = [(page.url, name, drawn) for page in plan.pages for chart in page.charts for name, drawn in chart.variants()]
    cache = caches_of(options) / CHARTS if options.use_cache else None
    charts_done = None if progress is None else functools.partial(progress, "drawing charts")
    found: dict[int, Drawing] = {}
    for number, svg in iter_charts([drawn for _, _, drawn in files], jobs=options.jobs, cache_dir=cache,
                                   progress=charts_done, discarded=discarded):
        _, name, drawn = files[number]
        digest = hashlib.sha256(svg).hexdigest()
        found[number] = _kept(name, svg, digest, cache_path(cache, drawn.cache_key) if cache else None, folder)
    pages: dict[str, list[Drawing]] = {page.url: [] for page in plan.pages if page.charts}
    for number, (url, _, _) in enumerate(files):
        pages[url].append(found[number])
    return Drawings({url: tuple(drawings) for url, drawings in pages.items()})


def _kept(name: str, svg: bytes, digest: str, cached: Path | None, folder: Path) -> Drawing:
    """Where ``svg`` can be read again: its chart cache file when that holds it (not one the cache
    could not overwrite), else a file of ``folder`` named by its digest."""
    if cached is not None:
        in_cache = Drawing(name, digest, cached, DRAWING_OFFSET)
        with contextlib.suppress(OSError):
            in_cache.svg()
            return in_cache
    kept = folder / f"{digest}.svg"
    if not kept.exists():
        kept.write_bytes(svg)
    return Drawing(name, digest, kept)
