"""Render stage: pages -> bytes of index.html, index.json and index.md.

Templates receive model objects only and compute nothing; everything they
show is prepared here. Jinja2 runs with autoescape and StrictUndefined.
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from . import jsontext
from .charts import chart_table, inline_svg
from .config import SiteConfig
from .diagnostics import Location, Problem, error
from .markdown import headings, render_tokens
from .markdown_out import article_markdown, listing_markdown
from .model import Page
from .urls import absolute, relative

DEFAULT_TEMPLATES = Path(__file__).resolve().parent / "defaults" / "templates"
EMPTY_EXPORT: dict[str, Any] = {"facts": [], "reported_results": [], "conditions": {}}


@dataclass(frozen=True)
class NavItem:
    title: str
    url: str
    current: bool = False


@dataclass(frozen=True)
class Group:
    id: str
    title: str
    url: str
    description: str
    pages: tuple[Page, ...]


@dataclass(frozen=True)
class Listing:
    """A generated page that lists others: the home page or a section index."""

    url: str
    heading: str
    intro: str
    groups: tuple[Group, ...]


@dataclass(frozen=True)
class SiteContext:
    config: SiteConfig
    nav: tuple[NavItem, ...]
    schema_url: str


def template_problem(exc: jinja2.TemplateError, root: Path) -> Problem:
    """A template that fails to compile or to render, at its file and line."""
    path, line = getattr(exc, "filename", None), getattr(exc, "lineno", None) or 0
    if path is None:  # a runtime error: Jinja points the traceback into the template
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.endswith((".html", ".xml", ".txt"))]
        if frames:
            path, line = frames[-1].filename, frames[-1].lineno or 0
    shown = _shown_path(Path(path), root) if path else "templates/"
    return error(Location(shown, line), f"template error: {exc.message or exc}", "template",
                 hint="fix the template; every variable a template uses must be one the renderer passes")


def _shown_path(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def template_folder(root: Path) -> Path:
    own = root / "templates"
    return own if (own / "page.html").is_file() else DEFAULT_TEMPLATES


def create_environment(folder: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(folder), str(DEFAULT_TEMPLATES)]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
    )
    env.filters["authored"] = as_authored
    return env


def as_authored(value: Any) -> str:
    """A JSON value as the export writes it; null reads "not reported"."""
    if value is None:
        return "not reported"
    if isinstance(value, str):
        return value
    return jsontext.dumps(value, indent=None)


def _base(ctx: SiteContext, url: str) -> dict[str, Any]:
    """What base.html needs on every page; ``rel`` makes a site path relative to ``url``."""
    nav = tuple(NavItem(i.title, i.url, i.url == url or (i.url != "/" and url.startswith(i.url))) for i in ctx.nav)
    return {
        "site": ctx.config,
        "root": relative(url, "/"),
        "canonical": absolute(ctx.config.base_url, url),
        "nav": nav,
        "rel": functools.partial(relative, url),
    }


def render_article(
    env: jinja2.Environment, page: Page, ctx: SiteContext, svgs: Mapping[str, bytes] | None = None
) -> dict[str, bytes]:
    """index.html, index.json and index.md of an article, by file name (``svgs``: the drawn
    charts of the page by file name, inlined into the HTML)."""
    return {
        "index.html": article_html(env, page, ctx, svgs or {}).encode("utf-8"),
        "index.json": article_json(page, ctx),
        "index.md": article_markdown(page, ctx.config.footer).encode("utf-8"),
    }


def article_html(env: jinja2.Environment, page: Page, ctx: SiteContext, svgs: Mapping[str, bytes]) -> str:
    figure = env.get_template("figure.html")
    figures: dict[int, str] = {}
    for chart in page.charts:
        body_line = chart.line - page.body_line
        # The SVGs are inlined so that the page's colours (light, dark) and web font reach them.
        wide, narrow = (svgs.get(name) for name in (f"{chart.id}.svg", f"{chart.id}.narrow.svg"))
        figures[body_line] = figure.render(
            chart=chart,
            table=chart_table(chart),
            wide=Markup(inline_svg(wide)) if wide else "",
            narrow=Markup(inline_svg(narrow)) if narrow else "",
        )
    hidden = frozenset({page.export_index} if page.export_index is not None else ())
    body = Markup(render_tokens(page.tokens, page.url, figures, hidden, page.inline_values))
    section_url = f"/{page.section}/" if page.section else ""
    return env.get_template("page.html").render(
        **_base(ctx, page.url),
        page=page,
        body=body,
        toc=headings(page.tokens),
        section_title=ctx.config.section_title(page.section) if page.section else "",
        section_url=section_url,
    )


def page_envelope(page: Page, ctx: SiteContext) -> dict[str, Any]:
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
        "charts": [
            {"id": c.id, "file": absolute(ctx.config.base_url, f"{page.url}{c.id}.svg"), "kind": c.kind,
             "plotted": list(c.plotted)}
            for c in page.charts
        ],
        "schema": ctx.schema_url,
    }


def article_json(page: Page, ctx: SiteContext) -> bytes:
    document = {"page": page_envelope(page, ctx), **(page.export if page.export is not None else EMPTY_EXPORT)}
    return dump_json(document)


def dump_json(document: Any) -> bytes:
    """JSON file bytes: two-space indent, UTF-8, numbers as authored, a final newline."""
    return (jsontext.dumps(document) + "\n").encode("utf-8")


def render_listing(env: jinja2.Environment, listing: Listing, ctx: SiteContext) -> dict[str, bytes]:
    html = env.get_template("listing.html").render(
        **_base(ctx, listing.url),
        heading=listing.heading,
        intro=listing.intro,
        groups=listing.groups,
    )
    pages = [page for group in listing.groups for page in group.pages]
    envelope = {
        "title": listing.heading,
        "url": absolute(ctx.config.base_url, listing.url),
        "md_url": absolute(ctx.config.base_url, listing.url + "index.md"),
        "checked": max((p.front.checked.isoformat() for p in pages), default=None),
        "updated": None,
        "sources": [],
        "charts": [],
        "schema": ctx.schema_url,
        "pages": [
            {"title": p.front.title, "url": absolute(ctx.config.base_url, p.url),
             "json_url": absolute(ctx.config.base_url, p.url + "index.json"),
             "md_url": absolute(ctx.config.base_url, p.url + "index.md"), "checked": p.front.checked.isoformat()}
            for p in pages
        ],
    }
    return {
        "index.html": html.encode("utf-8"),
        "index.json": dump_json({"page": envelope, **EMPTY_EXPORT}),
        "index.md": listing_markdown(listing.heading, listing.intro, listing.groups).encode("utf-8"),
    }


def listings(pages: Sequence[Page], config: SiteConfig) -> tuple[Listing, ...]:
    """The home page and one index per section."""
    groups = _groups(pages, config)
    home = Listing("/", config.title, config.description, groups)
    sections = tuple(
        Listing(group.url, group.title, group.description, (Group(group.id, "Articles", "", "", group.pages),))
        for group in groups
        if group.url
    )
    return (home,) + sections


def _groups(pages: Sequence[Page], config: SiteConfig) -> tuple[Group, ...]:
    order = [s.id for s in config.sections]
    ids = sorted({p.section for p in pages if p.section}, key=lambda s: (order.index(s) if s in order else len(order), s))
    groups = []
    for section_id in ids:
        members = _newest_first(p for p in pages if p.section == section_id)
        description = next((s.description for s in config.sections if s.id == section_id), "")
        groups.append(Group(section_id, config.section_title(section_id), f"/{section_id}/", description, members))
    top = _newest_first(p for p in pages if not p.section)
    if top:
        groups.append(Group("more", "More", "", "", top))
    return tuple(groups)


def _newest_first(pages: Any) -> tuple[Page, ...]:
    return tuple(sorted(pages, key=lambda p: (-p.front.checked.toordinal(), p.front.title, p.url)))


def navigation(pages: Sequence[Page], config: SiteConfig) -> tuple[NavItem, ...]:
    items = [NavItem(g.title, g.url) for g in _groups(pages, config) if g.url]
    items += [NavItem(_short_title(p.front.title), p.url) for p in sorted(pages, key=lambda p: p.url) if not p.section]
    return tuple(items)


def _short_title(title: str, limit: int = 28) -> str:
    """A navigation label: the title, or its part before a colon when the title is long."""
    head = title.split(":", 1)[0].strip()
    return title if len(title) <= limit or len(head) > limit else head
