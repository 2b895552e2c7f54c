"""The drawing builds no tick it does not show, and draws what matplotlib's plain objects draw."""

from __future__ import annotations

import gc

import matplotlib
import pytest
from chart_fixtures import EVERY_KIND, ok
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import LogLocator, MaxNLocator

from evidencepress.charts import ChartPlan, drawing, render_charts
from evidencepress.charts.draw import RC, common, draw_chart, figure


@pytest.fixture(scope="module")
def plans() -> list[ChartPlan]:
    return [ok(text) for text in EVERY_KIND.values()]


def _axes() -> Axes:
    fig = Figure(figsize=(4, 3))
    FigureCanvasAgg(fig)
    return fig.add_axes((0.1, 0.1, 0.8, 0.8), axes_class=common.LeanAxes)


def test_every_kind_draws_the_same_bytes_as_with_matplotlibs_own_axes_and_locator(
    plans: list[ChartPlan], monkeypatch: pytest.MonkeyPatch
) -> None:
    lean = [draw_chart(plan) for plan in plans]
    monkeypatch.setattr(common, "LeanAxes", Axes)
    monkeypatch.setattr(common.ScaledLocator, "__call__", MaxNLocator.__call__)
    assert [draw_chart(plan) for plan in plans] == lean


def test_no_axis_builds_a_minor_tick_or_a_major_tick_beyond_its_view(plans: list[ChartPlan]) -> None:
    for plan in plans:
        with matplotlib.rc_context(RC):
            fig = figure(plan)
            fig.canvas.draw()
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                assert vars(axis)["minorTicks"] == [], plan.id
                locator = axis.get_major_locator()
                if isinstance(locator, common.ScaledLocator):
                    low, high = sorted(axis.get_view_interval())
                    assert all(low - (high - low) * 1e-3 <= t <= high + (high - low) * 1e-3 for t in locator.shown)
                    assert len(vars(axis)["majorTicks"]) == len(locator.shown)
                    assert len(locator.chosen) > len(locator.shown)  # a round tick beyond an end, not built


def _minor_ticks(axes_class: type[Axes]) -> list[tuple[float, bool, bool]]:
    fig = Figure(figsize=(4, 3))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.1, 0.1, 0.8, 0.8), axes_class=axes_class)
    ax.set_xscale("log")
    ax.set_xlim(1, 1000)
    ax.xaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
    ax.xaxis._update_ticks()
    return [(tick.get_loc(), tick.get_clip_box() is not None, tick.gridline.get_clip_box() is not None)
            for tick in ax.xaxis.get_minor_ticks()]


def test_a_minor_tick_asked_for_is_built_clipped_as_matplotlib_builds_it() -> None:
    ticks = _minor_ticks(common.LeanAxes)
    assert ticks == _minor_ticks(Axes) and len(ticks) > 4 and all(clipped for _, clipped, _ in ticks)


def test_tick_labels_keep_the_decimals_of_every_chosen_tick() -> None:
    """The labels of the ticks in view are written with the decimals of every tick chosen."""
    ax = _axes()
    ax.yaxis.set_major_locator(common.ScaledLocator(3))
    ax.yaxis.set_major_formatter(common.TickFormatter())
    ax.set_ylim(0.7, 1.3)
    locator = ax.yaxis.get_major_locator()
    assert isinstance(locator, common.ScaledLocator)
    shown = locator()
    assert shown == [0.75, 1.0, 1.25] and locator.chosen == [0.5, 0.75, 1.0, 1.25, 1.5]
    formatter = ax.yaxis.get_major_formatter()
    assert formatter.format_ticks(shown) == ["0.75", "1.00", "1.25"]
    locator.chosen = [0.5, 0.75, 1.0, 1.25, 1.375]  # a chosen tick beyond the view with a third decimal
    assert formatter.format_ticks(shown) == ["0.750", "1.000", "1.250"]
    assert formatter.format_ticks([1.0]) == ["1"]  # locations the locator did not give: their own decimals


def test_drawing_in_this_process_freezes_the_collector_only_while_it_draws(plans: list[ChartPlan]) -> None:
    threshold, frozen = gc.get_threshold(), gc.get_freeze_count()
    seen: list[tuple[int, int]] = []
    real = drawing._draw_one

    def spy(plan: ChartPlan) -> bytes:
        seen.append((gc.get_freeze_count(), gc.get_threshold()[0]))
        return real(plan)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(drawing, "_draw_one", spy)
        render_charts(plans[:2], jobs=1, cache_dir=None)
    assert all(count > frozen and first == drawing._WORKER_THRESHOLD[0] for count, first in seen) and seen
    assert (gc.get_threshold(), gc.get_freeze_count()) == (threshold, frozen)
