"""Frozen values passed between pipeline stages.

What reading and parsing produce: source files, positions, fences, parsed
pages, front matter. This module imports nothing of the package (only the
standard library and markdown-it's Token type), so every stage can depend on
it. Stages never mutate these objects: a later stage produces a value of its
own type (the validated Page of checks/page.py, the site index's PageFacts)
instead of filling in an earlier one.
"""

from __future__ import annotations

import datetime as dt
import errno
import functools
import hashlib
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a no-change build replays its record without importing markdown-it
    from markdown_it.token import Token

_COMMIT = re.compile(r"[0-9a-f]{7,40}")
_SNAPSHOT = re.compile(r"snapshot-\d{4}-\d{2}-\d{2}")

@dataclass(frozen=True, order=True)
class Location:
    """A place in a file: 1-based line and column; 0 means "the whole file"."""

    path: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{max(self.col, 1)}"


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


@dataclass(frozen=True, eq=False)
class SourceFile:
    """One Markdown file of content/, decoded (BOM removed, CRLF -> LF). A build of a large site lets
    go of the texts once every page is validated (``let_go``); a text asked for again is read back
    from ``file`` and must have the digest it had: the 5,000 texts of a large site were 130 MB of
    the main process, held for the whole build and copied into every forked worker that read them."""

    path: str  # as shown in diagnostics, relative to the site root: content/guides/a.md
    rel: str  # relative to content/, POSIX: guides/a.md
    kept: str | None = field(repr=False)  # the text; None once let go
    file: str | None = None  # where the text was read from (None: it cannot be let go)

    @property
    def text(self) -> str:
        if self.kept is not None:
            return self.kept
        assert self.file is not None, "only a text read from a file is let go"
        return _read_back(self.file, self.path, self.digest)

    @classmethod
    def unread(cls, path: str, rel: str, file: str, digest: str) -> SourceFile:
        """The page at ``file``, not read: a stat vouches that it holds the text of ``digest``
        (``core.filestate``), which is read when first asked for."""
        source = cls(path, rel, None, file)
        source.__dict__["digest"] = digest
        return source

    def let_go(self) -> None:
        """Drop the text; it is read back from its file when asked for. Nothing observable changes:
        the text read back is the one this held (its digest is checked), or asking for it raises
        OSError (the file changed or went while the site was built)."""
        if self.file is not None and self.kept is not None:
            self.__dict__.setdefault("digest", self.digest)  # made from the text while it is here
            object.__setattr__(self, "kept", None)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SourceFile) and (self.path, self.rel, self.digest) == (other.path, other.rel, other.digest)

    def __hash__(self) -> int:
        return hash((self.path, self.rel, self.digest))

    @functools.cached_property
    def url(self) -> str:
        """The page URL path: ``guides/a.md`` -> ``/guides/a/``; ``index.md`` -> ``/``. (Made once: a
        build of 5,000 pages asks for it hundreds of thousands of times.)"""
        stem = self.rel[: -len(".md")]
        if stem == "index":
            return "/"
        stem = stem.removesuffix("/index")
        return f"/{stem}/"

    @functools.cached_property
    def digest(self) -> str:
        """sha256 of the text, hex (made once: a dev server keeps the pages it read, and a page's cache
        key hashed its whole text on every rebuild)."""
        return text_digest(self.text)


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def page_text(data: bytes) -> str:
    """A page file's bytes as its text: UTF-8 (else UnicodeDecodeError, its offsets in ``data`` after
    the BOM), without a byte order mark, every line ending a LF."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    text = data.decode("utf-8")
    if b"\r" in data:  # looked for in the bytes: a string search is slower, and most files have none
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


@functools.lru_cache(maxsize=2)  # a page's rendering asks for its text a few times over
def _read_back(file: str, shown: str, digest: str) -> str:
    try:
        with open(file, "rb") as opened:
            text = page_text(opened.read())
    except UnicodeDecodeError:
        text = None
    if text is None or text_digest(text) != digest:
        raise OSError(errno.EIO, "the page changed while the site was built: build again", shown)
    return text


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
    tokens: tuple[Token, ...]  # markdown-it tokens of ``body``; read-only by convention


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

    @functools.cached_property
    def shown(self) -> str:
        """Every field written out (``repr``), for the cache keys of what shows the front matter:
        made once per page, not once per key (at 5,000 articles, 0.1 s of each rebuild)."""
        return repr(self)
