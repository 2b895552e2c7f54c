"""The registry of chart kinds: one module per kind, one entry each.

A kind says which optional panel keys it reads, how an entry's ``y`` becomes a
point (a number, raw observations or a state), how its panel is laid out
(orientation, bands over and under the plot), what its legend holds, and how
it is drawn. Planning reads the registry without importing matplotlib: each
kind imports its drawing helpers inside ``draw``.

Adding a kind: write ``kinds/<name>.py`` with a ``KIND``, list it in
``_MODULES`` and add its name to the ``kind`` enum of ``chart.schema.json``.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..model import LegendItem, PanelPlan, Point, Reference, Slot

if TYPE_CHECKING:
    from ..layout import Canvas, Group

# Optional panel keys that only some kinds read; every other key applies to every kind.
KIND_KEYS = frozenset(
    {"reference", "interval", "states", "columns", "mark", "mark_label", "unit", "x_label", "stacked"}
)

Finish = Callable[[], None]
Draw = Callable[[Any, Any, PanelPlan], "Finish | None"]  # (Figure, Frame, panel) -> work after alignment


@dataclass(frozen=True)
class LegendInput:
    points: tuple[Point, ...]
    series: tuple[str, ...]
    references: tuple[Reference, ...]
    series_prefix: str
    mark_label: str


@dataclass(frozen=True)
class Kind:
    name: str
    keys: frozenset[str]  # which of KIND_KEYS the kind reads
    values: str  # "number", "observations" (a list of numbers per entry) or "state"
    horizontal: Callable[[list[Group], bool, Canvas, list[float]], bool]
    stacked: bool  # the points of one category sit one under the other (else side by side: grid columns)
    legend: Callable[[LegendInput], tuple[LegendItem, ...]]
    above: Callable[[PanelPlan, Canvas], int]  # px over the plot (a unit, column headers)
    below: Callable[[bool, tuple[Slot, ...]], int]  # px under the plot
    draw: Draw
    unit: bool = True  # the panel has a value axis with a unit
    slot_px: Callable[[list[Point]], int] = lambda points: 0  # least height of a category's slot


_MODULES = ("bar", "line", "range", "interval", "status", "dot")


@functools.cache
def registry() -> Mapping[str, Kind]:
    """Every registered kind by name."""
    kinds = (importlib.import_module(f"{__name__}.{name}").KIND for name in _MODULES)
    return {kind.name: kind for kind in kinds}


def kind_of(name: str) -> Kind:
    return registry()[name]
