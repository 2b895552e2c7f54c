"""An axis, its ticks, its value labels and the panel title speak one unit, whatever the scale.

Large values keep their unit: the axis title is the unit, its ticks say the multiple they read in
(``120 billion`` under ``bytes``) and the value labels are the authored literals, in that same unit
(``113,556,639,424``); no prefix is swapped in (a GB axis beside labels in bytes, a "(KiB)" panel on a
GiB axis), and no tick reads ``120`` beside a label of twelve digits. Checked on the drawn SVG text of every kind with a
value axis, for every family of units, in the wide and the phone variant.
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree import ElementTree

import matplotlib
import pytest
from chart_fixtures import HEAD, chart, export, ok
from sitekit import result

from evidencepress.charts import ChartPlan, render_charts, style
from evidencepress.charts.draw import RC, draw_sheet
from evidencepress.charts.kinds import registry
from evidencepress.charts.units import axis_scale

# (unit, largest value): binary and decimal byte units, token counts, seconds; small and large.
FAMILIES = [("bytes", 113_556_639_424), ("bytes", 169_984), ("KiB", 53_901_956), ("MiB", 97_237),
            ("GiB", 118), ("GB", 113.5), ("tokens", 26_253_000), ("s", 5.487), ("ms", 1_840)]
SVG = "{http://www.w3.org/2000/svg}"
PREFIXED = ("kB", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB")

PANEL = {
    "bar": "  - title: Size ({unit})\n    select: {{where: {{metric: m}}}}\n",
    "line": "  - title: Size ({unit})\n    select: {{where: {{metric: m}}}}\n    x: conditions.concurrency\n",
    "range": "  - title: Size ({unit})\n    select: {{where: {{metric: m}}}}\n",
    "dot": "  - title: Size ({unit})\n    select: {{where: {{metric: m}}}}\n    y: conditions.samples\n    unit: {unit}\n",
    "interval": "  - title: Size ({unit})\n    select: {{where: {{metric: m}}}}\n    interval: conditions.ci\n"
                "    reference: 0\n",
}


def _entries(unit: str, top: float) -> list[dict[str, Any]]:
    whole = isinstance(top, int)
    values = [top, top * 3 // 4 if whole else round(top * 0.75, 3), top // 2 if whole else round(top * 0.5, 3)]
    entries = []
    for number, value in enumerate(values, start=1):
        low = value * 9 // 10 if whole else round(value * 0.9, 3)
        conditions = {**result()["conditions"], "concurrency": number, "samples": [low, value],
                      "ci": [low, value]}
        entries.append(result(f"Run {number}", value, metric="m", unit=unit, conditions=conditions,
                              uncertainty={"observed_min": low, "observed_max": value, "interval_kind": "observed"}))
    return entries


def _texts(svg: bytes) -> tuple[list[str], list[str]]:
    """(the value labels, every other text) of a drawing: the value labels are the haloed texts."""
    root = ElementTree.fromstring(svg)
    halos = {id(text) for group in root.iter(f"{SVG}g") if group.get("class") == "ep-halo" for text in group.iter(f"{SVG}text")}
    texts = [(id(text) in halos, "".join(text.itertext())) for text in root.iter(f"{SVG}text")]
    return [text for halo, text in texts if halo], [text for halo, text in texts if not halo]


_NUMBER = re.compile(r"^\u2212?[0-9][0-9,]*(\.[0-9]+)?$")


def _number(text: str) -> float:
    return float(text.replace(",", "").replace("\u2212", "-"))


def _plan(kind: str, unit: str, top: float) -> ChartPlan:
    fence = HEAD.replace("kind: bar", f"kind: {kind}") + "panels:\n" + PANEL[kind].format(unit=unit)
    return ok(fence, export(reported_results=_entries(unit, top)))


def test_every_kind_with_a_value_axis_is_checked() -> None:
    assert {name for name, kind in registry().items() if kind.value_axis} == set(PANEL)


@pytest.mark.parametrize("kind", sorted(PANEL))
@pytest.mark.parametrize(("unit", "top"), FAMILIES)
def test_axis_ticks_value_labels_and_title_agree_on_the_unit(kind: str, unit: str, top: float) -> None:
    plan = _plan(kind, unit, top)
    variants = [drawn for _, drawn in plan.variants()]
    scale, multiple = axis_scale(unit, top)
    values = {style.display_number(e["value"]) for e in _entries(unit, top)}
    lows = {style.display_number(e["conditions"]["samples"][0]) for e in _entries(unit, top)}  # a range's low end
    for drawn, svg in zip(variants, render_charts(variants, jobs=1, cache_dir=None), strict=True):
        labels, others = _texts(svg)
        texts = labels + others
        assert unit in others, (drawn.width, texts)  # the axis title: the entries' unit, as written ...
        assert f"Size ({unit})" in texts  # ... which the panel title names
        assert not [t for t in texts if t in PREFIXED and t != unit]  # no other prefix anywhere
        assert not [t for t in texts if t.endswith(" " + unit) and _NUMBER.match(t[: -len(unit) - 1])]
        assert set(labels) <= values | lows, texts  # each value label is a literal, with no unit of its own
        if kind == "bar":
            assert set(labels) == values, texts
        x_ticks = {"1", "2", "3"} if kind == "line" else set()  # a line panel's x: the runs' concurrency
        ticks = [(_number(t.removesuffix(f" {multiple}")), t) for t in others
                 if _NUMBER.match(t.removesuffix(f" {multiple}")) and t not in x_ticks]
        assert ticks, texts
        # Every tick but 0 says its multiple (120 billion bytes beside a label 113,556,639,424): it reaches
        # the data's scale and does not run far past it.
        assert all(text == "0" or text.endswith(f" {multiple}") == (scale != 1) for _, text in ticks), texts
        assert 0.3 * top <= max(number for number, _ in ticks) * scale <= 1.6 * top, (drawn.width, ticks, scale)


def _x_limit(plan: ChartPlan) -> float:
    with matplotlib.rc_context(RC):
        plots = draw_sheet(plan).plots
    return max(plot.xlim[1] for plot in plots)


def test_the_phone_variant_fits_its_axis_to_its_data() -> None:
    """A 113 GB bar on a phone was drawn on an axis stretched to 400 GB: the long value labels
    took two thirds of the axis. Now a label that does not fit past its bar sits inside its end."""
    top = 113_556_639_424
    fence = HEAD + "panels:\n" + PANEL["bar"].format(unit="bytes")
    entries = _entries("bytes", top) + [result(f"Shard {n}", 971_066_016 * n, metric="m", unit="bytes") for n in (1, 2)]
    plan = ok(fence, export(reported_results=entries))
    assert plan.narrow is not None and plan.narrow.panels[0].horizontal
    for drawn in (plan, plan.narrow):
        assert _x_limit(drawn) <= 1.5 * top, drawn.width
    svg = render_charts([plan.narrow], jobs=1, cache_dir=None)[0]
    assert "113,556,639,424" in _texts(svg)[0]


def test_a_panel_title_naming_another_unit_is_a_warning_with_a_hint() -> None:
    fence = HEAD + "panels:\n" + PANEL["bar"].format(unit="MiB")
    plan, problems = chart(fence, export(reported_results=_entries("KiB", 53_901_956)))
    assert plan is not None
    found = [p for p in problems if p.rule == "chart-title-unit"]
    assert [p.format() for p in found] == [
        ("content/guides/a.md:26:5: warning: panels[0].title: the panel title names the unit 'MiB', but its values "
        "and axis are in 'KiB' [chart-title-unit]\n"
        "  hint: write the entries' unit in the title (KiB); a chart never converts between units")]
    same, problems = chart(HEAD + "panels:\n" + PANEL["bar"].format(unit="seconds"),
                           export(reported_results=_entries("s", 5.487)))
    assert same is not None and not [p for p in problems if p.rule == "chart-title-unit"]
