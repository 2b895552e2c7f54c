"""Site-wide files kept by what they are made of: the listings, /community/, /data/, /gaps/, the feeds
and exports/results.csv.

Each is kept in the rendered cache as the name, sha256 and size of its files
(``rendered.LinkedFiles``) under a key of what it shows — for /community/,
/data/, /gaps/ and the feeds every page's facts and states, the catalog (the
titles, summaries, dates and URLs of pages and records) and the configuration; for a
listing, its articles' front matter and index figures — never the pages'
prose. When the key is found and the output a build replaces holds those files,
they are linked (or kept) without being made; else they are made and put.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from jinja2 import Environment

from ..cache.caches import Store, key_of
from ..cache.pages import EntryKeys
from ..output.article import SiteContext, render_listing
from ..output.data import catalog_document, data_files
from ..output.datapackage import Measured
from ..output.exports import RESULTS_FILE, results_chunks
from ..output.writer import FileSink
from ..site.index import DATA_URL, Listing, SiteIndex
from .plan import SitePlan
from .rendered import LinkedFiles, link_all


def data_files_key(context: str, plan: SitePlan) -> str:
    """What /community/, /data/, /gaps/ and the feeds are made of: every page's facts and states,
    the catalog (titles, summaries, dates and URLs of pages and records), the configuration,
    templates and schemas; not the pages' prose."""
    index = plan.index
    # the standard library's encoder: the catalog holds no number whose literal must be kept, and
    # the package's own encoder took 0.17 s of each edit at 5,000 articles
    catalog = hashlib.sha256(json.dumps(catalog_document(index, plan.config), default=repr).encode())
    return key_of("data files", context, plan.schemas.fingerprint, catalog.hexdigest(),
                  repr([(page.url, index.facts.get(page.url)) for page in plan.pages]), repr(index.results.states))


def listing_files(env: Environment, ctx: SiteContext, listing: Listing) -> dict[str, bytes]:
    """A listing's files by site path relative to the root."""
    return {listing.url.lstrip("/") + name: data for name, data in render_listing(env, listing, ctx).items()}


def listing_key(context: str, index: SiteIndex, listing: Listing, entries: EntryKeys) -> str:
    """What a listing shows: its own fields, the site's totals and each of its articles (``entries``)."""
    return key_of(context, listing.url, listing.heading, listing.intro, repr(listing.sections),
                  repr(index.totals), *(entries.of(entry) for entry in listing.entries + listing.more))


def put_data_files(plan: SitePlan, files: FileSink, rendered: Store | None, key: str) -> dict[str, int]:
    """The files of /data/ (the size of each, by name): linked from the output this one replaces
    when what they are made of (``key``: ``data_files_key``) is unchanged (``rendered``: the cache that
    says; None: made anew)."""
    folder = DATA_URL.lstrip("/")
    linked = rendered.load("data " + key) if rendered is not None else None
    if isinstance(linked, LinkedFiles) and link_all(files, folder, linked):
        return {name: size for name, _, size in linked.files}
    made = []
    for name, chunks in data_files(plan.index, plan.config, plan.schemas):
        measured = Measured(chunks)
        files.put_chunks(folder + name, iter(measured))
        made.append((name, measured.digest().sha256, measured.digest().size))
    if rendered is not None:
        rendered.save("data " + key, LinkedFiles(tuple(made)))
    return {name: size for name, _, size in made}


def put_results_table(plan: SitePlan, ctx: SiteContext, exports: FileSink, rendered: Store | None, key: str) -> None:
    """exports/results.csv (the published pages' results), linked from the output this one replaces
    when what it is made of (``key``: ``data_files_key``, and which pages are drafts) is unchanged:
    writing it again took 0.2 s of each edit of 5,000 articles."""
    key = "exports table " + key_of(key, *sorted(page.url for page in plan.pages if page.front.draft))
    linked = rendered.load(key) if rendered is not None else None
    if isinstance(linked, LinkedFiles) and link_all(exports, "", linked):
        return
    measured = Measured(results_chunks(plan.pages, ctx))
    exports.put_chunks(RESULTS_FILE, iter(measured))
    if rendered is not None:
        rendered.save(key, LinkedFiles(((RESULTS_FILE, measured.digest().sha256, measured.digest().size),)))


def put_linked(files: FileSink, rendered: Store | None, key: str,
               make: Callable[[], dict[str, bytes]]) -> dict[str, int]:
    """Files by site path relative to the root (the size of each): linked from the output this one
    replaces when the cache says ``key`` made them, else made (``make``) and put."""
    linked = rendered.load(key) if rendered is not None else None
    if isinstance(linked, LinkedFiles) and link_all(files, "", linked):
        return {name: size for name, _, size in linked.files}
    made = make()
    digests = {rel: hashlib.sha256(data).digest() for rel, data in made.items()}
    for rel, data in made.items():
        files.put(rel, data, digests[rel])
    if rendered is not None:
        rendered.save(key, LinkedFiles(tuple((rel, digests[rel].hex(), len(data)) for rel, data in made.items())))
    return {rel: len(data) for rel, data in made.items()}
