"""Issue 11, the chart stage: no input, however built, gives a traceback or minutes of work.

Each case is an error at ``path:line:col`` of the chart fence: values a chart cannot draw
faithfully, non-finite YAML numbers, huge labels, too many bars or panels; the site's own
chart schema is enforced; the drawing pool never outgrows the machine.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from chart_fixtures import FILE, HEAD, chart, export, only_error
from click.testing import CliRunner
from sitekit import article, make_site, result
from sitekit import export as site_export

from evidencepress.charts.drawing import pool_size
from evidencepress.charts.limits import MAX_ENTRIES, MAX_LABEL
from evidencepress.cli import main

DECODE = HEAD + "panels:\n  - select: {where: {metric: per_request_decode_rate}}\n"


def _with_value(value: Any, **fields: Any) -> Any:
    document = export()
    first = dict(document.value["reported_results"][0], value=value, **fields)
    document.value["reported_results"] = [first, *document.value["reported_results"][1:]]
    return document


def test_values_a_chart_cannot_draw_faithfully_are_errors_at_the_panel() -> None:
    for value in (1e307, 1.7e308, 2**63, 10**400, -(2**70)):
        problem = only_error(DECODE, _with_value(value))
        assert (problem.rule, problem.json_path, problem.location.line) == ("chart-limit", "panels[0].y", 26)
        assert "beyond ±1e15: a chart cannot draw it faithfully" in problem.message


def test_an_interval_of_plus_minus_1e308_is_an_error() -> None:
    document = _with_value(0.5, uncertainty={"ci95": [-1e308, 1e308]})
    text = HEAD.replace("kind: bar", "kind: interval") + (
        "panels:\n  - select: {where: {id: tp2-c1}}\n"
    )
    problem = only_error(text, document)
    assert problem.rule == "chart-limit" and "-1e+308" in problem.message


def test_non_finite_yaml_references_are_refused_at_their_key() -> None:
    base = HEAD.replace("kind: bar", "kind: interval") + (
        "panels:\n  - select: {from: quality_comparisons}\n    x: task\n    y: diff_points\n"
        "    interval: ci95_points\n    unit: score points\n"
    )
    for literal in ("-.inf", ".inf", ".nan", "1.0e+400"):
        problem = only_error(base + f"    reference: {literal}\n")
        assert (problem.rule, problem.json_path, problem.location.line, problem.location.col) == (
            "chart-schema", "panels[0].reference", 31, 5,
        ), literal
        assert "is not a finite number" in problem.message


def test_a_one_megabyte_label_is_an_error_not_minutes_of_wrapping() -> None:
    huge = "x" * 1_000_000
    problem = only_error(DECODE, _with_value(1.0, label=huge))
    assert problem.rule == "chart-limit" and f"at most {MAX_LABEL}" in problem.message
    spec = HEAD + f"panels:\n  - title: {huge}\n    select: {{where: {{metric: ttft}}}}\n"
    problem = only_error(spec)
    assert (problem.rule, problem.json_path) == ("chart-schema", "panels[0].title")
    assert problem.message.startswith("expected a line of text of at most 200 characters")


def test_ten_thousand_bars_are_an_error_before_anything_is_drawn() -> None:
    document = export()
    entry = document.value["reported_results"][0]
    document.value["reported_results"] = [dict(entry, label=f"run {i}") for i in range(10_000)]
    problem = only_error(DECODE, document)
    assert problem.format() == (
        f"{FILE}:26:5: error: panels[0].select: the panel selects 10,000 entries; a panel shows at most "
        f"{MAX_ENTRIES} [chart-limit]\n  hint: narrow select.where, or split the values over several panels or charts"
    )


def test_a_thousand_panels_are_an_error() -> None:
    panels = "".join("  - select: {where: {metric: ttft}}\n" for _ in range(1000))
    plan, problems = chart(HEAD + "panels:\n" + panels)
    assert plan is None
    assert [(p.rule, p.json_path, p.message.split(",")[0]) for p in problems] == [
        ("chart-schema", "panels", "expected one to twelve panels")
    ]


def test_the_drawing_pool_never_outgrows_the_machine() -> None:
    cpus = os.cpu_count() or 1
    assert pool_size(64, 300) == min(64, cpus)
    assert pool_size(64, 1) == 1 and pool_size(0, 10) == 1


def test_the_sites_own_chart_schema_is_enforced(tmp_path: Path) -> None:
    body = "Text.\n\n```chart\nid: decode\nkind: bar\ntitle: Decode\nalt: Two runs.\npanels:\n  - select:\n" \
           "      where: {metric: decode_rate}\n```\n"
    data = site_export(result("Run A", 42.5), result("Run B", 40.0))
    root = make_site(tmp_path, {"guides/a.md": article("A", body, data)})
    defaults = Path(__file__).resolve().parents[1] / "schema"
    (root / "schema").mkdir()
    for schema in defaults.iterdir():
        (root / "schema" / schema.name).write_bytes(schema.read_bytes())
    chart_schema = json.loads((defaults / "chart.schema.json").read_text())
    chart_schema["properties"]["title"]["maxLength"] = 3  # this site wants terse titles
    (root / "schema" / "chart.schema.json").write_text(json.dumps(chart_schema))
    outcome = CliRunner().invoke(main, ["build", "--root", str(root)])
    assert outcome.exit_code == 1
    assert 'content/guides/a.md:17:1: error: title: expected a line of text of at most 200 characters, got "Decode"' \
        in outcome.output  # the site's limit (3) applies; its message is the site's too
    assert "[chart-schema]" in outcome.output and "Traceback" not in outcome.output


def test_extreme_charts_through_the_cli_report_positions_and_never_a_traceback(tmp_path: Path) -> None:
    body = "Text.\n\n```chart\nid: decode\nkind: bar\ntitle: Decode\nalt: Two runs.\npanels:\n  - select:\n" \
           "      where: {metric: decode_rate}\n    reference: -.inf\n```\n"
    data = site_export(result("Run A", 1e308), result("Run B", 2**64))
    root = make_site(tmp_path, {"guides/a.md": article("A", body, data)})
    outcome = CliRunner().invoke(main, ["build", "--root", str(root)])
    assert outcome.exit_code == 1 and "Traceback" not in outcome.output
    assert "content/guides/a.md:22:5: error: panels[0].reference: -inf is not a finite number" in outcome.output
