"""One unit per panel: names that mean the same unit, and nothing more.

``s`` and ``seconds`` are one unit; ``s`` and ``ms`` are two (the unit
vocabulary's ``same_as``, ``schemas.units``). Values are never converted
between units, so a panel whose entries disagree is an error.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..core import jsontext
from ..schemas.units import Units, canonical_unit
from . import style
from .kinds import Labelled
from .model import Number, Point, Reference

MAX_FRACTION_DIGITS = 6  # a literal with more decimals is a computed float: the table shows it, the chart does not


def long_literals(numbers: Iterable[Number | None]) -> bool:
    """Does a number a panel labels have more than MAX_FRACTION_DIGITS decimals (a computed float)?"""
    return any(n is not None and len(style.display_number(n).partition(".")[2]) > MAX_FRACTION_DIGITS for n in numbers)


def labels_shown(numbers: Iterable[Number | None], digits: int | None) -> bool:
    """Does a panel that labels ``numbers`` print them? With ``digits``, always; without, unless one is a
    long computed float (``checks.unlabelled`` warns of it)."""
    return digits is not None or not long_literals(numbers)


def number_label(value: Number, digits: int | None) -> str:
    """A number as a value label prints it: its literal with thousands separators; with ``digits``,
    rounded half-up to that many decimals and marked ≈ where written with more (``rounded_label``)."""
    return rounded_label(value, digits) if digits is not None else style.display_number(value)


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


# A value axis of large numbers keeps its unit and reads in a multiple of it: its title is the unit
# (``bytes``) and its ticks say the multiple (``40 billion``), so that a value label of the authored literal
# (``113,556,639,424``) visibly agrees with them. No prefix conversion (bytes -> GB, KiB -> GiB): the axis,
# its ticks, the value labels and a panel title that names the unit all stay in the entries' unit.
_WORDS = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"))
RESCALE_FROM = 10**7  # ticks of eight digits and more read better as a multiple


def axis_scale(unit: str, top: float) -> tuple[float, str]:
    """(divisor, multiple) of the ticks of a value axis whose largest value is ``top``: from ten million
    up they are divided by a power of a thousand and say so (113,556,639,424 bytes -> ticks ``0`` …
    ``100 billion`` over the title ``bytes``); below, ``(1, "")``: the ticks read as they are."""
    if top >= RESCALE_FROM:
        return next((float(scale), word) for scale, word in _WORDS if top >= scale)
    return 1.0, ""


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
    """The text printed by each point: its literal with thousands separators, in the axis' unit (which
    ``axis_scale`` never changes); with ``digits``, a literal of more decimals rounded half-up to that
    many and marked ≈ (never more digits than written); without, none at all in a panel whose
    literals include a long computed float (``long_literals`` warns of it)."""
    if not labels_shown((p.value for p in points), digits):
        return ["" for _ in points]
    return [number_label(p.value, digits) if p.value is not None else "" for p in points]


@dataclass(frozen=True)
class PointTexts:
    """A point's value labels: its value's and its two ends' ("" where it has none)."""

    value: str = ""
    low: str = ""
    high: str = ""


def point_texts(points: Sequence[Point], digits: int | None, labelled: Callable[[Point], Labelled]) -> list[PointTexts]:
    """Each point's labels of the numbers ``labelled`` names, as ``value_labels`` writes a value: none
    in a panel with a long computed float and no ``digits``."""
    found = [labelled(point) for point in points]
    if not labels_shown((number for each in found for number in each.numbers()), digits):
        return [PointTexts() for _ in found]

    def text(number: Number | None) -> str:
        return "" if number is None else number_label(number, digits)

    return [PointTexts(text(each.value), *(text(end) for end in each.ends or ())) for each in found]
