"""Plain-language explanations of the YAML and JSON syntax errors authors make most.

The parsers describe their own state ("expected <block end>, but found
'<block mapping start>'", "Expecting value"); an author needs what is wrong
with the text and how to fix it. Each function looks at the text around the
parser's position and returns a better message, hint and position, or None
to keep the parser's own words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..core.jsonsyntax import EXPECTING_NAME, EXPECTING_VALUE

_KEY_LINE = re.compile(r"^(?P<indent> *)(?P<dash>(?:- +)*)(?P<key>[^\s#:'\"\[\]{}][^:#]*?):(?: |$)")
_DASH_LINE = re.compile(r"^(?P<indent> *)- ")


@dataclass(frozen=True)
class Explained:
    line: int  # 0-based line in the parsed text
    col: int  # 0-based column in the line
    message: str
    hint: str


@dataclass(frozen=True)
class _Entry:
    """Something a line starts at a column: a key (``url:``) or a list item (``- ``)."""

    col: int
    label: str  # as the message shows it: `url:` or `- item`
    line: int  # 0-based
    key: str = ""  # the key's name; "" for a list item


def explain_yaml(text: str, problem: str, line: int, col: int, first_line: int = 1) -> Explained | None:
    """A clearer account of a PyYAML error at (line, col) of ``text``, or None.

    ``first_line`` is the file line of the text's first line, for the line numbers hints mention.
    """
    lines = text.split("\n")
    if problem.startswith("found character '\\t'"):
        return Explained(line, col, "a tab indents this line; YAML indents with spaces only",
                         "replace the tab with spaces")
    if problem.startswith("expected <block end>"):
        return _misaligned(lines, line, col, first_line)
    if problem == "mapping values are not allowed here" and line < len(lines):
        return _key_inside_value(lines, line, col, first_line)
    return None


def _misaligned(lines: list[str], line: int, col: int, first_line: int) -> Explained:
    """A line indented to a column that no key or list item above it uses."""
    deeper, shallower = _neighbours(lines, line, col)
    this = _entry_at(lines[line], line) if line < len(lines) else None
    name = this.label if this is not None and this.col == col else "this line"
    message = f"{name} is indented {_spaces(col)}, which lines it up with no key above it"
    options = [f"{_spaces(e.col)} like {e.label} on line {first_line + e.line}" for e in (deeper, shallower) if e]
    hint = "YAML nests by indentation: indent it " + ", or ".join(options) if options else "align it with its siblings"
    return Explained(line, col, message, hint)


def _neighbours(lines: list[str], line: int, col: int) -> tuple[_Entry | None, _Entry | None]:
    """Going up from ``line`` to its parent: the entry nearest right of ``col``, and the parent left of it."""
    deeper: _Entry | None = None
    for number in range(min(line, len(lines)) - 1, -1, -1):
        entries = _entries(lines[number], number)
        for entry in entries:
            if entry.col > col and (deeper is None or entry.col < deeper.col):
                deeper = entry
        left = [entry for entry in entries if entry.col < col]
        if left:
            return deeper, max(left, key=lambda entry: entry.col)
    return deeper, None


def _entries(text: str, line: int) -> list[_Entry]:
    """The list items and the key a line starts: ``  - url: x`` gives ``- `` at 2 and ``url:`` at 4."""
    entries: list[_Entry] = []
    dash = _DASH_LINE.match(text)
    if dash:
        entries.append(_Entry(len(dash.group("indent")), f"`- {text[dash.end():].strip()[:20]}`", line))
    key = _entry_at(text, line)
    if key is not None:
        entries.append(key)
    return entries


def _entry_at(text: str, line: int) -> _Entry | None:
    match = _KEY_LINE.match(text)
    if match is None:
        return None
    key = match.group("key").strip()
    return _Entry(len(match.group("indent")) + len(match.group("dash")), f"`{key}:`", line, key)


def _key_inside_value(lines: list[str], line: int, col: int, first_line: int) -> Explained | None:
    """``key: value`` indented under a key that already has a value, or a second ``: `` in one value."""
    text = lines[line]
    own = _entry_at(text, line)
    if own is not None and own.col + len(own.key) == col:  # the colon of the line's own key
        parent = next((_entry_at(lines[n], n) for n in range(line - 1, -1, -1) if lines[n].strip()), None)
        if parent is not None and parent.col < own.col:
            return Explained(line, own.col, f"{own.label} is indented under {parent.label}, which already has a "
                             "value, so YAML reads it as part of that value",
                             f"align {own.label} with {parent.label} on line {first_line + parent.line} "
                             f"({_spaces(parent.col)}); only a key with nothing after its colon holds nested keys")
    if own is not None and col > own.col + len(own.key):
        value = text[own.col + len(own.key) + 1:].strip()
        return Explained(line, col, f"the value of {own.label} contains `: `, which YAML reads as the start of a "
                         "second key", f"quote the value: {own.key}: {json.dumps(value, ensure_ascii=False)}")
    return None


def _spaces(count: int) -> str:
    return f"{count} space" + ("" if count == 1 else "s")


def explain_json(text: str, message: str, offset: int) -> Explained | None:
    """A clearer account of the JSON syntax error ``message`` (a ``jsonsyntax`` message, never
    the version-bound words of ``JSONDecodeError``) at ``offset`` of ``text``, or None."""
    before = text[:offset].rstrip()
    after = text[offset:offset + 1]
    comma = len(before) - 1
    if before.endswith(",") and after in "]}" and after and message in (EXPECTING_VALUE, EXPECTING_NAME):
        line, col = _line_col(text, comma)
        last = "item of a list" if after == "]" else "member of an object"
        return Explained(line, col, f"a comma after the last {last}",
                         f"delete this comma: JSON allows no comma before `{after}`")
    if message == EXPECTING_VALUE and before.endswith(":"):
        line, col = _line_col(text, offset)
        return Explained(line, col, "a key without a value", "write the value, or null when the source does not "
                         "report it")
    if message == EXPECTING_NAME and (after == "'" or after.isalpha()):
        line, col = _line_col(text, offset)
        return Explained(line, col, "a key without double quotes", 'JSON keys are written in double quotes: "key": value')
    return None


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset)
    return line, offset - (text.rfind("\n", 0, offset) + 1)
