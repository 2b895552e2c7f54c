"""The recipe: read -> parse -> validate -> select -> draw -> render -> write.

``plan_site`` (siteplan.py) runs every stage that can find a problem (nothing
is drawn or written); ``build_site`` adds drawing and rendering (outputs.py)
straight into the staged output folders, which the writer swaps in at the
end; ``site_files`` renders into memory (the dev server); ``check_site`` adds
the comparison of ``exports/`` with what a build would write. Each returns
all problems of the run.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path

from jinja2 import TemplateError

from ..cache.buildrecord import Outputs, Replay, files_digest, inputs_digest, remember
from ..cache.caches import Caches, prune_caches
from ..checks.config import RESERVED_FOLDERS
from ..core.diagnostics import Location, Problem, error, has_errors, strict
from ..core.options import BuildOptions, ConfigError, StageProgress
from ..output.article import template_problem
from ..output.exports import EXPORTS_DIR, export_files, iter_export_files, stale_exports
from ..output.search import SearchIndexer
from ..output.writer import Checkpoint, FileSink, MemoryFiles, read_tree, refusal, staged_folders
from ..site.index import DATA_URL
from .plan import CACHE_ROOT, Setup, SitePlan, caches_of, load_setup, plan_site, produced_paths, site_caches
from .render import render_outputs, render_site, site_context

__all__ = [  # what callers (the CLI, serve, review, tests) take from here
    "CACHE_ROOT",
    "BuildOptions",
    "ConfigError",
    "SitePlan",
    "build_site",
    "caches_of",
    "check_site",
    "load_setup",
    "plan_site",
    "produced_paths",
    "render_outputs",
    "render_site",
    "site_caches",
    "site_files",
]

JOURNAL = ".cache/write-journal.json"
USED_MARGIN_SECONDS = 2  # file times may be coarser than the clock


def site_files(options: BuildOptions, caches: Caches | None = None, progress: StageProgress | None = None,
               indexer: SearchIndexer | None = None) -> tuple[dict[str, bytes] | None, list[Problem]]:
    """Plan and render without writing the output: every file of the site by path (for serve).
    ``caches`` (kept across rebuilds by serve) are committed when the site is good; ``indexer``
    replaces the Pagefind run (serve refreshes its index in the background)."""
    caches = caches if caches is not None else site_caches(options)
    plan, problems = plan_site(options, caches=caches)
    if plan is None:
        return None, problems
    files = MemoryFiles()
    render_problems = _rendered(plan, options, files, progress, caches, indexer)
    if has_errors(render_problems):
        return None, problems + render_problems
    if options.use_cache:
        caches.commit()
    return dict(sorted(files.items())), problems + render_problems  # charts arrive as drawn


def _rendered(plan: SitePlan, options: BuildOptions, files: FileSink, progress: StageProgress | None,
              caches: Caches | None = None, indexer: SearchIndexer | None = None,
              meanwhile: Callable[[], None] | None = None) -> list[Problem]:
    """render_outputs, with a template error as a problem and --strict applied."""
    try:
        problems = render_outputs(plan, options, files, progress, caches, indexer, meanwhile)
    except TemplateError as exc:
        return [template_problem(exc, options.root)]
    return strict(problems) if options.strict else problems


def build_site(options: BuildOptions, progress: StageProgress | None = None,
               checkpoint: Checkpoint | None = None, replayed: Replay | None = None) -> list[Problem]:
    """Validate, render and write. ``checkpoint`` is called between the write's steps
    (the fault-injection tests kill the process there). ``replayed``: what the look for a
    recorded build found just before (the inputs' digest, not computed twice)."""
    started = time.time()  # cache entries written or used from now on are this site's: never pruned
    setup, problems = load_setup(options)
    if setup is None:
        return problems
    out = options.out if options.out is not None else options.root / setup.config.output
    known = replayed.digest_for(out) if replayed is not None else None
    digest = (known or inputs_digest(options, out)) if options.use_cache else None
    refused = refusal(out, options.root, RESERVED_FOLDERS, options.force)
    if refused is not None:
        raise ConfigError([error(Location(str(out)), refused.message, "output", hint=refused.hint)])
    caches = site_caches(options)
    if options.use_cache:
        caches.begin()  # pages and rendered files go into the caches in batches as they are made
    try:
        more, written, unchanged = _plan_and_write(options, setup, out, caches, progress, checkpoint, digest)
        problems += more
    finally:
        caches.rollback()  # a build that failed (or was stopped) drops what no batch wrote
    if digest is not None and written is not None and unchanged:  # not when an input changed meanwhile: it would lie
        remember(options, digest, problems, written)
    if written is not None and options.use_cache:
        prune_caches(caches_of(options), used_since=started - USED_MARGIN_SECONDS)
    return problems


def _plan_and_write(options: BuildOptions, setup: Setup, out: Path, caches: Caches, progress: StageProgress | None,
                    checkpoint: Checkpoint | None, digest: str | None) -> tuple[list[Problem], Outputs | None, bool]:
    """The problems of planning and rendering, what was written (None when nothing was: the size
    of each file of the site, the digest of exports/ taken as its files were written), and
    whether the inputs still had ``digest`` once the build had read them all."""
    plan, problems = plan_site(options, setup, caches, progress)
    if plan is None:
        return problems, None, False
    exports = options.root / EXPORTS_DIR
    unchanged: list[bool] = []
    try:
        # Files go into the new folders as they are rendered; the folders are swapped in at the end.
        with staged_folders([out, exports], options.root / JOURNAL, checkpoint, hashed=[exports]) as folders:
            def meanwhile() -> None:
                """While Pagefind finishes the search index: exports/, the caches' last batch, and
                the inputs hashed again (every one is read by now)."""
                site_csv = functools.partial(folders[out].read_chunks, DATA_URL.lstrip("/") + "results.csv")
                for name, chunks in iter_export_files(plan.pages, site_context(plan), site_csv):
                    folders[exports].put_chunks(name, chunks)
                if options.use_cache:
                    caches.commit()  # every entry is right for its key, whatever happens to the build
                unchanged.append(digest is not None and inputs_digest(options, out) == digest)

            render_problems = _rendered(plan, options, folders[out], progress, caches, meanwhile=meanwhile)
            if has_errors(render_problems):
                raise _Abandoned(render_problems)
            if progress is not None:
                progress("writing", 0, 0)
    except _Abandoned as abandoned:
        return problems + abandoned.problems, None, False
    except OSError as exc:
        where = Location(str(exc.filename or out))
        return problems + [error(where, f"cannot write the site: {exc.strerror or exc}", "write",
                                 hint="the previous output is in place; free space or fix permissions, "
                                      "then build again")], None, False
    sizes = tuple(sorted(folders[out].sizes.items()))
    outputs = Outputs(out, sizes, exports, files_digest(folders[exports].hashes or {}))
    return problems + render_problems, outputs, unchanged == [True]


class _Abandoned(Exception):
    """Rendering found an error: the staged folders are dropped and nothing is swapped in."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} problems")
        self.problems = problems


def check_site(options: BuildOptions, progress: StageProgress | None = None) -> list[Problem]:
    plan, problems = plan_site(options, progress=progress)
    if plan is None:
        return problems
    expected = export_files(plan.pages, site_context(plan))
    found = read_tree(options.root / EXPORTS_DIR)
    return problems + stale_exports(expected, found, plan.pages, options.root)
