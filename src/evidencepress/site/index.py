"""Site stage: the validated pages -> everything that spans pages, computed once.

The listings (home, sections), the community record pages, the table of every
reported result, the catalog of pages (which also feeds the sitemap, the Atom
feed and llms.txt) are frozen values kept in the SitePlan. The render stage
only turns them into bytes, and link checking asks ``generated_paths`` which
files the site will hold.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import pickle
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..charts import ChartPlan
from ..checks.config import SiteConfig
from ..checks.page import Page
from ..checks.recordprose import PROSE_FOLDER, RecordProse, record_url
from .dataset import ResultTable, TableSpec, row_values, table_of, unverified_csv
from .gaps import GAPS_FILE, GAPS_SUMMARY, GAPS_TITLE, GAPS_URL, GapCensus, gap_census
from .history import CHANGES_FEED, CHANGES_SUMMARY, CHANGES_TITLE, CHANGES_URL
from .records import CitedRecord, Record, build_records, cited_records, facets, results_of

HOME_URL = "/"
COMMUNITY_URL = f"/{PROSE_FOLDER}/"
EXPLORE_URL = "/explore/"
SEARCH_URL = "/search/"
SCHEMA_URL = "/schema/"
DATA_URL = "/data/"
DATA_FILES = ("results.json", "results.csv", "results.js", "catalog.json", "tableschema.json", "datapackage.json",
              GAPS_FILE)
ROOT_FILES = ("sitemap.xml", "feed.xml", "robots.txt", "llms.txt", "CITATION.cff", "404.html")
PAGE_FILES = ("index.html", "index.json", "index.md")


COMMUNITY_TITLE = "Source records"
COMMUNITY_SUMMARY = "Every community benchmark record the articles cite, with all of its reported results and conditions."
EXPLORE_TITLE = "Explore the results"
EXPLORE_SUMMARY = "Filter and sort every reported result of the site by model, system, engine, metric and source record."
SCHEMA_TITLE = "Schemas"
SCHEMA_SUMMARY = "The JSON Schemas that every export, front matter and chart of this site is validated against."
DATA_TITLE = "Data files"
DATA_SUMMARY = "Every file of /data/: the site's reported results as one table, its description, the catalog of pages and the gap census."
SEARCH_TITLE = "Search"
SEARCH_SUMMARY = "Full-text search over the articles and source records, with filters by system, model and engine."


@dataclass(frozen=True)
class Figures:
    """What an article (or the whole site) holds, as listings show it."""

    results: int
    records: int
    sources: int
    charts: int


@dataclass(frozen=True)
class RecordLink:
    id: str
    title: str
    url: str
    results: int  # how many of the article's results come from this record


@dataclass(frozen=True)
class MetricCount:
    metric: str
    unit: str
    results: int


@dataclass(frozen=True)
class Entry:
    """An article with what listings and its own "Data" section show about it."""

    page: Page
    figures: Figures
    section_title: str
    section_url: str
    records: tuple[RecordLink, ...]
    metrics: tuple[MetricCount, ...]
    facets: tuple[tuple[str, tuple[str, ...]], ...]  # (condition, distinct values) for search filters
    listed: str = ""  # ``PageFacts.listed`` of the facts these were found from ("": not known)

    @property
    def lastmod(self) -> dt.date:
        return self.page.front.updated or self.page.front.checked


@dataclass(frozen=True)
class SectionSummary:
    id: str
    title: str
    url: str
    description: str
    articles: int
    latest: dt.date


@dataclass(frozen=True)
class Listing:
    """A generated page that lists articles: the home page or a section index."""

    url: str
    heading: str
    intro: str
    entries: tuple[Entry, ...]  # newest checked first
    sections: tuple[SectionSummary, ...]  # the home page's overview; empty on a section index
    more: tuple[Entry, ...]  # top-level pages (no section), on the home page only

    @property
    def lastmod(self) -> dt.date | None:
        return max((e.lastmod for e in self.entries + self.more), default=None)


@dataclass(frozen=True)
class CatalogEntry:
    """A page of the site as catalog.json, the sitemap and llms.txt list it."""

    kind: str  # article, listing, record, tool
    title: str
    summary: str
    url: str
    section: str
    lastmod: dt.date | None
    checked: dt.date | None
    has_csv: bool = False
    charts: tuple[ChartPlan, ...] = ()  # an article's charts


@dataclass(frozen=True)
class SiteIndex:
    entries: tuple[Entry, ...]  # every article, newest checked first
    listings: tuple[Listing, ...]
    records: tuple[Record, ...]  # sorted by id
    results: ResultTable
    catalog: tuple[CatalogEntry, ...]
    totals: Figures
    spec: TableSpec  # the core conditions and comparability rules of the results table
    facts: Mapping[str, str] = field(default_factory=dict)  # each page's PageFacts.digest, by URL
    pages: tuple[Page, ...] = ()  # in the site's order

    def entry(self, url: str) -> Entry:
        return self._by_url[url]

    @functools.cached_property
    def gaps(self) -> GapCensus:
        """The conditions the results leave unknown, and what that keeps from comparing (made when
        /gaps/ is: an edit that leaves the data as it was links the files made of it)."""
        return gap_census([result for page in self.pages for result in results_of(page)], self.spec.conditions,
                          self.spec.rules)

    @functools.cached_property
    def _by_url(self) -> dict[str, Entry]:
        return {entry.page.url: entry for entry in self.entries}

    def around(self, url: str) -> tuple[Entry | None, Entry | None]:
        """The entries before and after the article in its section's listing; (None, None) outside one."""
        return self._around.get(url, (None, None))

    @functools.cached_property
    def _around(self) -> dict[str, tuple[Entry | None, Entry | None]]:
        # once for the site: each page asks, and a listing can hold thousands of articles
        found: dict[str, tuple[Entry | None, Entry | None]] = {}
        for listing in self.listings:
            listed = listing.entries
            for at, item in enumerate(listed):
                if item.section_url and item.section_url == listing.url:
                    found.setdefault(item.page.url, (listed[at - 1] if at > 0 else None,
                                                     listed[at + 1] if at + 1 < len(listed) else None))
        return found

    @property
    def lastmod(self) -> dt.date | None:
        return max((e.lastmod for e in self.entries), default=None)


@dataclass(frozen=True)
class PageFacts:
    """What the site index takes from one page, found with the page: in the worker that validated
    it, kept with it in the page cache, so that indexing a large site is mostly assembling them."""

    # the digest of the table spec they were found for (``TableSpec.digest``): not the spec itself,
    # which every page's entry of the page cache held (1.2 KB, and 7 µs to read back)
    spec: str
    rows: tuple[tuple[Any, ...], ...]  # each reported result as a row of the results table
    cited: tuple[CitedRecord, ...]  # what the page reports of each record, by id
    record_counts: tuple[tuple[str, int], ...]  # results per record, in order of first result
    metrics: tuple[MetricCount, ...]  # results per (metric, unit), in order of first result
    facets: tuple[tuple[str, tuple[str, ...]], ...]  # (condition, distinct values) for search filters
    csv: bytes  # ``rows`` as lines of the site's CSV (no header), unverified: its index.csv and results.csv
    csv_ends: tuple[int, ...]  # where each row's line of ``csv`` ends (its verification cell: see with_states)
    # sha256 of all the above: the same for an edit of the page's prose, so that what is made of the
    # facts of every page (the data files, a record's page) is made again only when they change
    digest: str = ""
    # sha256 of the record counts, metrics and facets: what a listing's entry shows of the page
    listed: str = ""


def page_facts(page: Page, spec: TableSpec) -> PageFacts:
    results = results_of(page)
    counts: dict[str, int] = {}
    for result in results:
        if result.record_id is not None:
            counts[result.record_id] = counts.get(result.record_id, 0) + 1
    metrics: dict[tuple[str, str], int] = {}
    for result in results:
        key = (result.metric or "", result.unit or "")
        metrics[key] = metrics.get(key, 0) + 1
    rows = row_values(page.url, page.export, spec)
    csv, ends = unverified_csv(page.url, rows, spec)
    found = (spec.digest, rows, cited_records(page, spec.conditions), tuple(counts.items()),
             tuple(MetricCount(m, u, n) for (m, u), n in metrics.items()), facets(results), csv, ends)
    return PageFacts(*found, digest=hashlib.sha256(pickle.dumps(found, protocol=5)).hexdigest(),
                     listed=hashlib.sha256(pickle.dumps(found[3:6], protocol=5)).hexdigest())


def _facts(page: Page, found: PageFacts | None, spec: TableSpec) -> PageFacts:
    """``found`` when it was found for ``spec``, else the page's facts found now."""
    if found is not None and found.spec == spec.digest:
        return found
    return page_facts(page, spec)


def index_site(pages: Sequence[Page], prose: Sequence[RecordProse], config: SiteConfig,
               spec: TableSpec, facts: Mapping[str, PageFacts] | None = None,
               states: Mapping[str, Sequence[str | None]] | None = None) -> SiteIndex:
    """Everything across pages, from the validated articles and record prose. ``facts``: each
    page's PageFacts by URL, as the validating workers found them (those missing, or found for
    other conditions, are found here); ``states``: each page's results' verification states, by URL."""
    known = facts or {}
    verified = states or {}
    with_found = [(page, _facts(page, known.get(page.url), spec)) for page in pages]
    records = build_records([(page, found.cited) for page, found in with_found], prose)
    titles = {record.id: record.title for record in records}
    entries = _newest_first(_entry(page, found, config, titles) for page, found in with_found)
    listings = _listings(entries, config)
    table = table_of(((page.url, found.rows) for page, found in with_found), spec,
                     {page.url: (found.csv, found.csv_ends) for page, found in with_found}, verified)
    totals = Figures(table.count, len(records), len({s.url for p in pages for s in p.front.sources}),
                     sum(len(p.charts) for p in pages))
    catalog = _catalog(entries, listings, records)
    return SiteIndex(entries, listings, records, table, catalog, totals, spec,
                     {page.url: found.digest for page, found in with_found}, tuple(pages))


def _entry(page: Page, facts: PageFacts, config: SiteConfig, record_titles: Mapping[str, str]) -> Entry:
    links = tuple(RecordLink(rid, record_titles.get(rid, rid), record_url(rid), n) for rid, n in facts.record_counts)
    figures = Figures(len(facts.rows), len(facts.record_counts), len(page.front.sources), len(page.charts))
    section_title = config.section_title(page.section) if page.section else ""
    section_url = f"/{page.section}/" if page.section else ""
    return Entry(page, figures, section_title, section_url, links, facts.metrics, facts.facets, facts.listed)


def _newest_first(entries: Iterable[Entry]) -> tuple[Entry, ...]:
    return tuple(sorted(entries, key=lambda e: (-e.page.front.checked.toordinal(), e.page.front.title, e.page.url)))


def _listings(entries: tuple[Entry, ...], config: SiteConfig) -> tuple[Listing, ...]:
    """The home page, then one index per section in site.toml order (others alphabetically)."""
    order = [s.id for s in config.sections]
    ids = sorted({e.page.section for e in entries if e.page.section},
                 key=lambda s: (order.index(s) if s in order else len(order), s))
    summaries: list[SectionSummary] = []
    sections: list[Listing] = []
    for section_id in ids:
        members = tuple(e for e in entries if e.page.section == section_id)
        description = next((s.description for s in config.sections if s.id == section_id), "")
        title = config.section_title(section_id)
        url = f"/{section_id}/"
        summaries.append(SectionSummary(section_id, title, url, description, len(members),
                                        max(e.page.front.checked for e in members)))
        sections.append(Listing(url, title, description, members, (), ()))
    sectioned = tuple(e for e in entries if e.page.section)
    top = tuple(sorted((e for e in entries if not e.page.section), key=lambda e: (e.page.front.title, e.page.url)))
    home = Listing(HOME_URL, config.title, config.description, sectioned or top, tuple(summaries),
                   top if sectioned else ())
    return (home, *sections)


def _catalog(entries: tuple[Entry, ...], listings: tuple[Listing, ...],
             records: tuple[Record, ...]) -> tuple[CatalogEntry, ...]:
    newest = max((e.lastmod for e in entries), default=None)
    with_results = max((e.lastmod for e in entries if e.figures.results), default=None)
    rows = [CatalogEntry("listing", listing.heading, listing.intro, listing.url, listing.url.strip("/"),
                         listing.lastmod, None) for listing in listings]
    rows += [CatalogEntry("article", e.page.front.title, e.page.front.summary, e.page.url, e.page.section, e.lastmod,
                          e.page.front.checked, has_csv=True, charts=e.page.charts)
             for e in sorted(entries, key=lambda e: e.page.url)]
    rows.append(CatalogEntry("listing", COMMUNITY_TITLE, COMMUNITY_SUMMARY, COMMUNITY_URL, "",
                             max((r.lastmod for r in records), default=None), None))
    rows += [CatalogEntry("record", r.title, r.summary or _record_figures(r), r.url, "", r.lastmod, r.checked)
             for r in records]
    rows += [
        CatalogEntry("tool", EXPLORE_TITLE, EXPLORE_SUMMARY, EXPLORE_URL, "", with_results or newest, None),
        CatalogEntry("tool", SCHEMA_TITLE, SCHEMA_SUMMARY, SCHEMA_URL, "", None, None),
        CatalogEntry("tool", DATA_TITLE, DATA_SUMMARY, DATA_URL, "", with_results or newest, None),
        CatalogEntry("tool", SEARCH_TITLE, SEARCH_SUMMARY, SEARCH_URL, "", None, None),
        CatalogEntry("tool", CHANGES_TITLE, CHANGES_SUMMARY, CHANGES_URL, "", None, None),
        CatalogEntry("tool", GAPS_TITLE, GAPS_SUMMARY, GAPS_URL, "", with_results or newest, None),
    ]
    return tuple(rows)


def _record_figures(record: Record) -> str:
    results, articles = len(record.results), len(record.citations)
    return (f"Source record {record.id}: {results} reported result{'s' if results != 1 else ''}, "
            f"cited by {articles} article{'s' if articles != 1 else ''}.")


def generated_paths(index: SiteIndex, pages: Sequence[Page], history: Iterable[str] = ()) -> set[str]:
    """Every site path of a generated page or file (link checking, collisions); ``history``: the site
    paths of the copies of earlier published versions (/history/…)."""
    folders = [listing.url for listing in index.listings] + [COMMUNITY_URL, EXPLORE_URL, SCHEMA_URL, SEARCH_URL,
                                                             CHANGES_URL, GAPS_URL, DATA_URL]
    folders += [record.url for record in index.records]
    paths = {folder + name for folder in folders for name in PAGE_FILES} | set(folders)
    paths |= {DATA_URL + name for name in DATA_FILES}
    paths |= {"/" + name for name in ROOT_FILES}
    paths |= {page.url + "index.csv" for page in pages}
    paths |= {"/" + CHANGES_FEED} | set(history)
    return paths
