"""Validated pages in the page cache: stored without what they can get back from their source.

A page's outcome (the validated Page, or None, and its problems) depends only
on the file's bytes, the schemas and this package's code, which make its key.
The file's text is dropped before the page is stored (the key guarantees that
the source read now is the same file) and put back on load, which keeps an
entry a fraction of the page's full size.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from ..checks.page import Page
from ..core.diagnostics import Problem
from ..core.model import FrontMatter, SourceFile
from ..site.index import Entry, PageFacts
from ..site.records import Record
from . import safepickle
from .caches import Store, code_fingerprint, key_of


def article_key(page: str, entry: str, context: str, svgs: Mapping[str, str], states: str = "",
                history: Sequence[Any] = (), around: Any = None) -> str:
    """What an article's rendered files depend on: the page (``page``: its page_key, of its source,
    the schemas and the code), its entry in the site index (``entry``: ``EntryKeys.of``; record
    titles, counts, section), the site context and templates (``context``), its drawn charts
    (sha256 by file name), its verification states (``states``: their digest, ``PageVerification.digest``) and
    the changes to its published data (``history``: they come from git) and its previous and next
    articles in its section (``around``)."""
    drawn = sorted(svgs.items())
    return key_of(page, entry, context, repr(drawn), states, repr(tuple(history)), repr(around))


class EntryKeys:
    """What the site index says of each article (its URL, front matter, figures, section, records,
    metrics, facets; not its prose), as a digest made once per build: the article's own key and
    every listing it stands in take it (at 5,000 articles, writing it out again for each was 8 % of
    an edit)."""

    def __init__(self) -> None:
        self._made: dict[str, str] = {}

    def of(self, entry: Entry) -> str:
        url = entry.page.url
        if url not in self._made:
            self._made[url] = key_of(url, entry.page.front.shown, *_entry_fields(entry))
        return self._made[url]


def _entry_fields(entry: Entry) -> list[str]:
    """An entry's fields other than its page, written out. The digest of what it shows of its page's
    facts (``PageFacts.listed``) stands for its metrics, facets and its records' ids, URLs and counts
    (writing those out was half the time of the keys of 5,000 articles); its records' titles and its
    figures are written out."""
    if not entry.listed:
        return [repr([(field.name, getattr(entry, field.name)) for field in fields(entry) if field.name != "page"])]
    return [entry.listed, repr(entry.figures), entry.section_title, entry.section_url,
            *(record.title for record in entry.records)]



def record_key(record: Record, pages: Mapping[str, str], schema_fingerprint: str, context: str,
               states: Mapping[str, str] | None = None) -> str:
    """What a record page's files depend on: its id, its prose file (content/community/<id>.md),
    what it shows of every article that cites it (``pages`` by URL: the digest of the article's
    facts and its front matter, ``citing_key``), with its verification states (``states``: their digest by URL),
    the schemas, the code and the site context and templates (``context``). An edit to one
    article renders again only the records it cites, and only when their data or its front matter
    changed: an edit of its prose renders none."""
    prose = (record.prose.source.rel, record.prose.source.text) if record.prose is not None else ("", "")
    known = states or {}
    citing = [pages[citation.page.url] + known.get(citation.page.url, "") for citation in record.citations]
    return key_of("record", record.id, *prose, schema_fingerprint, context, *citing)


def citing_key(facts: str, front: FrontMatter) -> str:
    """What a record page shows of an article that cites it: its facts (``PageFacts.digest``: its
    results of the record and their conditions) and its front matter (title, dates)."""
    return key_of(facts, front.shown)


def page_key(source: SourceFile, schema_fingerprint: str) -> str:
    return key_of(code_fingerprint(), schema_fingerprint, source.path, source.rel, source.digest)


@dataclass(frozen=True)
class Outcome:
    """What validating one source gave: the page (None when it failed), what the site index takes
    from it (found in the same worker), and its problems."""

    page: Page | None
    facts: PageFacts | None
    problems: tuple[Problem, ...]


def load_pages(store: Store, keys: Sequence[str], sources: Sequence[SourceFile]) -> Iterator[Outcome | None]:
    """The cached outcome of validating each source under its key, in order, or None on a miss (an
    entry that is no outcome counts as discarded); the entries read in batches."""
    for data, source in zip(store.load_many_pickled(keys), sources, strict=True):
        outcome = outcome_from(data, source)
        if data is not None and outcome is None:
            store.discarded += 1
        yield outcome


def save_page(store: Store, key: str, data: bytes | None) -> None:
    """Save a pickled outcome (see ``pickled_outcome``); None (it could not be pickled) saves nothing."""
    if data is not None:
        store.save_pickled(key, data)


def pickled_outcome(outcome: Outcome) -> bytes | None:
    """An outcome as the page cache stores it: the page without its source text and without its
    tokens (a page rendered again parses its source again for them: ``Page.tokens``)."""
    page = outcome.page
    slim = replace(outcome, page=replace(page, source=replace(page.source, kept=""),
                                         parsed_tokens=None)) if page is not None else outcome
    return safepickle.dumps(slim)


def outcome_from(data: bytes | None, source: SourceFile) -> Outcome | None:
    """The outcome pickled in ``data``, with ``source`` put back; None when it is not one."""
    if data is None:
        return None
    try:
        stored = safepickle.loads(data)
    except Exception:  # noqa: BLE001 - an entry of types the cache does not admit is a miss
        return None
    if not isinstance(stored, Outcome) or not (stored.page is None or isinstance(stored.page, Page)):
        return None
    return replace(stored, page=replace(stored.page, source=source)) if stored.page is not None else stored
