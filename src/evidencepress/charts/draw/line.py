"""Line panels: one line per series (and per source), points joined in x order."""

from __future__ import annotations

import math

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patheffects import withStroke
from matplotlib.ticker import NullLocator

from .. import style
from ..model import PanelPlan, Point
from .common import (
    Frame,
    add_axes,
    categories_on,
    extent,
    fit_left,
    measure,
    not_reported,
    padded_limits,
    series_color,
    value_axis,
    whisker_offsets,
)

LOG_RATIO = 8  # numeric x spanning this factor or more is drawn on a log-2 axis
MAX_LABELLED = 10  # a single line with at most this many points has its values printed


def draw(fig: Figure, frame: Frame, panel: PanelPlan) -> None:
    box = panel.box
    ax = add_axes(fig, frame, style.PAD_X + 60, box.plot_top, frame.width - 2 * style.PAD_X - 60, box.plot_height)
    xs = {id(p): _x(panel, p) for p in panel.points}
    log = _use_log(panel)
    if log:
        ax.set_xscale("log", base=2)
    for line in _lines(panel):
        ordered = sorted(line, key=lambda p: xs[id(p)])
        values = [math.nan if p.value is None else p.value for p in ordered]
        ax.plot(
            [xs[id(p)] for p in ordered],
            values,
            color=series_color(panel, ordered[0]),
            linewidth=2,
            marker="o",
            markersize=5.5,
            zorder=3,
        )
        for point in ordered:
            offsets = whisker_offsets(point)
            if offsets and point.value is not None:
                ax.errorbar(
                    [xs[id(point)]],
                    [point.value],
                    yerr=[offsets[0], offsets[1]],
                    fmt="none",
                    ecolor=style.INK,
                    elinewidth=1.2,
                    capsize=3.5,
                    capthick=1.2,
                    zorder=4,
                )
    labelled = len(_lines(panel)) == 1 and len(panel.points) <= MAX_LABELLED
    low, high = extent(panel.points, include_zero=all(v >= 0 for v in extent(panel.points, False)))
    ax.set_ylim(*padded_limits(low, high, box.plot_height, 24 if _has_null(panel) else 4, 24 if labelled else 10))
    if labelled:
        for point in panel.points:
            if point.value is not None:
                top = point.whisker.bounds(point.value)[1] if point.whisker is not None else point.value
                ax.annotate(
                    style.display_number(point.value),
                    (xs[id(point)], top),
                    xytext=(0, 6),
                    textcoords="offset points",
                    ha="center",
                    va="bottom",
                    fontsize=style.SIZE_VALUE,
                    color=style.INK,
                    annotation_clip=False,
                    path_effects=[withStroke(linewidth=3, foreground="white")],
                )
    value_axis(ax, "y")
    fit_left(ax, frame, box.plot_top, box.plot_height)
    _x_axis(ax, panel, xs, log)
    for point in panel.points:
        if point.value is None:
            not_reported(ax, xs[id(point)], ax.get_ylim()[0], horizontal=False)
    fig.text(
        frame.x(style.PAD_X),
        frame.y(box.plot_top - 6),
        panel.unit,
        fontsize=style.SIZE_TICK,
        color=style.INK,
        va="bottom",
    )


def _x(panel: PanelPlan, point: Point) -> float:
    if panel.x_numeric and point.x is not None:
        return float(point.x)
    return float(next(i for i, slot in enumerate(panel.slots) if slot.label == point.label))


def _use_log(panel: PanelPlan) -> bool:
    xs = [float(p.x) for p in panel.points if p.x is not None]
    return panel.x_numeric and bool(xs) and min(xs) > 0 and max(xs) / min(xs) >= LOG_RATIO


def _lines(panel: PanelPlan) -> list[list[Point]]:
    """Points grouped by (series, source) in order of appearance: sources are never joined."""
    lines: dict[tuple[str, str], list[Point]] = {}
    for point in panel.points:
        lines.setdefault((point.series, point.source), []).append(point)
    return list(lines.values())


def _has_null(panel: PanelPlan) -> bool:
    return any(p.value is None for p in panel.points)


def _x_axis(ax: Axes, panel: PanelPlan, xs: dict[int, float], log: bool) -> None:
    label = panel.x_label + (" (log scale)" if log else "")
    ax.set_xlabel(label, fontsize=style.SIZE_TICK, color=style.INK, labelpad=6)
    if not panel.x_numeric:
        ax.set_xlim(-0.5, len(panel.slots) - 0.5)
        categories_on(ax, "x", list(range(len(panel.slots))), ["\n".join(s.lines) for s in panel.slots])
        return
    values = sorted(set(xs.values()))
    if log:
        ax.set_xlim(values[0] / 2**0.35, values[-1] * 2**0.35)
    else:
        span = (values[-1] - values[0]) or 1.0
        ax.set_xlim(values[0] - span * 0.05, values[-1] + span * 0.05)
    shown = _spaced(ax, values)
    ax.set_xticks(shown, [style.display_number(_authored(v, panel)) for v in shown])
    ax.xaxis.set_minor_locator(NullLocator())


def _spaced(ax: Axes, values: list[float]) -> list[float]:
    """The x values whose tick labels do not overlap, keeping the first and the last."""
    kept: list[float] = []
    right_edge = -math.inf
    for value in values:
        px = ax.transData.transform((value, 0))[0]
        half = measure(style.display_number(value), style.SIZE_TICK) / 2 * (72 / 96)
        if px - half >= right_edge + 6:
            kept.append(value)
            right_edge = px + half
    return kept


def _authored(value: float, panel: PanelPlan) -> float | int:
    """The x as the export wrote it (an integer stays an integer)."""
    return next((p.x for p in panel.points if p.x is not None and float(p.x) == value), value)
