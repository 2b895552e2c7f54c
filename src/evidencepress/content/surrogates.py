"""Lone surrogates: a ``\\ud800`` escape in JSON or YAML that pairs with nothing.

Such a string is not text: nothing can write it as UTF-8 (a page, a CSV, a
feed), so it is refused where it was written, as a parse error of its
document, instead of failing the build later with a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..core.diagnostics import Problem, error
from ..core.model import Document, JsonPath, dotted

_ESCAPE = re.compile(r"\\(?:u[dD][89a-fA-F]|U0000[dD][89a-fA-F])")  # a surrogate can only come from an escape
_LONE = re.compile("[\ud800-\udfff]")
HINT = "write the character itself (in YAML its \\U0001F600 escape; in JSON the escapes of both halves of its pair)"


def surrogate_problems(text: str, document: Document) -> list[Problem]:
    """An error at each key or string value of ``document`` that holds a lone surrogate."""
    if not _ESCAPE.search(text):
        return []
    problems = []
    for path, is_key, found in _lone(document.value, ()):
        where = document.positions.of_key(path) if is_key else document.positions.of_value(path)
        what = "a key" if is_key else "a string"
        problems.append(error(where, f"{what} holds the lone surrogate U+{ord(found):04X}, which is not a character",
                              "text", dotted(path), HINT))
    return problems


def _lone(value: Any, path: JsonPath) -> Iterator[tuple[JsonPath, bool, str]]:
    stack: list[tuple[JsonPath, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if (match := _LONE.search(item)) is not None:
                yield where, False, match.group()
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                if isinstance(key, str) and (match := _LONE.search(key)) is not None:
                    yield (*where, key), True, match.group()
                stack.append(((*where, key), child))
        elif isinstance(item, list):
            stack.extend(((*where, index), child) for index, child in reversed(list(enumerate(item))))
