"""The registry of chart kinds: one module per kind, one entry each.

A kind says which optional panel keys it reads, how an entry's ``y`` becomes a
point (a number, a number with its reported interval or observed range, raw
observations or a state), how its panel is laid out (orientation, an x axis
or category slots, bands over and under the plot), which warnings apply to it,
what its legend holds, which numbers its value labels show, and how it is drawn. Planning reads the registry without
importing matplotlib: each kind imports its drawing helpers inside
``draw(sheet, panel)``, which draws the panel in a plot of the chart's
``draw.surface.Sheet``.

The registry is sealed: code outside ``kinds/`` asks a panel's kind what it
does (``kind_of(panel.kind).x_axis``), never which kind it is by name.

Adding a kind: write ``kinds/<name>.py`` with a ``KIND``, list it in
``_MODULES`` and add its name to the ``kind`` enum of ``chart.schema.json``.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from ..model import LegendItem, Number, PanelPlan, Point, Reference, Slot

if TYPE_CHECKING:
    from ..layout import Canvas, Group

# Optional panel keys that only some kinds read; every other key applies to every kind.
KIND_KEYS = frozenset(
    {"reference", "interval", "states", "columns", "mark", "mark_label", "unit", "x_label", "stacked"}
)

Finish = Callable[[], None]
# (draw.surface.Sheet, panel) -> work to do once vertical panels share their left edge
Draw = Callable[[Any, PanelPlan], "Finish | None"]

# How an entry's y becomes a point: "number" (its whisker, if any, from its uncertainty), "interval" (a
# number with the interval reported for it: the panel's interval field or a CI), "range" (raw observations,
# a median and their range derived; or a number with its observed range), "observations" (raw observations,
# summarised only by what the export reports) or "state".
Values = Literal["number", "interval", "range", "observations", "state"]
Swatch = Literal["patch", "line", "marker"]  # a series in the legend: a filled patch, a line through a marker, a marker


@dataclass(frozen=True)
class LegendInput:
    points: tuple[Point, ...]
    series: tuple[str, ...]
    references: tuple[Reference, ...]
    series_prefix: str
    mark_label: str


@dataclass(frozen=True)
class SlotInput:
    """What sizes a category's slot: its points, and the panel's (whose axis they share) on a canvas."""

    points: tuple[Point, ...]  # the slot's
    panel: tuple[Point, ...]
    references: tuple[Reference, ...]
    digits: int | None
    where: Canvas


@dataclass(frozen=True)
class Labelled:
    """The numbers a point's value labels show, as authored: its value (reported, or a summary the
    site derives) and the two ends of its range or interval."""

    value: Number | None
    ends: tuple[Number, Number] | None = None

    def numbers(self) -> tuple[Number, ...]:
        return tuple(n for n in (self.value, *(self.ends or ())) if n is not None)


def value_only(point: Point) -> Labelled:
    return Labelled(point.value)


@dataclass(frozen=True)
class Kind:
    name: str
    keys: frozenset[str]  # which of KIND_KEYS the kind reads
    values: Values
    horizontal: Callable[[list[Group], bool, Canvas, list[float]], bool]
    stacked: bool  # the points of one category sit one under the other (else side by side: grid columns)
    legend: Callable[[LegendInput], tuple[LegendItem, ...]]
    above: Callable[[PanelPlan, Canvas], int]  # px over the plot (a unit, column headers)
    below: Callable[[bool, tuple[Slot, ...]], int]  # px under the plot
    draw: Draw
    value_axis: bool = True  # numbers on a value axis, in one unit (else no unit and no scale to read values on)
    slot_px: Callable[[SlotInput], int] = lambda slot: 0  # least height of a category's slot
    labelled: Callable[[Point], Labelled] = value_only  # the numbers its value labels show
    # Points sit along an x axis (numbers or ordered categories) and are joined, not set in category slots;
    # an axis has no blocks, so sources kept apart are told apart as series.
    x_axis: bool = False
    shares_orientation: bool = False  # the chart's panels of this kind turn horizontal together when one must
    # A value is read as a length from zero beside its neighbours: values over different denominators
    # mislead, and a limit belongs on a reference line, not among them.
    compares_by_length: bool = False
    series_swatch: Swatch = "marker"
    filled_observations: bool = False  # raw observations are dots in their series' colour (else open rings)
    hides_equal_observations: bool = False  # raw observations share one line: equal values hide each other


_MODULES = ("bar", "line", "range", "interval", "status", "dot")


@functools.cache
def registry() -> Mapping[str, Kind]:
    """Every registered kind by name (read-only)."""
    kinds = (importlib.import_module(f"{__name__}.{name}").KIND for name in _MODULES)
    return MappingProxyType({kind.name: kind for kind in kinds})


def kind_of(name: str) -> Kind:
    """The registered kind of that name (a panel's ``kind``)."""
    return registry()[name]
