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
from .claims import SourceClaim, cited_documents
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
    # What each reported result says of its source document, for verification against the vault.
    source_claims: tuple[SourceClaim, ...] = ()
    link_facts: LinkFacts | None = None  # None: not found yet (``checks.links.link_facts``)

    @property
    def url(self) -> str:
        return self.source.url

    @property
    def tokens(self) -> tuple[Token, ...]:
        """The body's tokens: as the page was validated with, or, for a page read back from the page
        cache (which keeps none: they were a quarter of the time an edit of 5,000 articles spent
        reading pages back, and only the pages rendered again need them), ``reparsed``'s."""
        return self.parsed_tokens if self.parsed_tokens is not None else self.reparsed.tokens

    @functools.cached_property
    def reparsed(self) -> ParsedPage:
        """The page's source parsed again, once, for what a page does not keep: the tokens of a page
        read back from the page cache, its claims on its sources, the positions of its export's keys
        (found only to place a problem)."""
        parsed, _ = parse_page(self.source)
        if parsed is None:  # a page that was validated parses: its source is the one its key names
            raise ValueError(f"{self.source.path} no longer parses")
        return parsed

    @functools.cached_property
    def cited_documents(self) -> frozenset[str]:
        """The digests of the documents its export cites (found once: a dev server keeps its pages,
        and looking through every export for them took 0.04 s of each rebuild of 5,000 articles)."""
        return cited_documents(self.export)

    @property
    def body(self) -> str:
        """The Markdown after the front matter (derived, not held: a site of thousands of pages
        would keep every text twice)."""
        return "\n".join(self.source.text.split("\n")[self.body_line - 1:])

    @property
    def section(self) -> str:
        """The first folder of the page's path; "" for top-level pages."""
        parts = self.source.rel.split("/")
        return parts[0] if len(parts) > 1 else ""
