"""Search index: the rendered HTML pages -> the files of a Pagefind bundle (``pagefind/``).

Pagefind (the PyPI package ``pagefind-bin``, which ships its binary) indexes
the elements marked ``data-pagefind-body`` (articles and record pages) and the
``data-pagefind-filter`` values they carry (system, model, engine). The
bundle is returned as bytes, so the writer publishes it with the rest of the
site in one atomic swap; nothing is written to the output folder here.

The pages are handed to ``pagefind --service`` one by one as the build renders
them (pagefind.py), in the order of the site, and the bundle comes back
over the same pipe: nothing is written to disk, and the pages are numbered the
same way on every machine (the command line's walk of a folder numbers them in
the order the file system lists them, so a tmpfs and an ext4 gave different
bundles). Pagefind's own Python client waits 0.1 s per page message and cannot
read a bundle larger than its stream limit, so it is not used.

Pagefind 1.5 writes its filter files (and the list of them in its metadata)
in hash-map order, which changes from run to run although nothing else does.
``canonical_bundle`` sorts them and renames the files by their content hash
the way Pagefind names them, so two builds of a site give the same bytes
(tested). It knows the layout of the pinned version and refuses any other.

When Pagefind cannot run (no binary for this platform, a crash, a timeout),
the build goes on without a search index and says so in one warning.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.metadata
import os
import re
import struct
import subprocess
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Self

import cbor2

from ..core.diagnostics import Location, Problem, warning
from .pagefind import GET_FILES, PagefindService

TIMEOUT_SECONDS = 300
# The drawing inside each chart's container, as figure.html and charts/svg.py write it.
_DRAWING = re.compile(rb'(<div class="chart-drawing[^"<>]*">)<svg\b.*?</svg>\n?(</div>)', re.DOTALL)
# A table the index ignores, as record.html writes each citing article's results (thousands of rows
# on a record that many articles cite). Cell text is escaped: no "</table>" inside. The table runs
# to its first "</table>", matched a run of text between tags at a time (twice as fast as ".*?").
_IGNORED_TABLE = re.compile(rb'(<div class="table-scroll"[^<>]*\bdata-pagefind-ignore>)\s*'
                            rb'<table\b[^<]*(?:<(?!/table>)[^<]*)*</table>\s*(</div>)')
# The page's body tag, and the opening tag of the element that Pagefind indexes.
_BODY_TAG = re.compile(rb"<body\b[^>]*>", re.IGNORECASE)
_INDEXED_OPENING = re.compile(rb"<([a-z][a-z0-9]*)\b[^>]*\bdata-pagefind-body\b[^>]*>")


@dataclass(frozen=True)
class SearchIndex:
    files: Mapping[str, bytes]  # path inside pagefind/ -> bytes
    problems: tuple[Problem, ...]
    merged: tuple[str, ...] = ()  # folders inside pagefind/ of bundles the search page merges in

    @property
    def available(self) -> bool:
        return bool(self.files)


SearchIndexer = Callable[[Mapping[str, bytes], str], SearchIndex]  # (HTML pages by path, language) -> index


def build_search_index(html_pages: Mapping[str, bytes], language: str) -> SearchIndex:
    """Index ``html_pages`` (output path -> HTML bytes) at once."""
    with PagefindRun(language) as run:
        for rel, data in sorted(html_pages.items()):
            run.add(rel, data)
        run.start()
        return run.finish()


class PagefindRun:
    """One Pagefind index, fed page by page as the build renders them (``add``): Pagefind reads
    each in its own process while the caller goes on. ``start`` says every page is there, and
    Pagefind builds the index while the caller renders the rest of the site; ``finish`` waits
    for the bundle. Used as a context manager, which ends the process whatever happens. Any
    failure of the indexer (no binary, an error, a crash, the time-out) becomes one warning."""

    def __init__(self, language: str) -> None:
        self.language = language
        self._service: PagefindService | None = None
        self._request: int | None = None  # the message asking for the bundle
        self._failure: BaseException | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """End the Pagefind process (its bundle is read, or not wanted)."""
        if self._service is not None:
            self._service.close()
            self._service = None

    def add(self, rel: str, data: bytes) -> None:
        self.add_read(rel, what_pagefind_reads(data))

    def add_read(self, rel: str, content: bytes) -> None:
        """``add`` a page given as ``what_pagefind_reads`` of it."""
        if self._failure is not None or (self._service is not None and self._service.stopped):
            return  # the failure is reported by finish; the pages are not queued for nobody
        try:
            if self._service is None:
                # Inline chart drawings repeat as SVG text what their data table says in words: not indexed.
                self._service = PagefindService(_binary(), {"force_language": self.language.split("-")[0].lower(),
                                                            "exclude_selectors": ["figure svg"]})
            self._service.send({"type": "AddFile", "index_id": 0, "file_path": rel,
                                "file_contents": content.decode("utf-8")})
        except Exception as exc:  # noqa: BLE001 -- any failure of the external indexer degrades to "no search"
            self._failure = exc

    def fail(self, failure: BaseException) -> None:
        """A failure met before Pagefind could have the pages (their spool could not be written or
        read back): ``finish`` reports it, like one of Pagefind's own."""
        if self._failure is None:
            self._failure = failure

    def start(self) -> None:
        """Every page is added: Pagefind builds the index."""
        if self._service is not None and self._request is None and self._failure is None:
            self._request = self._service.send({"type": GET_FILES, "index_id": 0})

    def finish(self) -> SearchIndex:
        """The bundle, made byte-stable (or no index and one warning)."""
        self.start()
        if self._failure is None and self._service is None:
            return SearchIndex({}, ())  # nothing to search: no index, and nothing to warn about
        try:
            if self._failure is not None:
                raise self._failure
            assert self._service is not None and self._request is not None
            reply = self._service.reply(self._request, TIMEOUT_SECONDS)
            files = {entry["path"]: base64.b64decode(entry["content"]) for entry in reply["files"]}
            return SearchIndex(canonical_bundle(files), ())
        except Exception as exc:  # noqa: BLE001 -- any failure of the external indexer degrades to "no search"
            return SearchIndex({}, (_unavailable(exc),))


class IndexerRun:
    """The steps of a PagefindRun for an indexer given as a function (serve's background index):
    the pages (the very bytes the site holds in memory) are handed over at ``finish``."""

    def __init__(self, indexer: SearchIndexer, language: str) -> None:
        self.indexer, self.language = indexer, language
        self.pages: dict[str, bytes] = {}

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.pages.clear()

    def wants(self, rel: str) -> bool:
        return True

    def add(self, rel: str, data: bytes) -> None:
        self.pages[rel] = data

    def passed(self, rel: str) -> None:
        """Nothing to index: the indexer is handed the pages added."""

    def plan(self, members: Sequence[Sequence[str]], keys: Sequence[str]) -> None:
        """Nothing to plan: the indexer is handed every page."""

    def start(self) -> None:
        pass

    def finish(self) -> SearchIndex:
        return self.indexer(self.pages, self.language)


def what_pagefind_reads(html: bytes) -> bytes:
    """The page without what the index leaves out anyway, which Pagefind would parse for nothing:
    the page around its ``data-pagefind-body`` element (site header, navigation, footer), inline
    chart drawings (excluded as ``figure svg``: half of a page with two charts) and tables
    marked ``data-pagefind-ignore`` that hold no other Pagefind attribute (most of a record page
    that many articles cite). The bundle is the same (tested)."""
    return _IGNORED_TABLE.sub(_emptied_table, _DRAWING.sub(rb"\1\2", _indexed_element(html)))


def _indexed_element(html: bytes) -> bytes:
    """The page's head and its ``data-pagefind-body`` element alone, when nothing around that
    element counts for Pagefind; else the page. Around the body, Pagefind still reads filters,
    metadata and sorts (any ``data-pagefind-`` attribute), the first ``h1`` as the title and an
    image after it (its fossick/parser.rs), so a page with any of these around is kept whole."""
    body_tag = _BODY_TAG.search(html)
    opening = _INDEXED_OPENING.search(html, body_tag.end()) if body_tag else None
    if body_tag is None or opening is None:
        return html
    tag = opening.group(1)
    close = html.find(b"</" + tag + b">", opening.end())
    if close < 0 or re.search(rb"<" + tag + rb"\b", html[opening.end():close]):
        return html  # not closed, or an element of the same name inside: the first closing tag is not its own
    end = close + len(tag) + 3
    around = (html[body_tag.end():opening.start()] + html[end:]).lower()
    if any(marker in around for marker in (b"data-pagefind-", b"<h1", b"<img")):
        return html
    return html[:body_tag.end()] + html[opening.start():end] + b"</body></html>"


# What Pagefind reads inside an ignored element: its filters, sorts and metadata. Another
# data-pagefind-ignore inside one (a record table's source-line cells) changes nothing.
_COUNTED_INSIDE = re.compile(rb"\bdata-pagefind-(?:filter|sort|meta|default-meta)\b")


def _emptied_table(found: re.Match[bytes]) -> bytes:
    if _COUNTED_INSIDE.search(found.group(0), len(found.group(1))):
        return found.group(0)  # a filter, sort or meta inside counts even where the text is ignored
    return found.group(1) + found.group(2)


def pagefind_version() -> str:
    """The version of Pagefind's package (what a cached bundle was made with)."""
    try:
        return importlib.metadata.version("pagefind-bin")
    except importlib.metadata.PackageNotFoundError:
        return "no pagefind-bin"


def _binary() -> str:
    binary = os.environ.get("PAGEFIND_BINARY_PATH")  # the variable Pagefind's own wrappers read
    if not binary:
        from pagefind_bin import get_executable  # type: ignore[import-untyped]  # only a build that indexes

        binary = str(get_executable())
    return binary


def _unavailable(exc: BaseException) -> Problem:
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, subprocess.TimeoutExpired):
        reason = f"Pagefind did not finish within {TIMEOUT_SECONDS} s"
    return warning(Location("pagefind"), f"search index not built: {reason}", "search",
                   hint="install the pinned pagefind-bin package (make setup); "
                        "the site is built without search and its search page says so")


# --- making the bundle byte-stable ------------------------------------------------------------

SIGNATURE = b"pagefind_dcd"  # leads every compressed Pagefind data file
FILTERS_AT = 3  # the metadata is [version, pages, word chunks, filters, sorts, meta fields]


def canonical_bundle(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """The bundle with every filter file's values and the metadata's filter list sorted."""
    filter_names = sorted(n for n in files if n.startswith("filter/") and n.endswith(".pf_filter"))
    bundle = {name: data for name, data in files.items() if name not in filter_names}
    renamed: dict[str, str] = {}
    for name in filter_names:
        old = name[len("filter/"):-len(".pf_filter")]
        filter_name, values = cbor2.loads(_unpack(files[name]))
        body = cbor2.dumps([filter_name, sorted(values, key=lambda value: str(value[0]))])
        new = _free_name(_prefix(old), _pagefind_hash(body), 7, lambda h: f"filter/{h}.pf_filter" in bundle)
        bundle[f"filter/{new}.pf_filter"] = _pack(body)
        renamed[old] = new
    metas = [n for n in files if n.startswith("pagefind.") and n.endswith(".pf_meta")]
    if len(metas) != 1 or "pagefind-entry.json" not in files:
        raise ValueError(f"unexpected Pagefind bundle: {len(metas)} metadata files")
    old_meta = metas[0][len("pagefind."):-len(".pf_meta")]
    meta: list[Any] = cbor2.loads(_unpack(files[metas[0]]))
    meta[FILTERS_AT] = sorted([name, renamed.get(hashed, hashed)] for name, hashed in meta[FILTERS_AT])
    body = cbor2.dumps(meta)
    new_meta = _prefix(old_meta) + _pagefind_hash(body)[:10]
    del bundle[metas[0]]
    bundle[f"pagefind.{new_meta}.pf_meta"] = _pack(body)
    bundle["pagefind-entry.json"] = files["pagefind-entry.json"].replace(old_meta.encode(), new_meta.encode())
    return dict(sorted(bundle.items()))


def _unpack(data: bytes) -> bytes:
    raw = gzip.decompress(data)
    if not raw.startswith(SIGNATURE):
        raise ValueError("unexpected Pagefind data file")
    return raw[len(SIGNATURE):]


# A gzip member's header, written here: gzip.compress writes OS 255 ("unknown") from Python 3.13
# on and 3 (Unix) before, which changed every repacked file. No mtime, XFL 2 (best compression), OS 3.
_GZIP_HEADER = b"\x1f\x8b\x08\x00" + bytes(4) + b"\x02\x03"


def _pack(body: bytes) -> bytes:
    """``SIGNATURE + body`` gzipped as Python 3.11's ``gzip.compress(..., compresslevel=9, mtime=0)``
    does, on every Python."""
    data = SIGNATURE + body
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return (_GZIP_HEADER + deflate.compress(data) + deflate.flush()
            + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF))


def _prefix(hashed: str) -> str:
    """``en_3cc1afa`` -> ``en_``: the language part of a Pagefind file hash."""
    return hashed.rsplit("_", 1)[0] + "_" if "_" in hashed else ""


def _pagefind_hash(body: bytes) -> str:
    """Pagefind's file hash: the SHA-1 bytes in hex, each without a leading zero."""
    return "".join(format(byte, "x") for byte in hashlib.sha1(body).digest())


def _free_name(prefix: str, digest: str, length: int, taken: Any) -> str:
    """The shortest name of at least ``length`` digest characters that is not taken (as Pagefind does)."""
    while taken(prefix + digest[:length]) and length < len(digest):
        length += 1
    return prefix + digest[:length]
