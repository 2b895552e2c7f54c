"""Drawing: every kind, the guards as drawn, byte-identical SVG, parallel drawing and the cache."""

from __future__ import annotations

import hashlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest
from chart_fixtures import EVERY_KIND, HERE, TRIALS, ok, trials
from matplotlib.artist import Artist
from matplotlib.backends.backend_svg import RendererSVG
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties, findfont
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.textpath import TextToPath

from evidencepress.charts import ChartPlan, iter_charts, render_charts, style
from evidencepress.charts.draw import RC, draw_chart, draw_sheet, textsize
from evidencepress.core.seal import seal

TESTS = HERE.parent
SRC = TESTS.parent / "src" / "evidencepress" / "charts"

# Plans and renders EVERY_KIND in a fresh interpreter; prints one sha256 per chart.
SCRIPT = """
import hashlib, sys
sys.path.insert(0, {tests!r})
from pathlib import Path
from chart_fixtures import EVERY_KIND, ok
from evidencepress.charts import render_charts
plans = [ok(text) for text in EVERY_KIND.values()]
assert "matplotlib" not in sys.modules, "planning imported matplotlib"
cache = {cache!r}
svgs = render_charts(plans, jobs=1, cache_dir=Path(cache) if cache else None)
if cache:
    assert "matplotlib" not in sys.modules, "a warm cache imported matplotlib"
print(" ".join(hashlib.sha256(s).hexdigest() for s in svgs))
"""


@pytest.fixture(scope="module")
def plans() -> list[ChartPlan]:
    return [ok(text) for text in EVERY_KIND.values()]


@pytest.fixture(scope="module")
def svgs(plans: list[ChartPlan]) -> list[bytes]:
    return render_charts(plans, jobs=1, cache_dir=None)


def digests(svgs: list[bytes]) -> list[str]:
    return [hashlib.sha256(s).hexdigest() for s in svgs]


def run_fresh(cache: Path | None = None, **env: str) -> list[str]:
    code = SCRIPT.format(tests=str(TESTS), cache=str(cache) if cache else "")
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def drawn_texts(plan: ChartPlan) -> list[str]:
    with matplotlib.rc_context(RC):
        sheet = draw_sheet(plan)
    return [t.get_text() for t in sheet.figure.findobj(Text) if t.get_text()]


def value_labels(plan: ChartPlan) -> list[str]:
    """The value labels a plan draws (the texts with the background halo), in drawing order."""
    with matplotlib.rc_context(RC):
        sheet = draw_sheet(plan)
    return [t.get_text() for t in sheet.figure.findobj(Text) if t.get_gid() == "ep-halo"]


def error_bars(marks: list[Artist]) -> list[Line2D]:
    """The whiskers among a plot's marks: a line between two capped ends."""
    return [m for m in marks if isinstance(m, Line2D) and m.get_marker() in ("_", "|") and len(m.get_xdata()) == 2]


def test_every_kind_draws_an_svg_of_the_planned_size(plans: list[ChartPlan], svgs: list[bytes]) -> None:
    for plan, svg in zip(plans, svgs, strict=True):
        head = svg[:1200].decode()
        assert head.startswith("<?xml")
        assert f'width="{plan.width}" height="{plan.height}" viewBox="0 0 {plan.width * 0.75:g} {plan.height * 0.75:g}"' in head
        assert b"<dc:date>" not in svg and b"<metadata>" not in svg
    assert "matplotlib.pyplot" not in sys.modules


def test_text_is_real_text_and_every_colour_is_a_css_custom_property(svgs: list[bytes]) -> None:
    for svg in svgs:
        text = svg.decode()
        body = text[text.index("</style>") :]
        assert "<text" in body and "<path d=" in body  # real, selectable text beside the drawn marks
        assert "font-family" not in body  # one font stack, from the style sheet
        for element in re.findall(r"<text [^>]*>", body):
            assert "fill: var(--ep-" in element, element  # no text left in matplotlib's default black
        bare = re.sub(r"var\(--ep-[a-z0-9-]+, #[0-9a-f]{6}\)", "", body)
        assert not re.findall(r"#[0-9a-fA-F]{6}\b", bare)  # every colour follows the theme
        assert "@media (prefers-color-scheme: dark)" in text[: text.index("</style>")]


def test_ids_are_prefixed_per_chart_and_variant_and_unreferenced_ids_are_gone(plans: list[ChartPlan]) -> None:
    plan = plans[0]
    for name, drawn in plan.variants():
        svg = render_charts([drawn], jobs=1, cache_dir=None)[0].decode()
        ids = re.findall(r' id="([^"]+)"', svg)
        prefix = "ep-c-n-" if name.endswith(".narrow.svg") else "ep-c-w-"
        assert ids and all(i.startswith(prefix) for i in ids), ids
        assert len(ids) == len(set(ids))
        for ref in re.findall(r'(?:href="#|url\(#)([^")]+)', svg):
            assert ref in ids


def test_svgs_got_smaller(svgs: list[bytes]) -> None:
    # Glyphs drawn as paths made these 40-110 KB; real text and 1/100 pt coordinates keep them small.
    assert max(len(s) for s in svgs) < 40_000, [len(s) for s in svgs]


def test_null_is_a_labelled_marker_never_a_zero_bar() -> None:
    plan = ok(EVERY_KIND["bar"])
    panel = plan.panels[1]  # memory_observations: Peak host RAM is null
    with matplotlib.rc_context(RC):
        marks = draw_sheet(plan).plots[1].marks
    assert len([m for m in marks if isinstance(m, Rectangle)]) == sum(p.value is not None for p in panel.points) == 1
    assert "not reported" in [m.get_text() for m in marks if isinstance(m, Text)]


def test_error_bars_and_legends_only_from_the_data() -> None:
    plan = ok(EVERY_KIND["bar"])
    with matplotlib.rc_context(RC):
        plots = draw_sheet(plan).plots
    assert len(error_bars(plots[0].marks)) == sum(p.whisker is not None for p in plan.panels[0].points) == 6
    texts = drawn_texts(plan)
    assert style.LEGEND_SD in texts and style.LEGEND_RANGE in texts
    assert not error_bars(plots[1].marks)


def test_separate_sources_are_labelled_and_not_a_ranking() -> None:
    texts = drawn_texts(ok(EVERY_KIND["bar"]))
    assert style.SEPARATE_SOURCES in texts
    assert {"source: tp2-sweep", "source: tensorfold", "source: spark-pair"} <= set(texts)
    assert any(t.startswith("spread ratio 1.04 reported for") for t in texts)


def test_range_and_interval_and_status_draw_their_marks() -> None:
    range_texts = drawn_texts(ok(EVERY_KIND["range"]))
    assert style.LEGEND_MEDIAN in range_texts and style.LEGEND_OBSERVATION in range_texts
    assert "reference (0)" in drawn_texts(ok(EVERY_KIND["interval"]))
    status_texts = drawn_texts(ok(EVERY_KIND["status"]))
    assert {"\u2717 not shown non-inferior", "not reported", "\u2013 not run", "\u2013 pending review"} <= set(status_texts)


def test_range_and_dot_rows_show_their_numbers_as_an_editor_would() -> None:
    """Range and dot panels drew none of their numbers (issue 28). A range row shows its value (or the
    median the site derives) over its mark and the range's ends beside the caps; a dot row its reported
    summary and the ends of its interval, else its lowest and highest observation; a panel that leaves
    an observation unlabelled says so."""
    ranged, dotted = ok(EVERY_KIND["range"]), ok(EVERY_KIND["dot"])
    for plan in (ranged, ranged.narrow):
        assert plan is not None
        assert value_labels(plan) == ["22.6", "19.9", "26.0", "42.6", "42.2", "43.0",  # median, lowest, highest
                                      "2,165", "2,065", "2,201", "1,961", "1,851", "1,986"]  # value, observed range
    assert style.UNLABELLED_OBSERVATIONS not in ranged.notes  # three observations: the median and the two ends
    for plan in (dotted, dotted.narrow):
        assert plan is not None
        assert value_labels(plan) == ["19.9", "26.0", "42.2", "43.0"]  # 22.6 and 42.6 are in the table
    assert style.UNLABELLED_OBSERVATIONS in dotted.notes
    scores = ok(TRIALS, trials([88, 88, 86, 87, 88, 88, 88, 89], 87.8, [87.1, 88.2]))
    for plan in (scores, scores.narrow):
        assert plan is not None
        assert value_labels(plan) == ["\u00d75", "87.1", "87.8", "88.2"]  # the stack's count, the interval, the mean
    assert scores.notes == (style.UNLABELLED_OBSERVATIONS,)


def test_the_bundled_font_is_used() -> None:
    with matplotlib.rc_context(RC):
        path = findfont(FontProperties(family=style.FONT_FAMILY))
    assert Path(path).is_relative_to(Path(matplotlib.get_data_path())), path


def test_no_pyplot_and_no_tight_layout_in_the_source() -> None:
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "pyplot" not in text.replace("no pyplot", "").replace("No pyplot", ""), path
        assert "tight_layout" not in text.replace("``tight_layout``", ""), path


def test_same_bytes_across_processes_time_zones_and_hash_seeds(svgs: list[bytes]) -> None:
    first = run_fresh(TZ="Pacific/Auckland", PYTHONHASHSEED="1", LC_ALL="C")
    second = run_fresh(TZ="America/Los_Angeles", PYTHONHASHSEED="2")
    assert first == second == digests(svgs)
    assert digests([draw_chart(p) for p in [ok(t) for t in EVERY_KIND.values()]]) == digests(svgs)


def test_one_text_measure_for_every_svg_gives_matplotlibs_bytes(
    plans: list[ChartPlan], svgs: list[bytes]
) -> None:
    """Drawn with matplotlib's own measures (a cache per renderer, font heights read per text),
    every chart has the same bytes."""
    textsize.uninstall()
    try:
        assert not hasattr(RendererSVG, "_get_font_height_metrics")
        assert [draw_chart(plan) for plan in plans] == svgs
    finally:
        textsize.install()


def test_the_font_heights_are_read_through_matplotlibs_public_api(monkeypatch: pytest.MonkeyPatch) -> None:
    """``findfont`` and ``get_font``, not FontManager's private ``_find_fonts_by_props``."""
    from matplotlib import font_manager

    def private(*args: object, **kwargs: object) -> object:
        raise AssertionError("a private matplotlib method was called")

    prop = FontProperties(family=style.FONT_FAMILY, size=11.5, weight="bold")  # not cached by an earlier test
    expected = RendererSVG(100, 100, io.StringIO())._get_font_height_metrics(prop.copy())
    textsize.font_heights.cache_clear()
    monkeypatch.setattr(font_manager.fontManager, "_find_fonts_by_props", private)
    assert textsize.font_heights(prop) == expected


def test_on_an_unverified_matplotlib_its_own_measures_stay(plans: list[ChartPlan], svgs: list[bytes]) -> None:
    """The shared measures lean on a private hook of matplotlib's text layout: another version
    draws with matplotlib's own, which give the same bytes."""
    assert textsize.applies()  # the pinned matplotlib: verified
    try:
        assert textsize.install(version="99.0.0") is False
        assert RendererSVG.get_text_width_height_descent is textsize._MATPLOTLIB_MEASURE
        assert not hasattr(RendererSVG, "_get_font_height_metrics")
        assert [draw_chart(plan) for plan in plans[:4]] == svgs[:4]
    finally:
        assert textsize.install() is True


def test_the_shared_measure_is_keyed_by_the_properties_at_the_time() -> None:
    renderer = RendererSVG(100, 100, io.StringIO())
    prop = FontProperties(family=style.FONT_FAMILY, size=9)
    texts = ["1,000", "Cell 12", "Served rate by cell", "−4.5", "Ünïcode ✓", ""]
    before = [renderer.get_text_width_height_descent(text, prop, False) for text in texts]
    heights = renderer._get_font_height_metrics(prop)
    prop.set_size(13)
    prop.set_weight("bold")
    after = [renderer.get_text_width_height_descent(text, prop, False) for text in texts]
    assert after == [TextToPath().get_text_width_height_descent(text, prop, False) for text in texts]
    assert before != after and before[1][0] < after[1][0]
    assert renderer._get_font_height_metrics(prop) == pytest.approx([h * 13 / 9 for h in heights])


def test_text_layout_with_the_shared_font_heights_is_matplotlibs() -> None:
    """Multi-line texts too, where the line gap counts, in each size and weight the charts use."""
    def layouts() -> list[object]:
        found: list[object] = []
        with matplotlib.rc_context(RC):
            fig = Figure(dpi=72)
            for size in (style.SIZE_TICK, style.SIZE_TITLE, style.SIZE_NOTE):
                for weight in ("normal", "bold"):
                    text = fig.text(0, 0, "Served rate\nby cell, two lines", fontsize=size, fontweight=weight)
                    box, lines, descent = text._get_layout(RendererSVG(100, 100, io.StringIO()))
                    found.append((box.bounds, lines, descent))
        return found

    shared = layouts()
    textsize.uninstall()
    try:
        assert layouts() == shared
    finally:
        textsize.install()


def test_parallel_drawing_gives_the_same_bytes_in_order(plans: list[ChartPlan], svgs: list[bytes]) -> None:
    progress: list[tuple[int, int]] = []
    parallel = render_charts(plans, jobs=2, cache_dir=None, progress=lambda done, total: progress.append((done, total)))
    assert parallel == svgs
    assert progress[-1] == (len(plans), len(plans)) and len(progress) == len(plans)


def test_cache_is_written_atomically_and_a_warm_build_never_imports_matplotlib(
    tmp_path: Path, plans: list[ChartPlan], svgs: list[bytes]
) -> None:
    assert render_charts(plans, jobs=1, cache_dir=tmp_path) == svgs
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{p.cache_key}.svg" for p in plans)
    assert run_fresh(cache=tmp_path) == digests(svgs)


def test_cache_hit_reads_the_file_and_reports_progress(tmp_path: Path, plans: list[ChartPlan]) -> None:
    plan = plans[0]
    (tmp_path / f"{plan.cache_key}.svg").write_bytes(seal("charts", plan.cache_key, b"<svg>cached</svg>"))
    progress: list[tuple[int, int]] = []
    assert render_charts([plan, plan], jobs=4, cache_dir=tmp_path, progress=lambda d, t: progress.append((d, t))) == [
        b"<svg>cached</svg>",
        b"<svg>cached</svg>",
    ]
    assert progress == [(2, 2)]


def test_charts_stream_cache_hits_first_and_a_shared_drawing_once(tmp_path: Path, plans: list[ChartPlan],
                                                                  svgs: list[bytes]) -> None:
    """iter_charts yields each SVG once it is there (nothing held for the whole site): the
    cached one at once, then the drawings; two plans with one key are drawn once, given twice."""
    first, second = plans[0], plans[1]
    (tmp_path / f"{second.cache_key}.svg").write_bytes(seal("charts", second.cache_key, b"<svg>cached</svg>"))
    streamed = list(iter_charts([first, second, first], jobs=1, cache_dir=tmp_path))
    assert streamed == [(1, b"<svg>cached</svg>"), (0, svgs[0]), (2, svgs[0])]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({f"{first.cache_key}.svg", f"{second.cache_key}.svg"})


def test_renderer_version_is_part_of_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    before = ok(EVERY_KIND["line"]).cache_key
    monkeypatch.setattr(style, "RENDERER_VERSION", "test")
    assert ok(EVERY_KIND["line"]).cache_key != before


def test_unwritable_cache_still_returns_the_drawing(tmp_path: Path, plans: list[ChartPlan], svgs: list[bytes]) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert render_charts(plans[:1], jobs=1, cache_dir=blocked) == svgs[:1]


def test_workers_started_beside_a_thread_give_the_same_bytes(plans: list[ChartPlan], svgs: list[bytes]) -> None:
    import threading

    stop = threading.Event()
    waiter = threading.Thread(target=stop.wait)
    waiter.start()
    try:
        assert render_charts(plans[:2], jobs=2, cache_dir=None) == svgs[:2]
    finally:
        stop.set()
        waiter.join()
