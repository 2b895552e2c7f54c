"""/sitemap.xml, /feed.xml (Atom), /robots.txt, /llms.txt and /CITATION.cff from the site index.

Dates come from the content (``checked``/``updated``), never from the clock,
so two builds write the same bytes. URLs are absolute (base_url + site path):
these files are read by crawlers and agents away from the site. An Atom id is
the page's URL, which stays the same from build to build.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from ..checks.config import SiteConfig
from ..core.urls import absolute
from ..site.gaps import GAPS_FILE, GAPS_TITLE, GAPS_URL
from ..site.history import CHANGES_FEED, CHANGES_TITLE, CHANGES_URL
from ..site.index import COMMUNITY_URL, DATA_TITLE, DATA_URL, SCHEMA_URL, SEARCH_URL, CatalogEntry, SiteIndex
from .citation import citation_cff

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
ATOM_NS = "http://www.w3.org/2005/Atom"


def feed_files(index: SiteIndex, config: SiteConfig) -> dict[str, bytes]:
    """Files at the root of the site by name."""
    return {
        "sitemap.xml": sitemap(index.catalog, config),
        "feed.xml": atom_feed(index, config),
        "robots.txt": robots(config),
        "llms.txt": llms_txt(index, config).encode("utf-8"),
        "CITATION.cff": citation_cff(index, config),
    }


def _xml(root: ET.Element) -> bytes:
    ET.indent(root, space="  ")
    body: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=False)
    return b"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n" + body + b"\n"


def sitemap(catalog: Sequence[CatalogEntry], config: SiteConfig) -> bytes:
    root = ET.Element("urlset", xmlns=SITEMAP_NS)
    for entry in sorted(catalog, key=lambda e: e.url):
        if entry.url == SEARCH_URL:
            continue  # a search form, nothing to crawl
        url = ET.SubElement(root, "url")
        ET.SubElement(url, "loc").text = absolute(config.base_url, entry.url)
        if entry.lastmod is not None:
            ET.SubElement(url, "lastmod").text = entry.lastmod.isoformat()
    return _xml(root)


def _timestamp(day: dt.date) -> str:
    return day.isoformat() + "T00:00:00Z"


def atom_feed(index: SiteIndex, config: SiteConfig) -> bytes:
    feed = ET.Element("feed", xmlns=ATOM_NS)
    feed.set("xml:lang", config.language)
    ET.SubElement(feed, "title").text = config.title
    if config.description:
        ET.SubElement(feed, "subtitle").text = config.description
    ET.SubElement(feed, "link", rel="alternate", type="text/html", href=config.base_url)
    ET.SubElement(feed, "link", rel="self", type="application/atom+xml", href=absolute(config.base_url, "/feed.xml"))
    ET.SubElement(feed, "id").text = config.base_url
    newest = index.lastmod
    ET.SubElement(feed, "updated").text = _timestamp(newest) if newest else "1970-01-01T00:00:00Z"
    author = ET.SubElement(feed, "author")
    ET.SubElement(author, "name").text = config.title
    if config.license is not None:
        ET.SubElement(feed, "rights").text = f"{config.license.name}: {config.license.url}"
    for entry in sorted(index.entries, key=lambda e: (-e.lastmod.toordinal(), e.page.front.title, e.page.url)):
        page = entry.page
        url = absolute(config.base_url, page.url)
        item = ET.SubElement(feed, "entry")
        ET.SubElement(item, "title").text = page.front.title
        ET.SubElement(item, "link", rel="alternate", type="text/html", href=url)
        ET.SubElement(item, "link", rel="alternate", type="text/markdown", href=url + "index.md")
        ET.SubElement(item, "link", rel="alternate", type="application/json", href=url + "index.json")
        ET.SubElement(item, "id").text = url
        ET.SubElement(item, "updated").text = _timestamp(entry.lastmod)
        ET.SubElement(item, "summary").text = page.front.summary
        if entry.section_title:
            ET.SubElement(item, "category", term=page.section, label=entry.section_title)
    return _xml(feed)


def robots(config: SiteConfig) -> bytes:
    return f"User-agent: *\nAllow: /\n\nSitemap: {absolute(config.base_url, '/sitemap.xml')}\n".encode()


VERIFICATION_NOTE = (
    "Each reported result is checked against the line of the document it cites; its state is the "
    "`verification` column of the CSV and JSON tables and `page.verification` in index.json (with the "
    "cited line as `excerpt`): `verified` (the value stands on the cited line as written), "
    "`literal-mismatch` (the line writes the same number differently, e.g. 8.20 for 8.2), `moved` (the "
    "value stands on another line: `found_line`), `no-line` (the result cites no line), `source-missing` "
    "(the cited document was not available to the build: not checked). A value not on its line (`absent`) "
    "fails the build and is never published."
)


COMPARISON_NOTE = (
    "Two results may be compared only when they share a `comparison_key` (a column of the CSV and JSON "
    "tables, and `page.comparison` in index.json with the key conditions a result leaves `unknown`): the "
    "same metric and equal, known values of the conditions /schema/comparability.json names for it. A null "
    "key compares with nothing. A chart panel that puts unlike results side by side says so under it "
    "(`Not like with like — …`, also in the chart's `<id>.json` notes). In the CSV files a text cell that "
    "starts with =, +, -, @, a tab or a carriage return is written with a leading apostrophe, so that no "
    "spreadsheet runs it as a formula; the JSON files keep every value as written."
)


def llms_txt(index: SiteIndex, config: SiteConfig) -> str:
    """The llms.txt convention: a title, a one-line summary, notes, then link lists by section."""
    base = config.base_url
    parts = [f"# {config.title}"]
    if config.description:
        parts.append(f"> {config.description}")
    parts.append(
        "Every page has a Markdown version (`index.md`: the whole article with its data export) and a JSON "
        "version (`index.json`: the export exactly as validated, after a `page` envelope). In every export a "
        "condition the source does not report is `null`, never guessed. All reported results of the site are "
        f"one table: {absolute(base, DATA_URL + 'results.csv')} (CSV) and {absolute(base, DATA_URL + 'results.json')} "
        f"(JSON), described by {absolute(base, DATA_URL + 'datapackage.json')} (a Frictionless Data Package); "
        f"every page with its URLs: {absolute(base, DATA_URL + 'catalog.json')}."
    )
    parts.append(VERIFICATION_NOTE)
    parts.append(COMPARISON_NOTE)
    for listing in index.listings[1:]:
        parts.append(f"## {listing.heading}")
        parts.append(_links([_catalog_line(e, base) for e in _by_url(index, [x.page.url for x in listing.entries])]))
    top = sorted((e for e in index.entries if not e.page.section), key=lambda e: (e.page.front.title, e.page.url))
    if top:
        parts.append("## Pages")
        parts.append(_links([_catalog_line(e, base) for e in _by_url(index, [x.page.url for x in top])]))
    records = [e for e in index.catalog if e.kind == "record"]
    if records:
        parts.append("## Source records")
        parts.append(_links([_catalog_line(e, base) for e in records]))
    parts.append("## Optional")
    parts.append(_links([
        f"[Source record index]({absolute(base, COMMUNITY_URL + 'index.md')}): every record with its result count",
        f"[JSON Schemas]({absolute(base, SCHEMA_URL + 'index.md')}): the schemas every export is validated against",
        f"[{DATA_TITLE}]({absolute(base, DATA_URL + 'index.md')}): every file of /data/ with its format and size",
        f"[Atom feed]({absolute(base, '/feed.xml')}): articles, most recently updated first",
        (f"[{CHANGES_TITLE}]({absolute(base, CHANGES_URL + 'index.md')}): every change to the published data, "
         f"from the site's history, newest first (Atom: {absolute(base, '/' + CHANGES_FEED)})"),
        (f"[{GAPS_TITLE}]({absolute(base, GAPS_URL + 'index.md')}): per recommended condition, how many results "
         f"report it, write null or leave it out, and which unreported conditions block the most comparisons "
         f"(JSON: {absolute(base, DATA_URL + GAPS_FILE)})"),
    ]))
    return "\n\n".join(parts) + "\n"


def _by_url(index: SiteIndex, urls: Sequence[str]) -> list[CatalogEntry]:
    by_url = {e.url: e for e in index.catalog}
    return [by_url[url] for url in urls]


def _catalog_line(entry: CatalogEntry, base: str) -> str:
    url = absolute(base, entry.url)
    summary = " ".join(entry.summary.split())
    note = f"{summary} " if summary else ""
    return f"[{_link_text(entry.title)}]({url}index.md): {note}JSON: {url}index.json"


def _link_text(title: str) -> str:
    return title.replace("[", "\\[").replace("]", "\\]")


def _links(lines: Sequence[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)
