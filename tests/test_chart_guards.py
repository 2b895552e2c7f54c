"""Charts a reader trusts at a glance: guards that warn (rule + hint), names for ids, the dot kind,
stacked counts, references from the export, the accessible table and the colour roles."""

from __future__ import annotations

import re
from pathlib import Path

from chart_fixtures import HEAD, ok, only_error, warned

from evidencepress.charts import chart_table, render_charts, style
from evidencepress.charts.checks import looks_like_id, stem

REPO = Path(__file__).resolve().parents[1]
DOT = HEAD.replace("kind: bar", "kind: dot")


def rules(text: str) -> list[tuple[str, str, int]]:
    return [(p.rule, p.json_path, p.location.line) for p in warned(text)]


def test_a_panel_of_one_value_warns_unless_a_reference_gives_it_a_scale() -> None:
    problems = warned(HEAD + "panels:\n  - select: {where: {metric: served_rate}}\n")
    assert [p.format() for p in problems] == [(
        "content/guides/a.md:26:5: warning: panels[0].select: the panel shows one value ('Served rate, long agentic') "
        "on a scale of its own [chart-single-value]\n  hint: a lone bar says nothing by its height: put it beside "
        "values of the same kind, draw a reference it is compared with, or state it in the prose"
    )]
    compared = HEAD + (
        "panels:\n  - select: {where: {metric: served_rate}}\n"
        "    reference: {pointer: /reported_results/0/value, label: TP2 C1 decode}\n"
    )
    assert warned(compared) == []


def test_unlike_quantities_side_by_side_warn_once() -> None:
    assert rules(HEAD + "panels:\n  - select: {where: {unit: tokens/s}}\n") == [
        ("chart-mixed-kinds", "panels[0].select", 26)
    ]
    # Metrics naming one kind of quantity (a statistic word aside) stay together.
    assert stem("KL_reference_to_quant") == stem("KL_quant_to_reference") == "kl"
    assert stem("median_ttft") != stem("median_time_per_output_token")


def test_different_denominators_side_by_side_warn() -> None:
    from chart_fixtures import export

    document = export()
    results = document.value["reported_results"]
    shares = [
        dict(results[0], label=f"share of {n}", metric="accuracy", unit="percent", value=v,
             conditions=dict(results[0]["conditions"], total=n))
        for n, v in ((20, 70.0), (4, 100.0))
    ]
    document.value["reported_results"] = results + shares
    found = warned(HEAD + "panels:\n  - select: {where: {metric: accuracy}}\n", document)
    assert [(p.rule, p.message) for p in found] == [
        ("chart-mixed-kinds", "the panel's values have different denominators (total 20, total 4)")
    ]


def test_a_limit_drawn_as_a_bar_beside_measured_values_warns_and_a_reference_does_not() -> None:
    bars = HEAD + (
        "panels:\n  - select:\n      pointers:\n"
        "        - {pointer: /reported_results/2/value, label: decode at C8}\n"
        "        - {pointer: /reported_results/0/value, label: decode cap}\n"
    )
    assert [p.rule for p in warned(bars)] == ["chart-limit-as-bar"]
    line = HEAD + (
        "panels:\n  - select:\n      pointers:\n        - {pointer: /reported_results/2/value, label: decode at C8}\n"
        "    reference: [{pointer: /reported_results/0/value, label: decode cap}]\n"
    )
    plan = ok(line)
    assert warned(line) == []
    assert [(r.value, r.label) for r in plan.panels[0].references] == [(88.697, "decode cap")]
    assert "decode cap (88.697)" in [item.label for item in plan.panels[0].legend]


def test_overlapping_observations_warn_on_range_and_stack_on_dot() -> None:
    from chart_fixtures import export

    document = export()
    document.value["comparison_groups"][0]["samples"] = [{"value": v} for v in (88, 88, 86, 88)]
    text = "panels:\n  - select: {from: comparison_groups}\n    x: id\n    y: samples.value\n    unit: points\n"
    kind_range = HEAD.replace("kind: bar", "kind: range")
    found = warned(kind_range + text, document)
    assert ("chart-overlap", "2 of the 4 observations of 'arm-off-short' sit on top of others and cannot be seen") in [
        (p.rule, p.message) for p in found
    ]
    names = "names: {arm-off-short: speculation off, arm-on-short: NEXTN on}\n"
    assert warned(DOT + names + text, document) == []


def test_internal_ids_warn_until_the_chart_names_them() -> None:
    assert looks_like_id("median_ttft") and looks_like_id("32K telemetry host_rss") and looks_like_id("NOT_RUN_BY_GATE")
    assert looks_like_id("qwen-nospec-v3") and not looks_like_id("DFlash2, depth 7") and not looks_like_id("non-inferior")
    text = "panels:\n  - select: {where: {metric: per_request_decode_rate}}\n    series: metric\n"
    found = warned(HEAD + text)
    assert [(p.rule, p.json_path, p.message) for p in found] == [
        ("chart-id-label", "panels[0].series", "a series shows the internal id 'per_request_decode_rate'")
    ]
    named = HEAD + "names: {per_request_decode_rate: decode per request}\n" + text
    plan = ok(named)
    assert warned(named) == [] and plan.panels[0].series == ("decode per request",)
    pointer = HEAD + "panels:\n  - select:\n      pointers: [/quality_comparisons/0/diff_points]\n    unit: points\n"
    assert ("chart-id-label", "the label of /quality_comparisons/0/diff_points falls back to its key: 'diff points'") in [
        (p.rule, p.message) for p in warned(pointer)
    ]


def test_a_condition_field_carries_its_own_unit() -> None:
    problem = only_error(HEAD + "panels:\n  - select: {where: {metric: ttft}}\n    y: conditions.concurrency\n")
    assert problem.format().startswith(
        "content/guides/a.md:27:5: error: panels[0].y: y (conditions.concurrency) is not the entries' value: their "
        "unit describes the value, not this field; the panel needs unit: [chart-unit]"
    )
    plan = ok(HEAD + "panels:\n  - select: {where: {metric: ttft}}\n    y: conditions.concurrency\n    unit: requests\n")
    assert plan.panels[0].unit == "requests"  # not the entries' unit "s"


def test_the_dot_kind_draws_every_observation_and_derives_nothing() -> None:
    text = DOT + (
        "names: {arm-off-short: speculation off, arm-on-short: NEXTN on}\n"
        "panels:\n  - select: {from: comparison_groups}\n    x: id\n    y: samples.value\n    unit: tokens/s\n"
    )
    plan = ok(text)
    panel = plan.panels[0]
    assert [p.observations for p in panel.points] == [(26.0, 19.9, 22.6), (42.6, 43.0, 42.2)]
    assert all(p.median is None and p.value is None and p.whisker is None for p in panel.points)
    assert [i.label for i in panel.legend] == ["raw observation"]
    assert not any("median" in r.statistic or "derived" in r.statistic for r in plan.rows)
    svg = render_charts([plan], jobs=1, cache_dir=None)[0].decode()
    assert "speculation off" in svg and "arm-off-short" not in svg


def test_stacked_counts_add_their_parts_end_to_end() -> None:
    text = HEAD + (
        "panels:\n  - select:\n      pointers:\n"
        "        - {pointer: /reported_results/3/value, label: decode, series: first pass}\n"
        "        - {pointer: /reported_results/2/value, label: decode, series: retried}\n"
        "    stacked: true\n"
    )
    plan = ok(text)
    panel = plan.panels[0]
    assert panel.stacked and panel.horizontal and len(panel.slots) == 1 and panel.series == ("first pass", "retried")
    svg = render_charts([plan], jobs=1, cache_dir=None)[0]
    assert b"first pass" in svg


def test_the_table_groups_rows_by_panel_and_drops_empty_columns() -> None:
    plan = ok(HEAD + "panels:\n  - title: First\n    select: {where: {metric: ttft}}\n"
              "  - title: Second\n    select: {where: {metric: served_rate}}\n")
    table = chart_table(plan)
    assert table.headers == ("Label", "Value", "Unit", "Statistic", "Uncertainty")  # no Series column
    assert [g.title for g in table.groups] == ["First", "Second"]
    assert table.groups[0].rows[0] == ("TP2 16K first token", "5.487", "s", "mean of four boots",
                                       "±0.045 (1 SD as reported)")
    status = ok(HEAD.replace("kind: bar", "kind: status") + (
        "panels:\n  - select: {from: quality_comparisons}\n    x: task\n    y: long_context\n"
        "    states: {skipped: not run, pending review: {label: in review, tone: neutral}}\n"))
    assert [row[1] for group in chart_table(status).groups for row in group.rows] == ["not run", "in review"]


def test_the_site_css_defines_every_colour_role_of_the_charts() -> None:
    css = (REPO / "templates/static/style.css").read_text()
    block = css[css.index("/* charts ---") : css.index("/* end charts */")]
    light, dark = block.split("@media (prefers-color-scheme: dark)")
    for role, (light_value, dark_value) in style.COLORS.items():
        assert f"--ep-{role}: {light_value.lower()};" in light, role
        assert f"--ep-{role}: {dark_value.lower()};" in dark, role
    assert re.search(r'@font-face \{ font-family: "DejaVu Sans"; src: url\("fonts/DejaVuSans.woff2"\)', block)
    assert (REPO / "templates/static/fonts/LICENSE_DEJAVU").is_file()


def _runs(*pairs: tuple[str, object]):  # type: ignore[no-untyped-def]
    from chart_fixtures import export as load
    from sitekit import result

    entries = [result(f"Run {n}", 10 + n, metric="m", conditions={**result()["conditions"], "revision_prefix": prefix,
                                                                  "thinking": thinking})
               for n, (prefix, thinking) in enumerate(pairs)]
    return load(reported_results=entries)


def test_commit_prefixes_bare_booleans_and_key_value_labels_warn_with_a_hint() -> None:
    assert looks_like_id("fd2365042f56") and looks_like_id("92aa710") and looks_like_id("thinking: false")
    assert looks_like_id("file_inventory_not_RAM")
    assert not looks_like_id("1234567") and not looks_like_id("decade") and not looks_like_id("At 32K: prefill")
    document = _runs(("fd2365042f56", False), ("92aa710b533d", "adaptive"))
    text = "panels:\n  - select: {where: {metric: m}}\n    x: conditions.revision_prefix\n    series: conditions.thinking\n"
    assert [p.format() for p in warned(HEAD + text, document)] == [
        ("content/guides/a.md:27:5: warning: panels[0].x: a category shows the commit prefix 'fd2365042f56' [chart-id-label]\n"
        "  hint: give it a human label in names: (e.g. names: {fd2365042f56: …}), or plot a human field such as label"),
        ("content/guides/a.md:28:5: warning: panels[0].series: a series shows the bare value 'false' [chart-id-label]\n"
        "  hint: give it a human label in names: (e.g. names: {\"false\": …}), or plot a human field such as label"),
        ("content/guides/a.md:27:5: warning: panels[0].x: a category shows the commit prefix '92aa710b533d' [chart-id-label]\n"
        "  hint: give it a human label in names: (e.g. names: {\"92aa710b533d\": …}), or plot a human field such as label"),
    ]
    names = ('names: {"fd2365042f56": build fd23650 (night run), "92aa710b533d": build 92aa710 (final run), '
             '"false": thinking off, adaptive: adaptive thinking}\n')
    plan = ok(HEAD + names + text, document)
    assert warned(HEAD + names + text, document) == []
    assert plan.panels[0].series == ("thinking off", "adaptive thinking")
    key_value = _runs(("a", "mode: fast"), ("b", "mode: slow"))
    found = warned(HEAD + "panels:\n  - select: {where: {metric: m}}\n    series: conditions.thinking\n", key_value)
    assert [p.message for p in found] == ["a series shows the internal id 'mode: fast'",
                                          "a series shows the internal id 'mode: slow'"]
