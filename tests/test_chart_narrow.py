"""The phone variant and the legibility rules: every chart is laid out twice, by width,
drawn through the same cache and pool, served with <picture>; no text leaves the figure
or covers other text; nulls, scales and bare categories read right."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest
from chart_fixtures import EVERY_KIND, HEAD, HERE, TRIALS, ok, trials
from click.testing import CliRunner
from matplotlib.backends.backend_svg import RendererSVG
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from sitekit import CHART, article, export, make_site, result, tree

from evidencepress.charts import ChartPlan, layout, render_charts, style
from evidencepress.charts.draw import RC, draw_chart, draw_sheet
from evidencepress.charts.draw.common import axis_unit, large_scale
from evidencepress.charts.draw.guides import tick_text
from evidencepress.charts.draw.surface import Sheet
from evidencepress.cli import main

DECODE = HEAD + "panels:\n  - select: {where: {metric: per_request_decode_rate}}\n"
NULL_BAR = HEAD + "panels:\n  - select: {from: memory_observations}\n"

# Plans every kind in a fresh interpreter and prints the sha256 of each narrow drawing.
SCRIPT = """
import hashlib, sys
sys.path.insert(0, {tests!r})
from chart_fixtures import EVERY_KIND, ok
from evidencepress.charts import render_charts
plans = [ok(text).narrow for text in EVERY_KIND.values()]
print(" ".join(hashlib.sha256(s).hexdigest() for s in render_charts(plans, jobs=2, cache_dir=None)))
"""


def every_plan() -> list[ChartPlan]:
    plans = [ok(text) for text in (*EVERY_KIND.values(), DECODE, NULL_BAR)]
    plans.append(ok(TRIALS, trials([88, 88, 86, 87, 88, 88, 88, 89], 87.8, [87.1, 88.2])))  # labels crowd a phone
    plans.append(ok(NULL_BAR, _files()))  # ticks of "120 billion" crowd a phone's axis
    return [drawn for plan in plans for _, drawn in plan.variants()]


def drawn(plan: ChartPlan) -> Sheet:
    with matplotlib.rc_context(RC):
        return draw_sheet(plan)


def test_every_chart_has_a_narrow_variant_with_the_same_content() -> None:
    for text in EVERY_KIND.values():
        plan = ok(text)
        narrow = plan.narrow
        assert narrow is not None and narrow.narrow is None
        assert (plan.width, narrow.width) == (style.WIDTH_PX, style.NARROW_WIDTH_PX)
        assert [name for name, _ in plan.variants()] == ["c.svg", "c.narrow.svg"]
        assert narrow.cache_key != plan.cache_key  # the width is part of the key
        for field in ("id", "title", "alt", "caption", "notes", "rows", "plotted"):
            assert getattr(narrow, field) == getattr(plan, field), field
        room = layout.NARROW.content
        assert all(style.text_px(line, style.SIZE_TITLE, bold=True) <= room for line in narrow.title_lines)
        for line in narrow.note_lines:
            assert style.text_px(line, style.SIZE_NOTE, bold=line == style.SEPARATE_SOURCES) <= room, line


def test_narrow_bars_lie_down_where_wide_ones_stand() -> None:
    plan = ok(DECODE)
    assert plan.narrow is not None
    assert not plan.panels[0].horizontal and plan.narrow.panels[0].horizontal
    assert all(len(slot.lines) == 1 for slot in plan.narrow.panels[0].slots)


def test_no_text_leaves_the_figure_or_covers_other_text() -> None:
    for plan in every_plan():
        fig = drawn(plan).figure
        measure = RendererSVG(fig.bbox.width, fig.bbox.height, io.StringIO(), 72)  # the SVG's own glyph widths
        texts = [t for t in fig.findobj(Text) if t.get_text().strip() and t.get_visible()]
        boxes = [(t.get_text(), t.get_window_extent(measure)) for t in texts]
        for text, box in boxes:
            assert box.x0 >= 0 and box.x1 <= fig.bbox.width + 0.5, (plan.id, plan.width, text)
            assert box.y0 >= 0 and box.y1 <= fig.bbox.height + 0.5, (plan.id, plan.width, text)
        for index, (text, box) in enumerate(boxes):
            for other, second in boxes[index + 1 :]:
                overlap = min(box.x1, second.x1) - max(box.x0, second.x0), min(box.y1, second.y1) - max(box.y0, second.y0)
                assert min(overlap) <= 1, (plan.id, plan.width, text, other)


def test_a_null_in_a_vertical_bar_panel_is_marked_in_its_own_slot() -> None:
    plan = ok(NULL_BAR)
    panel = plan.panels[0]
    assert not panel.horizontal
    null = next(i for i, slot in enumerate(panel.slots) if panel.points[slot.points[0]].value is None)
    marks = drawn(plan).plots[0].marks
    markers = [mark for mark in marks if isinstance(mark, Line2D) and mark.get_marker() == "D"]
    assert len(markers) == 1
    assert list(markers[0].get_xdata()) == [null] and list(markers[0].get_ydata()) == [0]
    assert len([mark for mark in marks if isinstance(mark, Rectangle)]) == 1  # the reported value only: never a zero-length bar


def test_tick_labels_agree_along_an_axis_and_large_values_take_a_scale() -> None:
    ticks = [0, 4000, 8000, 12000, 16000]
    assert [tick_text(t, ticks) for t in ticks] == ["0", "4,000", "8,000", "12,000", "16,000"]
    assert [tick_text(t, [0, 2.5, 5]) for t in (0, 2.5, 5)] == ["0", "2.5", "5.0"]
    assert [tick_text(t, [0, 1.5, 3, 4.5]) for t in (0, 1.5, 3, 4.5)] == ["0", "1.5", "3.0", "4.5"]  # never "2"
    assert tick_text(-8000, [-8000, 12000]) == "\u22128,000"
    huge = ok(DECODE, _scaled(10**9))
    panel = huge.panels[0]
    assert large_scale(panel) == (10**9, "billion") and axis_unit(panel) == "tokens/s"
    assert [tick_text(t, [0, 5e10, 1e11], 10**9, "billion") for t in (0, 5e10, 1e11)] == [
        "0", "50 billion", "100 billion"]
    assert [tick_text(t, [0, 2.5e9, 5e9], 10**9, "billion") for t in (0, 2.5e9, 5e9)] == [
        "0", "2.5 billion", "5.0 billion"]
    assert large_scale(ok(DECODE).panels[0]) == (1, "") and axis_unit(ok(DECODE).panels[0]) == "tokens/s"


def test_large_values_keep_their_unit_on_the_axis_read_in_a_multiple_and_labels_keep_their_digits() -> None:
    from evidencepress.charts.units import axis_scale, value_labels

    # No prefix conversion: a GB axis beside labels in bytes, a (KiB) title on a GiB axis disagreed; and
    # ticks of 0 to 120 under "bytes (billions)" beside a label 113,556,639,424 did not visibly agree.
    assert axis_scale("bytes", 113_556_639_424) == (1e9, "billion")
    assert axis_scale("bytes", 169_984) == (1, "")
    assert axis_scale("KiB", 86_701_016) == (1e6, "million")
    assert axis_scale("MiB", 97_237) == (1, "")  # five digits read well as they are
    assert axis_scale("tokens", 600_000) == (1, "")
    plan = ok(HEAD + "panels:\n  - select:\n      pointers: [{pointer: /memory_observations/1/value, label: KV}]\n"
              "    unit: bytes\n", _bytes(113_556_639_424))
    panel = plan.panels[0]
    assert value_labels(panel.points, panel.unit) == ["113,556,639,424"]


def _files():  # type: ignore[no-untyped-def]
    """The export with four file sizes in bytes as its memory observations (the example's VQ chart)."""
    from chart_fixtures import export as load

    sizes = {"VQ base GGUF": 113_556_639_424, "BF16 vision sidecar": 971_066_016,
             "Engram shard 1 (separate)": 101_535_150_936, "Engram shard 2 (separate)": 101_537_926_640}
    return load(memory_observations=[{"label": label, "value": size, "unit": "bytes", "source_record_id": "vq"}
                                     for label, size in sizes.items()])


def _bytes(value: int):  # type: ignore[no-untyped-def]
    from chart_fixtures import export as load

    document = load()
    document.value["memory_observations"][1] = dict(document.value["memory_observations"][1], value=value, unit="bytes")
    return document


def _scaled(factor: int):  # type: ignore[no-untyped-def]
    from chart_fixtures import export as load

    document = load()
    document.value["reported_results"] = [
        dict(r, value=r["value"] * factor) if r["metric"] == "per_request_decode_rate" else r
        for r in document.value["reported_results"]
    ]
    return document


def test_bare_numbers_as_categories_or_series_are_named() -> None:
    categories = ok(HEAD + "panels:\n  - select: {where: {metric: per_request_decode_rate}}\n    x: conditions.concurrency\n")
    assert categories.panels[0].slots[0].lines == ("concurrency: 1",)
    assert [s.label for s in categories.panels[0].slots] == ["1", "4", "8", "16"]  # the data keeps its labels
    series = ok(HEAD + "panels:\n  - select: {where: {metric: per_request_decode_rate}}\n    series: conditions.concurrency\n")
    assert [item.label for item in series.panels[0].legend if item.kind == "series"] == [f"concurrency: {n}" for n in (1, 4, 8, 16)]
    assert series.panels[0].series == ("1", "4", "8", "16")
    named = ok(HEAD + "panels:\n  - select: {where: {metric: per_request_decode_rate}}\n")
    assert named.panels[0].slots[0].lines == ("TP2 C1 decode",)


def test_narrow_drawings_are_byte_identical_in_a_fresh_process() -> None:
    plans = [ok(text).narrow for text in EVERY_KIND.values()]
    here = [hashlib.sha256(svg).hexdigest() for svg in render_charts(plans, jobs=1, cache_dir=None)]  # type: ignore[arg-type]
    assert here == [hashlib.sha256(draw_chart(p)).hexdigest() for p in plans]  # type: ignore[arg-type]
    code = SCRIPT.format(tests=str(HERE.parent))
    outcome = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONHASHSEED": "7", "TZ": "Asia/Kolkata"},
        timeout=120,
    )
    assert outcome.returncode == 0, outcome.stderr
    assert outcome.stdout.split() == here


def test_both_variants_share_the_cache(tmp_path: Path) -> None:
    plan = ok(DECODE)
    variants = [drawn_plan for _, drawn_plan in plan.variants()]
    first = render_charts(variants, jobs=2, cache_dir=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{p.cache_key}.svg" for p in variants)
    assert f'width="{style.NARROW_WIDTH_PX}" height='.encode() in first[1][:1200]
    assert render_charts(variants, jobs=1, cache_dir=tmp_path) == first


@pytest.fixture
def site(tmp_path: Path) -> Path:
    data = export(result("Run A", 42.5), result("Run B", 40.0))
    body = "See [the phone chart](/guides/a/decode.narrow.svg).\n\n" + CHART
    return make_site(tmp_path, {"guides/a.md": article("Article A", body, data)})


def test_the_site_serves_the_narrow_drawing_to_phones(site: Path) -> None:
    outcome = CliRunner().invoke(main, ["build", "--root", str(site), "--jobs", "1"])
    assert outcome.exit_code == 0, outcome.output  # the link to the narrow SVG is a produced path
    files = tree(site / "_site")
    narrow = files["guides/a/decode.narrow.svg"]
    assert narrow.startswith(b"<?xml") and narrow != files["guides/a/decode.svg"]
    html = files["guides/a/index.html"].decode()
    figure = html[html.index('<figure class="chart has-narrow"') : html.index("</figure>")]
    wide = figure[figure.index('<div class="chart-drawing chart-wide">') : figure.index('<div class="chart-drawing chart-narrow">')]
    narrow_html = figure[figure.index('<div class="chart-drawing chart-narrow">') :]
    # Both drawings are inlined (the page's colours and font reach them), without their own style sheet.
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in wide and 'width="720"' in wide
    assert f'width="{style.NARROW_WIDTH_PX}"' in narrow_html
    assert "<style>" not in figure and "<?xml" not in figure
    assert 'aria-labelledby="ep-decode-w-title ep-decode-w-desc"' in wide
    assert '<desc id="ep-decode-n-desc">Decode rate of two runs.</desc>' in narrow_html
    assert "decode.narrow.svg" not in files["guides/a/index.json"].decode()  # `file` stays the wide SVG
