"""Render stage of the build: every output file, into a sink (a staged output folder or memory).

The steps, in the order the recipe calls them: ``render_pages`` (record pages,
then articles, each read back from the rendered cache when nothing it shows
changed, with their drawn charts beside them), ``render_generated``
(listings, the pages of /community/, /explore/ and /schema/, the data files,
feeds, copied files) and ``render_search_page`` once the search index is done.
Articles and records go to the search run as they are rendered; it indexes
them in its own process while the rest is rendered. ``render_into`` runs the
steps one after the other, for the dev server and ``diff``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, Template

from ..cache.buildrecord import tree_digest
from ..cache.caches import Caches, Store, code_fingerprint, key_of
from ..cache.pages import EntryKeys, article_key, citing_key, record_key
from ..core.diagnostics import Problem
from ..core.forking import Spilled, give_back_memory, ordered_map, spill, unspill
from ..core.options import BuildOptions, StageProgress
from ..core.scratch import scratch_folder
from ..output.article import (
    DEFAULT_TEMPLATES,
    SiteContext,
    create_environment,
    navigation,
    render_article,
    static_files,
    template_folder,
)
from ..output.comparison import comparison_members
from ..output.dataindex import data_index_entries, render_data_index
from ..output.exports import snapshot_context, snapshot_json
from ..output.feeds import feed_files
from ..output.gaps import gap_files
from ..output.generated import (
    PAGEFIND_FOLDER,
    record_files,
    render_community,
    render_explore,
    render_not_found,
    render_record,
    render_schema_index,
    render_search,
)
from ..output.history import history_files
from ..output.search import IndexerRun, SearchIndex, SearchIndexer, pagefind_version
from ..output.searchshards import ShardedSearch, shard_members
from ..output.writer import MARKER, MARKER_TEXT, FileSink, MemoryFiles
from ..site.index import COMMUNITY_URL, DATA_URL, EXPLORE_URL, SCHEMA_URL, SEARCH_URL, SiteIndex
from .draw import Drawings, draw_charts, drawing_folder
from .plan import SitePlan
from .rendered import (
    SNAPSHOT_ENTRY,
    PageSinks,
    RenderedPage,
    index_cached,
    put_cached,
    put_rendered,
    save_rendered,
)
from .sitewide import data_files_key, listing_files, listing_key, put_data_files, put_linked, put_results_table

SearchRun = ShardedSearch | IndexerRun
# A record page with this many results or more is rendered apart, in a child of the worker
# (``forking.spill``): one of 20,000 left the worker 300 MB larger, but a fork for each of the 880
# small records of the example articles ×40 took 40 CPU-s.
APART_RESULTS = 1_000
# Fresh render workers are forked for every run of this many pages: a worker holds a copy of what it
# touched of the site's memory (5,000 articles: 390 MB each by the end). Each run costs its workers
# copying again what they touch: every 1,000 pages cost 6 % more CPU at 5,000 articles.
RENEW_WORKERS_AFTER = 2_500


def search_run(indexer: SearchIndexer | None, language: str, store: Store | None = None) -> SearchRun:
    """The search index of a build: Pagefind in shards, read back from ``store`` where their pages
    are unchanged; or the given indexer (the dev server's, in the background)."""
    return ShardedSearch(language, store) if indexer is None else IndexerRun(indexer, language)


@dataclass(frozen=True)
class Renderer:
    """What every page is rendered with: the site context, the template environment, and the
    search page's template, read now so that every template has been read once the pages are."""

    ctx: SiteContext
    env: Environment
    search_page: Template
    context_key: str  # what an article's or record page's files depend on besides the page itself
    entries: EntryKeys = field(default_factory=EntryKeys)  # each article's entry in the site index, as a digest


def renderer(plan: SitePlan, options: BuildOptions) -> Renderer:
    ctx = site_context(plan)
    env = create_environment(template_folder(options.root))
    return Renderer(ctx, env, env.get_template("search.html"), _context_key(ctx, template_folder(options.root)))


def render_site(plan: SitePlan, options: BuildOptions, progress: StageProgress | None = None) -> dict[str, bytes]:
    """Every output file of the site by POSIX path relative to the output folder, in memory."""
    files = MemoryFiles()
    render_into(plan, options, files, progress)
    return dict(sorted(files.items()))


def render_into(plan: SitePlan, options: BuildOptions, files: FileSink, progress: StageProgress | None = None,
                caches: Caches | None = None, indexer: SearchIndexer | None = None) -> list[Problem]:
    """Draw and render every output file of the site into ``files``, the steps one after the
    other (the dev server, ``diff``); the problems of rendering (a warning when search cannot be
    indexed). ``caches``: the rendered cache to read and save pages in (none: every page is rendered)."""
    rendered = caches.rendered if caches else None
    with drawing_folder() as folder, search_run(indexer, plan.config.language, rendered) as search:
        drawings = draw_charts(plan, options, folder, progress)
        site = renderer(plan, options)
        render_pages(site, plan, options, drawings, files, search, rendered, progress)
        search.start()
        render_generated(site, plan, options, files, rendered)
        return render_search_page(site, files, search.finish())


def render_pages(site: Renderer, plan: SitePlan, options: BuildOptions, drawings: Drawings, files: FileSink,
                 search: SearchRun, rendered: Store | None, progress: StageProgress | None = None,
                 exports: FileSink | None = None) -> None:
    """Record pages and articles into ``files``, each with its drawn charts, and to ``search``;
    each published article's file of exports/ into ``exports`` (None: nowhere). Those ``rendered``
    (the rendered cache; None: read and save nothing) holds under their key are read back from it;
    the others are rendered and saved in it."""
    if progress is not None:
        progress("rendering pages", 0, len(plan.pages) + len(plan.index.records))
    record_keys, article_keys = _render_keys(site, plan, drawings)
    urls = [record.url for record in plan.index.records] + [page.url for page in plan.pages]
    keyed = {url.lstrip("/") + "index.html": key for url, key in zip(urls, record_keys + article_keys, strict=True)}
    members = shard_members(sorted(keyed))
    search.plan(members, _shard_keys(members, keyed, plan.config.language))
    sinks = PageSinks(files, exports, search)
    store = rendered if rendered is not None else Store(None)
    cached = [found if isinstance(found, RenderedPage) else None for found in store.load_many(record_keys + article_keys)]
    for url, found in zip(urls, cached, strict=True):
        if found is not None:
            index_cached(sinks, url, found, store)  # an edited page's shard: its unchanged pages first
    for number, page in enumerate(_pages(site, plan, options, drawings, cached, record_keys, article_keys), start=1):
        _put_page(sinks, page, store, rendered)
        _put_drawings(files, page.url, drawings)  # a record page has none
        if page.apart:  # its 50 MB are written and indexed: given back once nothing holds them (they left
            del page  # ~150 MB behind in this process, copied into each worker forked afterwards)
            give_back_memory()
        if progress is not None:
            progress("rendering pages", number, len(plan.pages) + len(plan.index.records))
    if progress is not None:
        progress("indexing search", 0, 0)


def _put_page(sinks: PageSinks, page: _Page, store: Store, rendered: Store | None) -> None:
    if page.cached is None or not put_cached(sinks, page.url, page.cached, store):
        outputs = page.outputs if page.outputs is not None else page.render()
        put_rendered(sinks, page.url, outputs, save_rendered(rendered, page.key, outputs))


def render_generated(site: Renderer, plan: SitePlan, options: BuildOptions, files: FileSink,
                     rendered: Store | None = None, exports: FileSink | None = None) -> None:
    """Listings, the pages of /community/, /explore/ and /schema/, 404, the data files, feeds,
    /changes/ and /history/, /gaps/, /data/'s index (after the files it measures), copied files;
    exports/results.csv into ``exports`` (None: nowhere)."""
    env, ctx = site.env, site.ctx
    for listing in plan.index.listings:
        put_linked(files, rendered, "listing " + listing_key(site.context_key, ctx.index, listing, site.entries),
                   functools.partial(listing_files, env, ctx, listing))
    data_key = data_files_key(site.context_key, plan)  # of what the records, the data and the feeds show
    put_linked(files, rendered, "community " + data_key,
               lambda: {COMMUNITY_URL.lstrip("/") + name: data for name, data in render_community(env, ctx).items()})
    _put(files, None, EXPLORE_URL, render_explore(env, ctx))
    schemas = tuple((name, plan.schemas.documents[name]) for name, _ in plan.schemas.published)
    _put(files, None, SCHEMA_URL, render_schema_index(env, ctx, schemas))
    _put(files, None, "/", {"404.html": render_not_found(env, ctx)})
    sizes = put_data_files(plan, files, rendered, data_key)  # of each file of /data/, as written: for its index
    if exports is not None:
        put_results_table(plan, ctx, exports, rendered, data_key)
    put_linked(files, rendered, "feeds " + data_key, lambda: feed_files(plan.index, plan.config))
    _put(files, None, "/", history_files(env, ctx))
    gaps = put_linked(files, rendered, "gaps " + data_key, lambda: gap_files(env, ctx))
    sizes |= {rel.removeprefix(DATA_URL.lstrip("/")): size for rel, size in gaps.items()
              if rel.startswith(DATA_URL.lstrip("/"))}
    _put(files, None, DATA_URL, render_data_index(env, ctx, data_index_entries(sizes, plan.static)))
    _put(files, None, "/", {asset.rel: asset.data for asset in plan.assets})
    _put(files, None, "/", {item.rel: item.data for item in plan.static})
    _put(files, None, "/", {MARKER: MARKER_TEXT})
    _put(files, None, "/static/", static_files(template_folder(options.root)))
    _put(files, None, "/schema/", dict(plan.schemas.published))


def render_search_page(site: Renderer, files: FileSink, index: SearchIndex) -> list[Problem]:
    """The Pagefind bundle and /search/ (which says when there is no index); its problems."""
    _put(files, None, "/" + PAGEFIND_FOLDER, dict(index.files))
    _put(files, None, SEARCH_URL, render_search(site.search_page, site.ctx, index.available, index.merged))
    return list(index.problems)


def _put(files: FileSink, search: SearchRun | None, url: str, outputs: dict[str, bytes]) -> None:
    for name, data in outputs.items():
        rel = url.lstrip("/") + name
        files.put(rel, data)
        if search is not None and rel.endswith(".html") and b"data-pagefind-body" in data:
            search.add(rel, data)  # what the search indexes: articles and records


def _render_keys(site: Renderer, plan: SitePlan, drawings: Drawings) -> tuple[list[str], list[str]]:
    """The key of each record page's and each article's rendered files: what they depend on."""
    ctx = site.ctx
    fingerprint = plan.schemas.fingerprint
    page_keys = plan.page_keys
    # The vault is not an input of a page: its states are part of each page's key (as their digest).
    states = plan.state_keys
    citing = {page.url: citing_key(plan.index.facts.get(page.url, ""), page.front) for page in plan.pages}
    record_keys = [record_key(record, citing, fingerprint, site.context_key, states)
                   for record in plan.index.records]
    keys = [article_key(page_keys[page.url], site.entries.of(ctx.index.entry(page.url)), site.context_key,
                        drawings.digests(page.url), states.get(page.url, ""), ctx.history.of(page.url),
                        _around(ctx.index, page.url))
            for page in plan.pages]
    return record_keys, keys


def _around(index: SiteIndex, url: str) -> tuple[tuple[str, str] | None, ...]:
    """What an article shows of its neighbours (``neighbours``): the title and URL of each, for its
    key (written out as plain tuples: the dataclasses' repr was a tenth of the keys' time)."""
    return tuple((entry.page.front.title, entry.page.url) if entry is not None else None
                 for entry in index.around(url))


def _shard_keys(members: list[list[str]], pages: Mapping[str, str], language: str) -> list[str]:
    """The key of each shard of the search index (``output.searchshards``): of its pages' paths and
    keys (``pages``), the language, Pagefind's version and the code."""
    fixed = ("search shard", str(len(members)), language, pagefind_version(), code_fingerprint())
    return ["search " + key_of(*fixed, str(number), *(part for rel in shard for part in (rel, pages[rel])))
            for number, shard in enumerate(members)]


@dataclass(frozen=True)
class _Page:
    """A page to put into the output: its files made now (``outputs``), or as the rendered cache
    holds them (``cached``); ``render`` makes them (again, when the cache no longer has their bytes)."""

    url: str
    key: str  # its rendered cache key
    outputs: dict[str, bytes] | None
    cached: RenderedPage | None
    render: Callable[[], dict[str, bytes]]
    apart: bool = False  # ``outputs`` were made in a child of a worker (a large record page)


def _pages(site: Renderer, plan: SitePlan, options: BuildOptions, drawings: Drawings,
           cached: list[RenderedPage | None], record_keys: list[str], keys: list[str]) -> Iterator[_Page]:
    """Each record page, then each article, as the rendered cache holds it (``cached``) or rendered
    (on every core when many are). Records are few but can be large (every result of a source):
    those to render go to the workers first, one at a time, and the articles fill the workers
    around them."""
    env, ctx = site.env, site.ctx
    records = plan.index.records
    stale = [number for number, key in enumerate(record_keys) if cached[number] is None]
    missing = [number for number, key in enumerate(keys) if cached[len(record_keys) + number] is None]
    snapshot = snapshot_context(ctx)
    tasks = [(True, number) for number in stale] + [(False, number) for number in missing]
    urls = [record.url for record in records] + [page.url for page in plan.pages]
    todo = {(True, number) for number in stale} | {(False, number) for number in missing}
    with scratch_folder("records") as scratch:  # record pages rendered apart wait there

        def render(task: tuple[bool, int]) -> dict[str, bytes] | Spilled:
            is_record, number = task
            if is_record:
                record = records[number]
                if len(record.results) < APART_RESULTS:
                    return render_record(env, record, ctx)
                return spill(functools.partial(record_files, env, record, ctx), str(scratch / f"{number}.pickle"))
            page = plan.pages[number]
            members = comparison_members(page.export, ctx.comparability)  # in index.json and in its snapshot
            outputs = render_article(env, page, ctx, drawings.svgs(page.url), members)
            # made and kept with the page (its key covers all it depends on), so that an edit
            # makes only the edited article's
            export = snapshot_json(page, snapshot, members)
            return outputs if export is None else {**outputs, SNAPSHOT_ENTRY: export}

        fresh = ordered_map(render, tasks, options.jobs, heavy=len(stale), renew_after=RENEW_WORKERS_AFTER)
        for at, (url, key) in enumerate(zip(urls, record_keys + keys, strict=True)):
            task = (True, at) if at < len(record_keys) else (False, at - len(record_keys))
            result = next(fresh) if task in todo else None
            outputs = unspill(result) if result is not None else None
            yield _Page(url, key, outputs, cached[at], functools.partial(_rendered, render, task),
                        isinstance(result, Spilled))
            outputs = None  # the consumer gives its memory back once it is done with the page


def _rendered(render: Callable[[tuple[bool, int]], dict[str, bytes] | Spilled], task: tuple[bool, int]) -> dict[str, bytes]:
    """The files of ``task`` rendered again (here: never spilled; ``unspill`` says so to the types)."""
    return unspill(render(task))


def _put_drawings(files: FileSink, url: str, drawings: Drawings) -> None:
    """The page's chart files: linked from the output this one replaces where it holds them."""
    for drawing in drawings.pages.get(url, ()):
        rel = url.lstrip("/") + drawing.name
        if files.can_link(rel, drawing.sha256):
            files.link(rel, drawing.sha256)
        else:
            files.put(rel, drawing.svg(), bytes.fromhex(drawing.sha256))


def _context_key(ctx: SiteContext, templates: Path) -> str:
    """Everything of the site an article's or record page's files depend on besides the page itself:
    configuration, navigation, schema URL, CSV columns, the templates (site and default)."""
    settings = repr((ctx.config, ctx.nav, ctx.schema_url, ctx.conditions, ctx.comparability,
                     ctx.condition_titles))
    return key_of(code_fingerprint(), settings, tree_digest(templates), tree_digest(DEFAULT_TEMPLATES))


def site_context(plan: SitePlan) -> SiteContext:
    # index.json names the schema the site publishes (which may extend the default), not its $id
    return SiteContext(plan.config, navigation(plan.index, plan.config), SCHEMA_URL + "export.schema.json",
                       plan.index, plan.schemas.core_conditions, plan.source_states, plan.history,
                       plan.schemas.comparability, plan.schemas.condition_titles)


