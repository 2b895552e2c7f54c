"""The accessible table of a chart's plotted values, as the figure template shows it.

One group of rows per panel (its title heads the group once, instead of a
Panel column repeated on every row); a column that is empty in every row is
left out; a status value shows its state as the chart names it, never the raw
code; numbers show their authored literal with thousands separators.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import style
from .model import ChartPlan, ChartRow

_COLUMNS = (
    ("Label", "x"),
    ("Series", "series"),
    ("Value", "value"),
    ("Unit", "unit"),
    ("Statistic", "statistic"),
    ("Uncertainty", "uncertainty"),
)


@dataclass(frozen=True)
class TableGroup:
    title: str  # the panel's title; "" when the chart has one panel
    rows: tuple[tuple[str, ...], ...]
    pointers: tuple[str, ...] = ()  # each row's entry in the export (its JSON pointer)
    note: str = ""  # the panel's differences note: the key conditions its results do not share


@dataclass(frozen=True)
class ChartTable:
    headers: tuple[str, ...]
    numeric: tuple[bool, ...]  # per column: right-aligned, tabular figures
    groups: tuple[TableGroup, ...]

    @property
    def value_column(self) -> int:
        """The index of the Value column (-1: none), where a value's verification badge goes."""
        return self.headers.index("Value") if "Value" in self.headers else -1


def chart_table(plan: ChartPlan) -> ChartTable:
    cells = [[_cell(row, field) for _, field in _COLUMNS] for row in plan.rows]
    kept = [i for i in range(len(_COLUMNS)) if any(line[i] for line in cells)]
    titles = list(dict.fromkeys(row.panel for row in plan.rows))
    titled = len(titles) > 1 and any(titles)
    groups: list[TableGroup] = []
    for row, line in zip(plan.rows, cells, strict=False):
        shown = tuple(line[i] for i in kept)
        title = row.panel if titled else ""
        if groups and groups[-1].title == title:
            groups[-1] = TableGroup(title, groups[-1].rows + (shown,), groups[-1].pointers + (row.pointer,))
        else:
            groups.append(TableGroup(title, (shown,), (row.pointer,)))
    notes = dict(plan.differences)
    groups = [replace(group, note=notes.get(group.title, "")) for group in groups] if titled else \
        [replace(group, note=" ".join(notes.values())) for group in groups]
    return ChartTable(
        headers=tuple(_COLUMNS[i][0] for i in kept),
        numeric=tuple(_COLUMNS[i][1] == "value" and not any(row.state for row in plan.rows) for i in kept),
        groups=tuple(groups),
    )


def _cell(row: ChartRow, field: str) -> str:
    if field == "value":
        if row.state:
            return row.state
        if row.value is None:
            return "not reported"
        if isinstance(row.value, bool):
            return "true" if row.value else "false"
        if isinstance(row.value, (int, float)):
            return style.display_number(row.value)
        return str(row.value)
    if field == "x":
        return label_cell(row)
    if field == "uncertainty":
        return row.uncertainty_shown or row.uncertainty
    return str(getattr(row, field) or "")


def label_cell(row: ChartRow) -> str:
    """The Label cell of a row: the category or x value as the chart shows it, else the entry's label."""
    return row.x or row.label
