"""What an entry's ``uncertainty`` gives a chart: a whisker, a note, a line of text.

Only the shapes of SPEC §4.1 draw anything: ``standard_deviation`` (± bar),
``observed_min``/``observed_max`` (whisker, not a CI), ``ci95`` (interval).
``spread_ratio`` and ``approximate`` are descriptive: no bar, a note instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..core import jsontext, numbers
from . import style
from .model import Whisker


def is_number(value: Any) -> bool:
    """A finite JSON number (booleans are not numbers; NaN and Infinity are not JSON)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return isinstance(value, int) or math.isfinite(value)  # an int of any size is finite (isfinite would overflow)


def authored(value: Any) -> str:
    """A value as the export wrote it (JSON text). Numbers (the commonest, thousands on a record
    page) are written at once."""
    if is_number(value):
        return jsontext.number_text(value)
    return jsontext.dumps(value, indent=None)


def from_uncertainty(uncertainty: Any, label: str) -> tuple[Whisker | None, str]:
    """The whisker an uncertainty gives (if any) and the note it needs (if any)."""
    if not isinstance(uncertainty, dict):
        return None, ""
    sd = uncertainty.get("standard_deviation")
    low, high = uncertainty.get("observed_min"), uncertainty.get("observed_max")
    ci = uncertainty.get("ci95")
    if is_number(sd):
        return Whisker("sd", style.LEGEND_SD, sd=sd), ""
    if is_number(low) and is_number(high):
        return Whisker("range", style.LEGEND_RANGE, low=low, high=high), ""
    if isinstance(ci, list) and len(ci) == 2 and all(is_number(v) for v in ci):
        return Whisker("ci", style.LEGEND_CI, low=ci[0], high=ci[1]), ""
    if "spread_ratio" in uncertainty:
        ratio = authored(uncertainty["spread_ratio"])
        return None, f"spread ratio {ratio} reported for {label}; descriptive only, no error bar drawn"
    if uncertainty.get("approximate") is True:
        return None, f"{label}: approximate value as reported; no error bar drawn"
    return None, f"{label}: uncertainty {authored(uncertainty)} is not a known shape; no error bar drawn"


def read(value: Any) -> str:
    """A value as a table shows it to a reader: a number through the one formatter of every surface
    (thousands separators, a true minus, the authored digits), anything else as authored."""
    return numbers.for_reading(authored(value)) if is_number(value) else authored(value)


def uncertainty_text(uncertainty: Any, number: Callable[[Any], str] = authored) -> str:
    """An uncertainty in words, each number as ``number`` writes it: ``authored`` (the literal, for
    index.md and the data files) or ``read`` (HTML tables)."""
    if not isinstance(uncertainty, dict):
        return ""
    if "standard_deviation" in uncertainty:
        kind = uncertainty.get("kind")
        return f"±{number(uncertainty['standard_deviation'])} (1 SD as reported{'; ' + str(kind) if kind else ''})"
    if "observed_min" in uncertainty:
        kind = uncertainty.get("interval_kind") or "observed range, not a CI"
        low, high = number(uncertainty["observed_min"]), number(uncertainty.get("observed_max"))
        return f"observed range {low} to {high} ({kind})"
    if "ci95" in uncertainty and isinstance(uncertainty["ci95"], list) and len(uncertainty["ci95"]) == 2:
        low, high = uncertainty["ci95"]
        method = uncertainty.get("method")
        return f"95% CI {number(low)} to {number(high)}{' (' + str(method) + ')' if method else ''}"
    if "spread_ratio" in uncertainty:
        return f"spread ratio {number(uncertainty['spread_ratio'])} (descriptive only)"
    if uncertainty.get("approximate") is True:
        return "approximate (as reported)"
    return authored(uncertainty)
