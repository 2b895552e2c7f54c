"""The drawing surface of a chart: its figure, addressed in CSS px, and the plot of each panel.

Every position is decided in px before drawing (``layout.py``), so a chart needs none of
matplotlib's ``Axes``: a panel's plot is a box of the figure with data limits mapped onto it
by an affine transform, and its marks are a few primitive artists (rectangles, lines, markers,
text) added to the figure itself. Nothing is built that the chart does not show: no tick
objects, no axes background, no clip paths (every mark lies inside its plot: its limits are
padded around the data).

A plot may still move once its marks are drawn (vertical panels share one left edge:
``common.align_vertical``): the marks keep the plot's transforms, which follow it. What
depends on the final box and limits (ticks, gridlines, labels, spines) is described on the
plot (``Guides``) and drawn last (``guides.draw_guides``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.transforms import Affine2D, Transform, blended_transform_factory

from .. import style

PT_PER_PX = 72 / style.PX_PER_IN  # the figure is drawn at 72 dpi: a display unit is a point

Axis = Literal["x", "y"]
Side = Literal["left", "bottom"]


class Sheet:
    """The figure of one chart, addressed in CSS px from its top-left corner."""

    def __init__(self, width: int, height: int, label_px: float = 0.0) -> None:
        self.width = width
        self.height = height
        self.label_px = label_px  # the category-label column shared by the chart's horizontal panels
        self.figure = Figure(figsize=(width / style.PX_PER_IN, height / style.PX_PER_IN), facecolor=style.BG)
        self.px = Affine2D.from_values(PT_PER_PX, 0, 0, -PT_PER_PX, 0, height * PT_PER_PX)
        self.plots: list[Plot] = []

    def add(self, artist: Artist) -> None:
        self.figure.add_artist(artist)

    def text(self, x: float, y: float, text: str, **look: Any) -> Text:
        """A text anchored at (x, y) px; ``look`` holds matplotlib's ``Text`` properties."""
        label = Text(x, y, text, transform=self.px, **look)
        self.add(label)
        return label

    def line(self, xs: Sequence[float], ys: Sequence[float], **look: Any) -> Line2D:
        """A line through (x, y) px; ``look`` holds matplotlib's ``Line2D`` properties."""
        line = Line2D(xs, ys, transform=self.px, **look)
        self.add(line)
        return line


@dataclass
class Guides:
    """What a plot shows around its marks, drawn once its box and limits are final."""

    spines: tuple[Side, ...] = ("left", "bottom")
    value_axis: Axis | None = None  # the axis with round ticks, their labels and gridlines
    scale: float = 1.0  # the value axis' ticks read in this multiple (``common.large_scale``) ...
    multiple: str = ""  # ... which each tick but 0 names: "40 billion"
    fit_px: float = 0.0  # a horizontal value axis of this width takes only the ticks whose labels fit
    category_axis: Axis | None = None
    categories: tuple[tuple[float, str], ...] = ()  # (position, label) of each category
    x_ticks: tuple[tuple[float, str], ...] = ()  # (position, label) of a numeric x axis' chosen ticks
    x_title: str = ""  # under the plot, below its tick labels


@dataclass(eq=False)
class Plot:
    """A panel's plot: a box of the sheet in px, and the data limits shown in it (it adds
    itself to the sheet's plots).

    ``data`` maps data to display points and ``box`` the box's own fractions (0 to 1 from its
    bottom-left corner); both are updated in place when the box or the limits change, so the
    marks drawn with them follow.
    """

    sheet: Sheet
    left: float
    top: float
    width: float
    height: float
    xlim: tuple[float, float] = (0.0, 1.0)
    ylim: tuple[float, float] = (0.0, 1.0)
    log_x: bool = False  # x is drawn on a log-2 scale
    aligned: bool = False  # a vertical panel's plot: its left edge is shared with the chart's others
    guides: Guides = field(default_factory=Guides)
    marks: list[Artist] = field(default_factory=list)
    data: Affine2D = field(default_factory=Affine2D)
    box: Affine2D = field(default_factory=Affine2D)

    def __post_init__(self) -> None:
        self.sheet.plots.append(self)
        self._update()

    def set_xlim(self, low: float, high: float, log: bool = False) -> None:
        """Show x from ``low`` to ``high``, on a log-2 scale if ``log``."""
        self.xlim = (low, high)
        self.log_x = log
        self._update()

    def set_ylim(self, low: float, high: float) -> None:
        self.ylim = (low, high)
        self._update()

    def move(self, left: float, width: float) -> None:
        self.left, self.width = left, width
        self._update()

    def x(self, value: float) -> float:
        """The coordinate ``data`` takes for an x value (its log on a log scale)."""
        return math.log2(value) if self.log_x else value

    def to_pt(self, x: float, y: float) -> tuple[float, float]:
        """Where a data point is drawn, in display points from the figure's bottom-left corner."""
        a, b, c, d, e, f = self.data.to_values()
        u = self.x(x)
        return a * u + c * y + e, b * u + d * y + f

    def x_pt(self, x: float) -> float:
        """Where an x value is drawn, in display points from the figure's left edge."""
        return self.to_pt(x, self.ylim[0])[0]

    def y_pt(self, y: float) -> float:
        """Where a y value is drawn, in display points from the figure's bottom edge."""
        return self.to_pt(self.xlim[0], y)[1]

    def bounds_pt(self) -> tuple[float, float, float, float]:
        """The box in display points: left, bottom, right, top."""
        bottom = (self.sheet.height - self.top - self.height) * PT_PER_PX
        return self.left * PT_PER_PX, bottom, (self.left + self.width) * PT_PER_PX, bottom + self.height * PT_PER_PX

    def add(self, artist: Artist) -> Artist:
        self.sheet.add(artist)
        self.marks.append(artist)
        return artist

    def rect(self, x0: float, y0: float, x1: float, y1: float, **look: Any) -> Rectangle:
        """A filled rectangle between two data corners (``look``: ``Rectangle`` properties)."""
        left, right = self.x(x0), self.x(x1)
        rect = Rectangle((left, y0), right - left, y1 - y0, transform=self.data, **look)
        self.add(rect)
        return rect

    def line(self, xs: Sequence[float], ys: Sequence[float], **look: Any) -> Line2D:
        """A line, or markers, through data points (``look``: ``Line2D`` properties)."""
        line = Line2D([self.x(x) for x in xs], ys, transform=self.data, **look)
        self.add(line)
        return line

    def across(self, value: float, horizontal: bool, **look: Any) -> Line2D:
        """A line across the whole plot at a value: an x value in a horizontal panel (whose values
        run along x), else a y value."""
        if horizontal:
            xs, ys = [self.x(value)] * 2, [0.0, 1.0]
            transform = blended_transform_factory(self.data, self.box)
        else:
            xs, ys = [0.0, 1.0], [value, value]
            transform = blended_transform_factory(self.box, self.data)
        line = Line2D(xs, ys, transform=transform, **look)
        self.add(line)
        return line

    def text(self, x: float, y: float, text: str, offset: tuple[float, float] = (0, 0), **look: Any) -> Text:
        """A text anchored ``offset`` points from a data point (``look``: ``Text`` properties)."""
        transform: Transform = self.data
        if offset != (0, 0):
            transform = self.data + Affine2D().translate(*offset)
        label = Text(self.x(x), y, text, transform=transform, **look)
        self.add(label)
        return label

    def _update(self) -> None:
        left, bottom, right, top = self.bounds_pt()
        (x0, x1), (y0, y1) = (self.x(v) for v in self.xlim), self.ylim
        sx, sy = (right - left) / (x1 - x0), (top - bottom) / (y1 - y0)
        self.data.clear().scale(sx, sy).translate(left - x0 * sx, bottom - y0 * sy)
        self.box.clear().scale(right - left, top - bottom).translate(left, bottom)
