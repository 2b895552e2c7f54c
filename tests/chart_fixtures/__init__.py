"""Shared fixtures of the chart tests: a small export and chart fences placed in a Markdown file."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from evidencepress.charts import ChartPlan, plan_chart
from evidencepress.core.diagnostics import Problem, Severity
from evidencepress.core.model import Document, Fence, Positions
from evidencepress.schemas.load import DEFAULT_FOLDER, SchemaSet, load_schemas

HERE = Path(__file__).parent
FILE = "content/guides/a.md"
FENCE_LINE = 20  # the ```chart line; the YAML starts on line 21


def export(**changes: object) -> Document:
    value = json.loads((HERE / "export.json").read_text(encoding="utf-8"))
    value.update(changes)
    return Document(value, Positions("export"))


def fence(yaml_text: str, line: int = FENCE_LINE, indent: int = 0) -> Fence:
    return Fence("chart", textwrap.dedent(yaml_text).lstrip("\n"), line, indent)


SCHEMAS: SchemaSet = load_schemas(DEFAULT_FOLDER)


def chart(yaml_text: str, doc: Document | None = None, **fence_args: int) -> tuple[ChartPlan | None, list[Problem]]:
    return plan_chart(fence(yaml_text, **fence_args), export() if doc is None else doc, FILE, SCHEMAS)


def ok(yaml_text: str, doc: Document | None = None) -> ChartPlan:
    """The plan of a chart that has no error (it may have warnings: see ``warned``)."""
    plan, problems = chart(yaml_text, doc)
    assert not [p for p in problems if p.is_error], [p.format() for p in problems]
    assert plan is not None
    return plan


def warned(yaml_text: str, doc: Document | None = None) -> list[Problem]:
    """The warnings of a chart that draws (its notes, e.g. chart-comparability, left out)."""
    plan, problems = chart(yaml_text, doc)
    assert plan is not None, [p.format() for p in problems]
    return [p for p in problems if p.severity is Severity.WARNING]


def only_error(yaml_text: str, doc: Document | None = None) -> Problem:
    """The one error of a chart that does not draw (warnings of other panels aside)."""
    plan, problems = chart(yaml_text, doc)
    errors = [p for p in problems if p.is_error]
    assert plan is None
    assert len(errors) == 1, [p.format() for p in problems]
    return errors[0]


HEAD = """\
id: c
kind: bar
title: A chart
alt: What it shows.
"""

# One chart of every kind, for rendering tests.
EVERY_KIND = {
    "line": HEAD.replace("kind: bar", "kind: line")
    + """\
panels:
  - select:
      where: {metric: per_request_decode_rate}
    x: conditions.concurrency
""",
    "bar": HEAD
    + """\
panels:
  - title: Mixed sources, nulls and every uncertainty shape
    select:
      where: {unit: tokens/s}
  - select: {from: memory_observations}
""",
    "range": HEAD.replace("kind: bar", "kind: range")
    + """\
panels:
  - select: {from: comparison_groups}
    x: id
    y: samples.value
    unit: tokens/s
  - select: {where: {metric: prefill_rate}}
""",
    "interval": HEAD.replace("kind: bar", "kind: interval")
    + """\
panels:
  - select: {from: quality_comparisons}
    x: task
    y: diff_points
    interval: ci95_points
    reference: 0
    unit: score points
""",
    "dot": HEAD.replace("kind: bar", "kind: dot")
    + """\
names: {arm-off-short: speculation off, arm-on-short: speculation on}
panels:
  - select: {from: comparison_groups}
    x: id
    y: samples.value
    unit: tokens/s
""",
    "status": HEAD.replace("kind: bar", "kind: status")
    + """\
panels:
  - select: {from: quality_comparisons}
    x: task
    y: non_inferior
    states: {true: passed, false: {label: not shown non-inferior, tone: negative}}
  - select: {from: quality_comparisons}
    x: task
    y: long_context
    states: {skipped: not run, pending review: {label: pending review, tone: neutral}}
""",
}

# A dot panel with a reported summary and interval: eight trial scores, five of them equal.
TRIALS = HEAD.replace("kind: bar", "kind: dot") + """\
names: {tool-eval: tool-eval trials}
panels:
  - select: {from: quality_comparisons, ids: [tool-eval]}
    x: id
    y: scores
    mark: mean
    mark_label: mean as reported
    interval: ci95
    unit: points
"""


def trials(scores: list[float], mean: float, ci95: list[float]) -> Document:
    """The export with one quality comparison of trial ``scores``, their reported ``mean`` and interval."""
    return export(quality_comparisons=[{"id": "tool-eval", "scores": scores, "mean": mean, "ci95": ci95}])
