"""Characters no output can hold, refused where they were written (a parse error of their document).

A lone surrogate (a ``\\ud800`` escape that pairs with nothing) cannot be
written as UTF-8 at all; the C0 controls but tab, line feed and carriage
return, and U+FFFE and U+FFFF, are not allowed in XML 1.0, so a chart's SVG or
the Atom feed holding one would not be well-formed. Raw, YAML refuses them
already; these come from escapes (``"\\x01"``, ``"\\f"``, ``"\\uFFFF"``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..core.diagnostics import Problem, error
from ..core.model import Document, JsonPath, dotted

_REFUSED = re.compile("[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
SURROGATE_HINT = "write the character itself (in YAML its \\U0001F600 escape; in JSON the escapes of both halves of its pair)"
CONTROL_HINT = "delete the invisible character: pages, charts and feeds cannot hold it"


def character_problems(text: str, document: Document) -> list[Problem]:
    """An error at each key or string value of ``document`` that holds a character no output can hold."""
    if "\\" not in text:  # each comes from an escape ("\\x01", "\\f", "\\ud800"): without one, none
        return []
    problems = []
    for path, is_key, found in _refused(document.value, ()):
        where = document.positions.of_key(path) if is_key else document.positions.of_value(path)
        what = "a key" if is_key else "a string"
        if "\ud800" <= found <= "\udfff":
            message, hint = f"{what} holds the lone surrogate U+{ord(found):04X}, which is not a character", SURROGATE_HINT
        else:
            message, hint = f"{what} holds the control character U+{ord(found):04X}", CONTROL_HINT
        problems.append(error(where, message, "text", dotted(path), hint))
    return problems


def _refused(value: Any, path: JsonPath) -> Iterator[tuple[JsonPath, bool, str]]:
    stack: list[tuple[JsonPath, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if (match := _REFUSED.search(item)) is not None:
                yield where, False, match.group()
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                if isinstance(key, str) and (match := _REFUSED.search(key)) is not None:
                    yield (*where, key), True, match.group()
                stack.append(((*where, key), child))
        elif isinstance(item, list):
            stack.extend(((*where, index), child) for index, child in reversed(list(enumerate(item))))
