"""Charts a reader can see: every series colour stands 3:1 against the chart background (WCAG
1.4.11, graphics) in the light and the dark theme and stays apart under colour-blind vision, and
no chart text is smaller than 12 px as a 375 px phone shows it."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

from chart_fixtures import EVERY_KIND, ok
from click.testing import CliRunner
from sitekit import article, export, make_site, result

from evidencepress.charts import render_charts, style
from evidencepress.cli import main

# Machado, Oliveira & Fernandes (2009), severity 1, on linear RGB.
CVD = {
    "deutan": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "protan": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "tritan": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}


def linear(hex_colour: str) -> tuple[float, float, float]:
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return r, g, b


def luminance(rgb: tuple[float, float, float]) -> float:
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]


def contrast(a: str, b: str) -> float:
    """The WCAG 2 contrast ratio of two colours."""
    high, low = sorted((luminance(linear(a)), luminance(linear(b))), reverse=True)
    return (high + 0.05) / (low + 0.05)


def lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = luminance(rgb)
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def seen(hex_colour: str, vision: str) -> tuple[float, float, float]:
    rgb = linear(hex_colour)
    if vision == "normal":
        return lab(rgb)
    m = CVD[vision]
    r, g, b = (min(1.0, max(0.0, sum(m[i][j] * rgb[j] for j in range(3)))) for i in range(3))
    return lab((r, g, b))


def palette(theme: int) -> list[str]:
    return [style.COLORS[f"s{i}"][theme] for i in range(1, len(style.PALETTE) + 1)]


def test_every_series_colour_stands_3_to_1_against_the_chart_background_light_and_dark() -> None:
    ratios = {}
    for theme, name in ((0, "light"), (1, "dark")):
        background = style.COLORS["bg"][theme]
        for number, colour in enumerate(palette(theme), start=1):
            ratios[f"{name} s{number} {colour}"] = round(contrast(colour, background), 2)
    assert all(ratio >= 3.0 for ratio in ratios.values()), ratios
    assert tuple(palette(0)) == style.PALETTE  # what the charts draw is the light theme's palette


def test_the_orange_series_is_darker_than_okabe_itos_and_reads_on_white() -> None:
    assert contrast("#E69F00", "#FFFFFF") < 3  # the orange the review measured at 2.25:1
    assert contrast(style.PALETTE[1], style.BG) >= 3.9


def test_the_series_colours_stay_apart_under_colour_blind_vision() -> None:
    for theme in (0, 1):
        colours = palette(theme)
        for vision in ("normal", "deutan", "protan", "tritan"):
            closest = min(math.dist(seen(a, vision), seen(b, vision)) for a, b in itertools.combinations(colours, 2))
            assert closest >= 10, (theme, vision, closest)


_SVG = re.compile(r'viewBox="0 0 ([\d.]+) [\d.]+"')
_FONT = re.compile(r"font-size: ?([\d.]+)px|font-size=\"([\d.]+)")


def smallest_text_px(svg: bytes, shown_px: float) -> float:
    """The smallest text of a drawing as shown ``shown_px`` wide: font size (in viewBox units) times
    the shown width over the viewBox width."""
    text = svg.decode("utf-8")
    match = _SVG.search(text)
    assert match is not None
    sizes = [float(a or b) for a, b in _FONT.findall(text)]
    assert sizes, "a chart without text"
    return min(sizes) * shown_px / float(match.group(1))


def test_no_narrow_chart_text_is_under_12_px_on_a_375_px_phone() -> None:
    plans = [ok(text) for text in EVERY_KIND.values()]
    narrow = [plan.narrow for plan in plans if plan.narrow is not None]
    assert len(narrow) == len(plans)
    for plan, svg in zip(narrow, render_charts(narrow, jobs=1, cache_dir=None), strict=True):
        assert smallest_text_px(svg, style.NARROW_SHOWN_PX) >= style.MIN_TEXT_PX, plan.kind
    # The phone variant drawn 400 px wide (as before) showed 10 pt value labels at 10.8 px.
    assert 10 * 4 / 3 * style.NARROW_SHOWN_PX / 400 < style.MIN_TEXT_PX


def test_every_drawn_phone_svg_of_a_small_site_has_text_of_12_px_or_more(tmp_path: Path) -> None:
    runs = [result("Prose, engine A", 27.0, conditions={**result()["conditions"], "engine": "A"}),
            result("Prose, engine B", 38.5, conditions={**result()["conditions"], "engine": "B"},
                   uncertainty={"observed_min": 36, "observed_max": 41, "interval_kind": "observed range"})]
    body = """
    Text.

    ```chart
    id: by-engine
    kind: bar
    title: Decode by engine
    alt: Two runs.
    panels:
      - select: {where: {metric: decode_rate}}
        series: conditions.engine
    ```

    ```chart
    id: spread
    kind: range
    title: Observed range
    alt: One range.
    panels:
      - select: {labels: ["Prose, engine B"]}
    ```
    """
    site = make_site(tmp_path / "site", {"guides/a.md": article(body=body, export_doc=export(*runs))})
    outcome = CliRunner().invoke(main, ["build", "--root", str(site), "--jobs", "1"])
    assert outcome.exit_code == 0, outcome.output
    drawings = sorted((site / "_site/guides/a").glob("*.narrow.svg"))
    assert [p.name for p in drawings] == ["by-engine.narrow.svg", "spread.narrow.svg"]
    for path in drawings:
        assert smallest_text_px(path.read_bytes(), style.NARROW_SHOWN_PX) >= style.MIN_TEXT_PX, path.name
