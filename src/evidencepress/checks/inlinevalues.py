"""Validate stage: every inline value of a page resolved against its export, or a problem at its line:col.

A reference must select exactly one value; a derived value is computed from
the authored literals with decimal arithmetic, so nothing is rounded unless
the role says ``digits=N``. The result, keyed by (role name, role content),
is what the HTML and Markdown renderers show.
"""

from __future__ import annotations

import decimal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it.token import Token

from ..content.bodyscan import pieces
from ..content.inlinerefs import Ref, RoleError, RoleSpec, parse_role
from ..core import jsontext
from ..core.diagnostics import Location, Problem, error
from ..core.numbers import for_reading
from ..schemas.units import canonical_unit
from .inlineselect import Selected, SelectionError, select

RULE = "inline-value"
_SYMBOLS = {"ratio": " ÷ ", "sum": " + ", "difference": " − "}


@dataclass(frozen=True)
class InlineValue:
    """What one role shows: a value of the export, or a value derived from several."""

    operation: str
    inputs: tuple[Selected, ...]
    text: str  # as the reader sees it: "26.97 tokens/s", or a derived "2.6"
    note: str  # how a derived value was made; "" for {value}

    @property
    def derived(self) -> bool:
        return self.operation != "value"

    @property
    def formula_symbol(self) -> str:
        """What joins the inputs of a derived value: `` ÷ ``, `` + `` or `` − ``."""
        return _SYMBOLS.get(self.operation, "")

    @property
    def formula(self) -> str:
        """``231.294 tokens/s ÷ 88.697 tokens/s`` for a derived value."""
        return self.formula_symbol.join(item.display for item in self.inputs)


InlineValues = Mapping[tuple[str, str], InlineValue]


def resolve_inline_values(tokens: Sequence[Token], body: str, body_line: int, file: str,
                          export: Mapping[str, Any] | None,
                          units: Mapping[str, Any]) -> tuple[dict[tuple[str, str], InlineValue], list[Problem]]:
    """Every role of the body resolved; the problems of those that cannot be."""
    resolved: dict[tuple[str, str], InlineValue] = {}
    problems: list[Problem] = []
    seen: set[tuple[str, str, int]] = set()  # (name, content, line) of each role the body scan found
    for piece in pieces(tokens, body, body_line):
        if piece.kind != "role":
            continue
        where = Location(file, piece.line, piece.col)
        key = (piece.name, piece.content)
        seen.add((*key, piece.line))
        if piece.in_heading:
            problems.append(error(where, "an inline value in a heading", RULE, hint="move the value into the text "
                                  "below: headings give the table of contents and the anchors"))
            continue
        if key in resolved:
            continue
        outcome = resolve_role(piece.name, piece.content, export, units)
        if isinstance(outcome, RoleError):
            problems.append(error(where, outcome.message, RULE, hint=outcome.hint))
        else:
            resolved[key] = outcome
    problems += _elsewhere(tokens, file, body_line, seen)
    return resolved, problems


def _elsewhere(tokens: Sequence[Token], file: str, body_line: int, seen: set[tuple[str, str, int]]) -> list[Problem]:
    """A role where the body scan does not look (an image's alt text): never rendered as a value.
    A role the scan found on a line of its block (``seen``) is in the text, resolved or not."""
    problems: list[Problem] = []
    reported: set[int] = set()
    for block, role in _roles(tokens):
        start, end = block.map if block.map else (0, 1)
        line = body_line + start
        name = role.meta.get("name", "")
        in_text = any((name, role.content, body_line + number) in seen for number in range(start, max(end, start + 1)))
        if not in_text and line not in reported:
            problems.append(error(Location(file, line, 1), f"an inline value where it cannot be shown: "
                                  f"{{{role.meta.get('name', '')}}}`{role.content}`", RULE,
                                  hint="write inline values in the text of paragraphs, lists and tables"))
            reported.add(line)
    return problems


def _roles(tokens: Sequence[Token]) -> list[tuple[Token, Token]]:
    """(block, role) for every role token under the inline blocks, however deeply nested."""
    found: list[tuple[Token, Token]] = []
    for block in tokens:
        stack = list(block.children or ())
        while stack:
            child = stack.pop()
            if child.type == "myst_role":
                found.append((block, child))
            stack.extend(child.children or ())
    return found


def resolve_role(name: str, content: str, export: Mapping[str, Any] | None,
                 units: Mapping[str, Any]) -> InlineValue | RoleError:
    """One role (``{ratio}`A; B; digits=2``) resolved against the export, or why it cannot be."""
    spec = parse_role(name, content)
    if isinstance(spec, RoleError):
        return spec
    if export is None:
        return RoleError("an inline value needs the page's export", "add a ```json export fence with the value")
    selected: list[Selected] = []
    for ref in spec.refs:
        found = select(export, ref)
        if isinstance(found, SelectionError):
            return RoleError(f"{_shown(ref)}: {found.message}", found.hint)
        selected.append(found)
    if spec.operation == "value":
        item = selected[0]
        return InlineValue("value", (item,), item.display if spec.show_unit else item.bare, "")
    if spec.operation == "round":
        return _round(spec, selected[0])
    return _derive(spec, tuple(selected), units)


def _round(spec: RoleSpec, item: Selected) -> InlineValue | RoleError:
    """≈ and the value rounded half-up; the literal itself when rounding would change nothing or add digits."""
    if not item.is_number:
        return RoleError(f"{{round}} needs a number, and `{item.ref}` is {item.kind}",
                         "reference a numeric field, e.g. the result's value")
    literal = jsontext.number_text(item.value)
    exact = decimal.Decimal(literal)
    digits = spec.digits if spec.digits is not None else 0
    exponent = exact.as_tuple().exponent
    if "e" in literal.lower() or not isinstance(exponent, int) or -exponent <= digits:
        return InlineValue("value", (item,), item.display if spec.show_unit else item.bare, "")
    with decimal.localcontext() as context:  # every digit of the literal is kept: as many as it has
        context.prec = len(exact.as_tuple().digits) + digits + 1
        rounded = exact.quantize(decimal.Decimal(1).scaleb(-digits), rounding=decimal.ROUND_HALF_UP)
    unit = f" {item.unit}" if item.unit and spec.show_unit else ""
    places = f"{digits} decimal place" + ("" if digits == 1 else "s")
    return InlineValue("round", (item,), f"≈{for_reading(_plain(rounded))}{unit}",
                       f"rounded half-up to {places} from {item.display}")


def _shown(ref: Ref) -> str:
    return f"`{ref.text}`"


def _derive(spec: RoleSpec, inputs: tuple[Selected, ...], units: Mapping[str, Any]) -> InlineValue | RoleError:
    for item in inputs:
        if not item.is_number:
            return RoleError(f"{{{spec.operation}}} needs numbers, and `{item.ref}` is {item.kind}",
                             "reference a numeric field, e.g. the result's value")
    unit_names = {_same_unit(item.unit, units) for item in inputs}
    if len(unit_names) > 1:
        shown = " and ".join(repr(item.unit or "no unit") for item in inputs)
        return RoleError(f"{{{spec.operation}}} of values in different units: {shown}",
                         "the site never converts units; derive from values reported in one unit")
    numbers = [decimal.Decimal(jsontext.number_text(item.value)) for item in inputs]
    result = _compute(spec.operation, numbers, spec.digits)
    if isinstance(result, RoleError):
        return result
    unit = "" if spec.operation == "ratio" else inputs[0].unit
    text = for_reading(_plain(result)) + (f" {unit}" if unit and spec.show_unit else "")
    rounding = "" if spec.digits is None else f", rounded half-up to {spec.digits} decimal place" + (
        "" if spec.digits == 1 else "s")
    count = "two" if len(inputs) == 2 else str(len(inputs))
    note = f"{spec.operation} of {count} values of the export{rounding}"
    return InlineValue(spec.operation, inputs, text, note)


def _compute(operation: str, numbers: list[decimal.Decimal],
             digits: int | None) -> decimal.Decimal | RoleError:
    with decimal.localcontext() as context:
        context.prec = 60
        context.traps[decimal.Inexact] = digits is None
        try:
            if operation == "ratio":
                if numbers[1] == 0:
                    return RoleError("a ratio with 0 as divisor", "divide by a value that is not 0")
                result = numbers[0] / numbers[1]
            elif operation == "sum":
                result = sum(numbers, decimal.Decimal(0))
            else:
                result = numbers[0] - numbers[1]
        except decimal.Inexact:
            shown = _SYMBOLS[operation].join(map(str, numbers))
            return RoleError(f"{shown} has no exact decimal form in {context.prec} digits",
                             "say how many decimal places to show, e.g. `; digits=2` (rounded half-up)")
        if digits is not None:
            try:
                result = result.quantize(decimal.Decimal(1).scaleb(-digits), rounding=decimal.ROUND_HALF_UP)
            except decimal.InvalidOperation:
                return RoleError(f"the {operation}, {result.normalize()}, has too many digits to show with {digits} decimal "
                                 f"places (at most {context.prec} digits)",
                                 "derive from values of a similar size, or write the values themselves")
    return result


def _plain(number: decimal.Decimal) -> str:
    """Fixed-point text without exponent; an exact result keeps no trailing zeros it did not earn."""
    text = format(number, "f")
    return "0" if text in ("-0", "") else text


def _same_unit(unit: str, units: Mapping[str, Any]) -> str:
    return canonical_unit(unit, units)