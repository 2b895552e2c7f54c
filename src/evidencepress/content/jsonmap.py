"""JSON documents with the position of every key and value in the Markdown file.

The standard library parses the values (fast, exact, key order kept) and,
through its hooks, notices what ``json`` accepts but an export must not have:
duplicate keys and ``NaN``/``Infinity``; a walk of the parsed value finds
absurd nesting. Positions are needed only to report a problem, so the token
scanner that records where each key and value starts runs on first use, once
per document; a valid 10 MB export is never scanned.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..core.diagnostics import Location, Problem, error
from ..core.jsonsyntax import EXPECTING_COMMA, EXPECTING_NAME, problem_of
from ..core.jsontext import parse_float, parse_int
from ..core.model import Document, JsonPath, Positions, dotted
from .characters import character_problems
from .syntaxhints import explain_json

MAX_DEPTH = 64  # objects and arrays inside each other
MAX_STRING = 10_000  # characters of one string (key or value)
MAX_ITEMS = 20_000  # items of one array

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.DOTALL)
_NON_FINITE = {"NaN", "Infinity", "-Infinity"}
_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number",
               bool: "a boolean", type(None): "null"}
_DEPTH_HINT = "flatten the structure: an export nests at most 64 objects and arrays"
_STRING_HINT = f"an export string holds at most {MAX_STRING:,} characters; quote the source briefly and link it"
_ITEMS_HINT = f"an export array holds at most {MAX_ITEMS:,} items; split the evidence over several pages"

Spot = tuple[int, int]


class _Cursor:
    """Turns offsets in the block into (line, col) in the Markdown file."""

    def __init__(self, text: str, first_line: int, indent: int) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.first_line = first_line
        self.indent = indent

    def spot(self, offset: int) -> Spot:
        index = bisect.bisect_right(self.starts, offset) - 1
        return self.first_line + index, offset - self.starts[index] + 1 + self.indent


class _Scan:
    """The token scan of one JSON text: positions and the problems only tokens show."""

    def __init__(self, text: str, file: str, first_line: int, indent: int) -> None:
        self.text, self.file, self.first_line, self.indent = text, file, first_line, indent
        self._done: tuple[dict[JsonPath, Spot], dict[JsonPath, Spot], list[Problem]] | None = None

    def result(self) -> tuple[dict[JsonPath, Spot], dict[JsonPath, Spot], list[Problem]]:
        if self._done is None:
            keys: dict[JsonPath, Spot] = {}
            values: dict[JsonPath, Spot] = {}
            cursor = _Cursor(self.text, self.first_line, self.indent)
            problems = _scan(self.text, cursor, self.file, keys, values)
            self._done = keys, values, problems
        return self._done


class _LazySpots(Mapping[JsonPath, Spot]):
    """The key (``which`` 0) or value (1) positions of a scan, computed on first lookup."""

    def __init__(self, scan: _Scan, which: int) -> None:
        self.scan = scan
        self.which = which

    def _spots(self) -> dict[JsonPath, Spot]:
        return self.scan.result()[self.which]  # type: ignore[return-value]

    def __getitem__(self, path: JsonPath) -> Spot:
        return self._spots()[path]

    def __iter__(self) -> Iterator[JsonPath]:
        return iter(self._spots())

    def __len__(self) -> int:
        return len(self._spots())


class _Hooks:
    """``json.loads`` hooks that note duplicate keys and non-finite numbers."""

    def __init__(self) -> None:
        self.suspicious = False
        self.strings: dict[str, str] = {}

    def object(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        # one object for each distinct string value (json shares only the keys): an export repeats
        # its units, states, conditions and digests in every result, and pickle keeps what is shared
        strings = self.strings
        result = {key: strings.setdefault(value, value) if type(value) is str else value for key, value in pairs}
        if len(result) != len(pairs):
            self.suspicious = True
        return result

    def constant(self, name: str) -> float:
        self.suspicious = True
        return float(name)

    def number(self, text: str) -> float:
        """A number with a fraction or exponent, its literal kept where ``repr`` would change it."""
        value = parse_float(text)
        if math.isinf(value):
            self.suspicious = True
        return value

    def integer(self, text: str) -> int:
        """An integer; one beyond the range of a double (which every JSON reader has) is refused."""
        if len(text) >= 309 and math.isinf(float(text)):
            self.suspicious = True
            return 0
        return parse_int(text)


def load_json(text: str, file: str, first_line: int, indent: int = 0) -> tuple[Document | None, list[Problem]]:
    """Parse ``text`` whose first line is line ``first_line`` of ``file``."""
    scan = _Scan(text, file, first_line, indent)
    hooks = _Hooks()
    try:
        value = json.loads(text, object_pairs_hook=hooks.object, parse_constant=hooks.constant,
                           parse_float=hooks.number, parse_int=hooks.integer)
    except json.JSONDecodeError as exc:  # its words and position change with the Python version: ours do not
        problem = problem_of(text, exc)
        explained = explain_json(text, problem.message, problem.offset)
        if explained is not None:
            where = Location(file, first_line + explained.line, explained.col + 1 + indent)
            return None, [error(where, f"invalid JSON: {explained.message}", "json", hint=explained.hint)]
        line, col = problem.line_col(text)
        where = Location(file, first_line + line - 1, col + indent)
        return None, [error(where, f"invalid JSON: {problem.message}", "json", hint=_hint(problem.message))]
    except RecursionError:
        return None, scan.result()[2] or [error(Location(file, first_line, 1 + indent),
                                                f"JSON nested deeper than {MAX_DEPTH} levels", "json-depth",
                                                hint=_DEPTH_HINT)]
    if hooks.suspicious or _beyond_limits(value, max(map(len, text.split("\n")))):
        problems = scan.result()[2]
        if problems:
            return None, problems
    if not isinstance(value, dict):
        where = Location(file, *_Cursor(text, first_line, indent).spot(_first_token(text)))
        kind = _JSON_TYPES.get(type(value), type(value).__name__)
        return None, [error(where, f"the export must be a JSON object, got {kind}", "json",
                            hint='wrap the export in { }: {"facts": [], "reported_results": [], "conditions": {}}')]
    document = Document(value, Positions(file, _LazySpots(scan, 0), _LazySpots(scan, 1)))
    refused = character_problems(text, document)
    return (None, refused) if refused else (document, [])


def _beyond_limits(value: Any, longest_line: int) -> bool:
    """Deeper than MAX_DEPTH, a string longer than MAX_STRING or an array longer than MAX_ITEMS
    (walked without recursion); the token scan then says where. ``longest_line``: of the JSON
    text; a string cannot be longer, as JSON strings hold no line breaks (``json.loads`` is strict)."""
    strings = longest_line > MAX_STRING  # else no string is worth measuring
    if not isinstance(value, (dict, list)):
        return strings and isinstance(value, str) and len(value) > MAX_STRING
    stack: list[tuple[dict[str, Any] | list[Any], int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH or len(item) > MAX_ITEMS:
            return True
        children: Iterable[Any] = item.values() if isinstance(item, dict) else item
        if strings and (_long_string(item) or _long_string(children)):
            return True
        stack += [(child, depth + 1) for child in children if isinstance(child, (dict, list))]
    return False


def _long_string(values: Iterable[Any]) -> bool:
    return any(isinstance(value, str) and len(value) > MAX_STRING for value in values)


def _hint(message: str) -> str:
    if message == EXPECTING_NAME:
        return "remove the trailing comma, or quote the key with double quotes"
    if message == EXPECTING_COMMA:
        return "a comma is missing between two members, or a string is not closed"
    return "check the JSON syntax at this position"


def _first_token(text: str) -> int:
    match = _TOKEN.search(text)
    return match.start() if match else 0


def _key(token: str) -> str:
    return token[1:-1] if "\\" not in token else str(json.loads(token))


def _scan(
    text: str,
    cursor: _Cursor,
    file: str,
    keys: dict[JsonPath, Spot],
    values: dict[JsonPath, Spot],
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
            if stack:
                stack.pop()
            expect_key = False
            continue
        if expect_key:
            frame = stack[-1]
            key = _key(token)
            path = frame[0] + (key,)
            if len(key) > MAX_STRING:
                problems.append(_too_long(key, path, Location(file, *cursor.spot(offset))))
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
        if path and path[-1] == MAX_ITEMS and len(stack[-1][0]) == len(path) - 1 and not stack[-1][1]:
            where = Location(file, *cursor.spot(offset))
            problems.append(error(where, f"more than {MAX_ITEMS:,} items in one array", "json-limit",
                                  _short(path[:-1]), hint=_ITEMS_HINT))
        if token[0] == '"' and len(token) - 2 > MAX_STRING and len(_key(token)) > MAX_STRING:
            problems.append(_too_long(_key(token), path, Location(file, *cursor.spot(offset))))
        if token in _NON_FINITE:
            where = Location(file, *cursor.spot(offset))
            problems.append(error(where, f"{token} is not a JSON number", "json-number", dotted(path),
                                  hint="write null when the source reports no value"))
        elif _overflows(token):
            where = Location(file, *cursor.spot(offset))
            shown = token if len(token) <= 24 else token[:20] + f"… ({len(token)} characters)"
            problems.append(error(where, f"{shown} is too large for a JSON number", "json-number", dotted(path),
                                  hint="write the number as the source reports it, within about ±1.8e308"))
        if token in ("{", "["):
            if len(stack) >= MAX_DEPTH:
                where = Location(file, *cursor.spot(offset))
                return problems + [error(where, f"JSON nested deeper than {MAX_DEPTH} levels", "json-depth",
                                         _short(path), hint=_DEPTH_HINT)]
            stack.append([path, token == "{", 0, None, set()])
            expect_key = token == "{"
    return problems


def _too_long(text: str, path: JsonPath, where: Location) -> Problem:
    return error(where, f"a string of {len(text):,} characters; at most {MAX_STRING:,}", "json-limit",
                 _short(path), hint=_STRING_HINT)


def _overflows(token: str) -> bool:
    if token[0] not in "-0123456789":
        return False
    try:
        return math.isinf(float(token))
    except ValueError:
        return False


def _short(path: JsonPath) -> str:
    """A long path shortened for a human: its first three and last segments, long keys cut."""
    path = tuple(p if isinstance(p, int) or len(p) <= 40 else p[:37] + "…" for p in path)
    if len(path) <= 6:
        return dotted(path)
    last = path[-1]
    return dotted(path[:3]) + "…" + (f"[{last}]" if isinstance(last, int) else f".{last}")


def _value_path(stack: list[list[Any]]) -> JsonPath:
    if not stack:
        return ()
    frame = stack[-1]
    parent: JsonPath = frame[0]
    if frame[1]:
        return parent + (frame[3],)
    index: int = frame[2]
    frame[2] += 1
    return parent + (index,)
