"""JSON documents with the position of every key and value in the Markdown file.

The standard library parses the values (fast, exact, key order kept); a
token scanner then walks the same text once to record where each key and
value starts, and to find what ``json`` accepts but an export must not have:
duplicate keys, ``NaN`` and ``Infinity``, and absurd nesting.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any

from .diagnostics import Location, Problem, error
from .model import Document, JsonPath, Positions, dotted

MAX_DEPTH = 64

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.S)
_NON_FINITE = {"NaN", "Infinity", "-Infinity"}


class _Cursor:
    """Turns offsets in the block into (line, col) in the Markdown file."""

    def __init__(self, text: str, first_line: int, indent: int) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.first_line = first_line
        self.indent = indent

    def spot(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self.starts, offset) - 1
        return self.first_line + index, offset - self.starts[index] + 1 + self.indent


def load_json(text: str, file: str, first_line: int, indent: int = 0) -> tuple[Document | None, list[Problem]]:
    """Parse ``text`` whose first line is line ``first_line`` of ``file``."""
    cursor = _Cursor(text, first_line, indent)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        where = Location(file, first_line + exc.lineno - 1, exc.colno + indent)
        return None, [error(where, f"invalid JSON: {exc.msg}", "json", hint=_hint(exc.msg))]
    except RecursionError:
        where = Location(file, first_line, 1 + indent)
        return None, [error(where, f"JSON nested deeper than {MAX_DEPTH} levels", "json-depth")]
    keys: dict[JsonPath, tuple[int, int]] = {}
    values: dict[JsonPath, tuple[int, int]] = {}
    problems = _scan(text, cursor, file, keys, values)
    if problems:
        return None, problems
    if not isinstance(value, dict):
        where = Location(file, *cursor.spot(_first_token(text)))
        kind = type(value).__name__ if value is not None else "null"
        return None, [error(where, f"the export must be a JSON object, got {kind}", "json")]
    return Document(value, Positions(file, keys, values)), []


def _hint(message: str) -> str:
    if "Expecting property name" in message:
        return "remove the trailing comma, or quote the key with double quotes"
    if "Expecting ',' delimiter" in message:
        return "a comma is missing between two members, or a string is not closed"
    return "check the JSON syntax at this position"


def _first_token(text: str) -> int:
    match = _TOKEN.search(text)
    return match.start() if match else 0


def _scan(
    text: str,
    cursor: _Cursor,
    file: str,
    keys: dict[JsonPath, tuple[int, int]],
    values: dict[JsonPath, tuple[int, int]],
) -> list[Problem]:
    """Record positions; report duplicate keys, NaN/Infinity and deep nesting."""
    problems: list[Problem] = []
    # Each frame: [path, is_object, next index, pending key, seen keys]
    stack: list[list[Any]] = []
    expect_key = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        offset = match.start()
        if token in (":", ","):
            if token == "," and stack and stack[-1][1]:
                expect_key = True
            continue
        if token in ("}", "]"):
            stack.pop()
            expect_key = False
            continue
        if expect_key:
            frame = stack[-1]
            key = json.loads(token)
            path = frame[0] + (key,)
            if key in frame[4]:
                where = Location(file, *cursor.spot(offset))
                problems.append(error(where, f"duplicate key {key!r}", "duplicate-key", dotted(path),
                                      hint="each key may appear once in an object; merge or rename one"))
            frame[4].add(key)
            frame[3] = key
            keys[path] = cursor.spot(offset)
            expect_key = False
            continue
        path = _value_path(stack)
        values[path] = cursor.spot(offset)
        if token in _NON_FINITE:
            where = Location(file, *cursor.spot(offset))
            problems.append(error(where, f"{token} is not a JSON number", "json-number", dotted(path),
                                  hint="write null when the source reports no value"))
        if token in ("{", "["):
            if len(stack) >= MAX_DEPTH:
                where = Location(file, *cursor.spot(offset))
                return problems + [error(where, f"JSON nested deeper than {MAX_DEPTH} levels", "json-depth",
                                         dotted(path))]
            stack.append([path, token == "{", 0, None, set()])
            expect_key = token == "{"
    return problems


def _value_path(stack: list[list[Any]]) -> JsonPath:
    if not stack:
        return ()
    frame = stack[-1]
    if frame[1]:
        return frame[0] + (frame[3],)
    index = frame[2]
    frame[2] += 1
    return frame[0] + (index,)
