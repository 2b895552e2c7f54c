"""Frozen values of the chart stage: the validated spec and the drawing plan.

``ChartSpec`` is what the author wrote, typed. ``ChartPlan`` is everything a
drawing or an HTML/JSON/Markdown renderer needs: selected values exactly as
authored, the uncertainty to draw, notes, an accessible table and a layout
whose pixel size is known before anything is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.diagnostics import Location

Scalar = str | int | float | bool | None
Number = int | float

Names = tuple[tuple[str, str], ...]  # raw text -> shown text


# --- the spec, as authored -------------------------------------------------


@dataclass(frozen=True)
class StateSpec:
    """What a raw status value means: the label a reader sees and how it is drawn."""

    label: str
    tone: str  # positive, negative, neutral, missing


States = tuple[tuple[str, StateSpec], ...]  # raw value as text ("true", "NOT_RUN") -> state


@dataclass(frozen=True)
class PointerSpec:
    pointer: str
    label: str | None
    states: States = ()
    series: str | None = None


@dataclass(frozen=True)
class ReferenceSpec:
    """A reference line: a literal number, or a number the export holds at ``pointer``."""

    index: int  # position in the panel's reference list, for diagnostics
    value: Number | None
    pointer: str | None
    label: str


@dataclass(frozen=True)
class ColumnSpec:
    """One column of a status grid: a field of each entry, its header and states."""

    y: str
    title: str
    states: States


@dataclass(frozen=True)
class SelectSpec:
    source: str | None  # a section name or a JSON Pointer; None = reported_results
    where: tuple[tuple[str, Scalar], ...]
    labels: tuple[str, ...] | None
    ids: tuple[str, ...] | None
    pointers: tuple[PointerSpec, ...] | None


@dataclass(frozen=True)
class PanelSpec:
    index: int
    title: str
    kind: str
    select: SelectSpec
    x: str
    y: str
    series: str | None
    interval: str | None
    references: tuple[ReferenceSpec, ...]
    unit: str | None
    states: States
    names: Names  # the chart's names, then the panel's
    x_label: str | None
    columns: tuple[ColumnSpec, ...]
    mark: str | None
    mark_label: str | None
    stacked: bool
    given: frozenset[str]  # keys the author wrote (x, y, …), for diagnostics
    digits: int | None = None  # value labels rounded for display to this many decimals (≈); None: as authored


@dataclass(frozen=True)
class ChartSpec:
    id: str
    kind: str
    title: str
    alt: str
    caption: str
    panels: tuple[PanelSpec, ...]


# --- the plan --------------------------------------------------------------


@dataclass(frozen=True)
class Whisker:
    """An uncertainty drawn from the data: ``sd`` (± sd), ``range`` or ``ci`` (low..high)."""

    kind: str
    legend: str
    sd: Number | None = None
    low: Number | None = None
    high: Number | None = None

    def bounds(self, center: Number) -> tuple[float, float]:
        if self.kind == "sd" and self.sd is not None:
            return center - self.sd, center + self.sd
        return float(self.low if self.low is not None else center), float(
            self.high if self.high is not None else center
        )


@dataclass(frozen=True)
class Point:
    """One plotted entry. ``value`` None means not reported."""

    label: str
    value: Number | None
    x: Number | None = None  # numeric x of a line panel
    observations: tuple[Number, ...] = ()
    median: Number | None = None  # derived from ``observations``
    whisker: Whisker | None = None
    state: str = ""  # status panels: the state's label, as the chart spec names it
    tone: str = ""  # status panels: positive, negative, neutral or missing
    series: str = ""
    source: str = ""
    ident: str = ""


@dataclass(frozen=True)
class Reference:
    """A reference line as drawn: its value (as authored) and what it is."""

    value: Number
    label: str


@dataclass(frozen=True)
class Slot:
    """A category of a categorical panel: one label, the points drawn in it."""

    label: str
    lines: tuple[str, ...]
    source: str
    block: int
    points: tuple[int, ...]  # indices into PanelPlan.points
    start: int  # px from the top of the plot area (horizontal panels)
    size: int  # px


@dataclass(frozen=True)
class LegendItem:
    kind: str  # series, sd, range, ci, interval, median, observation, value, not_reported, reference, mark
    label: str
    color: str
    index: int = 0  # references: which dash pattern


@dataclass(frozen=True)
class PanelBox:
    """Vertical placement of a panel inside the figure, in px from the figure top."""

    top: int
    height: int
    title_lines: tuple[str, ...]
    legend_rows: tuple[tuple[int, ...], ...]  # indices into PanelPlan.legend, one tuple per row
    plot_top: int
    plot_height: int


@dataclass(frozen=True)
class PanelPlan:
    title: str
    kind: str
    horizontal: bool
    unit: str  # display unit; "" for status
    x_label: str  # line panels: the name of the x field
    x_numeric: bool
    points: tuple[Point, ...]
    slots: tuple[Slot, ...]
    series: tuple[str, ...]  # legend order; () when the panel has no series
    columns: tuple[str, ...]  # status panels: column headers (series), else ()
    separate_sources: bool
    references: tuple[Reference, ...]
    legend: tuple[LegendItem, ...]
    box: PanelBox
    stacked: bool = False  # bars: the series of a category drawn end to end
    digits: int | None = None  # value labels rounded for display (PanelSpec.digits)


@dataclass(frozen=True)
class ChartRow:
    """One row of the accessible table of plotted values."""

    panel: str
    label: str  # the entry's label (else its x)
    series: str
    value: Scalar  # as authored; None = not reported
    unit: str
    statistic: str
    uncertainty: str  # human-readable; "" when none
    source_record_id: str
    state: str = ""  # status panels: the state shown (never the raw code)
    x: str = ""  # the category / x value as shown on the chart
    pointer: str = ""  # the plotted entry's JSON pointer in the export: /reported_results/3
    uncertainty_shown: str = ""  # ``uncertainty`` as the HTML table shows it (numbers formatted for reading)


@dataclass(frozen=True)
class ChartPlan:
    id: str
    kind: str
    title: str
    alt: str
    caption: str
    line: int  # line of the opening fence
    location: Location  # the `id` key, for duplicate-id diagnostics
    panels: tuple[PanelPlan, ...]
    notes: tuple[str, ...]
    unlike: tuple[str, ...]  # the notes (among ``notes``) that name the conditions unlike panels differ on
    differences: tuple[tuple[str, str], ...]  # (panel title, differences with the entries) of each unlike panel
    rows: tuple[ChartRow, ...]
    plotted: tuple[str, ...]
    width: int
    height: int
    title_lines: tuple[str, ...]
    note_lines: tuple[str, ...]
    notes_top: int
    cache_key: str
    narrow: ChartPlan | None = None  # the same chart laid out for a phone (``<id>.narrow.svg``)

    def variants(self) -> tuple[tuple[str, ChartPlan], ...]:
        """(file name, plan) of every drawing of this chart: ``<id>.svg`` and ``<id>.narrow.svg``."""
        files: tuple[tuple[str, ChartPlan], ...] = ((f"{self.id}.svg", self),)
        if self.narrow is not None:
            files += ((f"{self.id}.narrow.svg", self.narrow),)
        return files

    def data_files(self) -> tuple[str, str]:
        """The names of the chart's data downloads beside its page: ``<id>.csv`` and ``<id>.json``."""
        return f"{self.id}.csv", f"{self.id}.json"
