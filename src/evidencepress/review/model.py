"""The review of a change: frozen values from the comparison to the reports.

Values taken from exports are kept as authored (``jsontext`` numbers keep
their literal); a field that is not there at all is :data:`ABSENT`, which is
not the same as ``null`` (a condition the source does not report).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Self

from ..core.diagnostics import Problem

Status = Literal["added", "removed", "changed"]


class _Absent:
    """The marker of a field that one side does not have (printed ``(absent)``)."""

    _instance: _Absent | None = None

    def __new__(cls) -> Self:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance  # type: ignore[return-value]

    def __repr__(self) -> str:
        return "(absent)"


ABSENT: Final = _Absent()


@dataclass(frozen=True)
class FieldChange:
    """One field whose value differs: ``conditions.kv_dtype: null -> "fp8"``."""

    field: str  # dotted path inside the entry: value, unit, conditions.kv_dtype, facts[2].value
    old: Any  # JSON value as authored, or ABSENT
    new: Any
    percent: float | None = None  # relative change of a numeric value, when one can be given
    note: str = ""  # how the change reads: "+5.9 %", "old value is 0: no percentage"


@dataclass(frozen=True)
class ResultChange:
    """A reported result added, removed or changed, matched by (source_record_id, result id)."""

    status: Status
    source_record_id: str
    label: str
    result: Mapping[str, Any]  # the new entry (the old one when removed)
    changes: tuple[FieldChange, ...] = ()


@dataclass(frozen=True)
class SourceChange:
    """A source of the front matter, matched by URL (or by URL with its revision, when it moved)."""

    status: Status
    url: str  # the new URL (the old one when removed)
    publisher: str
    revision: str
    changes: tuple[FieldChange, ...] = ()


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
    results: tuple[ResultChange, ...] = ()
    sources: tuple[SourceChange, ...] = ()
    charts: tuple[ChartChange, ...] = ()
    other: tuple[FieldChange, ...] = ()  # facts, top-level conditions and the optional sections, by JSON path
    verification: tuple[VerificationChange, ...] = ()  # values whose source check changed


@dataclass(frozen=True)
class Review:
    base: str  # how each side is named in the report: "origin/main (1a2b3c4)", "working tree"
    head: str
    pages: tuple[PageChange, ...]
    new_warnings: tuple[Problem, ...] | None  # None: not known (a built folder has no warnings)
    resolved_warnings: int | None

    @property
    def data_changed(self) -> bool:
        return bool(self.pages)

    @property
    def changed(self) -> bool:
        """Anything to report: published data or new warnings."""
        return bool(self.pages or self.new_warnings)
