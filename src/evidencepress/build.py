"""The recipe: read -> parse -> validate -> select -> draw -> render -> write.

``plan_site`` runs every stage that can find a problem (nothing is drawn or
written); ``build_site`` adds drawing, rendering and the atomic write;
``check_site`` adds the comparison of ``exports/`` with what a build would
write. Each returns all problems of the run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, TemplateError

from .cache import CHARTS, Caches, Store, code_fingerprint, key_of, open_caches, prune_caches
from .charts import render_charts
from .community import RecordProse, is_record_prose, record_ids, unknown_records, validate_record_prose
from .config import RESERVED_FOLDERS, SiteConfig, load_config, override_base_url
from .data_out import data_files
from .diagnostics import Location, Problem, error, has_errors, strict
from .exports import EXPORTS_DIR, export_files, stale_exports
from .feeds import site_files as feed_files
from .links import check_links
from .model import Asset, Page, SourceFile
from .options import BuildOptions, ConfigError
from .pagecache import article_key, load_page, page_key, save_page
from .parse import parse_page
from .record import Outputs, inputs_digest, remember, tree_digest
from .render import (
    DEFAULT_TEMPLATES,
    SiteContext,
    create_environment,
    navigation,
    render_article,
    render_listing,
    static_files,
    template_folder,
    template_problem,
)
from .render_site import (
    PAGEFIND_FOLDER,
    render_community,
    render_explore,
    render_not_found,
    render_record,
    render_schema_index,
    render_search,
)
from .schemas import SchemaFileError, SchemaSet, load_schemas, schema_folder
from .search import SearchIndexer, build_search_index
from .site import COMMUNITY_URL, DATA_URL, EXPLORE_URL, SCHEMA_URL, SEARCH_URL, SiteIndex, generated_paths, index_site
from .sources import read_content
from .validate import validate_page
from .writer import MARKER, MARKER_TEXT, Checkpoint, FileSink, MemoryFiles, read_tree, refusal, staged_folders

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
    index: SiteIndex  # everything across pages: listings, records, the result table, the catalog
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


def site_caches(options: BuildOptions) -> Caches:
    """The caches of the site (memory only with --no-cache); nothing is written before commit()."""
    return open_caches(caches_of(options) if options.use_cache else None)


def plan_site(options: BuildOptions, setup: Setup | None = None, caches: Caches | None = None,
              progress: StageProgress | None = None) -> tuple[SitePlan | None, list[Problem]]:
    """Read, parse and validate every page, check links: all problems, nothing drawn or written.
    Validated pages are saved in ``caches`` (new ones when None), which the caller commits."""
    problems: list[Problem] = []
    if setup is None:
        setup, problems = load_setup(options)
        if setup is None:
            return None, problems
    root, schemas, config = options.root, setup.schemas, setup.config
    content, read_problems = read_content(root)
    problems += read_problems
    pages: list[Page] = []
    every_page: list[Page] = []  # drafts included: a record of a draft may have its prose
    prose: list[RecordProse] = []
    store = (caches if caches is not None else site_caches(options)).pages
    drafts: list[str] = []
    for number, source in enumerate(content.pages):
        if progress is not None:
            progress("checking pages", number, len(content.pages))
        if is_record_prose(source):
            prose_text, prose_problems = _record_prose(source, schemas)
            problems += prose_problems
            prose += [prose_text] if prose_text is not None else []
            continue
        page, page_problems = _validated(source, schemas, store)
        problems += [p for p in page_problems if _wanted(p, options)]
        every_page += [page] if page is not None else []
        if page is not None and page.front.draft and not options.drafts:
            drafts.append(page.url)
        elif page is not None:
            pages.append(page)
    if len(every_page) == len(content.pages) - sum(map(is_record_prose, content.pages)):
        # a page that failed validation may name the record: then only its own problems are reported
        problems += unknown_records(prose, {rid for page in every_page for rid in record_ids(page.export)})
    index = index_site(pages, prose, config, schemas.core_conditions)
    generated = generated_paths(index, pages)
    theme = static_files(template_folder(root))
    problems += _url_collisions(pages, generated)
    problems += _file_collisions(pages, content.assets, content.static, schemas, generated, theme)
    produced = produced_paths(pages, content.assets, schemas, generated, theme) | {"/" + i.rel for i in content.static}
    record_prose = [record.prose for record in index.records if record.prose is not None]
    problems += check_links(pages, produced, frozenset(drafts), record_prose)
    if options.strict:
        problems = strict(problems)
    if has_errors(problems):
        return None, problems
    return SitePlan(config, schemas, tuple(pages), content.assets, index, content.static), problems


def _record_prose(source: SourceFile, schemas: SchemaSet) -> tuple[RecordProse | None, list[Problem]]:
    """content/community/<id>.md: parsed like a page, validated as record prose (not cached: it is small)."""
    parsed, problems = parse_page(source)
    if parsed is None:
        return None, problems
    prose, prose_problems = validate_record_prose(parsed, schemas)
    return prose, problems + prose_problems


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


def _url_collisions(pages: list[Page], generated: set[str]) -> list[Problem]:
    return [
        error(Location(p.source.path), f"{p.url} is generated by the site", "path",
              hint="rename the file; home, section indexes, /community/, /explore/, /search/ and /schema/ "
                   "are built from the articles")
        for p in pages
        if p.url in generated or p.url + "index.html" in generated
    ]


def _file_collisions(pages: list[Page], assets: tuple[Asset, ...], static: tuple[Asset, ...], schemas: SchemaSet,
                     generated: set[str], theme: dict[str, bytes]) -> list[Problem]:
    """An asset or static file at a path the build generates would silently replace it: an error."""
    generated = produced_paths(pages, (), schemas, generated, theme) | {"/" + MARKER}
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


def produced_paths(pages: list[Page], assets: tuple[Asset, ...], schemas: SchemaSet, generated: set[str],
                   theme: dict[str, bytes]) -> set[str]:
    """Every site path the build writes, for link checking (the Pagefind bundle is linked from nothing)."""
    paths = set(generated) | {f"/static/{name}" for name in theme}
    for page in pages:
        paths |= {page.url, page.url + "index.html", page.url + "index.json", page.url + "index.md"}
        paths |= {f"{page.url}{name}" for chart in page.charts for name, _ in chart.variants()}
    paths |= {"/" + asset.rel for asset in assets}
    paths |= {f"/schema/{name}" for name, _ in schemas.published}
    return paths


def render_site(plan: SitePlan, options: BuildOptions, progress: StageProgress | None = None) -> dict[str, bytes]:
    """Every output file of the site by POSIX path relative to the output folder, in memory."""
    files = MemoryFiles()
    render_outputs(plan, options, files, progress)
    return dict(files)


def render_outputs(plan: SitePlan, options: BuildOptions, files: FileSink, progress: StageProgress | None = None,
                   caches: Caches | None = None, indexer: SearchIndexer | None = None) -> list[Problem]:
    """Put every output file into ``files`` (a staged output folder, or memory) and return the
    problems of rendering (a warning when search cannot be indexed). Articles whose inputs are
    unchanged are read back from ``caches.rendered``."""
    ctx = _context(plan)
    templates = template_folder(options.root)
    env = create_environment(templates)
    rendered = caches.rendered if caches is not None else Store(None)
    context_key = _context_key(ctx, templates)
    searchable: list[str] = []  # pages Pagefind indexes (read back from ``files`` for it)

    def put(url: str, rendered: dict[str, bytes]) -> None:
        for name, data in rendered.items():
            rel = url.lstrip("/") + name
            files.put(rel, data)
            if rel.endswith(".html") and b"data-pagefind-body" in data:
                searchable.append(rel)

    by_page = _charts(plan, options, progress)  # drawn first: the article HTML inlines them
    for page_url, svgs in by_page.items():
        put(page_url, svgs)
    for number, page in enumerate(plan.pages):
        if progress is not None:
            progress("rendering pages", number, len(plan.pages))
        svgs = by_page.get(page.url, {})
        key = article_key(page, plan.schemas.fingerprint, ctx.index.entry(page.url), context_key, svgs)
        outputs = rendered.load(key)
        if not isinstance(outputs, dict):
            outputs = render_article(env, page, ctx, svgs)
            rendered.save_later(key, functools.partial(_files_of, files, page.url, tuple(outputs)))
        put(page.url, outputs)
    for record in plan.index.records:
        put(record.url, render_record(env, record, ctx))
    # Articles and records are what the search indexes (data-pagefind-body): the indexer runs
    # (mostly in Pagefind's own process) while the rest of the site is rendered.
    if progress is not None:
        progress("indexing search", 0, 0)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="evidencepress-search") as pool:
        searching = pool.submit(indexer or build_search_index, SinkPages(files, list(searchable)),
                                plan.config.language)
        _render_the_rest(plan, options, env, ctx, put)
        search = searching.result()
    put("/" + PAGEFIND_FOLDER, dict(search.files))
    put(SEARCH_URL, render_search(env, ctx, search.available))
    return list(search.problems)


def _render_the_rest(plan: SitePlan, options: BuildOptions, env: Environment, ctx: SiteContext,
                     put: Callable[[str, dict[str, bytes]], None]) -> None:
    """Listings, the pages of /community/, /explore/ and /schema/, 404, data, feeds, copied files."""
    templates = template_folder(options.root)
    for listing in plan.index.listings:
        put(listing.url, render_listing(env, listing, ctx))
    put(COMMUNITY_URL, render_community(env, ctx))
    put(EXPLORE_URL, render_explore(env, ctx))
    put(SCHEMA_URL, render_schema_index(env, ctx, tuple((n, plan.schemas.documents[n]) for n, _ in plan.schemas.published)))
    put("/", {"404.html": render_not_found(env, ctx)})
    put(DATA_URL, data_files(plan.index, plan.config))
    put("/", feed_files(plan.index, plan.config))
    put("/", {asset.rel: asset.data for asset in plan.assets})
    put("/", {item.rel: item.data for item in plan.static})
    put("/", {MARKER: MARKER_TEXT})
    put("/static/", static_files(templates))
    put("/schema/", dict(plan.schemas.published))


class SinkPages(Mapping[str, bytes]):
    """Pages read back from a sink one at a time, so the indexer never holds the site in memory."""

    def __init__(self, files: FileSink, names: list[str]) -> None:
        self.files, self.names = files, names

    def __getitem__(self, name: str) -> bytes:
        if name not in self.names:
            raise KeyError(name)
        return self.files.read(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def _files_of(files: FileSink, url: str, names: tuple[str, ...]) -> dict[str, bytes]:
    return {name: files.read(url.lstrip("/") + name) for name in names}


def _charts(plan: SitePlan, options: BuildOptions, progress: StageProgress | None) -> dict[str, dict[str, bytes]]:
    """Every chart twice, <id>.svg (wide) and <id>.narrow.svg (phone), by page URL and file name;
    one cache, one pool."""
    drawings = [(page, name, drawn) for page in plan.pages for chart in page.charts for name, drawn in chart.variants()]
    cache = None if not options.use_cache else caches_of(options) / CHARTS
    charts_done = None if progress is None else functools.partial(progress, "drawing charts")
    svgs = render_charts([drawn for _, _, drawn in drawings], jobs=options.jobs, cache_dir=cache, progress=charts_done)
    by_page: dict[str, dict[str, bytes]] = {}
    for (page, name, _), svg in zip(drawings, svgs, strict=True):
        by_page.setdefault(page.url, {})[name] = svg
    return by_page


def _context_key(ctx: SiteContext, templates: Path) -> str:
    """Everything of the site an article's files depend on besides the article and its entry:
    configuration, navigation, schema URL, CSV columns, the templates (site and default)."""
    settings = repr((ctx.config, ctx.nav, ctx.schema_url, ctx.conditions))
    return key_of(code_fingerprint(), settings, tree_digest(templates), tree_digest(DEFAULT_TEMPLATES))


def _context(plan: SitePlan) -> SiteContext:
    return SiteContext(plan.config, navigation(plan.index, plan.config), plan.schemas.url("export.schema.json"),
                       plan.index, plan.schemas.core_conditions)


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
    return dict(files), problems + render_problems


def _rendered(plan: SitePlan, options: BuildOptions, files: FileSink, progress: StageProgress | None,
              caches: Caches | None = None, indexer: SearchIndexer | None = None) -> list[Problem]:
    """render_outputs, with a template error as a problem and --strict applied."""
    try:
        problems = render_outputs(plan, options, files, progress, caches, indexer)
    except TemplateError as exc:
        return [template_problem(exc, options.root)]
    return strict(problems) if options.strict else problems


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
    caches = site_caches(options)
    plan, plan_problems = plan_site(options, setup, caches, progress)
    problems += plan_problems
    if plan is None:
        return problems
    exports = options.root / EXPORTS_DIR
    try:
        # Files go into the new folders as they are rendered; the folders are swapped in at the end.
        with staged_folders([out, exports], options.root / JOURNAL, checkpoint) as folders:
            render_problems = _rendered(plan, options, folders[out], progress, caches)
            if has_errors(render_problems):
                raise _Abandoned(render_problems)
            for name, data in export_files(plan.pages, _context(plan)).items():
                folders[exports].put(name, data)
            if progress is not None:
                progress("writing", 0, 0)
    except _Abandoned as abandoned:
        return problems + abandoned.problems
    except OSError as exc:
        where = Location(str(exc.filename or out))
        return problems + [error(where, f"cannot write the site: {exc.strerror or exc}", "write",
                                 hint="the previous output is in place; free space or fix permissions, "
                                      "then build again")]
    problems += render_problems
    if options.use_cache:
        caches.commit()
        _remember(options, digest, problems, out, folders[out].sizes)
        prune_caches(caches_of(options))
    return problems


class _Abandoned(Exception):
    """Rendering found an error: the staged folders are dropped and nothing is swapped in."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} problems")
        self.problems = problems


def _remember(options: BuildOptions, digest: str | None, problems: list[Problem], out: Path,
              written: Mapping[str, int]) -> None:
    """Record the build, unless an input changed while it ran (then the record would lie)."""
    if digest is None or inputs_digest(options, out) != digest:
        return
    exports = options.root / EXPORTS_DIR
    sizes = tuple(sorted(written.items()))
    remember(options, digest, problems, Outputs(out, sizes, exports, tree_digest(exports)))


def check_site(options: BuildOptions, progress: StageProgress | None = None) -> list[Problem]:
    plan, problems = plan_site(options, progress=progress)
    if plan is None:
        return problems
    expected = export_files(plan.pages, _context(plan))
    found = read_tree(options.root / EXPORTS_DIR)
    return problems + stale_exports(expected, found, plan.pages, options.root)
