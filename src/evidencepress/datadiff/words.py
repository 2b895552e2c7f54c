"""The changes of ``datadiff`` in words, as Markdown list items: ``- value: `245.72` → `250.1` tokens/s``.

The words of ``diff``'s report (review/markdown.py) and of each article's history of its data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .changes import FieldChange, ResultChange, SourceChange
from .mdtext import code, json_code, text


def result_lines(change: ResultChange) -> list[str]:
    name = f"**{text(change.label)}** · {code(change.source_record_id)}"
    if change.status == "changed":
        unit = change.result.get("unit")
        unit_text = unit if isinstance(unit, str) and not any(c.field == "unit" for c in change.changes) else ""
        return [f"- changed {name}"] + ["  " + field_line(c, unit_text) for c in change.changes]
    lines = [f"- {change.status} {name}: {value_text(change.result)}"]
    conditions = change.result.get("conditions")
    if change.status == "added" and isinstance(conditions, dict):
        lines.append(f"  - conditions: {json_code(conditions)}")
    return lines


def value_text(result: Mapping[str, Any]) -> str:
    unit = result.get("unit")
    statistic = result.get("statistic")
    shown = json_code(result.get("value"))
    if isinstance(unit, str):
        shown += f" {text(unit)}"
    if isinstance(statistic, str):
        shown += f" · {text(statistic)}"
    return shown


def field_line(change: FieldChange, unit: str = "") -> str:
    if change.field.startswith("conditions."):
        name = f"condition {code(change.field[len('conditions.'):])}"
    else:
        name = code(change.field) if any(c in change.field for c in '[]"') else text(change.field)
    line = f"- {name}: {json_code(change.old)} → {json_code(change.new)}"
    if change.field == "value" and unit:
        line += f" {text(unit)}"
    if change.note:
        line += f" ({change.note})"
    return line


def source_lines(change: SourceChange) -> list[str]:
    line = f"- {change.status} **{text(change.publisher)}**: {code(change.url)}"
    if change.status != "changed":
        return [f"{line} · revision {code(change.revision)}"]
    return [line] + ["  " + field_line(field) for field in change.changes]
