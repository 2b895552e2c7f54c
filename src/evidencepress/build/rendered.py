"""Rendered pages in the rendered cache, and their files put into the output.

A page's rendered files are kept as entries of two kinds: under the page's key, the name and
sha256 of each file (``RenderedPage``); under ``file <sha256>``, the bytes of one file. A page
whose key is unchanged is put into the output without its bytes where the output it replaces
holds them (``FileSink.link``: the last build recorded their digests and signatures): its files'
bytes are read from the cache only where that output cannot vouch for them, or for a search
shard that is indexed again. A site of 5,000 articles thus puts its unchanged pages without
reading, hashing or writing their 800 MB.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from ..cache.caches import Store
from ..output.exports import export_name_of
from ..output.writer import FileSink

# The name an article's file of exports/ has among its rendered files; not a name of the site.
SNAPSHOT_ENTRY = "exports:snapshot"


class Indexer(Protocol):
    """The search index's side of putting pages (``output.searchshards.ShardedSearch``)."""

    def wants(self, rel: str) -> bool: ...

    def add(self, rel: str, data: bytes) -> None: ...

    def passed(self, rel: str) -> None: ...


@dataclass(frozen=True)
class RenderedPage:
    """A page's rendered files as the rendered cache keeps them: each file's name and hex sha256."""

    files: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class LinkedFiles:
    """Files the rendered cache keeps only the name, sha256 and size of (large data files): they are
    linked from the output a build replaces when it holds them all, else made again."""

    files: tuple[tuple[str, str, int], ...]


def link_all(sink: FileSink, folder: str, linked: LinkedFiles) -> bool:
    """Link every file of ``linked`` (under ``folder``, a POSIX path ending in "/") from the output
    the sink replaces; False, with nothing put, when it does not vouch for them all."""
    if not all(sink.can_link(folder + name, digest) for name, digest, _ in linked.files):
        return False
    for name, digest, _ in linked.files:
        sink.link(folder + name, digest)
    return True


def object_key(digest: str) -> str:
    """The rendered cache's key of a file's bytes, by their hex sha256."""
    return f"file {digest}"


def save_rendered(store: Store | None, key: str, outputs: Mapping[str, bytes]) -> dict[str, bytes]:
    """Keep a page's rendered files under ``key`` (``store`` None: nowhere); the sha256 of each."""
    digests = {name: hashlib.sha256(data).digest() for name, data in outputs.items()}
    if store is not None:
        for name, data in outputs.items():
            store.save_pickled(object_key(digests[name].hex()), data)
        store.save(key, RenderedPage(tuple((name, digest.hex()) for name, digest in digests.items())))
    return digests


def put_rendered(sinks: PageSinks, url: str, outputs: Mapping[str, bytes], digests: Mapping[str, bytes]) -> None:
    """Put a page's files, made now, into the output (and its HTML to the search index)."""
    for name, data in outputs.items():
        target = sinks.target(url, name)
        if target is not None:
            target[0].put(target[1], data, digests[name])
            sinks.index(target[1], data)


def put_cached(sinks: PageSinks, url: str, page: RenderedPage, store: Store) -> bool:
    """Put a cached page's files into the output: each linked from the output it replaces where that
    one vouches for it, else read from the cache. False, with nothing put, when a file the output
    cannot vouch for (or the search needs) is gone from the cache: the page is rendered again."""
    placed = []
    for name, digest in page.files:
        target = sinks.target(url, name)
        if target is not None:
            sink, rel = target
            placed.append((sink, rel, digest, sink.can_link(rel, digest), sinks.wants(rel)))
    loaded: dict[str, bytes] = {}
    for sink, rel, digest, linkable, wanted in placed:
        store.mark_used(object_key(digest))
        if not linkable or wanted:
            data = _cached_bytes(sink, rel, digest, linkable, store)
            if data is None:
                return False
            loaded[rel] = data
    for sink, rel, digest, linkable, _ in placed:
        if linkable:
            sink.link(rel, digest)
        else:
            sink.put(rel, loaded[rel], bytes.fromhex(digest))
        if rel in loaded:
            sinks.index(rel, loaded[rel])
    return True


def index_cached(sinks: PageSinks, url: str, page: RenderedPage, store: Store) -> None:
    """Hand the search index a cached page's HTML ahead of its turn, when its shard is indexed
    again: Pagefind reads the unchanged pages of an edited page's shard while the build renders
    the changed ones, and builds that shard's index as soon as they are there (at 880 real
    articles it started after every page was put, and the build then waited 1.6 s for it). A page
    whose bytes the cache no longer holds is handed over when it is put."""
    for name, digest in page.files:
        target = sinks.target(url, name)
        if target is not None and sinks.wants(target[1]):
            sink, rel = target
            data = _cached_bytes(sink, rel, digest, sink.can_link(rel, digest), store)
            if data is not None:
                sinks.index(rel, data)


def _cached_bytes(sink: FileSink, rel: str, digest: str, linkable: bool, store: Store) -> bytes | None:
    """A cached file's bytes: held by the output it replaces where that one vouches for them (the
    dev server's, in memory), else from the rendered cache; None when the cache lost them."""
    return (sink.held(rel) if linkable else None) or store.load_pickled(object_key(digest))


@dataclass(frozen=True)
class PageSinks:
    """Where a page's files go: the site's folder, exports/ (its snapshot; None: nowhere) and the
    search index (None: no index)."""

    files: FileSink
    exports: FileSink | None
    search: Indexer | None

    def target(self, url: str, name: str) -> tuple[FileSink, str] | None:
        """The sink and path of the page's file ``name``; None for a snapshot without exports/."""
        if name == SNAPSHOT_ENTRY:
            return (self.exports, export_name_of(url)) if self.exports is not None else None
        return self.files, url.lstrip("/") + name

    def wants(self, rel: str) -> bool:
        """Does the search index need the bytes of the file at ``rel`` (an HTML page of a shard made now)?"""
        return self.search is not None and rel.endswith(".html") and self.search.wants(rel)

    def index(self, rel: str, data: bytes) -> None:
        """Hand an HTML page to the search index: articles and records say data-pagefind-body."""
        if self.wants(rel):
            assert self.search is not None
            if b"data-pagefind-body" in data:
                self.search.add(rel, data)
            else:
                self.search.passed(rel)
