"""The numbers of prose, and the numbers of an export they could be copies of.

A prose number is a standalone decimal in body text (code, fences, link
destinations and headings aside): ``88.697``, ``2,048``, ``63%``. These are
not prose numbers, because they name things rather than measure them:
digits glued to letters or other digits (``C16``, ``GB10``, ``v2.0.0``,
``2026-10-10``, ``09:08``), single-digit integers (``3 runs``), years
(1990-2039), days next to a month name (``18 October``), the level of an
interval (``95% CI``) and numbers that name something (after ``line``,
``run``, ``case``, ``step``, ``release``, ``version`` or ``#``; before
``release``).
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..core import jsontext
from ..core.model import JsonPath

_NUMBER = re.compile(r"(?<![\w.,/:#@$€£−-])(?P<sign>[-−])?(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?P<fraction>\.\d+)?"
                     r"(?![\w]|[.,:]\d|-\d)")
_UNIT = re.compile(r"[ \u00a0]?(?P<unit>%|ms/token|ms|s|sec|seconds?|min|minutes?|h|hours?|bytes|B|KiB|MiB|GiB|TiB|"
                   r"KB|MB|GB|TB|percent|tokens/s|tok/s|tokens?|requests?|points|Gbps|W|MHz)(?![\w/])")
_NAMING_AFTER_PERCENT = ("ci", "interval", "intervals", "confidence", "credible")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
           "dec")
_NAMING_WORDS = ("line", "lines", "run", "case", "step", "issue", "§", "item", "version", "release", "build", "rank")
_NAMING_AFTER = ("release", "releases")
_WORD_BEFORE = re.compile(r"([A-Za-z§#]+)[ \u00a0]*$")
_WORD_AFTER = re.compile(r"^[ \u00a0]*([A-Za-z]+)")

SKIPPED_KEYS = frozenset({"source_line"})


@dataclass(frozen=True)
class ProseNumber:
    text: str  # as written: "2,986.0", "63"
    value: decimal.Decimal
    decimals: int
    unit: str  # the unit written right after it ("ms", "%"), or ""
    offset: int  # where it starts in the text run


@dataclass(frozen=True)
class ExportNumber:
    path: JsonPath
    value: decimal.Decimal
    literal: str
    unit: str  # the unit that applies to it ("" for a condition or a count without unit)
    named_unit: str = ""  # the unit its key names (context_limit_tokens: tokens), for telling kinds apart only


_KEY_UNITS = (("tokens_per_second", "tokens/s"), ("_tps", "tokens/s"), ("tokens", "tokens"), ("_seconds", "s"),
              ("_ms", "ms"), ("_gib", "GiB"), ("_mib", "MiB"), ("_gb", "GB"), ("_mb", "MB"), ("_bytes", "bytes"),
              ("_percent", "%"), ("_gbps", "Gbps"))


def key_unit(key: str) -> str:
    """The unit a key's name ends with: ``context_limit_tokens`` -> tokens, ``memory_per_node_gib`` -> GiB."""
    lowered = key.lower()
    return next((unit for suffix, unit in _KEY_UNITS if lowered.endswith(suffix)), "")


def prose_numbers(text: str) -> Iterator[ProseNumber]:
    """The numbers of a text run that the prose check reads as measurements."""
    for match in _NUMBER.finditer(text):
        digits, fraction = match.group("digits"), match.group("fraction") or ""
        if _named(text, match) or (not fraction and _counting(text, match, int(digits.replace(",", "")))):
            continue
        sign = "-" if match.group("sign") else ""
        value = decimal.Decimal(sign + digits.replace(",", "") + fraction)
        unit = _UNIT.match(text, match.end())
        yield ProseNumber(match.group(), value, max(len(fraction) - 1, 0), unit.group("unit") if unit else "",
                          match.start())


def _named(text: str, match: re.Match[str]) -> bool:
    """A number that names something: ``line 92``, ``run 11``, ``#3``, ``release 3.0``, ``3.0 release``."""
    before = _WORD_BEFORE.search(text, 0, match.start())
    after = _WORD_AFTER.match(text[match.end():])
    word_before = before.group(1).lower() if before else ""
    word_after = after.group(1).lower() if after else ""
    return (word_before in _NAMING_WORDS or word_after in _NAMING_AFTER
            or text[:match.start()].endswith("#"))


def _counting(text: str, match: re.Match[str], whole: int) -> bool:
    """An integer that counts or dates rather than measures: ``3 runs``, ``2026``, ``18 October``, ``95% CI``."""
    if whole < 10 or (1990 <= whole <= 2039 and "," not in match.group("digits")):
        return True
    before = _WORD_BEFORE.search(text, 0, match.start())
    after = _WORD_AFTER.match(text[match.end():])
    month_near = (before and before.group(1).lower() in _MONTHS) or (after and after.group(1).lower() in _MONTHS)
    if whole <= 31 and month_near:
        return True
    percent = re.match(r"[ \u00a0]?(%|percent)[ \u00a0]*([A-Za-z]+)", text[match.end():])
    return bool(percent and percent.group(2).lower() in _NAMING_AFTER_PERCENT)  # "95% CI" names a level


def export_numbers(export: Mapping[str, Any]) -> list[ExportNumber]:
    """Every number of the export with the unit that applies to it."""
    found: list[ExportNumber] = []
    stack: list[tuple[JsonPath, Any, str]] = [((), export, "")]
    while stack:
        path, value, unit = stack.pop()
        if isinstance(value, Mapping):
            own = value["unit"] if isinstance(value.get("unit"), str) else ""
            for key, child in value.items():
                if key in SKIPPED_KEYS:
                    continue
                # An entry's unit applies to its value and its uncertainty (but not to a spread ratio).
                inherited = "" if key == "spread_ratio" else unit
                stack.append((path + (key,), child, own if key in ("value", "uncertainty") else inherited))
        elif isinstance(value, list):
            stack.extend((path + (index,), child, unit) for index, child in enumerate(value))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            literal = jsontext.number_text(value)
            named = key_unit(path[-1]) if path and isinstance(path[-1], str) and not unit else ""
            try:
                found.append(ExportNumber(path, decimal.Decimal(literal), literal, unit, named))
            except decimal.InvalidOperation:
                continue
    found.sort(key=lambda number: [str(part) if isinstance(part, str) else f"{part:09d}" for part in number.path])
    return found
