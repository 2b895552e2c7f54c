"""The review of a change: frozen values from the comparison to the reports.

Values taken from exports are kept as authored (``jsontext`` numbers keep
their literal); a field that is not there at all is :data:`ABSENT`, which is
not the same as ``null`` (a condition the source does not report).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.diagnostics import Problem
from ..datadiff.changes import ABSENT as ABSENT  # noqa: PLC0414 - re-exported: the review's values
from ..datadiff.changes import FieldChange as FieldChange  # noqa: PLC0414
from ..datadiff.changes import ResultChange as ResultChange  # noqa: PLC0414
from ..datadiff.changes import SourceChange as SourceChange  # noqa: PLC0414
from ..datadiff.changes import Status as Status  # noqa: PLC0414


@dataclass(frozen=True)
class VerificationChange:
    """A value whose state against its cited document (``page.verification``) differs between the sides,
    or a new value that is not verified: ``verified -> absent``, ``verified -> source-missing`` (the
    document left the vault). Matched like results: by (source_record_id, label) of the entry the
    state's pointer designates; a fact by its label."""

    section: str  # "reported_results" or "facts"
    source_record_id: str  # "" for a fact
    label: str
    old: str | None  # the state on BASE; None: the value is new (or BASE published no states)
    new: str
    line: int | None  # the cited line (HEAD's, else BASE's)
    excerpt: str | None  # the cited line as the document writes it (HEAD's, else BASE's); None: not known
    found_line: int | None = None  # where HEAD's value stands instead (a moved value)


@dataclass(frozen=True)
class ChartFile:
    """One SVG of a chart (``decode.svg`` or ``decode.narrow.svg``) whose bytes differ."""

    name: str
    status: Status
    old_svg: bytes | None = field(default=None, repr=False)
    new_svg: bytes | None = field(default=None, repr=False)


@dataclass(frozen=True)
class ChartChange:
    status: Status
    chart_id: str
    files: tuple[ChartFile, ...]


@dataclass(frozen=True)
class PageChange:
    status: Status
    path: str  # site path: /guides/a/
    title: str  # the new title (the old one when removed)
    checked: str = ""  # the new checked date (the old one when removed)
    fields: tuple[FieldChange, ...] = ()  # title, checked, updated
    text_changed: bool = False  # title, summary or body text of index.md
    text_sections: tuple[str, ...] = ()  # which parts of that text: "the title", "the summary", "section “Setup”"
    results: tuple[ResultChange, ...] = ()
    sources: tuple[SourceChange, ...] = ()
    charts: tuple[ChartChange, ...] = ()
    other: tuple[FieldChange, ...] = ()  # facts, top-level conditions and the optional sections, by JSON path
    verification: tuple[VerificationChange, ...] = ()  # values whose source check changed

    @property
    def data_changed(self) -> bool:
        """Published data changed: the page came or went, or a field, result, source, chart, other
        export data or source check changed (not the prose alone)."""
        return self.status != "changed" or bool(self.fields or self.results or self.sources or self.charts
                                                or self.other or self.verification)


# The files made of every article's results (site/dataset.py, output/data.py): a changed result changes them.
DATA_FILES = ("/data/results.csv", "/data/results.json", "/data/catalog.json", "/data/gaps.json", "/explore/")


@dataclass(frozen=True)
class Review:
    base: str  # how each side is named in the report: "origin/main (1a2b3c4)", "working tree"
    head: str
    pages: tuple[PageChange, ...]
    new_warnings: tuple[Problem, ...] | None  # None: not known (a built folder has no warnings)
    resolved_warnings: int | None

    @property
    def data_changed(self) -> bool:
        return any(page.data_changed for page in self.pages)

    @property
    def text_changed(self) -> bool:
        return any(page.text_changed for page in self.pages)

    @property
    def record_pages(self) -> tuple[str, ...]:
        """The record pages a change of results reaches: /community/<source_record_id>/ of each."""
        ids = {result.source_record_id for page in self.pages for result in page.results if result.source_record_id}
        return tuple(f"/community/{record}/" for record in sorted(ids))

    @property
    def data_files(self) -> tuple[str, ...]:
        """The site's data files and pages made of every article's results: changed with any result."""
        return DATA_FILES if any(page.results for page in self.pages) else ()

    @property
    def changed(self) -> bool:
        """What ``--exit-code`` counts: published data or new warnings (the prose alone is not)."""
        return self.data_changed or bool(self.new_warnings)
