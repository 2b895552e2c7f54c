"""Frozen values passed between pipeline stages.

This module imports nothing else of the package except diagnostics' Location
and jsontext (standard library only), so every stage can depend on it. Stages never mutate these objects: a later
stage produces a new, richer value instead of filling in an old one.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import jsontext
from .diagnostics import Location

if TYPE_CHECKING:
    from ..site.index import PageFacts

RESULTS = "reported_results"  # the export's list of reported results
EMPTY_EXPORT: Mapping[str, Any] = {"facts": [], RESULTS: [], "conditions": {}}
_COMMIT = re.compile(r"[0-9a-f]{7,40}")
_SNAPSHOT = re.compile(r"snapshot-\d{4}-\d{2}-\d{2}")
_RECORD_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # a source_record_id that names a record page

PathPart = str | int
JsonPath = tuple[PathPart, ...]


def dotted(path: JsonPath) -> str:
    """``("reported_results", 4, "conditions")`` -> ``reported_results[4].conditions``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def pointer(path: JsonPath) -> str:
    """RFC 6901 JSON Pointer of a path."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


@dataclass(frozen=True)
class Positions:
    """Where the keys and values of a parsed document stand in the source file.

    ``keys`` holds the (line, col) of each object member's key, ``values`` the
    (line, col) of every value, both indexed by the member's path.
    """

    file: str
    keys: Mapping[JsonPath, tuple[int, int]] = field(default_factory=dict)
    values: Mapping[JsonPath, tuple[int, int]] = field(default_factory=dict)

    def of_key(self, path: JsonPath) -> Location:
        """The key of ``path`` (or its value, or its nearest known ancestor)."""
        for depth in range(len(path), -1, -1):
            sub = path[:depth]
            spot = self.keys.get(sub) or self.values.get(sub)
            if spot:
                return Location(self.file, *spot)
        return Location(self.file)

    def of_value(self, path: JsonPath) -> Location:
        """The value of ``path`` (or its key, or its nearest known ancestor)."""
        spot = self.values.get(path)
        if spot:
            return Location(self.file, *spot)
        return self.of_key(path)


@dataclass(frozen=True)
class SourceFile:
    """One Markdown file of content/, decoded (BOM removed, CRLF -> LF)."""

    path: str  # as shown in diagnostics, relative to the site root: content/guides/a.md
    rel: str  # relative to content/, POSIX: guides/a.md
    text: str

    @property
    def url(self) -> str:
        """The page URL path: ``guides/a.md`` -> ``/guides/a/``; ``index.md`` -> ``/``."""
        stem = self.rel[: -len(".md")]
        if stem == "index":
            return "/"
        stem = stem.removesuffix("/index")
        return f"/{stem}/"


@dataclass(frozen=True)
class Asset:
    """A static file of content/assets/, copied verbatim."""

    rel: str  # relative to content/: assets/diagram.svg
    data: bytes


EXPORT_FENCE = "export"  # ```json export
CHART_FENCE = "chart"  # ```chart


@dataclass(frozen=True)
class Fence:
    """A data fence of the body (the export or a chart), with its place in the Markdown file."""

    kind: str  # EXPORT_FENCE or CHART_FENCE, decided once by the parse stage
    content: str  # the body as written
    line: int  # 1-based line of the opening fence in the file
    indent: int  # columns removed from each content line by the fence's indentation
    body_index: int = 0  # 0-based line of the opening fence in the page body (markdown-it's token.map[0])

    @property
    def content_line(self) -> int:
        return self.line + 1


@dataclass(frozen=True)
class Document:
    """A parsed YAML or JSON document with its source positions."""

    value: Any
    positions: Positions


@dataclass(frozen=True)
class ParsedPage:
    """A source file split into front matter, body and fences. Nothing validated yet."""

    source: SourceFile
    front_matter: Document | None
    body: str  # the Markdown after the front matter, fences still in place
    body_line: int  # line of the file on which ``body`` starts
    export_fence: Fence | None
    export: Document | None
    chart_fences: tuple[Fence, ...]
    tokens: tuple[Any, ...]  # markdown-it tokens of ``body``; read-only by convention


@dataclass(frozen=True)
class SourceRef:
    """One entry of the front matter's ``sources``."""

    publisher: str
    url: str
    revision: str
    sha256: str

    @property
    def pinned(self) -> bool:
        """A 7–40 hex commit that appears in the URL pins the document."""
        return bool(_COMMIT.fullmatch(self.revision)) and self.revision in self.url

    @property
    def document(self) -> str:
        """The document's name as a reader tells it from the others of one source: its path after
        the revision in the URL (``results/quick.csv`` of ``…/blob/<commit>/results/quick.csv``),
        else the URL's last path segment, else its host."""
        parts = urllib.parse.urlsplit(self.url)
        segments = [urllib.parse.unquote(segment) for segment in parts.path.split("/") if segment]
        if self.revision in segments[:-1]:
            return "/".join(segments[segments.index(self.revision) + 1:])
        return segments[-1] if segments else parts.netloc or self.url

    @property
    def pin_state(self) -> str:
        """``pinned``, ``snapshot`` (a dated snapshot hash) or ``unpinned``."""
        if self.pinned:
            return "pinned"
        if _SNAPSHOT.fullmatch(self.revision):
            return "snapshot"
        return "unpinned"


@dataclass(frozen=True)
class FrontMatter:
    title: str
    summary: str
    checked: dt.date
    updated: dt.date | None = None
    draft: bool = False
    tags: tuple[str, ...] = ()
    sources: tuple[SourceRef, ...] = ()


@dataclass(frozen=True)
class Page:
    """A validated page, ready to render. ``charts`` holds ChartPlans (charts.model)."""

    source: SourceFile
    front: FrontMatter
    body_line: int  # line of the file on which the body starts
    tokens: tuple[Any, ...]
    export: Mapping[str, Any] | None
    charts: tuple[Any, ...]
    export_index: int | None = None  # 0-based body line of the export fence: rendered nowhere
    chart_fences: tuple[Fence, ...] = ()
    # Inline values by (role name, role content): inlinevalues.InlineValue, resolved against the export.
    inline_values: Mapping[tuple[str, str], Any] = field(default_factory=dict)
    # What the site index takes from this page, computed with it (in a validating worker, kept in
    # the page cache); None for a page made otherwise, whose facts the site index computes itself.
    facts: PageFacts | None = None

    @property
    def url(self) -> str:
        return self.source.url

    @property
    def body(self) -> str:
        """The Markdown after the front matter (derived, not held: a site of thousands of pages
        would keep every text twice)."""
        return "\n".join(self.source.text.split("\n")[self.body_line - 1:])

    @functools.cached_property
    def record_ids(self) -> frozenset[str]:
        """Every source_record_id (a slug) named anywhere in the export: the records it cites."""
        return frozenset(value for value in _record_id_values(self.export) if _RECORD_ID.fullmatch(value))

    @property
    def section(self) -> str:
        """The first folder of the page's path; "" for top-level pages."""
        parts = self.source.rel.split("/")
        return parts[0] if len(parts) > 1 else ""


def _record_id_values(value: Any) -> Iterator[str]:
    for _, found in objects(value):
        member = found.get("source_record_id")
        if isinstance(member, str):
            yield member


def objects(value: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    """Every JSON object in ``value`` (itself included) with its path, parents before their
    members, in document order. Iterative: an export holds tens of thousands of objects."""
    stack: list[tuple[JsonPath, Any]] = [(path, value)] if isinstance(value, (dict, list)) else []
    while stack:
        where, item = stack.pop()
        if isinstance(item, dict):
            yield where, item
        if set(map(type, item.values() if isinstance(item, dict) else item)) <= _SCALARS:
            continue  # most objects (a result's conditions) hold scalars only: nothing to walk into
        members: Iterable[tuple[PathPart, Any]] = item.items() if isinstance(item, dict) else enumerate(item)
        inner = [(where + (key,), member) for key, member in members if isinstance(member, (dict, list))]
        inner.reverse()
        stack += inner


_SCALARS = frozenset({str, int, float, bool, type(None), jsontext.AuthoredFloat, jsontext.AuthoredInt})
