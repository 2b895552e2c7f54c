"""Link checks over the whole site: refused schemes, internal targets and their #anchors.

Internal links are site paths (``/guides/x/``) or relative paths; each must
name a page or file the build produces, and a ``#fragment`` pointing into an
article must name an id that article has (a heading, a footnote, a chart or
a part of the article template). Runs after every page is validated, because
a link may point at any page.
"""

from __future__ import annotations

import difflib
import functools
import posixpath
import re
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Protocol

from markdown_it.token import Token

from ..content.markdown import Link, links
from ..core.diagnostics import Location, Problem, error
from ..core.export import reported_results
from ..core.model import SourceFile
from ..core.urls import is_site_path, strip_fragment
from .page import LinkFacts, Page

REFUSED = ("javascript:", "data:", "vbscript:", "file:")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# Ids the article template gives every article (templates/page.html, base.html); the sources
# section exists only on pages with sources.
TEMPLATE_IDS = frozenset({"main", "toc-title", "cite-this-page"})
SOURCES_ID = "original-sources-and-conditions"
DATA_ID = "data-in-this-article"  # templates/data-section.html, on an article with reported results
_ARTICLE_FILES = ("", "index.html")


class Linking(Protocol):
    """Markdown prose with links: an article, or the prose of a source record's page."""

    @property
    def source(self) -> SourceFile: ...
    @property
    def body(self) -> str: ...
    @property
    def body_line(self) -> int: ...
    @property
    def tokens(self) -> tuple[Any, ...]: ...
    @property
    def url(self) -> str: ...


def check_links(pages: Iterable[Page], produced: AbstractSet[str], drafts: AbstractSet[str] = frozenset(),
                others: Iterable[Linking] = (), failed: AbstractSet[str] = frozenset()) -> list[Problem]:
    """``drafts``: URLs of draft pages left out of this build (a link to one gets a hint saying so).
    ``others``: prose that is not an article (record pages): its links are checked, its ids are not targets.
    ``failed``: URLs of articles with errors of their own (not built this time): a link to them or to a
    file below them is not checked, since their errors, not the link, are what to fix."""
    found = [(page, page.link_facts or link_facts(page)) for page in pages]
    anchors = {page.url: facts.anchors for page, facts in found}
    heading_ids = {page.url: facts.heading_ids for page, facts in found}
    problems: list[Problem] = []
    linking: list[tuple[Linking, Sequence[Link]]] = [(page, facts.links) for page, facts in found]
    linking += [(other, links(other.tokens, functools.partial(_body_lines, other))) for other in others]
    for page, page_links in linking:
        for link in page_links:
            where = Location(page.source.path, page.body_line + link.line, link.col)
            if failed and _under(link.href, page.url, failed):
                continue
            problem = (_check(link.href, page.url, produced, where, drafts)
                       or _anchor(link.href, page.url, anchors, heading_ids, where))
            if problem is not None:
                problems.append(problem)
    return problems


def link_facts(page: Page) -> LinkFacts:
    """The page's links and ids, for ``check_links`` (found once, when the page is validated)."""
    heading_ids = tuple(str(t.attrGet("id")) for t in page.tokens if t.type == "heading_open" and t.attrGet("id"))
    return LinkFacts(tuple(links(page.tokens, functools.partial(_body_lines, page))), page_anchors(page), heading_ids)


def _body_lines(page: Linking) -> list[str]:
    return page.body.split("\n")


def page_anchors(page: Page) -> frozenset[str]:
    """Every id the article's HTML has: headings, footnotes, charts and the template's own."""
    ids = set(TEMPLATE_IDS) | {f"chart-{chart.id}" for chart in page.charts}
    if page.front.sources:
        ids.add(SOURCES_ID)
    if reported_results(page.export):
        ids.add(DATA_ID)
    return frozenset(ids | _token_ids(page.tokens))


def _token_ids(tokens: Sequence[Token]) -> set[str]:
    ids: set[str] = set()
    for token in tokens:
        if token.type == "heading_open" and token.attrGet("id"):
            ids.add(str(token.attrGet("id")))
        elif token.type == "footnote_open":
            ids.add(f"fn{token.meta['id'] + 1}")
        elif token.type == "footnote_ref":
            number, sub = token.meta["id"] + 1, token.meta["subId"]
            ids.add(f"fnref{number}" + (f":{sub}" if sub else ""))
        if token.children:
            ids |= _token_ids(token.children)
    return ids


def _check(href: str, page_url: str, produced: AbstractSet[str], where: Location,
           drafts: AbstractSet[str]) -> Problem | None:
    lowered = re.sub(r"[\s\x00-\x1f]", "", href).lower()
    if lowered.startswith(REFUSED):
        scheme = lowered.split(":", 1)[0]
        return error(where, f"{scheme}: links are refused", "link-scheme",
                     hint="link to an http(s) URL or a site path")
    if _SCHEME.match(href) or href.startswith(("//", "#")) or not href:
        return None
    target = _target(href, page_url)
    if target in produced:
        return None
    hint = "internal links are site paths such as /guides/llm-speed-metrics/"
    if target + "/" in produced:
        hint = f"did you mean {target}/ ?"
    if target in drafts or target + "/" in drafts:
        hint = "that page is a draft, left out of this build; build with --drafts, or publish it"
    return error(where, f"broken internal link {href}: no page or file at {target}", "link", hint=hint)


def _under(href: str, page_url: str, folders: AbstractSet[str]) -> bool:
    """Does a link without scheme point at one of ``folders`` (page URLs) or a file below one?"""
    if _SCHEME.match(href) or href.startswith("//"):
        return False
    target = _target(href, page_url)
    return any(target == folder or target + "/" == folder or target.startswith(folder) for folder in folders)


def _target(href: str, page_url: str) -> str:
    """The site path a link without scheme points at, without its fragment or query."""
    target = strip_fragment(href)
    if not target:
        return page_url
    if not is_site_path(target):
        target = posixpath.normpath(posixpath.join(page_url, target)) + ("/" if target.endswith("/") else "")
    return target


def _anchor(href: str, page_url: str, anchors: Mapping[str, frozenset[str]],
            headings_by_page: Mapping[str, Sequence[str]], where: Location) -> Problem | None:
    """A ``#fragment`` into an article that the article does not have."""
    if "#" not in href or _SCHEME.match(href) or href.startswith("//"):
        return None
    fragment = href.split("#", 1)[1]
    target = _target(href, page_url)
    folder, _, name = target.rpartition("/")
    known = anchors.get(folder + "/") if name in _ARTICLE_FILES else None
    if known is None or not fragment or fragment in known or urllib.parse.unquote(fragment) in known:
        return None  # not an article (a listing, a JSON file): its ids are not checked
    page = "this page" if folder + "/" == page_url else folder + "/"
    close = difflib.get_close_matches(fragment, sorted(known), n=1)
    headings = [anchor for anchor in headings_by_page.get(folder + "/", ()) if anchor]
    if close:
        hint = f"did you mean #{close[0]}?"
    elif headings:
        shown = ", ".join(f"#{anchor}" for anchor in headings[:4]) + (", ..." if len(headings) > 4 else "")
        hint = f"an anchor is a heading's id; the headings of {page} are {shown}"
    else:
        hint = f"an anchor is a heading's id, and {page} has no headings"
    return error(where, f"broken anchor #{fragment}: {page} has no heading or footnote with that id", "link-anchor",
                 hint=hint)
