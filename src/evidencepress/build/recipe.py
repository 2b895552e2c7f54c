"""The recipe: load -> plan (read, parse, validate, index) -> draw -> render -> write -> record.

``build_site`` reads top to bottom as the build runs; each step is a call of
a stage with typed inputs and outputs: ``plan_site`` (plan.py) runs every
stage that can find a problem, ``draw_charts`` (draw.py) draws the charts,
``render_pages``, ``render_generated`` and ``render_search_page`` (render.py)
put every file into the staged output folder, which the writer swaps in at
the end, ``write_exports`` puts exports/ beside it. ``site_files`` (the dev
server) and ``render_site`` (``diff``) run the same stages into memory;
``check_site`` compares exports/ with what a build would write. Each
returns all problems of the run.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

from jinja2 import TemplateError

from ..cache.buildrecord import Outputs, Replay, inputs_digest, last_outputs, output_files, remember, standby_folder
from ..cache.caches import Caches, open_caches, prune_caches
from ..checks.config import RESERVED_FOLDERS
from ..core import lifetime
from ..core.diagnostics import Location, Problem, error, has_errors, shown_path, strict
from ..core.forking import give_back_memory
from ..core.options import BuildOptions, ConfigError, StageProgress
from ..output.article import template_problem
from ..output.exports import EXPORTS_DIR, export_files, exports_current, stale_exports
from ..output.search import SearchIndexer
from ..output.writer import (
    Checkpoint,
    FilesOnDisk,
    MemoryFiles,
    Standby,
    refusal,
    staged_folders,
    wait_for_removals,
)
from .draw import draw_charts, drawing_folder
from .plan import CACHE_ROOT, Setup, SitePlan, caches_of, load_setup, plan_site, produced_paths, site_caches
from .render import (
    render_generated,
    render_into,
    render_pages,
    render_search_page,
    render_site,
    renderer,
    search_run,
    site_context,
)

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
    "render_into",
    "render_site",
    "site_caches",
    "site_files",
]

JOURNAL = ".cache/write-journal.json"
USED_MARGIN_SECONDS = 2  # file times may be coarser than the clock


def site_files(options: BuildOptions, caches: Caches | None = None, progress: StageProgress | None = None,
               indexer: SearchIndexer | None = None, previous: MemoryFiles | None = None,
               ) -> tuple[MemoryFiles | None, list[Problem]]:
    """Plan and render without writing the output: every file of the site by path (for serve).
    ``caches`` (kept across rebuilds by serve) are committed when the site is good; ``indexer``
    replaces the Pagefind run (serve refreshes its index in the background); ``previous``: the
    files of the last rebuild, whose unchanged ones are taken over without reading the cache."""
    caches = caches if caches is not None else site_caches(options)
    plan, problems = plan_site(options, caches=caches)
    if plan is None:
        return None, problems
    files = MemoryFiles(previous)
    try:
        render_problems = _strict(render_into(plan, options, files, progress, caches, indexer), options)
    except TemplateError as exc:
        return None, problems + [template_problem(exc, options.root)]
    if has_errors(render_problems):
        return None, problems + render_problems
    if options.use_cache:
        caches.commit()
    return files.sorted(), problems + render_problems


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
    blocked = _cache_folder_problem(options)
    if blocked is not None:
        raise ConfigError([blocked])
    caches = site_caches(options)
    lifetime.keep(caches)  # its validated pages are freed by the process's end, if it ends now (cli.run)
    if options.use_cache:
        caches.begin()  # pages and rendered files go into the caches in batches as they are made
    try:
        more, written, unchanged = _plan_and_write(options, setup, out, caches, progress, checkpoint, digest)
        problems += more
    finally:
        caches.rollback()  # a build that failed (or was stopped) drops what no batch wrote
    damaged_record = [replayed.damaged] if replayed is not None and replayed.damaged is not None else []
    notes = caches.discard_notes(options.root, damaged_record)  # not recorded: a replay discards nothing
    if written is not None and options.use_cache:
        prune_caches(caches_of(options), used_since=started - USED_MARGIN_SECONDS)
    wait_for_removals()  # the old tree's removal overlapped the pruning; a caller sees it gone
    if digest is not None and written is not None and unchanged:  # not when an input changed meanwhile: it would lie
        # signed once the old tree is gone: removing it changes the status of each file linked from it
        remember(options, digest, problems, written.signed())
    return problems + notes


def _cache_folder_problem(options: BuildOptions) -> Problem | None:
    """A file where the cache folder goes: the write journal lives there even with --no-cache."""
    for folder in dict.fromkeys([options.root / CACHE_ROOT, caches_of(options)]):
        if os.path.lexists(folder) and not folder.is_dir():
            shown = folder.relative_to(options.root).as_posix() if folder.is_relative_to(options.root) else str(folder)
            what = "a link to nothing" if folder.is_symlink() else "a file"
            return error(Location(shown), f"{shown} is {what}, not a folder: the build keeps its caches and its "
                                          "write journal in it", "cache", hint="remove or rename it, then build again")
    return None


def _plan_and_write(options: BuildOptions, setup: Setup, out: Path, caches: Caches, progress: StageProgress | None,
                    checkpoint: Checkpoint | None, digest: str | None) -> tuple[list[Problem], Outputs | None, bool]:
    """The problems of planning and rendering, what was written (None when nothing was: the sha256
    of each file of the site, the digest of exports/ taken as its files were written), and
    whether the inputs still had ``digest`` once the build had read them all."""
    plan, problems = plan_site(options, setup, caches, progress)
    if plan is None:
        return problems, None, False
    _let_go_of_texts(plan)
    exports = options.root / EXPORTS_DIR
    rendered = caches.rendered if options.use_cache else None  # --no-cache: nothing to read, nothing kept
    last = last_outputs(options, out) if options.use_cache else None  # its files that are unchanged are linked
    try:
        # Files go into the new folders as they are rendered; the folders are swapped in at the end.
        with (staged_folders([out, exports], options.root / JOURNAL, checkpoint, hashed=[out, exports],
                             previous=last.vouched(out, exports) if last is not None else None,
                             standby=_standby(options, last, out, exports)) as folders,
              drawing_folder() as drawn, search_run(None, plan.config.language, rendered) as search):
            drawings = draw_charts(plan, options, drawn, progress, caches.discarded_charts.append)
            site = renderer(plan, options)  # every template is read from here on
            render_pages(site, plan, options, drawings, folders[out], search, rendered, progress, folders[exports])
            search.start()  # Pagefind indexes in its own process while the rest is made
            render_generated(site, plan, options, folders[out], rendered, folders[exports])
            if options.use_cache:
                caches.commit()  # every entry is right for its key, whatever happens to the build
            unchanged = digest is not None and inputs_digest(options, out) == digest  # every input is read by now
            index = search.finish()
            if options.use_cache:
                caches.commit()  # the search index's new shards
            render_problems = _strict(render_search_page(site, folders[out], index), options)
            if has_errors(render_problems):
                raise _Abandoned(render_problems)
            if progress is not None:
                progress("writing", 0, 0)
    except TemplateError as exc:
        return problems + [template_problem(exc, options.root)], None, False
    except _Abandoned as abandoned:
        return problems + abandoned.problems, None, False
    except OSError as exc:
        where = Location(str(exc.filename or out))
        changed = exc.errno == errno.EIO  # an input changed under the build (a page, a chart drawing)
        return problems + [error(where, f"cannot write the site: {exc.strerror or exc}", "write",
                                 hint="the previous output is in place; " + (
                                     "build again" if changed else "free space or fix permissions, then build again"))
                           ], None, False
    # the standby trees now: the trees this build replaced, as the last build recorded them, or twins
    # of its own made as it wrote them
    site_files, exports_files = output_files(folders[out].hashes or {}), output_files(folders[exports].hashes or {})
    outputs = Outputs(out, site_files, exports, exports_files,
                      site_files if folders[out].twinned else last.files if last is not None else (),
                      exports_files if folders[exports].twinned else last.exports_files if last is not None else (),
                      (folders[out].twinned, folders[exports].twinned))
    return problems + render_problems, outputs, unchanged


def _let_go_of_texts(plan: SitePlan) -> None:
    """Once every page is validated, its text is read back only by the few that need it again
    (``SourceFile.let_go``): the texts of 5,000 articles were 130 MB, held to the end."""
    for page in plan.pages:
        page.source.let_go()
    give_back_memory()


def _standby(options: BuildOptions, last: Outputs | None, out: Path, exports: Path) -> dict[Path, Standby] | None:
    """Where the output folders' standby trees are kept and what the last build recorded of them
    (None with --no-cache: every build writes its trees anew, and removes the old ones)."""
    if not options.use_cache:
        return None
    if last is None:
        return {folder: Standby(standby_folder(options.root, folder), {}) for folder in (out, exports)}
    return last.standby(options.root, out, exports)


def _strict(problems: list[Problem], options: BuildOptions) -> list[Problem]:
    return strict(problems) if options.strict else problems


class _Abandoned(Exception):
    """Rendering found an error: the staged folders are dropped and nothing is swapped in."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} problems")
        self.problems = problems


def expected_exports(options: BuildOptions) -> tuple[dict[str, bytes] | None, list[Problem]]:
    """What a build would write to exports/ (by path relative to it), or None when the site has errors."""
    plan, problems = plan_site(options, caches=open_caches(None))
    return (export_files(plan.pages, site_context(plan)) if plan is not None else None), problems


def check_site(options: BuildOptions, progress: StageProgress | None = None) -> list[Problem]:
    caches = site_caches(options)
    lifetime.keep(caches)  # see build_site
    plan, problems = plan_site(options, caches=caches, progress=progress)
    problems += caches.discard_notes(options.root)
    if plan is None:
        return problems
    _let_go_of_texts(plan)
    try:
        found = FilesOnDisk(options.root / EXPORTS_DIR)
        current = exports_current(plan.pages, site_context(plan), found)
    except OSError as exc:
        where = shown_path(Path(exc.filename), options.root) if exc.filename else EXPORTS_DIR
        return problems + [error(Location(where),
                                 f"cannot check exports/: {exc.strerror or exc}", "exports",
                                 hint="make the file readable (or leave it unchanged while check runs), then check again")]
    return problems + stale_exports(current, found.keys(), plan.pages, options.root)
