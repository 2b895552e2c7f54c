"""A large site's search index in shards, each made by a Pagefind run of its own and kept in the cache.

Pagefind reads every page each time it makes an index (about 1.5 ms of CPU a page: 7 s for a
site of 5,000 articles) whatever changed. The pages are therefore split into shards of about
SHARD_PAGES pages, by a hash of each page's path (a new page changes one shard, not those after
it). The first shard is the bundle at ``pagefind/``, with Pagefind's scripts; each other shard
is a bundle of index files only, at ``pagefind/shard-<n>/``, which the search page merges into
the first (Pagefind's ``mergeIndex``: a merged index is searched with the first one's code).

A shard's key (made by the build) is of the key of every page in it (what each page's rendered
files depend on, so the same key means the same HTML), Pagefind's version and the code. A shard
whose key the store holds is read back from it; only the shards of changed pages are indexed
again, each by its own Pagefind process. The first BUILDING of them are fed their pages as they
are rendered (or read back from the rendered cache: the build hands the index a shard's unchanged
pages before it renders the changed ones, in the shard's order all the same), and such a shard's
index is built as soon as its last page is there; the pages of the others wait in a spool file
each (as ``what_pagefind_reads`` them, in a temporary file the system removes whatever happens)
until a process is free for them: a Pagefind process holds what it was fed, and eleven fed at
once held 280 MB at the end of the pages of a cold build of 5,000 articles. A site of up to
SHARD_PAGES pages is one shard: its bundle is the one a single run makes.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO, Any, Protocol, Self

from ..core.pickled import load_each
from .search import PagefindRun, SearchIndex, what_pagefind_reads

SHARD_PAGES = 500  # the pages of a shard, about (a module constant: the tests make it small)
BUILDING = os.cpu_count() or 1  # the shards whose Pagefind run builds its index at once
SHARD_FOLDER = "shard-{number}/"
RECORDS_FOLDER = "community/"  # where the record pages are
# What a merged shard needs of its bundle: the entry, the metadata, the word index, the fragments
# and filters. Pagefind's scripts, styles and WebAssembly are the first shard's.
_INDEX_FOLDERS = ("index/", "fragment/", "filter/")


def _index_file(name: str) -> bool:
    return name == "pagefind-entry.json" or name.endswith(".pf_meta") or name.startswith(_INDEX_FOLDERS)


class ShardStore(Protocol):
    """Where shards are kept between builds (the rendered cache)."""

    def load(self, key: str) -> Any | None: ...

    def save(self, key: str, value: Any) -> None: ...


def shard_count(pages: int) -> int:
    return max(1, -(-pages // SHARD_PAGES))


def shard_of(rel: str, shards: int) -> int:
    """The shard of the page at ``rel`` (its index.html's path in the site), of ``shards``."""
    return int.from_bytes(hashlib.sha256(rel.encode("utf-8", "surrogatepass")).digest()[:8], "big") % shards


def shard_members(rels: Iterable[str]) -> list[list[str]]:
    """The paths of each shard's pages, in the order given. Up to SHARD_PAGES pages are one shard;
    a larger site's articles and record pages are in shards apart (a record page cited by thousands
    of articles is large, and an article's edit then leaves its shard alone)."""
    given = list(rels)
    if len(given) <= SHARD_PAGES:
        return [given]
    records = [rel for rel in given if rel.startswith(RECORDS_FOLDER)]
    others = [rel for rel in given if not rel.startswith(RECORDS_FOLDER)]
    members: list[list[str]] = []
    for group in (others, records):
        shards = shard_count(len(group)) if group else 0
        found: list[list[str]] = [[] for _ in range(shards)]
        for rel in group:
            found[shard_of(rel, shards)].append(rel)
        members += found
    return members


class ShardedSearch:
    """The search index of a build: ``plan`` says which pages there are (and their keys); ``add``
    feeds each page to its shard's Pagefind run unless the shard is in ``store``; ``finish`` gives
    the bundle of every shard, and keeps the new ones in ``store`` (None: nothing read or kept).
    Without ``plan`` it is one shard, made anew. Used as a context manager, which ends every run."""

    def __init__(self, language: str, store: ShardStore | None = None) -> None:
        self.language = language
        self._store = store
        self._keys: list[str] = [""]
        self._shards: dict[str, int] = {}  # each page's shard, by path (none planned: the first)
        self._cached: dict[int, Mapping[str, bytes]] = {}
        self._runs: dict[int, PagefindRun] = {}
        self._fed = frozenset({0})  # the shards fed as their pages come; the others are spooled
        self._spools: dict[int, _Spool] = {}
        # Pages are handed to each shard in the order planned (Pagefind's bundle depends on it), as
        # soon as those before them have been: a page that comes early waits (what Pagefind reads
        # of it), one with nothing to index is ``passed``.
        self._order: list[Sequence[str]] = []
        self._next: list[int] = []  # of each shard, the place in its order of the page handed over next
        self._waiting: list[dict[str, bytes | None]] = []
        self._handled: set[str] = set()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for run in self._runs.values():
            run.__exit__(*exc_info)
        for spool in self._spools.values():
            spool.close()

    def plan(self, members: Sequence[Sequence[str]], keys: Sequence[str]) -> None:
        """Each shard's pages (``shard_members``) and key (see the module's docstring), before any page is added."""
        self._keys = list(keys)
        self._shards = {rel: number for number, shard in enumerate(members) for rel in shard}
        self._order = [list(shard) for shard in members]
        self._next = [0] * len(members)
        self._waiting = [{} for _ in members]
        if self._store is None:
            return
        for number, key in enumerate(self._keys):
            found = self._store.load(key)
            if isinstance(found, dict) and all(isinstance(value, bytes) for value in found.values()):
                self._cached[number] = found
        self._fed = frozenset([number for number in range(len(self._keys)) if number not in self._cached][:BUILDING])

    def wants(self, rel: str) -> bool:
        """Is the page at ``rel`` of a shard indexed now (not read back from the store), and not
        yet added or passed?"""
        return self._shards.get(rel, 0) not in self._cached and rel not in self._handled

    def add(self, rel: str, data: bytes) -> None:
        """Index the page at ``rel`` (its HTML): at once if the pages planned before it in its shard
        are there, else once they are. A shard's last page starts its index (a shard fed as its
        pages come): Pagefind builds it while the build goes on."""
        if self.wants(rel):
            self._take(rel, what_pagefind_reads(data))

    def passed(self, rel: str) -> None:
        """The page at ``rel`` is not indexed (it has nothing for the search): the pages after it
        in its shard need not wait for it."""
        if self.wants(rel):
            self._take(rel, None)

    def _take(self, rel: str, content: bytes | None) -> None:
        self._handled.add(rel)
        number = self._shards.get(rel)
        if number is None or self._next[number] == len(self._order[number]):
            # not planned, or after every page was handed over (start): in the order given
            if content is not None:
                self._hand_over(number or 0, rel, content)
            return
        order, waiting, at = self._order[number], self._waiting[number], self._next[number]
        waiting[rel] = content
        while at < len(order) and order[at] in waiting:
            found = waiting.pop(order[at])
            if found is not None:
                self._hand_over(number, order[at], found)
            at += 1
        self._next[number] = at
        if at == len(order) and number in self._fed and number in self._runs:
            self._runs[number].start()

    def _hand_over(self, number: int, rel: str, content: bytes) -> None:
        """Give the shard's run the page (as ``what_pagefind_reads`` it), or its spool."""
        if number in self._fed:
            self._run(number).add_read(rel, content)
            return
        spool = self._spools.setdefault(number, _Spool())
        try:
            spool.add(rel, content)
        except OSError as exc:  # a full disk: this shard's index fails, as a failed Pagefind run does
            self._run(number).fail(exc)

    def _hand_over_waiting(self) -> None:
        """Every page that still waits, in its shard's order (a page before it never came)."""
        for number, waiting in enumerate(self._waiting):
            for rel in self._order[number][self._next[number]:]:
                found = waiting.pop(rel, None)
                if found is not None:
                    self._hand_over(number, rel, found)
            self._next[number] = len(self._order[number])

    def _run(self, number: int) -> PagefindRun:
        if number not in self._runs:
            self._runs[number] = PagefindRun(self.language)
        return self._runs[number]

    def start(self) -> None:
        """Every page is added: the first shards' runs build their indexes, the others as those end
        (``finish``): a Pagefind process grows to about 70 MB while it builds, and eleven at once
        held 770 MB at 5,000 articles. As many build at once as there are cores."""
        self._hand_over_waiting()
        self._start_from(0)

    def _start_from(self, number: int) -> None:
        """The runs of the BUILDING shards from ``number`` on build their index; a spooled shard's
        run is started and fed its pages first."""
        for later in [found for found in sorted(self._runs.keys() | self._spools.keys()) if found >= number][:BUILDING]:
            spool = self._spools.pop(later, None)
            run = self._run(later)
            if spool is not None:
                try:
                    for rel, content in spool.pages():
                        run.add_read(rel, content)
                except OSError as exc:
                    run.fail(exc)
                finally:
                    spool.close()
            run.start()

    def finish(self) -> SearchIndex:
        """Every shard's bundle: the first with pages at ``pagefind/``, with Pagefind's scripts, each
        other one's index files under its folder of it; one warning if any run failed (and then no
        index at all: a search that misses pages would mislead)."""
        self._hand_over_waiting()
        files: dict[str, bytes] = {}
        merged: list[str] = []
        for number in range(len(self._keys)):
            bundle = self._bundle(number)
            if bundle is None:
                continue
            if not bundle.files:
                return SearchIndex({}, bundle.problems)
            if not files:
                files = dict(bundle.files)
                continue
            folder = SHARD_FOLDER.format(number=number)
            merged.append(folder)
            files |= {folder + name: data for name, data in bundle.files.items() if _index_file(name)}
        return SearchIndex(dict(sorted(files.items())), (), tuple(merged))

    def _bundle(self, number: int) -> SearchIndex | None:
        """The shard's bundle (cached or made now); None for a shard without pages."""
        if number in self._cached:
            return SearchIndex(self._cached[number], ())
        if number not in self._runs and number not in self._spools:
            return None
        self._start_from(number)
        run = self._runs[number]
        index = run.finish()
        run.close()
        if index.files and self._store is not None:
            self._store.save(self._keys[number], dict(index.files))
        return index


class _Spool:
    """The pages of a shard that waits for its Pagefind run: each page's path and what Pagefind
    reads of it, pickled one after the other into a temporary file (removed by the system when it
    is closed, or when the process ends, however)."""

    def __init__(self) -> None:
        self._file: IO[bytes] | None = None

    def add(self, rel: str, content: bytes) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile()  # noqa: SIM115 -- closed by close()
        pickle.dump((rel, content), self._file, protocol=pickle.HIGHEST_PROTOCOL)

    def pages(self) -> Iterator[tuple[str, bytes]]:
        """The pages added, in order."""
        if self._file is None:
            return
        self._file.seek(0)
        yield from load_each(self._file)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def index_in_shards(pages: Mapping[str, bytes], language: str, kept: dict[str, Mapping[str, bytes]]) -> SearchIndex:
    """The index of ``pages`` (HTML by path) at once, in shards; ``kept``: the bundles of earlier
    calls by their shard's key (of its pages' bytes), reused where a shard's pages are the same and
    left holding this call's (the dev server's index, made again in the background after each edit)."""
    members = shard_members(sorted(pages))
    keys = [_bytes_key(language, len(members), number, [(rel, pages[rel]) for rel in shard])
            for number, shard in enumerate(members)]
    store = _MemoryShards(kept)
    with ShardedSearch(language, store) as search:
        search.plan(members, keys)
        for rel in sorted(pages):
            search.add(rel, pages[rel])
        search.start()
        index = search.finish()
    kept.clear()
    kept.update((key, store.bundles[key]) for key in keys if key in store.bundles)
    return index


def _bytes_key(language: str, shards: int, number: int, members: list[tuple[str, bytes]]) -> str:
    digest = hashlib.sha256(f"{language}\0{shards}\0{number}".encode())
    for rel, data in members:
        digest.update(b"\0" + rel.encode("utf-8", "surrogatepass") + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


class _MemoryShards:
    """A ShardStore in memory."""

    def __init__(self, bundles: Mapping[str, Mapping[str, bytes]]) -> None:
        self.bundles = dict(bundles)

    def load(self, key: str) -> Any | None:
        return self.bundles.get(key)

    def save(self, key: str, value: Any) -> None:
        self.bundles[key] = value
