"""The chart fence grammar: schema errors, literal numbers, key combinations, positions."""

from __future__ import annotations

import json

import jsonschema
from chart_fixtures import EVERY_KIND, FILE, HEAD, SCHEMAS, chart, ok, only_error

from evidencepress.charts import chart_id_problems
from evidencepress.charts.kinds import registry
from evidencepress.charts.schema import SCHEMA_FILE, chart_kinds

SCHEMA_ID = "https://evidencepress.dev/schema/chart.schema.json"


def chart_schema() -> dict:
    return SCHEMAS.documents[SCHEMA_FILE]

SELECT = """\
panels:
  - select:
      where: {metric: ttft}
"""


def test_schema_is_draft_2020_12_with_descriptions_and_closed_objects() -> None:
    schema = chart_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == SCHEMA_ID
    objects = [schema, *[d for d in schema["$defs"].values() if d.get("type") == "object" and "properties" in d]]
    for node in objects:
        assert node["additionalProperties"] is False
        for name, prop in node["properties"].items():
            assert "description" in prop, name


def test_every_kind_of_the_schema_is_registered_and_the_other_way_round() -> None:
    assert sorted(chart_kinds(SCHEMAS)) == sorted(registry())


def test_valid_chart_gives_plan_with_defaults() -> None:
    plan = ok(HEAD + "caption: As reported.\n" + SELECT)
    assert (plan.id, plan.kind, plan.title, plan.alt, plan.caption, plan.line) == (
        "c",
        "bar",
        "A chart",
        "What it shows.",
        "As reported.",
        20,
    )
    assert (plan.location.line, plan.location.col) == (21, 1)
    panel = plan.panels[0]
    assert panel.kind == "bar" and panel.title == ""
    assert [p.label for p in panel.points] == ["TP2 16K first token", "TP2 64K first token"]


def test_unknown_key_names_the_key_at_its_line_and_column() -> None:
    problem = only_error(HEAD + "captoin: x\n" + SELECT)
    assert problem.format() == (
        f"{FILE}:25:1: error: captoin: unknown key 'captoin' [chart-schema]\n"
        "  hint: did you mean 'caption'? allowed keys: alt, caption, id, kind, names, panels, title"
    )


def test_unknown_key_in_a_panel_and_in_select() -> None:
    _, problems = chart(HEAD + "panels:\n  - select:\n      wher: {metric: ttft}\n    unti: s\n")
    found = {(p.location.line, p.location.col, p.json_path, p.message) for p in problems}
    assert found == {
        (27, 7, "panels[0].select.wher", "unknown key 'wher'"),
        (28, 5, "panels[0].unti", "unknown key 'unti'"),
    }


def test_missing_required_keys_point_at_the_chart_or_the_panel() -> None:
    _, problems = chart("id: c\nkind: bar\ntitle: T\npanels:\n  - title: no select\n")
    found = {(p.location.line, p.json_path, p.message) for p in problems}
    assert found == {(21, "alt", "missing required key 'alt'"), (25, "panels[0].select", "missing required key 'select'")}


def test_kind_enum_and_id_slug() -> None:
    _, problems = chart(HEAD.replace("kind: bar", "kind: pie").replace("id: c", "id: Bad_Id") + SELECT)
    by_path = {p.json_path: p for p in problems}
    assert by_path["kind"].message == 'expected one of bar, line, range, interval, status, dot, got "pie"'
    assert (by_path["kind"].location.line, by_path["kind"].location.col) == (22, 1)
    assert by_path["id"].message == 'expected a slug of at most 64 lowercase letters, digits and hyphens, got "Bad_Id"'
    assert all(p.rule == "chart-schema" for p in problems)


def test_an_id_with_a_trailing_newline_is_not_a_slug() -> None:
    problem = only_error(HEAD.replace("id: c", 'id: "decode\\n"') + SELECT)
    assert (problem.json_path, problem.rule) == ("id", "chart-schema")


def test_wrong_types_and_empty_panels() -> None:
    _, problems = chart("id: c\nkind: bar\ntitle: 2024\nalt: A\npanels: []\n")
    found = {(p.json_path, p.message, p.hint) for p in problems}
    assert ("title", "expected a non-empty line of text, got 2024",
            "write the text; quote it when YAML would read it as a number, a date or true/false") in found
    assert ("panels", "expected one to twelve panels, got []", "split a larger chart into several charts") in found


def test_unquoted_yaml_date_in_where_is_its_iso_text() -> None:
    plan = ok(HEAD + "panels:\n  - select:\n      where: {conditions.experiment_date: 2026-10-01}\n")
    assert plan.panels[0].points  # the YAML date is read as the text "2026-10-01" and matches the export's


def test_literal_number_as_y_or_x_is_refused() -> None:
    _, problems = chart(HEAD + "panels:\n  - select: {where: {metric: ttft}}\n    y: 42\n    x: 3\n")
    assert {(p.rule, p.json_path, p.location.line, p.location.col) for p in problems} == {
        ("chart-literal", "panels[0].y", 27, 5),
        ("chart-literal", "panels[0].x", 28, 5),
    }
    message = next(p.message for p in problems if p.json_path == "panels[0].y")
    assert message == "y: 42 is a number written in the chart; plotted values come only from the page's export"


def test_lists_of_numbers_anywhere_are_refused_once_each() -> None:
    text = HEAD + "panels:\n  - select:\n      labels: [1, 2]\n    values: [3.5, 4]\n"
    _, problems = chart(text)
    assert sorted((p.rule, p.json_path) for p in problems) == [
        ("chart-literal", "panels[0].select.labels"),
        ("chart-literal", "panels[0].values"),
    ]
    labels = next(p for p in problems if p.json_path.endswith("labels"))
    assert "a list of numbers (1, 2)" in labels.message and 'quote them ("1")' in labels.hint


def test_reference_is_the_only_number_allowed() -> None:
    assert "reference: 0" in EVERY_KIND["interval"]
    assert [r.value for r in ok(EVERY_KIND["interval"]).panels[0].references] == [0]


def test_keys_that_belong_to_other_kinds() -> None:
    _, problems = chart(
        HEAD + "panels:\n  - select: {where: {metric: ttft}}\n    reference: 0\n    states: {x: passed}\n"
    )
    assert {(p.rule, p.message) for p in problems} == {
        ("chart-kind", "states applies to status panels, not bar"),
    }


def test_status_panel_has_no_unit() -> None:
    problem = only_error(HEAD + "panels:\n  - kind: status\n    unit: s\n    select: {from: quality_comparisons}\n")
    assert (problem.rule, problem.message, problem.location.line) == (
        "chart-kind",
        "unit applies to bar, line, range, interval, dot panels, not status",
        27,
    )


def test_pointers_do_not_combine_with_where_or_y() -> None:
    text = (
        HEAD
        + "panels:\n  - select:\n      where: {metric: ttft}\n"
        + "      pointers: [/reported_results/0/value]\n    y: value\n"
    )
    _, problems = chart(text)
    assert {(p.json_path, p.rule) for p in problems} == {
        ("panels[0].select.where", "chart-select"),
        ("panels[0].y", "chart-select"),
    }


def test_bad_pointer_syntax_in_pointers() -> None:
    problem = only_error(HEAD + "panels:\n  - select:\n      pointers: [{pointer: reported_results/0}]\n")
    assert problem.json_path == "panels[0].select.pointers[0]"
    assert problem.message.startswith("expected a JSON Pointer or {pointer, label}")


def test_invalid_yaml_is_reported_at_its_line() -> None:
    problem = only_error(HEAD + "panels:\n  - select: {where: {metric: ttft}\n")
    assert problem.rule == "yaml" and problem.location.line >= 26


def test_positions_follow_fence_indentation() -> None:
    _, problems = chart(HEAD + "captoin: x\n" + SELECT, indent=3)
    assert (problems[0].location.line, problems[0].location.col) == (25, 4)


def test_not_a_mapping() -> None:
    problem = only_error("- just\n- a list\n")
    assert (problem.location.line, problem.rule) == (20, "chart-schema")


def test_duplicate_ids_name_the_first_use() -> None:
    first = ok(HEAD + SELECT)
    second = ok(HEAD + SELECT)
    problems = chart_id_problems([first, second])
    assert [p.message for p in problems] == ["chart id 'c' is already used on line 21; ids are unique in a page"]


def test_the_id_index_is_taken_by_the_page_files() -> None:
    plan = ok(HEAD.replace("id: c", "id: index") + SELECT)
    problems = chart_id_problems([plan])
    assert [(p.rule, p.message) for p in problems] == [("chart-id", "chart id 'index' is taken by the page's own files")]
    assert "index.csv and index.json" in problems[0].hint


def test_spec_dump_is_json_serialisable() -> None:
    plan = ok(HEAD + SELECT)
    json.dumps([row.__dict__ for row in plan.rows])
