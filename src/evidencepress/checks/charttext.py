"""Inline values in a chart's alt text and caption, and the export numbers copied there.

A chart's ``alt`` and ``caption`` may hold inline value references, as the
body does (``{value}`Decode at C1```, ``{ratio}`…; digits=2```): each is
resolved against the export and replaced by its text (plain: alt text and a
caption carry no links), so that a changed value changes them too. A number
written by hand there that copies an export value is a ``prose-number``
warning, as in the body. Problems stand at the key's line in the chart fence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..charts.model import ChartPlan
from ..charts.plan import with_text
from ..content.inlinerefs import OPERATIONS, RoleError
from ..core.diagnostics import Location, Problem, error
from ..core.model import Fence
from .inlinevalues import RULE, resolve_role
from .prose import check_text

ROLE = re.compile(r"\{(" + "|".join(OPERATIONS) + r")\}`([^`\n]*)`")
FIELDS = ("alt", "caption")


def chart_text(plan: ChartPlan, fence: Fence, file: str, export: Mapping[str, Any] | None,
               units: Mapping[str, Any], prose: bool) -> tuple[ChartPlan, list[Problem]]:
    """The plan with its alt text and caption resolved, and the problems of both."""
    texts: dict[str, str] = {}
    problems: list[Problem] = []
    for field in FIELDS:
        written = getattr(plan, field)
        where = _places(fence, file, field)
        texts[field], found = _resolved(written, where, export, units)
        problems += found
        if prose and export is not None:  # numbers written by hand, the references left out
            problems += check_text(ROLE.sub(lambda role: " " * len(role.group(0)), written), where, export)
    if not problems and texts["alt"] == plan.alt and texts["caption"] == plan.caption:
        return plan, []
    return with_text(plan, texts["alt"], texts["caption"]), problems


def _resolved(text: str, where: Callable[[int], Location], export: Mapping[str, Any] | None,
              units: Mapping[str, Any]) -> tuple[str, list[Problem]]:
    problems: list[Problem] = []

    def value(role: re.Match[str]) -> str:
        outcome = resolve_role(role.group(1), role.group(2), export, units)
        if isinstance(outcome, RoleError):
            problems.append(error(where(role.start()), outcome.message, RULE, hint=outcome.hint))
            return role.group(0)
        return outcome.text

    return ROLE.sub(value, text), problems


def _places(fence: Fence, file: str, field: str) -> Callable[[int], Location]:
    """Where the character at an offset of the field's text stands in the Markdown file: on the key's
    line when the text is written there (plain or quoted), else at the key."""
    lines = fence.content.split("\n")
    number = next((n for n, line in enumerate(lines) if re.match(rf"{field}\s*:", line)), None)
    if number is None:
        return lambda _offset: Location(file, fence.line, 1)
    line = lines[number]
    start = len(line) - len(line.split(":", 1)[1].lstrip())
    start += 1 if line[start:start + 1] in "\"'" and line[start:start + 1] else 0
    on_line = not line[start:].startswith(("|", ">"))
    row, column = fence.content_line + number, fence.indent + start + 1

    def place(offset: int) -> Location:
        return Location(file, row, column + offset if on_line else fence.indent + 1)

    return place
