"""Render the generated pages: source records, their index, the explorer, search, schemas, 404.

Each page gets index.html, index.json and index.md like an article (the 404
page only its HTML). A record's index.json has the shape of an export, so a
downloader validates it with the same schema: its ``reported_results`` are
every result of the record, as authored, and ``page.articles`` says which
article reports which of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

import jinja2
from markupsafe import Markup

from ..checks.sources import ResultState
from ..core.export import EMPTY_EXPORT, RESULTS
from ..core.urls import absolute, relative
from ..core.words import key_name
from ..site.gaps import GAPS_TITLE, GAPS_URL, Unknowns, unknowns_of
from ..site.index import (
    COMMUNITY_SUMMARY,
    COMMUNITY_TITLE,
    COMMUNITY_URL,
    DATA_URL,
    EXPLORE_SUMMARY,
    EXPLORE_TITLE,
    EXPLORE_URL,
    SCHEMA_SUMMARY,
    SCHEMA_TITLE,
    SCHEMA_URL,
    SEARCH_SUMMARY,
    SEARCH_TITLE,
    SEARCH_URL,
)
from ..site.records import Record
from .article import SiteContext, dump_json, generated_envelope, page_context
from .body import render_tokens
from .generated_md import page_markdown, record_markdown
from .templating import render_utf8
from .verification import badges_by_pointer, entries
from .views import anchored, citation_view, record_shared, shared_view

PAGEFIND_FOLDER = "pagefind/"


def render_record(env: jinja2.Environment, record: Record, ctx: SiteContext) -> dict[str, bytes]:
    return dict(record_files(env, record, ctx))


def record_files(env: jinja2.Environment, record: Record, ctx: SiteContext) -> Iterator[tuple[str, bytes]]:
    """A record page's files, one after another (the three of a record of 26,000 results are 53 MB)."""
    titles = dict(ctx.condition_titles)
    shared = record_shared(record.results, ctx.conditions)
    keys = frozenset(key for key, _ in shared)
    views = anchored(tuple(citation_view(c, badges_by_pointer(ctx.states_of(c.page.url)), keys, ctx.conditions, titles)
                           for c in record.citations))
    common = shared_view(shared, titles)
    prose = Markup(render_tokens(record.prose.tokens, record.url, {}, frozenset())) if record.prose else Markup("")
    unknown = unknown_lines(unknowns_of(record.results, ctx.conditions), titles)
    yield "index.html", render_utf8(
        env.get_template("record.html"),
        **page_context(ctx, record.url), record=record, citations=views, shared=common, prose=prose,
        unknown=unknown,
        community_url=COMMUNITY_URL, explore_url=EXPLORE_URL, gaps_url=GAPS_URL,
    )
    yield "index.json", record_json(record, ctx)
    yield "index.md", record_markdown(record, views, unknown, common).encode("utf-8")


def unknown_lines(unknowns: Unknowns, titles: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """A record page's lines: the core conditions null in every one of its results, then those
    none of them carries (none when there are none), by their human names (``titles``)."""
    lines = []
    if unknowns.not_reported:
        names = (key_name(key, titles) for key in unknowns.not_reported)
        lines.append("Not reported by this source: " + ", ".join(names) + ".")
    if unknowns.not_considered:
        names = (key_name(key, titles) for key in unknowns.not_considered)
        lines.append("Not considered: " + ", ".join(names) + ".")
    return tuple(lines)


def record_json(record: Record, ctx: SiteContext) -> bytes:
    return dump_json(record_document(record, ctx))


def record_document(record: Record, ctx: SiteContext) -> dict[str, Any]:
    """A record's index.json: every result of the record, as authored, in an export."""
    base = ctx.config.base_url
    envelope = generated_envelope(ctx, record.url, record.title, record.checked.isoformat())
    sources: dict[str, Mapping[str, Any]] = {}
    for citation in record.citations:
        for s in citation.sources:
            sources.setdefault(s.url, {"publisher": s.publisher, "url": s.url, "revision": s.revision,
                                       "sha256": s.sha256, "pinned": s.pinned})
    envelope["sources"] = list(sources.values())
    envelope["source_record_id"] = record.id
    articles, start = [], 0
    for citation in record.citations:
        page = citation.page
        articles.append({
            "title": page.front.title, "url": absolute(base, page.url),
            "json_url": absolute(base, page.url + "index.json"), "checked": page.front.checked.isoformat(),
            "results": list(range(start, start + len(citation.results))),
            "other_entries": [m.pointer for m in citation.mentions],
        })
        start += len(citation.results)
    envelope["articles"] = articles
    envelope["verification"] = _record_verification(record, ctx)
    return {"page": envelope, "facts": [], RESULTS: [result.data for result in record.results],
            "conditions": {}}


def _record_verification(record: Record, ctx: SiteContext) -> list[dict[str, Any]]:
    """The states of the record's results, as its citing pages have them, pointing into the record's
    own reported_results."""
    found: list[ResultState] = []
    position = 0  # in the record's reported_results
    for citation in record.citations:
        states = {state.index: state for state in ctx.states_of(citation.page.url) if state.section == RESULTS}
        for index in citation.indexes:
            state = states.get(index)
            found += [replace(state, index=position)] if state is not None else []
            position += 1
    return entries(found)


def render_community(env: jinja2.Environment, ctx: SiteContext) -> dict[str, bytes]:
    records = ctx.index.records
    html = env.get_template("records.html").render(
        **page_context(ctx, COMMUNITY_URL), title=COMMUNITY_TITLE, summary=COMMUNITY_SUMMARY, records=records,
    )
    envelope = generated_envelope(ctx, COMMUNITY_URL, COMMUNITY_TITLE,
                                  max((r.checked.isoformat() for r in records), default=None))
    envelope["records"] = [
        {"id": r.id, "title": r.title, "url": absolute(ctx.config.base_url, r.url),
         "json_url": absolute(ctx.config.base_url, r.url + "index.json"), "results": len(r.results),
         "articles": len(r.citations)}
        for r in records
    ]
    links = [(r.title, r.url, f"`{r.id}`, {len(r.results)} results") for r in records]
    return page_files(html, envelope, page_markdown(COMMUNITY_TITLE, [COMMUNITY_SUMMARY], links))


def render_explore(env: jinja2.Environment, ctx: SiteContext) -> dict[str, bytes]:
    totals = ctx.index.totals
    html = env.get_template("explore.html").render(
        **page_context(ctx, EXPLORE_URL), title=EXPLORE_TITLE, summary=EXPLORE_SUMMARY, totals=totals,
        data_url=DATA_URL, gaps_url=GAPS_URL,
    )
    envelope = generated_envelope(ctx, EXPLORE_URL, EXPLORE_TITLE, None)
    downloads = [(name, DATA_URL + name, note) for name, note in (
        ("results.csv", ("every reported result, one row each (RFC 4180; an empty cell is not reported, "
                         "`not considered` a condition the result does not carry)")),
        ("results.json", ("the same rows as JSON, null where not reported, a condition the result does not "
                          "carry left out")),
        ("datapackage.json", "the tables as a Frictionless Data Package: column types, sizes, hashes"),
        ("gaps.json", ("per recommended condition, how many results report it, write null or leave it out, "
                      f"and which unreported conditions block comparisons (as a page: [{GAPS_TITLE}]({GAPS_URL}))")),
        ("catalog.json", "every page with its HTML, JSON and Markdown URLs"),
    )]
    envelope["data"] = [absolute(ctx.config.base_url, url) for _, url, _ in downloads]
    text = page_markdown(EXPLORE_TITLE, [EXPLORE_SUMMARY, "The explorer needs a browser; the same rows are here:"],
                         downloads)
    return page_files(html, envelope, text)


def render_search(template: jinja2.Template, ctx: SiteContext, available: bool,
                  merged: tuple[str, ...] = ()) -> dict[str, bytes]:
    """/search/ from its template (``env.get_template("search.html")``); ``merged``: the folders in
    the bundle of the shards its search merges in (``output.searchshards``)."""
    bundle_url = relative(SEARCH_URL, "/" + PAGEFIND_FOLDER)
    html = template.render(
        **page_context(ctx, SEARCH_URL), title=SEARCH_TITLE, summary=SEARCH_SUMMARY, available=available,
        bundle_url=bundle_url, merged=[bundle_url + folder for folder in merged],
    )
    envelope = generated_envelope(ctx, SEARCH_URL, SEARCH_TITLE, None)
    agents = "Search needs a browser. Agents: read /llms.txt or /data/catalog.json for every page with its URLs."
    text = page_markdown(SEARCH_TITLE, [SEARCH_SUMMARY, agents])
    return page_files(html, envelope, text)


def render_schema_index(env: jinja2.Environment, ctx: SiteContext,
                        published: tuple[tuple[str, Mapping[str, Any]], ...]) -> dict[str, bytes]:
    schemas = [(name, str(doc.get("title", name)), _with_code(str(doc.get("description", ""))))
               for name, doc in published]
    html = env.get_template("schemas.html").render(
        **page_context(ctx, SCHEMA_URL), title=SCHEMA_TITLE, summary=SCHEMA_SUMMARY, schemas=schemas,
    )
    envelope = generated_envelope(ctx, SCHEMA_URL, SCHEMA_TITLE, None)
    envelope["schemas"] = [absolute(ctx.config.base_url, SCHEMA_URL + name) for name, _, _ in schemas]
    links = [(title, SCHEMA_URL + name, str(doc.get("description", ""))) for (name, title, _), (_, doc)
             in zip(schemas, published, strict=True)]
    return page_files(html, envelope, page_markdown(SCHEMA_TITLE, [SCHEMA_SUMMARY], links))


def _with_code(text: str) -> Markup:
    """A schema description with its `backticked` words as <code> (everything else escaped)."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: show the text as it is
        return Markup.escape(text)
    return Markup("").join(Markup("<code>{}</code>").format(p) if i % 2 else Markup.escape(p)
                           for i, p in enumerate(parts))


def render_not_found(env: jinja2.Environment, ctx: SiteContext) -> bytes:
    """/404.html: served by hosts at any URL, so its links start at the base path."""
    context = page_context(ctx, "/404.html", formats=False, from_root=True)
    html = env.get_template("404.html").render(**context, explore_url=EXPLORE_URL, community_url=COMMUNITY_URL)
    return html.encode("utf-8")


def page_files(html: str, envelope: dict[str, Any], markdown: str) -> dict[str, bytes]:
    return {
        "index.html": html.encode("utf-8"),
        "index.json": dump_json({"page": envelope, **EMPTY_EXPORT}),
        "index.md": markdown.encode("utf-8"),
    }
