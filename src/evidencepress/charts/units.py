"""One unit per panel: names that mean the same unit, and nothing more.

``s`` and ``seconds`` are one unit; ``s`` and ``ms`` are two (the unit
vocabulary's ``same_as``, ``schemas.units``). Values are never converted
between units, so a panel whose entries disagree is an error.
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence

from ..core import jsontext
from ..schemas.units import Units, canonical_unit
from . import style
from .model import Point, Reference

MAX_FRACTION_DIGITS = 6  # a literal with more decimals is a computed float: the table shows it, the chart does not

def long_literals(points: Sequence[Point]) -> bool:
    """Does a value of the panel have more than MAX_FRACTION_DIGITS decimals (a computed float)?"""
    return any(p.value is not None and len(style.display_number(p.value).partition(".")[2]) > MAX_FRACTION_DIGITS
               for p in points)


def rounded_label(value: float, digits: int) -> str:
    """``value`` as a label of at most ``digits`` decimals: ``≈−0.61`` for −0.6065200909780136 and 2, the
    literal itself when it has no more decimals than that."""
    literal = jsontext.number_text(value)
    if "e" in literal.lower() or len(literal.partition(".")[2]) <= digits:
        return style.display_number(value)
    quantum = decimal.Decimal(1).scaleb(-digits)
    shown = decimal.Decimal(literal).quantize(quantum, rounding=decimal.ROUND_HALF_UP)
    return "\u2248" + style.group_digits(format(shown, "f"))


def unit_key(unit: str, units: Units | None = None) -> str:
    """The name that stands for ``unit`` when comparing, as the unit vocabulary says (``units``: the
    site's; None: the package's): ``seconds`` -> ``s``, ``tok/s`` -> ``tokens/s``."""
    return canonical_unit(unit, units)


def same_unit(a: str, b: str, units: Units | None = None) -> bool:
    return unit_key(a, units) == unit_key(b, units)


# A value axis in a larger unit: its ticks are divided, its title is the new unit. (unit, step, prefixed units)
_PREFIXES: dict[str, tuple[float, tuple[str, ...]]] = {
    "bytes": (1000, ("kB", "MB", "GB", "TB", "PB")),
    "B": (1000, ("kB", "MB", "GB", "TB", "PB")),
    "kB": (1000, ("MB", "GB", "TB", "PB")),
    "KB": (1000, ("MB", "GB", "TB", "PB")),
    "MB": (1000, ("GB", "TB", "PB")),
    "GB": (1000, ("TB", "PB")),
    "KiB": (1024, ("MiB", "GiB", "TiB", "PiB")),
    "MiB": (1024, ("GiB", "TiB", "PiB")),
    "GiB": (1024, ("TiB", "PiB")),
}
_WORDS = ((10**12, "trillions"), (10**9, "billions"), (10**6, "millions"))
RESCALE_FROM = 100_000  # ticks of six digits and more read better in a larger unit


def axis_scale(unit: str, top: float) -> tuple[float, str]:
    """(divisor, axis title) for a value axis whose largest value is ``top``.

    Byte units take SI or binary prefixes (113,556,639,424 bytes -> ticks in GB;
    53,901,956 KiB -> ticks in GiB); other units take words from ten million up
    (``tokens (millions)``). Below ``RESCALE_FROM`` the axis keeps the unit as written.
    """
    if unit in _PREFIXES and top >= RESCALE_FROM:
        step, names = _PREFIXES[unit]
        divisor, title = 1.0, unit
        for name in names:
            if top / (divisor * step) < 1:
                break
            divisor, title = divisor * step, name
        return divisor, title
    if top >= 10**7:
        scale, word = next((s, w) for s, w in _WORDS if top >= s)
        return float(scale), f"{unit} ({word})" if unit else word
    return 1.0, unit


def top_value(points: Sequence[Point], references: Sequence[Reference] = ()) -> float:
    """The largest magnitude a value axis must reach (values, whiskers, observations, references, zero)."""
    values = [0.0] + [float(r.value) for r in references]
    for point in points:
        values += [float(v) for v in point.observations]
        if point.value is not None:
            values.append(float(point.value))
            if point.whisker is not None:
                values += point.whisker.bounds(point.value)
    return max(abs(v) for v in values)


def value_labels(points: Sequence[Point], unit: str, references: Sequence[Reference] = (),
                 digits: int | None = None) -> list[str]:
    """The text printed by each point: its literal with thousands separators (and its unit when the
    axis is in another prefix); with ``digits``, a literal of more decimals rounded half-up to that
    many and marked ≈ (never more digits than written); without, none at all in a panel whose
    literals include a long computed float (``long_literals`` warns of it)."""
    literals = [style.display_number(p.value) if p.value is not None else "" for p in points]
    if digits is not None:
        literals = [rounded_label(p.value, digits) if p.value is not None else "" for p in points]
    elif long_literals(points):
        return ["" for _ in literals]
    if axis_scale(unit, top_value(points, references))[0] != 1:
        return [f"{text} {unit}" if text else "" for text in literals]
    return literals
