"""The validated page: what the validate stage hands to the site index and the render stage.

A Page is made once, by ``validate.validate_page``, from a ParsedPage that
passed every check. What later stages find from it (the site index's
PageFacts, drawn charts, rendered files) lives in their own types.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from markdown_it.token import Token

from ..charts.model import ChartPlan
from ..content.markdown import Link
from ..content.parse import parse_page
from ..core.model import Fence, FrontMatter, ParsedPage, SourceFile
from .claims import SourceClaim, source_claims
from .inlinevalues import InlineValue


@dataclass(frozen=True)
class LinkFacts:
    """What the site's link check takes from a page, found when it is validated (and kept with it in
    the page cache): a rebuild of 5,000 articles walked every page's tokens for them three times."""

    links: tuple[Link, ...]  # every link and image target, where it is written
    anchors: frozenset[str]  # every id the article's HTML has
    heading_ids: tuple[str, ...]  # its headings' ids, in order (a broken anchor's hint names some)


@dataclass(frozen=True)
class Page:
    """A validated page, ready to render."""

    source: SourceFile
    front: FrontMatter
    body_line: int  # line of the file on which the body starts
    parsed_tokens: tuple[Token, ...] | None  # None: left out of the page cache (see ``tokens``)
    export: Mapping[str, Any] | None
    charts: tuple[ChartPlan, ...]
    export_index: int | None = None  # 0-based body line of the export fence: rendered nowhere
    chart_fences: tuple[Fence, ...] = ()
    # Inline values by (role name, role content), resolved against the export.
    inline_values: Mapping[tuple[str, str], InlineValue] = field(default_factory=dict)
    record_ids: frozenset[str] = frozenset()  # every source_record_id (a slug) the export names
    link_facts: LinkFacts | None = None  # None: not found yet (``checks.links.link_facts``)
    # The digests of the documents its export cites (``claims.cited_documents``), found when it is
    # validated and kept with it in the page cache: an edit of 5,000 articles looked through every
    # export for them again (0.1 s).
    cited_documents: frozenset[str] = frozenset()

    @functools.cached_property  # asked for about 50 times per page and build (listings, keys, links)
    def url(self) -> str:
        return self.source.url

    @property
    def tokens(self) -> tuple[Token, ...]:
        """The body's tokens: as the page was validated with, or, for a page read back from the page
        cache (which keeps none: they were a quarter of the time an edit of 5,000 articles spent
        reading pages back, and only the pages rendered again need them), ``reparsed``'s."""
        return self.parsed_tokens if self.parsed_tokens is not None else self.reparsed.tokens

    def claims(self) -> tuple[SourceClaim, ...]:
        """What each reported result and fact of its export says of its source document, for
        verification against the vault: made from the export when asked (verification asks once
        per page and build; the page does not keep them: 19 KB a page, a tenth of a large build's
        memory, for the rest of the build)."""
        return source_claims(self.export) if self.cited_documents else ()

    @functools.cached_property
    def reparsed(self) -> ParsedPage:
        """The page's source parsed again, once, for what a page does not keep: the tokens of a page
        read back from the page cache, the positions of its export's keys (found only to place a
        problem)."""
        parsed, _ = parse_page(self.source)
        if parsed is None:  # a page that was validated parses: its source is the one its key names
            raise ValueError(f"{self.source.path} no longer parses")
        return parsed

    @property
    def body(self) -> str:
        """The Markdown after the front matter (derived, not held: a site of thousands of pages
        would keep every text twice)."""
        return "\n".join(self.source.text.split("\n")[self.body_line - 1:])

    @functools.cached_property
    def section(self) -> str:
        """The first folder of the page's path; "" for top-level pages."""
        parts = self.source.rel.split("/")
        return parts[0] if len(parts) > 1 else ""
