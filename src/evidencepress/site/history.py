"""The history of the published data: each article's versions of exports/ compared, newest first.

Each commit that changed an article's ``exports/<url path>.json`` is one ``DataChange``:
its commit and date (from git, never the clock), and what changed in the words of ``diff``
(``datadiff``): values, conditions, results added and removed, sources re-pinned. Every
version is kept as an immutable copy at ``/history/<url path>/<commit>.json``.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..checks.page import Page
from ..content.history import ExportHistory, Version
from ..core import jsontext
from ..datadiff.entries import compare_results, compare_sources, entries_of, other_changes, page_fields
from ..datadiff.words import field_line, result_lines, source_lines

HISTORY_URL = "/history/"
CHANGES_URL = "/changes/"
CHANGES_FEED = "changes.xml"
CHANGES_TITLE = "Changes to the data"
CHANGES_SUMMARY = "Every change to the published data of the articles, newest first, from the history of exports/."
NO_CHANGE = "- no change to the published data (the file was written differently)"

ChangeKind = Literal["published", "changed", "removed"]


@dataclass(frozen=True)
class DataChange:
    """One commit's change to one article's published data."""

    url: str  # the article's site path: /guides/a/
    title: str  # the article's title now
    commit: str
    date: str  # the committer date, ISO 8601 with its offset
    kind: ChangeKind  # first published (or published again), changed, or removed from exports/
    lines: tuple[str, ...]  # Markdown list items in the words of diff
    copy_url: str | None  # /history/guides/a/<commit>.json; None when the commit removed the file

    @property
    def day(self) -> str:
        return self.date[:10]

    @property
    def short(self) -> str:
        return self.commit[:7]

    @property
    def instant(self) -> dt.datetime:
        return dt.datetime.fromisoformat(self.date)


@dataclass(frozen=True)
class DataHistory:
    """Every article's changes and the copies of its earlier versions."""

    head: str = ""  # the HEAD commit ("" outside a repository)
    complete: bool = True  # False: a shallow clone, or no repository
    pages: Mapping[str, tuple[DataChange, ...]] = field(default_factory=dict)  # by article URL, newest first
    copies: Mapping[str, bytes] = field(default_factory=dict)  # site path -> the bytes of exports/… at the commit

    def of(self, url: str) -> tuple[DataChange, ...]:
        return self.pages.get(url, ())

    @property
    def changes(self) -> tuple[DataChange, ...]:
        """Every change of the site, newest first (by commit date; an article's own order kept)."""
        every = [(change, n) for changes in self.pages.values() for n, change in enumerate(changes)]
        every.sort(key=lambda item: (-item[0].instant.timestamp(), item[0].url, item[1]))
        return tuple(change for change, _ in every)

    @property
    def paths(self) -> frozenset[str]:
        return frozenset(self.copies)


def data_history(history: ExportHistory, pages: Sequence[Page]) -> DataHistory:
    """The changes of the published articles (drafts are not in exports/)."""
    by_url: dict[str, tuple[DataChange, ...]] = {}
    copies: dict[str, bytes] = {}
    for page in pages:
        versions = history.files.get(page.url.strip("/") + ".json", ())  # output.exports.export_name
        changes = _page_changes(page, versions)
        # a commit that rewrote the file without changing its data is in the archive, not in the list
        shown = tuple(change for change in changes if change.lines != (NO_CHANGE,))
        if shown:
            by_url[page.url] = shown
        copies.update({change.copy_url: version.data for change, version in zip(changes, versions, strict=True)
                       if change.copy_url is not None and version.data is not None})
    complete = history.complete and bool(history.head)
    return DataHistory(history.head, complete, by_url, dict(sorted(copies.items())))


def _page_changes(page: Page, versions: tuple[Version, ...]) -> tuple[DataChange, ...]:
    changes = []
    for number, version in enumerate(versions):
        older = versions[number + 1].data if number + 1 < len(versions) else None
        new_doc, old_doc = _document(version.data), _document(older)
        if version.data is None:
            kind: ChangeKind = "removed"
            lines: tuple[str, ...] = ("- removed from the published data",)
        elif old_doc is None:
            kind, lines = "published", (_published_line(new_doc),)
        else:
            kind, lines = "changed", change_lines(old_doc, new_doc or {}) or (NO_CHANGE,)
        copy = f"{HISTORY_URL}{page.url.strip('/')}/{version.commit}.json" if version.data is not None else None
        changes.append(DataChange(page.url, page.front.title, version.commit, version.date, kind, lines, copy))
    return tuple(changes)


def change_lines(old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[str, ...]:
    """What changed between two page documents (``{"page": envelope, ...export}``), as diff words it."""
    old_page, new_page = _envelope(old), _envelope(new)
    old_export = {key: value for key, value in old.items() if key != "page"}
    new_export = {key: value for key, value in new.items() if key != "page"}
    lines = [field_line(change) for change in page_fields(old_page, new_page)]
    results = compare_results(entries_of(old_export, "reported_results"), entries_of(new_export, "reported_results"))
    lines += [line for change in results for line in result_lines(change)]
    sources = compare_sources(entries_of(old_page, "sources"), entries_of(new_page, "sources"))
    lines += [line for change in sources for line in source_lines(change)]
    lines += [field_line(change) for change in other_changes(old_export, new_export)]
    return tuple(lines)


def _published_line(document: Mapping[str, Any] | None) -> str:
    results = len(entries_of(document or {}, "reported_results"))
    return f"- first published, with {results} reported result{'s' if results != 1 else ''}"


def _envelope(document: Mapping[str, Any]) -> Mapping[str, Any]:
    envelope = document.get("page")
    return envelope if isinstance(envelope, dict) else {}


def _document(data: bytes | None) -> dict[str, Any] | None:
    """A page document as authored (numbers keep their literal); None when absent or not JSON."""
    if data is None:
        return None
    try:
        value = json.loads(data.decode("utf-8"), parse_float=jsontext.parse_float, parse_int=jsontext.parse_int)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
