"""The grammar of inline values: what a role such as ``{value}`record/label``` asks for.

Roles are MyST-style (``{name}`content```), parsed by mdit-py-plugins'
``myst_role``. This module reads a role's name and content without the
export; :mod:`inlinevalues` resolves it against the export.

::

    {value}`REF`                   one value of the export, as authored, with its unit
    {value}`REF; nounit`           the same without the unit (a table column that names it)
    {round}`REF; digits=N`         derived: the value rounded half-up to N decimal places, shown with ≈
    {ratio}`REF; REF; digits=N`    derived: the first divided by the second
    {sum}`REF; REF; ...`           derived: the values added
    {difference}`REF; REF`         derived: the first minus the second

    REF  = record-id/label         a reported result by source_record_id and label
         | label                   a reported result whose label no other record uses
         | ... #field.path         a field of that result instead of its value
                                   (uncertainty.standard_deviation, conditions.concurrency)
         | /json/pointer           any value of the export; an array step may be an
                                   entry's id instead of its index (/case_reports/my-id/total)

``digits=N`` rounds a derived value half-up to N decimal places; without it a
derived value must be exact (a sum, or a ratio that terminates).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPERATIONS = {"value": (1, 1), "round": (1, 1), "ratio": (2, 2), "sum": (2, 16), "difference": (2, 2)}
DERIVED = ("round", "ratio", "sum", "difference")  # OPERATIONS maps a name to its (fewest, most) references
MAX_DIGITS = 12
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_DIGITS = re.compile(r"digits\s*=\s*(\S*)")
SYNTAX_HINT = ("write {value}`record-id/label`, {round}`record-id/label; digits=N`, or {ratio}, {sum} or {difference} "
               "with references separated by `;`")
ROLES_HINT = "inline values use {value}, {round}, {ratio}, {sum} or {difference}"


@dataclass(frozen=True)
class Ref:
    """One reference to a value of the export, as written."""

    text: str
    record: str  # "" when not given
    label: str  # "" for a pointer
    field: str  # dotted field path of a result: "value" unless written after #
    pointer: str  # a JSON Pointer ("" for record/label references)


@dataclass(frozen=True)
class RoleSpec:
    operation: str
    refs: tuple[Ref, ...]
    digits: int | None
    show_unit: bool


@dataclass(frozen=True)
class RoleError:
    message: str
    hint: str


def parse_role(name: str, content: str) -> RoleSpec | RoleError:
    """The operation, references and options of one role, or what is wrong with it."""
    if name not in OPERATIONS:
        return RoleError(f"unknown inline role {{{name}}}", ROLES_HINT)
    parts = [part.strip() for part in content.split(";")]
    refs: list[Ref] = []
    digits: int | None = None
    show_unit = True
    for part in parts:
        if not part:
            return RoleError(f"an empty part in {{{name}}}`{content}`", SYNTAX_HINT)
        option = _DIGITS.fullmatch(part)
        if option:
            if not option.group(1).isdigit() or int(option.group(1)) > MAX_DIGITS:
                return RoleError(f"digits={option.group(1)} is not a number of decimal places",
                                 f"write digits=0 to digits={MAX_DIGITS}")
            digits = int(option.group(1))
        elif part == "nounit":
            show_unit = False
        elif "=" in part and not part.startswith("/") and " " not in part.split("=", 1)[0]:
            return RoleError(f"unknown option {part!r}", "options are digits=N (derived values) and nounit")
        else:
            refs.append(parse_ref(part))
    return _checked(name, content, tuple(refs), digits, show_unit)


def _checked(name: str, content: str, refs: tuple[Ref, ...], digits: int | None,
             show_unit: bool) -> RoleSpec | RoleError:
    least, most = OPERATIONS[name]
    if not least <= len(refs) <= most:
        wanted = "one reference" if most == 1 else "two references" if least == most else "two or more references"
        return RoleError(f"{{{name}}} takes {wanted}, got {len(refs)}", SYNTAX_HINT)
    if digits is not None and name not in DERIVED:
        return RoleError("digits= rounds a derived value; {value} shows the value exactly as authored",
                         f"to round it, write {{round}}`{refs[0].text}; digits={digits}`")
    if digits is None and name == "round":
        return RoleError("{round} needs digits=N, the decimal places to keep", f"write {{round}}`{refs[0].text}; "
                         "digits=2`")
    return RoleSpec(name, refs, digits, show_unit)


def parse_ref(text: str) -> Ref:
    """``record/label#field``, ``label#field`` or ``/pointer``."""
    if text.startswith("/"):
        return Ref(text, "", "", "", text)
    target, _, field = text.partition("#")
    record, slash, label = target.partition("/")
    if not slash or not _SLUG.fullmatch(record.strip()):
        record, label = "", target
    return Ref(text, record.strip(), label.strip(), field.strip() or "value", "")
