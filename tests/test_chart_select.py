"""Selection forms, field paths and the guards of SPEC §6, at plan level (no drawing)."""

from __future__ import annotations

import csv as csvmodule
import decimal
from pathlib import Path
from xml.etree import ElementTree

from chart_fixtures import HEAD, SCHEMAS, chart, export, fence, ok, only_error

from evidencepress.charts import plan_chart, style

KIND = {kind: HEAD.replace("kind: bar", f"kind: {kind}") for kind in ("line", "range", "interval", "status")}


def labels(plan, panel: int = 0) -> list[str]:  # type: ignore[no-untyped-def]
    return [p.label for p in plan.panels[panel].points]


# --- selection forms -------------------------------------------------------


def test_where_keeps_export_order_and_values_as_authored() -> None:
    plan = ok(
        KIND["line"]
        + "panels:\n  - select:\n      where: {metric: per_request_decode_rate}\n    x: conditions.concurrency\n"
    )
    panel = plan.panels[0]
    assert [p.x for p in panel.points] == [1, 4, 8, 16]
    assert [p.value for p in panel.points] == [88.697, 48.631, 33.236, 22.142]
    assert panel.x_numeric and panel.unit == "tokens/s" and panel.x_label == "concurrency"
    assert [p.whisker.sd for p in panel.points] == [2.562, 1.533, 0.977, 0.362]  # type: ignore[union-attr]
    assert plan.plotted == ("tp2-c1", "tp2-c4", "TP2 C8 decode", "TP2 C16 decode")
    row = plan.rows[0]
    assert (row.label, row.x, row.value, row.unit, row.statistic, row.source_record_id) == (
        "TP2 C1 decode",
        "1",
        88.697,
        "tokens/s",
        "mean of three runs in one boot",
        "tp2-sweep",
    )
    assert row.uncertainty == "±2.562 (1 SD as reported; SD across runs in one boot)"
    assert [item.label for item in panel.legend] == [style.LEGEND_SD]


def test_labels_and_ids_pick_and_order() -> None:
    by_labels = ok(HEAD + "panels:\n  - select:\n      labels: [TP2 C8 decode, TP2 C1 decode]\n")
    assert labels(by_labels) == ["TP2 C8 decode", "TP2 C1 decode"]
    by_ids = ok(HEAD + "panels:\n  - select:\n      ids: [tp2-c4, tp2-c1]\n")
    assert labels(by_ids) == ["TP2 C4 decode", "TP2 C1 decode"]


def test_label_not_found_is_an_error_at_the_item_with_a_suggestion() -> None:
    problem = only_error(HEAD + "panels:\n  - select:\n      labels: [TP2 C1 decode, TP2 C9 decode]\n")
    assert (problem.rule, problem.json_path, problem.location.line, problem.location.col) == (
        "chart-select",
        "panels[0].select.labels[1]",
        27,
        31,
    )
    assert problem.message == "no selected entry has label 'TP2 C9 decode'"
    assert "did you mean" in problem.hint


def test_from_section_and_from_json_pointer() -> None:
    plan = ok(HEAD + "panels:\n  - select: {from: /comparison_groups/1/samples}\n    x: point_id\n    unit: tokens/s\n")
    assert labels(plan) == ["on-s1", "on-s2", "on-s3"]
    assert [p.value for p in plan.panels[0].points] == [42.6, 43.0, 42.2]
    plan = ok(HEAD + "panels:\n  - select: {from: memory_observations}\n")
    assert labels(plan) == ["Peak host RAM", "Explicit KV allocation"]


def test_pointers_string_and_labelled_forms() -> None:
    text = (
        HEAD
        + """\
panels:
  - select:
      pointers:
        - /quality_comparisons/0/diff_points
        - {pointer: /quality_comparisons/1/diff_points, label: ifeval change}
    unit: score points
  - select:
      pointers: [/reported_results/0/value]
"""
    )
    plan = ok(text)
    assert labels(plan) == ["diff points", "ifeval change"]
    assert [p.value for p in plan.panels[0].points] == [-0.6065200909780136, 0.9242144177449169]
    second = plan.panels[1]
    assert second.unit == "tokens/s"  # the unit sibling of the pointed value
    assert second.points[0].whisker is not None and second.points[0].whisker.sd == 2.562
    assert second.points[0].source == "tp2-sweep"


def test_pointer_that_does_not_resolve() -> None:
    problem = only_error(
        HEAD + "panels:\n  - select:\n      pointers: [/quality_comparisons/7/diff_points]\n    unit: x\n"
    )
    assert problem.message == "JSON Pointer /quality_comparisons/7/diff_points does not resolve: no '7' there"
    assert (problem.json_path, problem.location.line) == ("panels[0].select.pointers[0]", 27)
    problem = only_error(HEAD + "panels:\n  - select: {from: /nothing/here}\n")
    assert problem.json_path == "panels[0].select.from" and "does not resolve" in problem.message


def test_pointer_to_an_object_is_not_a_value() -> None:
    problem = only_error(HEAD + "panels:\n  - select:\n      pointers: [/reported_results/0]\n")
    assert "points to an object, not a single value" in problem.message


def test_field_path_maps_over_lists() -> None:
    plan = ok(
        KIND["range"]
        + "panels:\n  - select: {from: comparison_groups}\n    x: id\n    y: samples.value\n    unit: tokens/s\n"
    )
    point = plan.panels[0].points[0]
    assert point.observations == (26.0, 19.9, 22.6) and point.median == 22.6 and point.value is None
    assert point.whisker is not None and (point.whisker.low, point.whisker.high) == (19.9, 26.0)
    assert [r.statistic for r in plan.rows[:4]] == [
        "raw observation 1 of 3",
        "raw observation 2 of 3",
        "raw observation 3 of 3",
        "median of the raw observations (derived)",
    ]
    assert {i.label for i in plan.panels[0].legend} >= {style.LEGEND_MEDIAN, style.LEGEND_RANGE}


def test_where_on_a_mapped_list_matches_any_item() -> None:
    plan = ok(
        KIND["range"] + "panels:\n  - select:\n      from: comparison_groups\n      where: {samples.value: 43.0}\n"
        "    x: id\n    y: samples.value\n    unit: tokens/s\n"
    )
    assert labels(plan) == ["arm-on-short"]


def test_where_booleans_never_match_numbers() -> None:
    problem = only_error(HEAD + "panels:\n  - select:\n      where: {conditions.concurrency: true}\n")
    assert problem.rule == "chart-select"


def test_selection_matching_nothing_names_the_where_key_and_known_values() -> None:
    problem = only_error(HEAD + "panels:\n  - select:\n      where: {metric: tft}\n")
    assert (problem.location.line, problem.location.col, problem.json_path) == (27, 15, "panels[0].select.where.metric")
    assert problem.message == "select matches nothing: no entry of reported_results has metric == 'tft'"
    assert "'ttft'" in problem.hint


def test_selection_whose_conditions_never_meet() -> None:
    problem = only_error(HEAD + "panels:\n  - select:\n      where: {metric: ttft, unit: ms}\n")
    assert problem.json_path == "panels[0].select.where"
    assert "meets every where condition" in problem.message


def test_missing_field_path_is_reported_at_its_key_once() -> None:
    problem = only_error(
        HEAD + "panels:\n  - select: {where: {metric: per_request_decode_rate}}\n    x: conditions.concurency\n"
    )
    assert (problem.rule, problem.json_path, problem.location.line) == ("chart-select", "panels[0].x", 27)
    assert problem.message.startswith("field path 'conditions.concurency' not found on /reported_results/0")
    assert problem.message.endswith("(and 3 more entries)")


def test_missing_default_field_names_the_default() -> None:
    problem = only_error(
        HEAD + "panels:\n  - select: {from: comparison_groups}\n    y: samples.value\n    kind: range\n    unit: x\n"
    )
    assert problem.json_path == "panels[0].x" and "(the default x)" in problem.message
    assert "has: id, arm, workload, samples" in problem.hint


def test_page_without_export() -> None:
    plan, problems = plan_chart(fence(HEAD + "panels:\n  - select: {}\n"), None, "content/a.md", SCHEMAS)
    assert plan is None and problems[0].message == "the page has no export; a chart plots only values selected from it"


# --- guards -----------------------------------------------------------------


def test_s_and_seconds_are_one_unit() -> None:
    plan = ok(HEAD + "panels:\n  - select: {where: {metric: ttft}}\n")
    assert plan.panels[0].unit == "s"


def test_s_and_ms_are_not() -> None:
    problem = only_error(
        HEAD + "panels:\n  - select: {where: {conditions.concurrency: 1, unit: ms}}\n"
        "  - select:\n      labels: [TP2 16K first token, Single Spark C1 first token]\n"
    )
    assert (problem.rule, problem.json_path, problem.location.line) == ("chart-unit", "panels[1].select", 27)
    assert problem.message == (
        "the selected entries mix units: 's' ('TP2 16K first token') and 'ms' "
        "('Single Spark C1 first token'); one unit per panel, values are never converted"
    )


def test_panel_unit_must_agree_and_is_required_without_entry_units() -> None:
    problem = only_error(HEAD + "panels:\n  - select: {where: {metric: ttft}}\n    unit: ms\n")
    assert (problem.rule, problem.json_path, problem.location.line) == ("chart-unit", "panels[0].unit", 27)
    problem = only_error(
        KIND["range"] + "panels:\n  - select: {from: comparison_groups}\n    x: id\n    y: samples.value\n"
    )
    assert (problem.rule, problem.json_path, problem.location.line) == ("chart-unit", "panels[0]", 26)
    assert ok(HEAD + "panels:\n  - select: {where: {metric: ttft}}\n    unit: seconds\n").panels[0].unit == "seconds"


def test_null_is_not_reported_never_zero() -> None:
    plan = ok(HEAD + "panels:\n  - select: {from: memory_observations}\n")
    points = plan.panels[0].points
    assert points[0].value is None and points[1].value == 6
    assert plan.rows[0].value is None


def test_mixed_sources_keep_order_stay_apart_and_are_not_a_ranking() -> None:
    text = HEAD + "panels:\n  - select: {where: {unit: tokens/s}}\n"
    plan = ok(text)
    panel = plan.panels[0]
    assert [p.value for p in panel.points] == [88.697, 48.631, 33.236, 22.142, 2165, 1961, 22.5]
    assert panel.separate_sources and panel.horizontal
    assert [s.block for s in panel.slots] == [0, 0, 0, 0, 1, 1, 2]
    assert style.SEPARATE_SOURCES in plan.notes
    allowed = ok(text, export(conditions={"cross_source_ranking_allowed": True}))
    assert not allowed.panels[0].separate_sources and style.SEPARATE_SOURCES not in allowed.notes


def test_uncertainty_shapes_give_only_their_own_bars_and_notes() -> None:
    plan = ok(
        HEAD + "panels:\n  - select:\n      labels: [TensorFold 32K prefill, 'Served rate, long agentic']\n"
        "  - select: {where: {metric: host_rss}}\n  - select: {where: {metric: task_delta}}\n"
    )
    tensorfold, served = plan.panels[0].points
    assert tensorfold.whisker is not None and tensorfold.whisker.legend == "observed range, not a CI"
    assert served.whisker is None
    assert plan.panels[2].points[0].whisker.legend == style.LEGEND_CI  # type: ignore[union-attr]
    assert plan.notes == (
        "spread ratio 1.04 reported for Served rate, long agentic; descriptive only, no error bar drawn",
        "Separate sources — not a ranking",
        "BF16 host RSS: approximate value as reported; no error bar drawn",
        # the results carry only a few conditions: the others are unknown (not considered, unlike null)
        "Not like with like in panel 1 \u2014 " + " \u00b7 ".join(
            f"{name}: not considered" for name in ("Input tokens", "Output tokens", "KV cache data type",
                                                   "Weight precision", "Engine", "Node count", "Thinking")),
    )
    assert plan.rows[1].uncertainty == "spread ratio 1.04 (descriptive only)"
    assert plan.rows[3].uncertainty == "95% CI -0.2 to 1.2 (paired bootstrap)"


def test_non_numeric_y_for_numeric_kinds() -> None:
    for kind in ("bar", "line", "interval", "range"):
        problem = only_error(
            HEAD.replace("kind: bar", f"kind: {kind}") + "panels:\n  - select: {where: {metric: ttft}}\n    y: metric\n"
        )
        assert (problem.rule, problem.json_path) == ("chart-kind", "panels[0].y"), kind
        assert "plot numbers" in problem.message


def test_list_y_only_for_range() -> None:
    problem = only_error(
        HEAD + "panels:\n  - select: {from: comparison_groups}\n    x: id\n    y: samples.value\n    unit: x\n"
    )
    assert problem.hint == "only range panels draw a list of raw observations"


def test_range_needs_an_observed_range() -> None:
    problem = only_error(KIND["range"] + "panels:\n  - select: {where: {metric: ttft}}\n")
    assert problem.rule == "chart-kind" and "range panels need an observed range" in problem.message
    plan = ok(KIND["range"] + "panels:\n  - select: {where: {metric: prefill_rate}}\n")
    assert [p.value for p in plan.panels[0].points] == [2165, 1961]


def test_interval_from_a_field_path_or_ci95() -> None:
    text = (
        KIND["interval"] + "panels:\n  - select: {from: quality_comparisons}\n    x: task\n    y: diff_points\n"
        "    interval: ci95_points\n    reference: 0\n    unit: score points\n"
    )
    plan = ok(text)
    panel = plan.panels[0]
    assert panel.points[0].whisker.low == -1.8137451343135735  # type: ignore[union-attr]
    # the data files keep the literal; the table a reader sees reads it as every surface does
    assert plan.rows[0].uncertainty == "ci95_points: -1.8137451343135735 to 0.6007049523575464"
    assert plan.rows[0].uncertainty_shown == "95% CI \u22121.8137451343135735 to 0.6007049523575464"
    assert [r.value for r in panel.references] == [0] and "reference (0)" in [i.label for i in panel.legend]
    assert (
        ok(KIND["interval"] + "panels:\n  - select: {where: {metric: task_delta}}\n").panels[0].points[0].whisker.kind
        == "ci"
    )  # type: ignore[union-attr]
    problem = only_error(KIND["interval"] + "panels:\n  - select: {where: {metric: ttft}}\n")
    assert problem.rule == "chart-kind" and "need a confidence interval" in problem.message


def test_status_states() -> None:
    text = (
        KIND["status"] + "panels:\n  - select: {from: quality_comparisons}\n    x: task\n    y: non_inferior\n"
        "    states: {false: {label: not shown, tone: neutral}}\n"
        "  - select: {from: quality_comparisons}\n    x: task\n    y: long_context\n"
        "    states: {skipped: not run, pending review: {label: in review, tone: neutral}}\n"
        "  - select: {from: quality_comparisons}\n    x: task\n    y: passes\n    states: {true: passed}\n"
    )
    plan = ok(text)
    assert [[(p.state, p.tone) for p in panel.points] for panel in plan.panels] == [
        [("not shown", "neutral"), ("not reported", "missing")],
        [("not run", "neutral"), ("in review", "neutral")],
        [("passed", "positive"), ("passed", "positive")],
    ]
    assert plan.panels[0].unit == "" and plan.rows[1].value is None and plan.rows[1].state == "not reported"
    problem = only_error(
        KIND["status"] + "panels:\n  - select: {from: quality_comparisons}\n    x: task\n    y: diff_points\n"
    )
    assert problem.rule == "chart-kind" and "status panels show states" in problem.message


def test_a_status_value_has_no_meaning_until_the_chart_gives_it_one() -> None:
    problem = only_error(
        KIND["status"] + "panels:\n  - select: {from: quality_comparisons}\n    x: task\n    y: long_context\n"
        "    states: {skipped: not run}\n"
    )
    assert problem.format() == (
        "content/guides/a.md:29:5: error: panels[0].states: status value 'pending review' has no state: "
        "a status value means only what the chart says [chart-state]\n"
        "  hint: map it under states: (e.g. states: {pending review: …}) to passed, failed, not run, "
        "not reported or {label, tone}"
    )
    problem = only_error(KIND["status"] + "panels:\n  - select: {from: quality_comparisons}\n    x: task\n    y: passes\n")
    assert (problem.rule, problem.json_path, problem.location.line) == ("chart-state", "panels[0].y", 28)
    assert problem.message.startswith("status value true has no state")


def test_pointer_states_and_grid_columns() -> None:
    text = (
        KIND["status"] + "panels:\n  - select:\n      pointers:\n"
        "        - {pointer: /quality_comparisons/0/passes, label: GSM8K gate, states: {true: {label: kept, tone: positive}}}\n"
        "  - select: {from: quality_comparisons}\n    x: task\n    states: {true: passed, false: failed}\n"
        "    columns:\n      - {y: passes, title: Gate}\n      - {y: non_inferior, title: Non-inferior}\n"
    )
    plan = ok(text)
    assert [(p.label, p.state) for p in plan.panels[0].points] == [("GSM8K gate", "kept")]
    grid = plan.panels[1]
    assert grid.columns == ("Gate", "Non-inferior")
    assert [(p.label, p.series, p.state) for p in grid.points] == [
        ("gsm8k", "Gate", "passed"), ("gsm8k", "Non-inferior", "failed"),
        ("ifeval", "Gate", "passed"), ("ifeval", "Non-inferior", "not reported"),
    ]
    assert "NOT" not in "".join(r.state for r in plan.rows)


def test_series_group_entries_and_panel_kind_overrides_chart_kind() -> None:
    text = (
        HEAD + "panels:\n  - select: {where: {metric: ttft}}\n    series: unit\n"
        "  - kind: status\n    select: {from: quality_comparisons}\n    x: task\n    y: passes\n    series: task\n"
        "    states: {true: passed}\n"
    )
    plan = ok(text)
    assert plan.panels[0].series == ("s", "seconds")
    assert plan.panels[1].kind == "status" and plan.panels[1].columns == ("gsm8k", "ifeval")


def test_line_x_must_be_placeable() -> None:
    problem = only_error(
        KIND["line"] + "panels:\n  - select: {where: {metric: host_rss}}\n    x: conditions.concurrency\n"
    )
    assert problem.rule == "chart-kind" and "not reported" in problem.message
    plan = ok(KIND["line"] + "panels:\n  - select: {where: {metric: per_request_decode_rate}}\n")
    assert not plan.panels[0].x_numeric and len(plan.panels[0].slots) == 4


def test_size_is_known_without_drawing_and_key_is_stable() -> None:
    text = HEAD + "panels:\n  - select: {where: {metric: ttft}}\n"
    first, second = ok(text), ok(text)
    assert first.width == 720 and first.height > 100
    assert first.cache_key == second.cache_key and len(first.cache_key) == 64
    changed = ok(
        text,
        export(
            reported_results=[
                dict(r, value=1.0) if r["metric"] == "ttft" else r for r in export().value["reported_results"]
            ]
        ),
    )
    assert changed.cache_key != first.cache_key
    moved, _ = chart(text, line=40)
    assert moved is not None and moved.cache_key == first.cache_key and moved.line == 40


def test_non_finite_numbers_are_not_plotted() -> None:
    results = [dict(r, value=float("nan")) if r["metric"] == "ttft" else r for r in export().value["reported_results"]]
    problem = only_error(HEAD + "panels:\n  - select: {where: {metric: ttft}}\n", export(reported_results=results))
    assert problem.rule == "chart-kind" and "plot numbers" in problem.message


def test_numeric_categories_are_in_ascending_order_unless_the_selection_orders_them() -> None:
    """Input tokens 26,253 / 61 / 104,805 in export order read as a false dip (issue 28)."""
    document = export()
    results = document.value["reported_results"]
    decode = [r for r in results if r["metric"] == "per_request_decode_rate"]
    scrambled = [decode[2], decode[0], decode[3], decode[1]]  # concurrency 8, 1, 16, 4
    others = [r for r in results if r["metric"] != "per_request_decode_rate"]
    doc = export(reported_results=scrambled + others)
    where = HEAD + "panels:\n  - select:\n      where: {metric: per_request_decode_rate}\n    x: conditions.concurrency\n"
    assert [p.value for p in ok(where, doc).panels[0].points] == [88.697, 48.631, 33.236, 22.142]
    by_labels = ok(HEAD + "panels:\n  - select:\n      labels: [TP2 C8 decode, TP2 C1 decode]\n"
                   "    x: conditions.concurrency\n", doc)
    assert [p.value for p in by_labels.panels[0].points] == [33.236, 88.697], "the author's order is kept"
    by_label_x = ok(HEAD + "panels:\n  - select:\n      where: {metric: per_request_decode_rate}\n", doc)
    assert labels(by_label_x) == ["TP2 C8 decode", "TP2 C1 decode", "TP2 C16 decode", "TP2 C4 decode"]


def test_long_literals_are_labelled_rounded_with_digits_and_warned_of_without() -> None:
    """Every label of a panel with a computed float was dropped, silently (issue 28)."""
    from chart_fixtures import warned

    from evidencepress.charts.units import value_labels

    document = export()
    results = document.value["reported_results"]
    decode = [dict(r) for r in results if r["metric"] == "per_request_decode_rate"]
    decode[0]["value"], decode[1]["value"] = -0.6065200909780136, 48.6
    doc = export(reported_results=decode)
    where = HEAD + "panels:\n  - select:\n      where: {metric: per_request_decode_rate}\n"
    problems = warned(where, doc)
    assert [(p.rule, p.message) for p in problems if p.rule == "chart-digits"] == [(
        "chart-digits", ("a value of the panel has more than 6 decimals (\u22120.6065200909780136): the chart shows "
                        "no value labels"))]
    assert value_labels(ok(where, doc).panels[0].points, "tokens/s") == ["", "", "", ""]
    rounded = ok(where.replace("  - select:", "  - digits: 2\n    select:"), doc)
    panel = rounded.panels[0]
    assert value_labels(panel.points, panel.unit, panel.references, panel.digits) == [
        "\u2248\u22120.61", "48.6", "\u224833.24", "\u224822.14"], "rounded only where more decimals were written"
    assert "\u2248 rounded for display to 2 decimal places; the table lists each value as reported" in rounded.notes
    assert rounded.rows[0].value == -0.6065200909780136, "the table keeps the value as reported"
    assert not [p for p in warned(where.replace("  - select:", "  - digits: 2\n    select:"), doc)
                if p.rule == "chart-digits"]
    refused = only_error(where.replace("  - select:", "  - digits: 7\n    select:"), doc)
    assert "expected a whole number of decimal places from 0 to 6" in refused.message


def test_the_numbers_a_range_row_labels_follow_the_digits_rule() -> None:
    """A range row labels its median and the ends of its range: a long computed float among them is
    warned of (no labels), and ``digits:`` rounds each for display, as it does a value."""
    from chart_fixtures import warned

    from evidencepress.charts.kinds import kind_of
    from evidencepress.charts.units import PointTexts, point_texts

    document = export()
    document.value["comparison_groups"][0]["samples"] = [{"value": v} for v in (0.6065200909780136, 0.7, 0.65)]
    text = KIND["range"] + "panels:\n  - select: {from: comparison_groups}\n    x: id\n    y: samples.value\n    unit: points\n"
    assert [(p.rule, p.message) for p in warned(text, document) if p.rule == "chart-digits"] == [(
        "chart-digits", "a value of the panel has more than 6 decimals (0.6065200909780136): the chart shows no value labels")]
    panel = ok(text, document).panels[0]
    assert point_texts(panel.points, panel.digits, kind_of("range").labelled) == [PointTexts(), PointTexts()]
    rounded = ok(text.replace("  - select:", "  - digits: 2\n    select:"), document)
    panel = rounded.panels[0]
    assert point_texts(panel.points, panel.digits, kind_of("range").labelled) == [
        PointTexts("0.65", "\u22480.61", "0.7"), PointTexts("42.6", "42.2", "43.0")]
    assert "\u2248 rounded for display to 2 decimal places; the table lists each value as reported" in rounded.notes


def test_a_derived_median_is_worked_out_from_the_literals() -> None:
    """The median of 0.1 and 0.2 is 0.15, not the float 0.15000000000000002 (a long literal no label shows)."""
    from chart_fixtures import warned

    document = export()
    document.value["comparison_groups"][0]["samples"] = [{"value": 0.1}, {"value": 0.2}]
    text = KIND["range"] + "panels:\n  - select: {from: comparison_groups}\n    x: id\n    y: samples.value\n    unit: points\n"
    assert ok(text, document).panels[0].points[0].median == 0.15
    assert not [p for p in warned(text, document) if p.rule == "chart-digits"]


def test_every_chart_of_the_example_site_draws_numbers_its_table_lists(example_site: Path) -> None:
    """Range and dot charts drew none of their numbers: 4 of the example site's 43 charts (issue 28).

    Read from the published files alone: each drawing's value labels (the SVG's haloed texts) against
    the values its ``<id>.csv`` lists, as authored with thousands separators and a true minus, or
    marked ≈ and rounded half-up to fewer decimals (``digits:``); a status panel shows its states.
    """
    charts = [csv for csv in sorted((example_site / "_site").rglob("*.csv")) if csv.with_suffix(".svg").is_file()]
    assert len(charts) >= 43
    for table in charts:
        rows = list(csvmodule.DictReader(table.read_text(encoding="utf-8").splitlines()))
        numbers = [row["value"] for row in rows if row["value"] and not row["state"]]
        states = {row["state"] for row in rows if row["state"]}
        for drawing in (table.with_suffix(".svg"), table.with_suffix(".narrow.svg")):
            labels, texts = _drawn_texts(drawing.read_text(encoding="utf-8"))
            name = drawing.relative_to(example_site / "_site")
            if numbers:
                assert any(_shows(label, literal) for label in labels for literal in numbers), (name, labels, numbers)
            if states:
                assert any(text.endswith(state) for text in texts for state in states), (name, texts, states)


def _drawn_texts(svg: str) -> tuple[list[str], list[str]]:
    """The value labels (texts in an ``ep-halo`` group) and every text of an SVG drawing."""
    namespace = "{http://www.w3.org/2000/svg}"
    root = ElementTree.fromstring(svg)
    halos = [group for group in root.iter(f"{namespace}g") if group.get("class") == "ep-halo"]
    labels = ["".join(text.itertext()) for group in halos for text in group.iter(f"{namespace}text")]
    return labels, ["".join(text.itertext()) for text in root.iter(f"{namespace}text")]


def _shows(label: str, literal: str) -> bool:
    """Is ``label`` the literal for reading (``-1200.5`` as ``−1,200.5``), or it rounded for display (``≈…``)?"""
    if label == _reading(literal):
        return True
    number = decimal.Decimal(literal)
    decimals = -number.as_tuple().exponent  # type: ignore[operator]
    return any(label == "\u2248" + _reading(format(number.quantize(decimal.Decimal(1).scaleb(-places),
                                                                   rounding=decimal.ROUND_HALF_UP), "f"))
               for places in range(min(decimals, 7)))


def _reading(literal: str) -> str:
    if "e" in literal.lower():
        return literal.replace("-", "\u2212")
    whole, dot, fraction = literal.lstrip("-").partition(".")
    grouped = f"{int(whole):,}" + dot + fraction
    return ("\u2212" if literal.startswith("-") else "") + grouped
