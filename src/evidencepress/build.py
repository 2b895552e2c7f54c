"""The recipe: read -> parse -> validate -> select -> draw -> render -> write.

``plan_site`` runs every stage that can find a problem (nothing is drawn or
written); ``build_site`` adds drawing, rendering and the atomic write;
``check_site`` adds the comparison of ``exports/`` with what a build would
write. Each returns all problems of the run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from jinja2 import TemplateError

from .cache import CHARTS, PAGES, Store, prune_caches
from .charts import render_charts
from .config import RESERVED_FOLDERS, SiteConfig, load_config, override_base_url
from .diagnostics import Location, Problem, error, has_errors, strict
from .exports import EXPORTS_DIR, export_files, stale_exports
from .links import check_links
from .model import Asset, Page, SourceFile
from .options import BuildOptions as BuildOptions  # re-exported: callers build options from here
from .options import ConfigError as ConfigError
from .pagecache import load_page, page_key, save_page
from .parse import parse_page
from .record import Outputs, inputs_digest, remember, tree_digest
from .render import (
    SiteContext,
    create_environment,
    listings,
    navigation,
    render_article,
    render_listing,
    template_folder,
    template_problem,
)
from .schemas import SchemaFileError, SchemaSet, load_schemas, schema_folder
from .sources import read_content
from .validate import validate_page
from .writer import MARKER, MARKER_TEXT, Checkpoint, read_tree, refusal, write_trees

CACHE_ROOT = ".cache"
CACHE_DIR = f"{CACHE_ROOT}/{CHARTS}"
JOURNAL = ".cache/write-journal.json"
StageProgress = Callable[[str, int, int], None]  # (stage, done, total): what a long run is doing
# Rules a build option turns off. Page outcomes (cached) always carry them; plan_site leaves them out.
_PROSE_RULE = "prose-number"
_DRAFT_RULE = "draft"


@dataclass(frozen=True)
class SitePlan:
    """Everything validated; what the render stage needs."""

    config: SiteConfig
    schemas: SchemaSet
    pages: tuple[Page, ...]
    assets: tuple[Asset, ...]
    static: tuple[Asset, ...] = ()  # the site's static/ folder, for the output root


@dataclass(frozen=True)
class Setup:
    """What every page is checked against: the schemas and the site configuration."""

    schemas: SchemaSet
    config: SiteConfig


def load_setup(options: BuildOptions) -> tuple[Setup | None, list[Problem]]:
    """Schemas and site.toml (with --base-url). Raises ConfigError when there is no site."""
    root = options.root
    try:
        schemas = load_schemas(schema_folder(root))
    except SchemaFileError as exc:
        return None, [exc.problem]
    config, problems = load_config(root, schemas)
    if config is None:
        if not (root / "site.toml").is_file():
            raise ConfigError(problems)
        return None, problems
    if options.base_url:
        config, refused = override_base_url(config, options.base_url, schemas)
        if refused:
            raise ConfigError(refused)
    return Setup(schemas, config), problems


def page_store(options: BuildOptions) -> Store:
    """The page cache of the site (memory only with --no-cache); nothing is written before commit()."""
    return Store(caches_of(options) / PAGES if options.use_cache else None)


def plan_site(options: BuildOptions, setup: Setup | None = None, store: Store | None = None,
              progress: StageProgress | None = None) -> tuple[SitePlan | None, list[Problem]]:
    """Read, parse and validate every page, check links: all problems, nothing drawn or written.
    Validated pages are saved in ``store`` (a new page store when None), which the caller commits."""
    problems: list[Problem] = []
    if setup is None:
        setup, problems = load_setup(options)
        if setup is None:
            return None, problems
    root, schemas, config = options.root, setup.schemas, setup.config
    content, read_problems = read_content(root)
    problems += read_problems
    pages: list[Page] = []
    store = store if store is not None else page_store(options)
    drafts: list[str] = []
    for number, source in enumerate(content.pages):
        if progress is not None:
            progress("checking pages", number, len(content.pages))
        page, page_problems = _validated(source, schemas, store)
        problems += [p for p in page_problems if _wanted(p, options)]
        if page is not None and page.front.draft and not options.drafts:
            drafts.append(page.url)
        elif page is not None:
            pages.append(page)
    problems += _url_collisions(pages, config)
    problems += _file_collisions(pages, content.assets, content.static, config, schemas)
    problems += check_links(pages, produced_paths(pages, content.assets, config, schemas) |
                            {"/" + item.rel for item in content.static}, frozenset(drafts))
    if options.strict:
        problems = strict(problems)
    if has_errors(problems):
        return None, problems
    return SitePlan(config, schemas, tuple(pages), content.assets, content.static), problems


def _wanted(problem: Problem, options: BuildOptions) -> bool:
    """A page's prose warnings unless --no-prose; its draft note unless --drafts builds it."""
    if problem.rule == _PROSE_RULE:
        return options.prose
    return not (problem.rule == _DRAFT_RULE and options.drafts)


def caches_of(options: BuildOptions) -> Path:
    return options.cache_root or options.root / CACHE_ROOT


def _validated(source: SourceFile, schemas: SchemaSet, store: Store) -> tuple[Page | None, list[Problem]]:
    """Parse and validate one page, or read the outcome back from the page cache: it depends only
    on the file, the schemas and this package's code."""
    key = page_key(source, schemas.fingerprint)
    cached = load_page(store, key, source)
    if cached is not None:
        return cached
    parsed, problems = parse_page(source)
    page = None
    if parsed is not None:
        page, validation_problems = validate_page(parsed, schemas)
        problems += validation_problems
    save_page(store, key, page, problems)
    return page, problems


def _url_collisions(pages: list[Page], config: SiteConfig) -> list[Problem]:
    generated = {listing.url for listing in listings(pages, config)}
    return [
        error(Location(p.source.path), f"{p.url} is generated by the site (home or section index)", "path",
              hint="rename the file; listing pages are built from the articles")
        for p in pages
        if p.url in generated
    ]


def _file_collisions(pages: list[Page], assets: tuple[Asset, ...], static: tuple[Asset, ...], config: SiteConfig,
                     schemas: SchemaSet) -> list[Problem]:
    """An asset or static file at a path the build generates would silently replace it: an error."""
    generated = produced_paths(pages, (), config, schemas) | {"/" + MARKER}
    problems = []
    for folder, files in (("content", assets), ("static", static)):
        for item in files:
            if "/" + item.rel in generated:
                problems.append(error(Location(f"{folder}/{item.rel}"), f"/{item.rel} is a file the build generates",
                                      "path", hint="rename or move the file; it would replace the generated one"))
    seen = {item.rel for item in assets}
    for item in static:
        if item.rel in seen:
            problems.append(error(Location(f"static/{item.rel}"), f"/{item.rel} is also content/{item.rel}", "path",
                                  hint="keep one of the two files"))
    return problems


def produced_paths(pages: list[Page], assets: tuple[Asset, ...], config: SiteConfig, schemas: SchemaSet) -> set[str]:
    """Every site path the build writes, for link checking."""
    paths: set[str] = {"/static/style.css"}
    folders = [p.url for p in pages] + [listing.url for listing in listings(pages, config)]
    for folder in folders:
        paths |= {folder, folder + "index.html", folder + "index.json", folder + "index.md"}
    for page in pages:
        paths |= {f"{page.url}{name}" for chart in page.charts for name, _ in chart.variants()}
    paths |= {"/" + asset.rel for asset in assets}
    paths |= {f"/schema/{name}" for name, _ in schemas.published}
    return paths


def render_site(plan: SitePlan, options: BuildOptions, progress: StageProgress | None = None) -> dict[str, bytes]:
    """Every output file of the site by POSIX path relative to the output folder."""
    ctx = _context(plan)
    env = create_environment(template_folder(options.root))
    files: dict[str, bytes] = {}
    # Every chart twice: <id>.svg (wide) and <id>.narrow.svg (phone), one cache, one pool; drawn
    # first, because the article HTML inlines them.
    drawings = [(page, name, drawn) for page in plan.pages for chart in page.charts for name, drawn in chart.variants()]
    cache = None if not options.use_cache else caches_of(options) / CHARTS
    charts_done = None if progress is None else functools.partial(progress, "drawing charts")
    svgs = render_charts([drawn for _, _, drawn in drawings], jobs=options.jobs, cache_dir=cache, progress=charts_done)
    by_page: dict[str, dict[str, bytes]] = {}
    for (page, name, _), svg in zip(drawings, svgs, strict=True):
        files[f"{page.url.lstrip('/')}{name}"] = svg
        by_page.setdefault(page.url, {})[name] = svg
    for number, page in enumerate(plan.pages):
        if progress is not None:
            progress("rendering pages", number, len(plan.pages))
        folder = page.url.lstrip("/")
        for name, data in render_article(env, page, ctx, by_page.get(page.url, {})).items():
            files[folder + name] = data
    for listing in listings(plan.pages, plan.config):
        for name, data in render_listing(env, listing, ctx).items():
            files[listing.url.lstrip("/") + name] = data
    for asset in plan.assets:
        files[asset.rel] = asset.data
    for item in plan.static:
        files[item.rel] = item.data
    files[MARKER] = MARKER_TEXT
    for name, data in static_files(template_folder(options.root)):
        files[f"static/{name}"] = data
    for name, data in plan.schemas.published:
        files[f"schema/{name}"] = data
    return files


def static_files(templates: Path) -> list[tuple[str, bytes]]:
    """The theme's static files (style.css, fonts/…) by POSIX path under static/."""
    folder = templates / "static"
    return [(p.relative_to(folder).as_posix(), p.read_bytes()) for p in sorted(folder.rglob("*")) if p.is_file()]


def _context(plan: SitePlan) -> SiteContext:
    return SiteContext(plan.config, navigation(plan.pages, plan.config), plan.schemas.url("export.schema.json"))


def site_files(options: BuildOptions, store: Store | None = None,
               progress: StageProgress | None = None) -> tuple[dict[str, bytes] | None, list[Problem]]:
    """Plan and render without writing the output: every file of the site by path (for serve).
    ``store`` (kept across rebuilds by serve) is committed when the site is good."""
    store = store if store is not None else page_store(options)
    plan, problems = plan_site(options, store=store)
    if plan is None:
        return None, problems
    files, render_problems = _rendered(plan, options, progress)
    if files is not None and options.use_cache:
        store.commit()
    return files, problems + render_problems


def _rendered(plan: SitePlan, options: BuildOptions, progress: StageProgress | None) -> tuple[dict[str, bytes] | None,
                                                                                         list[Problem]]:
    try:
        return render_site(plan, options, progress), []
    except TemplateError as exc:
        return None, [template_problem(exc, options.root)]


def build_site(options: BuildOptions, progress: StageProgress | None = None,
               checkpoint: Checkpoint | None = None) -> list[Problem]:
    """Validate, render and write. ``checkpoint`` is called between the write's steps
    (the fault-injection tests kill the process there)."""
    setup, problems = load_setup(options)
    if setup is None:
        return problems
    out = options.out if options.out is not None else options.root / setup.config.output
    digest = inputs_digest(options, out) if options.use_cache else None
    refused = refusal(out, options.root, RESERVED_FOLDERS, options.force)
    if refused is not None:
        raise ConfigError([error(Location(str(out)), refused.message, "output", hint=refused.hint)])
    store = page_store(options)
    plan, plan_problems = plan_site(options, setup, store, progress)
    problems += plan_problems
    if plan is None:
        return problems
    files, render_problems = _rendered(plan, options, progress)
    if files is None:
        return problems + render_problems
    exports = export_files(plan.pages, _context(plan), plan.schemas)
    trees = {out: files, options.root / EXPORTS_DIR: exports}
    try:
        if progress is not None:
            progress("writing", 0, 0)
        write_trees(trees, options.root / JOURNAL, checkpoint)
    except OSError as exc:
        where = Location(str(exc.filename or out))
        return problems + [error(where, f"cannot write the site: {exc.strerror or exc}", "write",
                                 hint="the previous output is in place; free space or fix permissions, "
                                      "then build again")]
    if options.use_cache:
        store.commit()
        _remember(options, digest, problems, out, files)
        prune_caches(caches_of(options))
    return problems


def _remember(options: BuildOptions, digest: str | None, problems: list[Problem], out: Path,
              files: dict[str, bytes]) -> None:
    """Record the build, unless an input changed while it ran (then the record would lie)."""
    if digest is None or inputs_digest(options, out) != digest:
        return
    exports = options.root / EXPORTS_DIR
    sizes = tuple(sorted((rel, len(data)) for rel, data in files.items()))
    remember(options, digest, problems, Outputs(out, sizes, exports, tree_digest(exports)))


def check_site(options: BuildOptions, progress: StageProgress | None = None) -> list[Problem]:
    plan, problems = plan_site(options, progress=progress)
    if plan is None:
        return problems
    expected = export_files(plan.pages, _context(plan), plan.schemas)
    found = read_tree(options.root / EXPORTS_DIR)
    return problems + stale_exports(expected, found, plan.pages, options.root)
