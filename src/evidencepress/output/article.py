"""Render stage: pages -> bytes of index.html, index.json, index.md and index.csv.

Templates receive model objects only and compute nothing; everything they
show is prepared here or in the site stage. Jinja2 runs with autoescape and
StrictUndefined. Pages across the site (records, explorer, feeds ...) are
rendered by ``generated.py``, ``feeds.py`` and ``data.py``.
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import markupsafe
from markupsafe import Markup

from ..charts import ChartPlan, chart_table, inline_svg
from ..checks.config import SiteConfig
from ..checks.page import Page
from ..checks.resultids import anchor_of
from ..checks.sources import ResultState
from ..content.markdown import headings
from ..core import jsontext
from ..core.diagnostics import Location, Problem, error, shown_path
from ..core.export import EMPTY_EXPORT
from ..core.urls import absolute, relative
from ..core.words import key_name
from ..schemas.comparability import NO_RULES, Rules
from ..site.history import CHANGES_URL, DataHistory
from ..site.index import COMMUNITY_URL, EXPLORE_URL, SEARCH_URL, Listing, SiteIndex
from .article_md import article_markdown
from .body import render_tokens
from .changewords import change_views
from .chartfiles import chart_files, downloads, entry_at
from .citation import cite_page
from .comparison import comparison_members
from .data import article_csv
from .generated_md import listing_markdown
from .inline import shared_conditions
from .jsonld import dataset_jsonld
from .sourcelist import source_views
from .templating import MemoryBytecode, guarded_environment
from .verification import any_checked, badges_by_pointer, envelope_members, of_entry

DEFAULT_TEMPLATES = Path(__file__).resolve().parents[1] / "defaults" / "templates"


@dataclass(frozen=True)
class NavItem:
    title: str
    url: str
    current: bool = False


@dataclass(frozen=True)
class Neighbours:
    """The articles before and after one in its section's listing order (None at either end)."""

    previous: NavItem | None = None
    next: NavItem | None = None


def neighbours(index: SiteIndex, url: str) -> Neighbours:
    """An article's neighbours in the listing of its section (newest checked first); none outside a section."""
    before, after = index.around(url)
    return Neighbours(*(NavItem(entry.page.front.title, entry.page.url) if entry else None for entry in (before, after)))


@dataclass(frozen=True)
class SiteContext:
    config: SiteConfig
    nav: tuple[NavItem, ...]
    schema_url: str  # the site path of the published export schema: /schema/export.schema.json
    index: SiteIndex
    conditions: tuple[str, ...]  # the core condition keys: the columns of every CSV
    # Each page's results' and facts' states against the vault, by page URL; None: not published
    # (exports/, the content's snapshot: the states come from the vault).
    verification: Mapping[str, tuple[ResultState, ...]] | None = field(default_factory=dict)
    history: DataHistory = field(default_factory=DataHistory)  # the changes to the published data, from git
    comparability: Rules = NO_RULES  # which results may be compared (schema/comparability.json)
    condition_titles: tuple[tuple[str, str], ...] = ()  # (key, human name) from the condition schema's titles

    def states_of(self, url: str) -> tuple[ResultState, ...]:
        return self.verification.get(url, ()) if self.verification is not None else ()


def template_problem(exc: jinja2.TemplateError, root: Path) -> Problem:
    """A template that fails to compile or to render, at its file and line."""
    path, line = getattr(exc, "filename", None), getattr(exc, "lineno", None) or 0
    if path is None:  # a runtime error: Jinja points the traceback into the template
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.endswith((".html", ".xml", ".txt"))]
        own = [f for f in frames if Path(f.filename).resolve().is_relative_to((root / "templates").resolve())]
        if frames:  # the innermost frame of the site's own templates, where the author can act; of a loop
            # (where the stack ran out is chance), its first line
            chosen = min(own or frames, key=lambda f: (f.filename, f.lineno or 0)) if getattr(exc, "loop", False) \
                else (own or frames)[-1]
            path, line = chosen.filename, chosen.lineno or 0
    shown = shown_path(Path(path), root) if path else "templates/"
    return error(Location(shown, line), f"template error: {exc.message or exc}", "template",
                 hint=getattr(exc, "hint", "fix the template; every variable a template uses must be one the renderer "
                                           "passes"))


def template_folder(root: Path) -> Path:
    own = root / "templates"
    return own if (own / "page.html").is_file() else DEFAULT_TEMPLATES


def static_files(folder: Path) -> dict[str, bytes]:
    """The theme's static/ files (style.css, scripts, fonts/…) by POSIX path under static/:
    the site's own, else the default file of that path."""
    found: dict[str, bytes] = {}
    for source in (DEFAULT_TEMPLATES / "static", folder / "static"):
        if source.is_dir():
            found.update({p.relative_to(source).as_posix(): p.read_bytes()
                          for p in sorted(source.rglob("*")) if p.is_file()})
    return dict(sorted(found.items()))


_COMPILED = MemoryBytecode()


def create_environment(folder: Path) -> jinja2.Environment:
    env = guarded_environment(
        [str(folder), str(DEFAULT_TEMPLATES)],
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
        auto_reload=False,  # one environment per build: no stat of each template at each use
        bytecode_cache=_COMPILED,  # every environment made here has these options: their code is the same
    )
    env.filters["authored"] = as_authored
    env.filters["search_filter_text"] = search_filter_text
    env.filters["key_name"] = key_name
    return env


def search_filter_text(value: Any) -> str:
    """A search filter value as the page must write it for Pagefind's UI to show it as text.

    The UI inserts filter values as HTML, so the index must hold the value escaped as HTML; and
    the pinned Pagefind decodes the entities of a filter's text twice when it indexes it (tested:
    ``test_search_filters_are_text``). So the value is escaped twice here (a plain str, which the
    template escapes a third time)."""
    return str(markupsafe.escape(str(markupsafe.escape(str(value)))))


def as_authored(value: Any) -> str:
    """A JSON value as the export writes it; null reads "not reported"."""
    if value is None:
        return "not reported"
    if isinstance(value, str):
        return value
    return jsontext.dumps(value, indent=None)


def page_context(ctx: SiteContext, url: str, *, formats: bool = True, from_root: bool = False) -> dict[str, Any]:
    """What base.html needs on every page.

    ``rel`` turns a site path into the href used on the page at ``url``:
    relative, so the site works under any base path and from disk; or, with
    ``from_root`` (the 404 page, served at arbitrary URLs), the base path of
    base_url followed by the site path.
    """
    nav = tuple(NavItem(i.title, i.url, i.url == url or (i.url != "/" and url.startswith(i.url))) for i in ctx.nav)
    link: Callable[[str], str] = (
        functools.partial(_from_base, ctx.config.base_path) if from_root else functools.partial(relative, url)
    )
    return {
        "site": ctx.config,
        "root": link("/"),
        "canonical": absolute(ctx.config.base_url, url),
        "nav": nav,
        "rel": link,
        "formats": formats,
        "search_url": link(SEARCH_URL),
        "jsonld": "",
    }


def _from_base(base_path: str, target: str) -> str:
    return base_path.rstrip("/") + target


def render_article(
    env: jinja2.Environment, page: Page, ctx: SiteContext, svgs: Mapping[str, bytes] | None = None,
    members: list[dict[str, Any]] | None = None,
) -> dict[str, bytes]:
    """index.html, index.json, index.md and index.csv of an article and each chart's <id>.csv and
    <id>.json, by file name (``svgs``: the drawn charts of the page by file name, inlined into the HTML;
    ``members``: its ``comparison_members``, when they are made already)."""
    return {
        "index.html": article_html(env, page, ctx, svgs or {}).encode("utf-8"),
        "index.json": article_json(page, ctx, members),
        "index.md": article_markdown(page, ctx.config.footer).encode("utf-8"),
        "index.csv": article_csv(page, ctx.index.results),
        **chart_files(page, ctx.states_of(page.url), ctx.config.base_url, ctx.conditions),
    }


def article_html(env: jinja2.Environment, page: Page, ctx: SiteContext, svgs: Mapping[str, bytes]) -> str:
    figure = env.get_template("figure.html")
    figures: dict[int, str] = {}
    badges = badges_by_pointer(ctx.states_of(page.url))
    for chart in page.charts:
        body_line = chart.line - page.body_line
        # The SVGs are inlined so that the page's colours (light, dark) and web font reach them.
        wide, narrow = (svgs.get(name) for name in (f"{chart.id}.svg", f"{chart.id}.narrow.svg"))
        table = chart_table(chart)
        row_badges = [[of_entry(pointer, badges) for pointer in group.pointers] for group in table.groups]
        row_links = [[_record_row(page, pointer) for pointer in group.pointers] for group in table.groups]
        figures[body_line] = figure.render(
            chart=chart,
            table=table,
            badges=row_badges,
            links=row_links,
            checked=any_checked(b for group in row_badges for b in group),
            downloads=downloads(chart),
            wide=Markup(inline_svg(wide)) if wide else "",
            narrow=Markup(inline_svg(narrow)) if narrow else "",
        )
    hidden = frozenset({page.export_index} if page.export_index is not None else ())
    shared = shared_conditions(page.export)
    body = Markup(render_tokens(page.tokens, page.url, figures, hidden, page.inline_values, shared,
                                dict(ctx.condition_titles)))
    entry = ctx.index.entry(page.url)
    context = page_context(ctx, page.url)
    if entry.figures.results:  # the "Data in this article" section shows what the Dataset names
        context["jsonld"] = Markup(dataset_jsonld(entry, ctx.config))
    return env.get_template("page.html").render(
        **context,
        page=page,
        entry=entry,
        body=body,
        toc=headings(page.tokens),
        explore_url=EXPLORE_URL,
        history=change_views(ctx.history.of(page.url)),
        changes_url=CHANGES_URL,
        citation=cite_page(page, ctx.config),
        sources=source_views(page.front.sources, page.export or EMPTY_EXPORT,
                             {record.id: record.title for record in entry.records}, dict(ctx.condition_titles)),
        around=neighbours(ctx.index, page.url),
    )


def _record_row(page: Page, pointer: str) -> str:
    """The link (relative to the page) to the plotted result's row on its record page ("" for an
    entry that is not a reported result)."""
    if not pointer.startswith("/reported_results/"):
        return ""
    entry = entry_at(page.export, pointer)
    record = entry.get("source_record_id")
    if not isinstance(record, str):
        return ""
    return relative(page.url, anchor_of(record, entry))


def page_envelope(page: Page, ctx: SiteContext, members: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``page`` of an article's index.json (``members``: its ``comparison_members``, when they are
    made already: an article's file of exports/ has the same, and making them was 6 % of a build)."""
    front = page.front
    return {
        "title": front.title,
        "url": absolute(ctx.config.base_url, page.url),
        "md_url": absolute(ctx.config.base_url, page.url + "index.md"),
        "checked": front.checked.isoformat(),
        "updated": front.updated.isoformat() if front.updated else None,
        "sources": [
            {"publisher": s.publisher, "url": s.url, "revision": s.revision, "sha256": s.sha256, "pinned": s.pinned}
            for s in front.sources
        ],
        **(envelope_members(ctx.states_of(page.url)) if ctx.verification is not None else {}),
        "comparison": members if members is not None else comparison_members(page.export, ctx.comparability),
        "charts": [_chart_member(chart, page.url, ctx.config.base_url) for chart in page.charts],
        "schema": absolute(ctx.config.base_url, ctx.schema_url),
    }


def _chart_member(chart: ChartPlan, url: str, base_url: str) -> dict[str, Any]:
    """A chart in ``page.charts``: its id, its files (the SVG, the CSV and JSON downloads), what it plots."""
    csv, json = chart.data_files()
    return {"id": chart.id, "file": absolute(base_url, f"{url}{chart.id}.svg"), "csv": absolute(base_url, url + csv),
            "json": absolute(base_url, url + json), "kind": chart.kind, "plotted": list(chart.plotted)}


def article_json(page: Page, ctx: SiteContext, members: list[dict[str, Any]] | None = None) -> bytes:
    """``{"page": envelope, ...the export as authored}``."""
    return dump_json({"page": page_envelope(page, ctx, members),
                      **(page.export if page.export is not None else EMPTY_EXPORT)})


def dump_json(document: Any) -> bytes:
    """JSON file bytes: two-space indent, UTF-8, numbers as authored, a final newline."""
    return jsontext.dumps_utf8(document)


def generated_envelope(ctx: SiteContext, url: str, title: str, checked: str | None) -> dict[str, Any]:
    """The ``page`` member of a generated page's index.json (same keys as an article's)."""
    base = ctx.config.base_url
    return {"title": title, "url": absolute(base, url), "md_url": absolute(base, url + "index.md"),
            "checked": checked, "updated": None, "sources": [], "verification": [], "facts_verification": [],
            "charts": [], "schema": absolute(base, ctx.schema_url)}


def render_listing(env: jinja2.Environment, listing: Listing, ctx: SiteContext) -> dict[str, bytes]:
    html = env.get_template("listing.html").render(
        **page_context(ctx, listing.url),
        listing=listing,
        totals=ctx.index.totals,
        is_home=listing.url == "/",
        explore_url=EXPLORE_URL,
        community_url=COMMUNITY_URL,
    )
    entries = listing.entries + listing.more
    base = ctx.config.base_url
    envelope = generated_envelope(ctx, listing.url, listing.heading, _newest_checked(entries))
    envelope["pages"] = [
        {"title": e.page.front.title, "url": absolute(base, e.page.url),
         "json_url": absolute(base, e.page.url + "index.json"),
         "md_url": absolute(base, e.page.url + "index.md"), "checked": e.page.front.checked.isoformat()}
        for e in entries
    ]
    return {
        "index.html": html.encode("utf-8"),
        "index.json": dump_json({"page": envelope, **EMPTY_EXPORT}),
        "index.md": listing_markdown(listing).encode("utf-8"),
    }


def _newest_checked(entries: Sequence[Any]) -> str | None:
    return max((e.page.front.checked.isoformat() for e in entries), default=None)


def navigation(index: SiteIndex, config: SiteConfig) -> tuple[NavItem, ...]:
    home = index.listings[0]
    items = [NavItem(s.title, s.url) for s in home.sections]
    items += [NavItem("Records", COMMUNITY_URL), NavItem("Explore", EXPLORE_URL), NavItem("Changes", CHANGES_URL)]
    top = sorted((e.page for e in index.entries if not e.page.section), key=lambda p: p.url)
    items += [NavItem(_short_title(p.front.title), p.url) for p in top]
    return tuple(items)


def _short_title(title: str, limit: int = 28) -> str:
    """A navigation label: the title, or its part before a colon when the title is long."""
    head = title.split(":", 1)[0].strip()
    return title if len(title) <= limit or len(head) > limit else head
