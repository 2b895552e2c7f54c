"""Rendering the whole site: every output file, into a sink (a staged output folder or memory).

Charts are drawn first (the article HTML inlines them), then record pages and
articles (each read back from the rendered cache when nothing it shows
changed), listings, the data files, feeds and copied files. Articles and
records are handed to the search indexer as they are rendered; it indexes them
in its own process while the rest is rendered.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path

from jinja2 import Environment

from ..cache.buildrecord import tree_digest
from ..cache.caches import CHARTS, Caches, Store, code_fingerprint, key_of
from ..cache.pages import article_key, record_key
from ..charts import iter_charts
from ..core.diagnostics import Problem
from ..core.forking import ordered_map
from ..core.options import BuildOptions, StageProgress
from ..output.article import (
    DEFAULT_TEMPLATES,
    SiteContext,
    create_environment,
    navigation,
    render_article,
    render_listing,
    static_files,
    template_folder,
)
from ..output.data import data_files
from ..output.feeds import site_files as feed_files
from ..output.generated import (
    PAGEFIND_FOLDER,
    render_community,
    render_explore,
    render_not_found,
    render_record,
    render_schema_index,
    render_search,
)
from ..output.search import SearchIndexer, search_run
from ..output.writer import MARKER, MARKER_TEXT, FileSink, MemoryFiles
from ..site.index import COMMUNITY_URL, DATA_URL, EXPLORE_URL, SCHEMA_URL, SEARCH_URL
from .plan import SitePlan, caches_of


def render_site(plan: SitePlan, options: BuildOptions, progress: StageProgress | None = None) -> dict[str, bytes]:
    """Every output file of the site by POSIX path relative to the output folder, in memory."""
    files = MemoryFiles()
    render_outputs(plan, options, files, progress)
    return dict(sorted(files.items()))  # charts arrive as they are drawn: an order that varies


def render_outputs(plan: SitePlan, options: BuildOptions, files: FileSink, progress: StageProgress | None = None,
                   caches: Caches | None = None, indexer: SearchIndexer | None = None,
                   meanwhile: Callable[[], None] | None = None) -> list[Problem]:
    """Put every output file into ``files`` (a staged output folder, or memory) and return the
    problems of rendering (a warning when search cannot be indexed). Articles and record pages
    whose inputs are unchanged are read back from ``caches.rendered``. ``meanwhile`` runs once
    every template and input file has been read and all but the search page is rendered, while
    the search index is finished in its own process."""
    ctx = site_context(plan)
    env = create_environment(template_folder(options.root))
    rendered = caches.rendered if caches is not None else Store(None)
    with search_run(indexer, plan.config.language) as search:

        def put(url: str, outputs: dict[str, bytes]) -> None:
            for name, data in outputs.items():
                rel = url.lstrip("/") + name
                files.put(rel, data)
                if rel.endswith(".html") and b"data-pagefind-body" in data:
                    search.add(rel, data)  # what the search indexes: articles and records

        drawn = _charts(plan, options, put, progress)  # drawn first: the article HTML inlines them
        articles = {page.url for page in plan.pages}
        article_csvs: list[bytes] = []  # in page order: /data/results.csv is their rows
        for number, (url, outputs, new_key) in enumerate(_pages(plan, options, env, ctx, files, rendered, drawn)):
            if progress is not None:
                progress("rendering pages", number, len(plan.pages) + len(plan.index.records))
            if new_key is not None:
                rendered.save_later(new_key, functools.partial(_files_of, files, url, tuple(outputs)), outputs)
            put(url, outputs)
            if url in articles:
                article_csvs.append(outputs["index.csv"])
        if progress is not None:
            progress("indexing search", 0, 0)
        search.start()  # Pagefind indexes in its own process while the rest of the site is rendered
        _render_the_rest(plan, options, env, ctx, put, files, article_csvs)
        search_page = env.get_template("search.html")  # the last template read: meanwhile may hash them
        if meanwhile is not None:
            meanwhile()
        index = search.finish()
    put("/" + PAGEFIND_FOLDER, dict(index.files))
    put(SEARCH_URL, render_search(search_page, ctx, index.available))
    return list(index.problems)


def _pages(plan: SitePlan, options: BuildOptions, env: Environment, ctx: SiteContext, files: FileSink,
           rendered: Store, drawn: dict[str, dict[str, str]]) -> Iterator[tuple[str, dict[str, bytes], str | None]]:
    """(URL, files, cache key to save them under or None) of each record page, then each article,
    read back from the rendered cache or rendered (on every core when many are). Records are few
    but can be large (every result of a source): those to render go to the workers first, one at
    a time, and the articles fill the workers around them. ``drawn``: the sha256 of each page's
    charts, which are read back from ``files`` to be inlined."""
    context_key = _context_key(ctx, template_folder(options.root))
    fingerprint = plan.schemas.fingerprint
    page_keys = plan.page_keys
    records = plan.index.records
    record_keys = [record_key(record, page_keys, fingerprint, context_key) for record in records]
    keys = [article_key(page_keys[page.url], ctx.index.entry(page.url), context_key, drawn.get(page.url, {}))
            for page in plan.pages]
    stale = [number for number, key in enumerate(record_keys) if not rendered.has(key)]
    missing = [number for number, key in enumerate(keys) if not rendered.has(key)]

    def render(task: tuple[bool, int]) -> dict[str, bytes]:
        is_record, number = task
        if is_record:
            return render_record(env, records[number], ctx)
        page = plan.pages[number]
        return render_article(env, page, ctx, _files_of(files, page.url, tuple(drawn.get(page.url, {}))))

    tasks = [(True, number) for number in stale] + [(False, number) for number in missing]
    fresh = ordered_map(render, tasks, options.jobs, heavy=len(stale))

    def outputs_of(task: tuple[bool, int], key: str, todo: set[int]) -> tuple[dict[str, bytes], str | None]:
        if task[1] in todo:
            return next(fresh), key
        cached = rendered.load(key)
        if isinstance(cached, dict):
            return cached, None
        return render(task), key  # the entry went away since has(): rendered here

    todo = set(stale)
    for number, (record, key) in enumerate(zip(records, record_keys, strict=True)):
        yield (record.url, *outputs_of((True, number), key, todo))
    todo = set(missing)
    for number, (page, key) in enumerate(zip(plan.pages, keys, strict=True)):
        yield (page.url, *outputs_of((False, number), key, todo))


def _render_the_rest(plan: SitePlan, options: BuildOptions, env: Environment, ctx: SiteContext,
                     put: Callable[[str, dict[str, bytes]], None], files: FileSink, article_csvs: list[bytes]) -> None:
    """Listings, the pages of /community/, /explore/ and /schema/, 404, data (``article_csvs``:
    each article's index.csv, in page order), feeds, copied files."""
    templates = template_folder(options.root)
    for listing in plan.index.listings:
        put(listing.url, render_listing(env, listing, ctx))
    put(COMMUNITY_URL, render_community(env, ctx))
    put(EXPLORE_URL, render_explore(env, ctx))
    put(SCHEMA_URL, render_schema_index(env, ctx, tuple((n, plan.schemas.documents[n]) for n, _ in plan.schemas.published)))
    put("/", {"404.html": render_not_found(env, ctx)})
    for name, chunks in data_files(plan.index, plan.config, article_csvs):
        files.put_chunks(DATA_URL.lstrip("/") + name, chunks)
    put("/", feed_files(plan.index, plan.config))
    put("/", {asset.rel: asset.data for asset in plan.assets})
    put("/", {item.rel: item.data for item in plan.static})
    put("/", {MARKER: MARKER_TEXT})
    put("/static/", static_files(templates))
    put("/schema/", dict(plan.schemas.published))


def _files_of(files: FileSink, url: str, names: tuple[str, ...]) -> dict[str, bytes]:
    return {name: files.read(url.lstrip("/") + name) for name in names}


def _charts(plan: SitePlan, options: BuildOptions, put: Callable[[str, dict[str, bytes]], None],
            progress: StageProgress | None) -> dict[str, dict[str, str]]:
    """Draw every chart twice, <id>.svg (wide) and <id>.narrow.svg (phone), and ``put`` each as
    it is done (one cache, one pool); the sha256 of each, by page URL and file name."""
    drawings = [(page, name, drawn) for page in plan.pages for chart in page.charts for name, drawn in chart.variants()]
    cache = None if not options.use_cache else caches_of(options) / CHARTS
    charts_done = None if progress is None else functools.partial(progress, "drawing charts")
    digests: dict[str, dict[str, str]] = {page.url: {} for page, _, _ in drawings}
    for number, svg in iter_charts([drawn for _, _, drawn in drawings], jobs=options.jobs, cache_dir=cache,
                                   progress=charts_done):
        page, name, _ = drawings[number]
        put(page.url, {name: svg})
        digests[page.url][name] = hashlib.sha256(svg).hexdigest()
    return digests


def _context_key(ctx: SiteContext, templates: Path) -> str:
    """Everything of the site an article's or record page's files depend on besides the page itself:
    configuration, navigation, schema URL, CSV columns, the templates (site and default)."""
    settings = repr((ctx.config, ctx.nav, ctx.schema_url, ctx.conditions))
    return key_of(code_fingerprint(), settings, tree_digest(templates), tree_digest(DEFAULT_TEMPLATES))


def site_context(plan: SitePlan) -> SiteContext:
    return SiteContext(plan.config, navigation(plan.index, plan.config), plan.schemas.url("export.schema.json"),
                       plan.index, plan.schemas.core_conditions)


