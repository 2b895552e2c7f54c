"""Render stage: each reported result's comparison key in ``page`` of index.json."""

from __future__ import annotations

from typing import Any

from ..core.export import RESULTS, result_id
from ..schemas.comparability import Rules, comparison


def comparison_members(export: Any, rules: Rules) -> list[dict[str, Any]]:
    """One member per reported result, in export order: its pointer and id, its comparison key
    (null when a key condition is unknown) and which key conditions are unknown."""
    found = export.get(RESULTS) if isinstance(export, dict) else None
    results = found if isinstance(found, list) else []
    return [_member(index, result, rules) for index, result in enumerate(results) if isinstance(result, dict)]


def _member(index: int, result: dict[str, Any], rules: Rules) -> dict[str, Any]:
    key, unknown = comparison(result, rules)
    return {"pointer": f"/{RESULTS}/{index}", "result_id": result_id(result), "comparison_key": key,
            "unknown": list(unknown)}
