"""The drawing builds only what a chart shows, and places its guides where matplotlib's Axes
and Legend place theirs."""

from __future__ import annotations

import gc
import io

import matplotlib
import pytest
from chart_fixtures import EVERY_KIND, ok
from matplotlib.backends.backend_svg import RendererSVG
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text

from evidencepress.charts import ChartPlan, drawing, render_charts, style
from evidencepress.charts.draw import RC, draw_sheet, guides
from evidencepress.charts.draw.legends import legend
from evidencepress.charts.draw.surface import Guides, Plot, Sheet
from evidencepress.charts.model import LegendItem, PanelBox, PanelPlan


@pytest.fixture(scope="module")
def plans() -> list[ChartPlan]:
    return [drawn for text in EVERY_KIND.values() for _, drawn in ok(text).variants()]


def test_a_figure_holds_no_axes_no_clip_and_no_text_it_does_not_show(plans: list[ChartPlan]) -> None:
    for plan in plans:
        with matplotlib.rc_context(RC):
            sheet = draw_sheet(plan)
        fig = sheet.figure
        assert fig.axes == [] and fig.get_children()[1:] == fig.artists, plan.id
        assert all(a.get_clip_path() is None and a.get_clip_box() is None for a in fig.artists), plan.id
        assert all(t.get_text().strip() and t.get_visible() for t in fig.findobj(Text)), plan.id
        texts = [t.get_text() for t in fig.findobj(Text)]
        ticks = [label for plot in sheet.plots for _, label in guides.value_ticks(plot)]
        assert all(texts.count(label) >= ticks.count(label) for label in ticks), plan.id
        grids = [a for a in fig.artists if isinstance(a, Line2D) and a.get_color() == style.GRID
                 and a.get_zorder() == guides.BELOW]  # all gridlines of an axis are one path
        assert len(grids) == len([plot for plot in sheet.plots if guides.value_ticks(plot)]), plan.id


def test_tick_labels_keep_the_decimals_of_every_chosen_tick(monkeypatch: pytest.MonkeyPatch) -> None:
    """The labels of the ticks in view are written with the decimals of every tick chosen."""
    assert guides.round_ticks(0.7, 1.3, 3) == [0.5, 0.75, 1.0, 1.25, 1.5]
    plot = Plot(Sheet(400, 300), 40, 20, 300, 200)
    plot.set_ylim(0.7, 1.3)
    plot.guides.value_axis = "y"
    monkeypatch.setitem(guides.NBINS, "y", 3)
    assert guides.value_ticks(plot) == [(0.75, "0.75"), (1.0, "1.00"), (1.25, "1.25")]
    monkeypatch.setattr(guides, "round_ticks", lambda *_: [0.5, 0.75, 1.0, 1.25, 1.375])  # a third decimal beyond
    assert [label for _, label in guides.value_ticks(plot)] == ["0.750", "1.000", "1.250"]


def _boxes(fig: Figure, texts: list[Text]) -> dict[str, float]:
    """Each text's box (left, bottom, width, height) in points, by text and side."""
    renderer = RendererSVG(fig.bbox.width, fig.bbox.height, io.StringIO(), 72)  # the SVG's own measures
    return {f"{t.get_text()} {side}": float(value) for t in texts
            for side, value in zip("xywh", t.get_window_extent(renderer).bounds, strict=True)}


def test_guides_sit_where_matplotlibs_axes_put_them() -> None:
    """Value ticks, category labels and the axis title of a horizontal and a vertical plot, as an
    ``Axes`` with the same limits, ticks and settings lays them out."""
    with matplotlib.rc_context(RC):
        sheet = Sheet(720, 400)
        across = Plot(sheet, 120, 30, 580, 150)
        across.set_xlim(-3, 130)
        across.set_ylim(150, 0)
        across.guides = Guides(spines=("bottom",), value_axis="x", fit_px=580, category_axis="y",
                                      categories=((40, "first\ncategory"), (110, "second")), x_title="tokens/s")
        upright = Plot(sheet, 80, 250, 620, 120)
        upright.set_xlim(-0.5, 1.5)
        upright.set_ylim(1, 7.3)
        upright.guides = Guides(value_axis="y", category_axis="x", categories=((0, "A"), (1, "B\nlong")))
        for plot in sheet.plots:
            guides.draw_guides(plot)
        ours = _boxes(sheet.figure, [a for a in sheet.figure.artists if isinstance(a, Text)])

        fig = Figure(figsize=(720 / 96, 400 / 96))
        ax = fig.add_axes((120 / 720, 1 - 180 / 400, 580 / 720, 150 / 400))
        ax.set_xlim(-3, 130)
        ax.set_ylim(150, 0)
        ax.tick_params(labelsize=style.SIZE_TICK, length=3)
        ax.set_xticks(*zip(*guides.value_ticks(across), strict=True))
        ax.tick_params(axis="y", length=0, pad=8)
        ax.set_yticks([40, 110], ["first\ncategory", "second"])
        ax.set_xlabel("tokens/s", fontsize=style.SIZE_TICK, labelpad=6)
        up = fig.add_axes((80 / 720, 1 - 370 / 400, 620 / 720, 120 / 400))
        up.set_xlim(-0.5, 1.5)
        up.set_ylim(1, 7.3)
        up.tick_params(labelsize=style.SIZE_TICK, length=3)
        up.set_yticks(*zip(*guides.value_ticks(upright), strict=True))
        up.tick_params(axis="x", length=0, pad=6)
        up.set_xticks([0, 1], ["A", "B\nlong"])
        renderer = RendererSVG(fig.bbox.width, fig.bbox.height, io.StringIO(), 72)
        fig.draw(renderer)  # places the axis title
        theirs = [*ax.get_xticklabels(), *ax.get_yticklabels(), ax.xaxis.label, *up.get_xticklabels(),
                  *up.get_yticklabels()]
        assert ours == pytest.approx(_boxes(fig, [t for t in theirs if t.get_text()]))
        assert len(ours) == 4 * (2 + 2 + 1 + len(guides.value_ticks(across)) + len(guides.value_ticks(upright)))


def test_a_legend_row_sits_where_matplotlibs_legend_puts_it() -> None:
    items = (LegendItem("series", "int4", style.PALETTE[0]), LegendItem("series", "Qyp bf16", style.PALETTE[1]),
             LegendItem("sd", style.LEGEND_SD, style.INK))
    box = PanelBox(top=40, height=200, title_lines=(), legend_rows=((0, 1, 2),), plot_top=80, plot_height=100)
    panel = PanelPlan(title="", kind="bar", horizontal=False, unit="tokens/s", x_label="", x_numeric=False, points=(),
                      slots=(), series=("int4", "Qyp bf16"), columns=(), separate_sources=False, references=(),
                      legend=items, box=box)
    with matplotlib.rc_context(RC):
        sheet = Sheet(720, 300)
        legend(sheet, panel)
        ours = _boxes(sheet.figure, [a for a in sheet.figure.artists if isinstance(a, Text)])
        samples = [a for a in sheet.figure.artists if not isinstance(a, Text)]

        fig = Figure(figsize=(720 / 96, 300 / 96))
        handles = [Patch(facecolor=c, edgecolor="none") for c in style.PALETTE[:2]] + [Line2D([], [], marker="|")]
        drawn = fig.legend(handles, [item.label for item in items], loc="upper left", ncols=3, frameon=False,
                           bbox_to_anchor=((style.PAD_X - 2) / 720, 1 - (box.top + 3 + 1) / 300),
                           fontsize=style.SIZE_LEGEND, handlelength=1.8, handletextpad=0.5, columnspacing=1.4,
                           borderaxespad=0, borderpad=0, numpoints=1)
        fig.draw(RendererSVG(fig.bbox.width, fig.bbox.height, io.StringIO(), 72))
        assert ours == pytest.approx(_boxes(fig, drawn.get_texts()))
        patch = drawn.legend_handles[0]
        assert patch is not None
        assert samples[0].get_window_extent().bounds == pytest.approx(patch.get_window_extent().bounds)


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


def test_a_plot_that_moves_takes_its_marks_along() -> None:
    """Vertical panels share one left edge once all are drawn: the marks drawn before follow."""
    plot = Plot(Sheet(400, 300), 40, 20, 300, 200)
    plot.set_xlim(0, 10)
    plot.set_ylim(0, 1)
    bar = plot.rect(4, 0, 6, 0.5)
    before = bar.get_window_extent().bounds
    plot.move(60, 280)
    after = bar.get_window_extent().bounds
    assert after[0] == pytest.approx(60 * 0.75 + 4 / 10 * 280 * 0.75) and after[1:] == pytest.approx(
        (before[1], 2 / 10 * 280 * 0.75, before[3]))
