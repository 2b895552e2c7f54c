"""The prose check: a number in the text that copies an export value instead of referencing it.

A prose number *matches* an export number when it

- equals it (``2,986.0`` and ``2986.0``; the units may differ),
- rounds it: the export number is within half a unit of the prose number's
  last digit (``89`` for ``89.35``, ``0.9`` for ``0.86``),
- or converts it: the prose number has a unit of the same kind as the export
  number's unit and equals it, rounded, after scaling: milliseconds and
  seconds, minutes and hours; bytes, KiB, MiB, GiB, TiB; KB, MB, GB, TB;
  percent and fraction. Binary and decimal byte units (GiB and GB) are
  matched too, and the warning says that the site never converts between them.

Each matching number gets one warning (rule ``prose-number``) at its
line:col with the reference to write instead. Reciprocals (tokens/s and
ms/token) and hand-computed ratios are not detected.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it.token import Token

from ..content.bodyscan import pieces
from ..core.diagnostics import Location, Problem, warning
from ..core.model import JsonPath
from ..schemas.units import canonical_unit
from .prosenumbers import ExportNumber, ProseNumber, export_numbers, prose_numbers

RULE = "prose-number"
MAX_SUGGESTIONS = 3
_SCALES: dict[str, tuple[str, decimal.Decimal]] = {
    "ms": ("time", decimal.Decimal("0.001")), "s": ("time", decimal.Decimal(1)),
    "sec": ("time", decimal.Decimal(1)), "second": ("time", decimal.Decimal(1)),
    "seconds": ("time", decimal.Decimal(1)), "min": ("time", decimal.Decimal(60)),
    "minute": ("time", decimal.Decimal(60)), "minutes": ("time", decimal.Decimal(60)),
    "h": ("time", decimal.Decimal(3600)), "hour": ("time", decimal.Decimal(3600)),
    "hours": ("time", decimal.Decimal(3600)),
    "bytes": ("bytes", decimal.Decimal(1)), "B": ("bytes", decimal.Decimal(1)),
    "KiB": ("bytes", decimal.Decimal(2) ** 10), "MiB": ("bytes", decimal.Decimal(2) ** 20),
    "GiB": ("bytes", decimal.Decimal(2) ** 30), "TiB": ("bytes", decimal.Decimal(2) ** 40),
    "KB": ("bytes", decimal.Decimal(10) ** 3), "MB": ("bytes", decimal.Decimal(10) ** 6),
    "GB": ("bytes", decimal.Decimal(10) ** 9), "TB": ("bytes", decimal.Decimal(10) ** 12),
    "%": ("share", decimal.Decimal("0.01")), "percent": ("share", decimal.Decimal("0.01")),
    "fraction": ("share", decimal.Decimal(1)),
}
_BINARY = {"KiB", "MiB", "GiB", "TiB"}
_DECIMAL = {"KB", "MB", "GB", "TB"}


@dataclass(frozen=True)
class Match:
    kind: str  # "equals", "converts" or "rounds"
    number: ExportNumber


def check_prose(tokens: Sequence[Token], body: str, body_line: int, file: str,
                export: Mapping[str, Any] | None) -> list[Problem]:
    """A warning for every prose number that equals, rounds or converts a number of ``export``."""
    if export is None:
        return []
    candidates: list[ExportNumber] | None = None  # walked once, and only when the prose has a number
    problems: list[Problem] = []
    for piece in pieces(tokens, body, body_line):
        if piece.kind != "text" or piece.in_heading:
            continue
        for number in prose_numbers(piece.content):
            candidates = export_numbers(export) if candidates is None else candidates
            matches = _matches(number, candidates)
            if matches:
                where = Location(file, piece.line, piece.col + number.offset)
                problems.append(_warning(where, number, matches, export))
    return problems


def check_text(text: str, where: Callable[[int], Location], export: Mapping[str, Any]) -> list[Problem]:
    """``check_prose`` for a text outside the body (a chart's alt or caption): ``where`` gives the
    place of the character at an offset of ``text``."""
    candidates = export_numbers(export)
    problems: list[Problem] = []
    for number in prose_numbers(text):
        matches = _matches(number, candidates)
        if matches:
            problems.append(_warning(where(number.offset), number, matches, export))
    return problems


def _matches(number: ProseNumber, candidates: Sequence[ExportNumber]) -> list[Match]:
    found = [Match(kind, candidate) for candidate in candidates if (kind := _match(number, candidate))]
    order = {"equals": 0, "converts": 1, "rounds": 2}
    best = min((order[m.kind] for m in found), default=None)
    return [m for m in found if order[m.kind] == best]


def _match(number: ProseNumber, candidate: ExportNumber) -> str:
    written, reported = _normal(number.unit), _normal(candidate.unit)
    named = _normal(candidate.named_unit)
    if written and (reported or named) and _kind(written) != _kind(reported or named):
        return ""  # a prose "16 GB" is not a "16 ms", nor a count of tokens
    if number.value == candidate.value:
        return "equals"
    if written in _SCALES and reported in _SCALES and written != reported:
        scaled = candidate.value * _SCALES[reported][1] / _SCALES[written][1]
        return "converts" if _rounds(number, scaled) else ""
    if number.decimals == 0 and not (written and written == reported):
        return ""  # an integer rounds a measurement only when it carries the measurement's unit
    return "rounds" if _rounds(number, candidate.value) else ""


def _normal(unit: str) -> str:
    """The unit vocabulary's name for a unit word of the prose (a singular count word as its plural)."""
    return canonical_unit({"token": "tokens", "request": "requests"}.get(unit, unit))


def _kind(unit: str) -> str:
    return _SCALES[unit][0] if unit in _SCALES else unit


def _rounds(number: ProseNumber, value: decimal.Decimal) -> bool:
    """``value`` rounds to ``number`` at the number's last digit (the export value has more digits)."""
    half = decimal.Decimal(5).scaleb(-number.decimals - 1)
    return value != number.value and abs(value - number.value) <= half and number.value != 0


def _warning(where: Location, number: ProseNumber, matches: list[Match], export: Mapping[str, Any]) -> Problem:
    first = matches[0].number
    shown = first.literal + (f" {first.unit}" if first.unit else "")
    kind = matches[0].kind
    if kind == "equals":
        message = f"{number.text} is a value of the export; write it as a reference"
    elif kind == "rounds":
        message = f"{number.text} rounds {shown}, a value of the export"
    else:
        message = f"{number.text} {number.unit} converts {shown}, a value of the export"
    references = [reference(m.number.path, export) for m in matches[:MAX_SUGGESTIONS]]
    if kind == "rounds":  # the same rounding, said explicitly
        references = [f"{{round}}`{ref[len('{value}`'):-1]}; digits={number.decimals}`" for ref in references]
    hint = "write " + " or ".join(references)
    if len(matches) > MAX_SUGGESTIONS:
        more = len(matches) - MAX_SUGGESTIONS
        hint += f" (or {more} more value{'s' if more > 1 else ''} with this number)"
    if kind == "converts":
        hint += _conversion_note(number.unit, first.unit)
    elif kind == "rounds":
        hint += "; a value computed by hand goes through {ratio}, {sum} or {difference}"
    return warning(where, message, RULE, hint=hint)


def _conversion_note(written: str, reported: str) -> str:
    if {written, reported} & _BINARY and {written, reported} & _DECIMAL:
        return f"; the site never converts units, and {reported} and {written} differ by more than the rounding"
    return "; the site never converts units: the reference shows the unit the source reported"


def reference(path: JsonPath, export: Mapping[str, Any]) -> str:
    """The role that selects the value at ``path``: a result by its label (with its record when another
    record uses the label too), anything else by a JSON Pointer."""
    if len(path) >= 3 and path[0] == "reported_results" and isinstance(path[1], int):
        results = export["reported_results"]
        result = results[path[1]]
        field = ".".join(str(part) for part in path[2:])
        label = result.get("label") if isinstance(result, Mapping) else None
        if isinstance(label, str) and "`" not in label and ";" not in label and "#" not in label:
            record = result.get("source_record_id")
            shared = sum(1 for r in results if isinstance(r, Mapping) and r.get("label") == label) > 1
            target = f"{record}/{label}" if shared and isinstance(record, str) else label
            return "{value}`" + target + ("" if field == "value" else f"#{field}") + "`"
    return "{value}`" + _pointer(path, export) + "`"


def _pointer(path: JsonPath, export: Mapping[str, Any]) -> str:
    """A JSON Pointer that names array entries by their id where they have one (stable when entries move)."""
    parts: list[str] = []
    current: Any = export
    for part in path:
        entry = current[part]
        entry_id = entry.get("id") if isinstance(part, int) and isinstance(entry, Mapping) else None
        if isinstance(entry_id, str) and _names_one(current, entry_id):
            parts.append(entry_id.replace("~", "~0"))
        else:
            parts.append(str(part).replace("~", "~0").replace("/", "~1"))
        current = entry
    return "/" + "/".join(parts)


def _names_one(entries: list[Any], entry_id: str) -> bool:
    """An id that a pointer step can use: not a number, no slash, and unique in its array."""
    if not entry_id or entry_id.isdigit() or "/" in entry_id:
        return False
    return sum(1 for e in entries if isinstance(e, Mapping) and e.get("id") == entry_id) == 1
