"""YAML documents with the position of every key and value in the Markdown file.

PyYAML's composer gives each node a start mark; we walk the node tree once to
record them, and let PyYAML's safe constructor build the values. Front matter
and chart specs are small, flat documents, so the loader refuses what only
makes them slow or surprising: aliases (``*name``, which can multiply a tiny
text into a huge value) and nesting deeper than ``MAX_DEPTH``. A value that
PyYAML's constructor rejects (``2026-02-30``) is reported at its node.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError

from ..core.diagnostics import Location, Problem, error
from ..core.model import Document, JsonPath, Positions, dotted
from .characters import character_problems
from .syntaxhints import explain_yaml

MAX_DEPTH = 32

_HINT = "YAML needs `key: value` pairs; quote values that contain `: ` or start with a special character"


class _Refused(ComposerError):
    """Valid YAML that a document here may not use; carries its own hint."""

    def __init__(self, problem: str, mark: Any, hint: str) -> None:
        super().__init__(None, None, problem, mark)
        self.hint = hint


class _BadValue(ConstructorError):
    """A scalar PyYAML recognises (a date, a tagged number) but cannot build."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(None, None, problem, mark)
        self.hint = "correct the value, or quote it to keep it as text"


class _Loader(yaml.SafeLoader):
    """SafeLoader without aliases, with a depth limit and located value errors."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(f"alias *{event.anchor} is not supported", event.start_mark,
                           "write the value out instead of referring to an anchor")
        if not isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            return super().compose_node(parent, index)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Refused(f"nested deeper than {MAX_DEPTH} levels", event.start_mark,
                           "flatten the structure")
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, TypeError, OverflowError) as exc:
            raise _BadValue(f"{node.value!r} cannot be read: {exc}", node.start_mark) from exc


class _FastLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's parser and composer with PyYAML's safe constructor and resolver."""


# Values that have no JSON form: front matter and chart specs hold JSON-like data only.
_NOT_JSON = {
    "tag:yaml.org,2002:set": "a set",
    "tag:yaml.org,2002:binary": "binary data",
    "tag:yaml.org,2002:omap": "an ordered map",
    "tag:yaml.org,2002:pairs": "a list of pairs",
}


def _refuse_tag(loader: Any, node: yaml.Node) -> Any:
    short = node.tag.replace("tag:yaml.org,2002:", "!!")
    raise _BadTag(f"{short} ({_NOT_JSON[node.tag]}) is not supported", node.start_mark)


class _BadTag(ConstructorError):
    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(None, None, problem, mark)
        self.hint = "write a plain list, mapping or quoted text instead of a tagged value"


for _tag in _NOT_JSON:
    _Loader.add_constructor(_tag, _refuse_tag)
    _FastLoader.add_constructor(_tag, _refuse_tag)


def _load_fast(text: str) -> tuple[Any, Any] | None:
    """(node, value) through libyaml, or None to let the checking loader read ``text``.

    libyaml composes several times faster, but it would neither refuse aliases
    nor stop at MAX_DEPTH, and its messages differ; so it only reads plainly
    shallow text, and anything unusual (an error, an alias, deep nesting) is
    read again by ``_Loader``, which reports it exactly.
    """
    if not _plainly_shallow(text):
        return None
    loader = _FastLoader(text)
    try:
        node = loader.get_single_node()
        if node is None or _aliased_or_deep(node):
            return None
        return node, loader.construct_document(node)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError):
        return None
    finally:
        loader.dispose()


_BLOCK_INDENT = re.compile(r"[ \t]*(?:[-?:][ \t]+)*")


def _plainly_shallow(text: str) -> bool:
    """True when neither indentation (``- - - a`` nests too) nor brackets could reach
    MAX_DEPTH (a cheap over-estimate). libyaml's composer recurses in C: deep input
    must never reach it."""
    depth = most = 0
    for char in text:
        if char in "[{":
            depth += 1
            most = max(most, depth)
        elif char in "]}":
            depth -= 1
    widest = max((_BLOCK_INDENT.match(line).end() for line in text.split("\n")), default=0)  # type: ignore[union-attr]
    return most <= MAX_DEPTH and widest <= 2 * MAX_DEPTH


def _aliased_or_deep(root: yaml.Node) -> bool:
    """Does any node appear twice (an alias) or sit deeper than MAX_DEPTH?"""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen or depth > MAX_DEPTH:
            return True
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack += [(child, depth + 1) for pair in node.value for child in pair]
        elif isinstance(node, yaml.SequenceNode):
            stack += [(child, depth + 1) for child in node.value]
    return False


def load_yaml(text: str, file: str, first_line: int, indent: int = 0) -> tuple[Document | None, list[Problem]]:
    """Parse ``text`` whose first line is line ``first_line`` of ``file``.

    Returns the document (None when it cannot be read) and the problems found.
    """
    fast = _load_fast(text)
    if fast is not None:
        return _document(text, fast[0], fast[1], file, first_line, indent)
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as exc:
        return None, [_unprintable(exc, text, file, first_line, indent)]
    try:
        node = loader.get_single_node()
        if node is None:
            return Document(None, Positions(file)), []
        value = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        explained = explain_yaml(text, str(exc.problem), mark.line, mark.column, first_line) if mark else None
        if explained is not None:
            where = Location(file, first_line + explained.line, explained.col + 1 + indent)
            return None, [error(where, f"invalid YAML: {explained.message}", "yaml", hint=explained.hint)]
        where = _location(file, first_line, indent, mark)
        message = f"invalid YAML: {exc.problem or exc.context}"
        return None, [error(where, message, "yaml", hint=getattr(exc, "hint", _HINT))]
    except (yaml.YAMLError, RecursionError) as exc:
        return None, [error(Location(file, first_line, 1), f"invalid YAML: {exc}", "yaml", hint=_HINT)]
    finally:
        loader.dispose()
    return _document(text, node, value, file, first_line, indent)


def _document(text: str, node: yaml.Node, value: Any, file: str, first_line: int,
              indent: int) -> tuple[Document | None, list[Problem]]:
    keys: dict[JsonPath, tuple[int, int]] = {}
    values: dict[JsonPath, tuple[int, int]] = {}
    problems: list[Problem] = []
    _walk(node, (), keys, values, problems, file, first_line, indent)
    document = Document(value, Positions(file, keys, values))
    refused = character_problems(text, document)
    return (None, problems + refused) if refused else (document, problems)


def _unprintable(exc: yaml.reader.ReaderError, text: str, file: str, first_line: int, indent: int) -> Problem:
    """A character YAML does not allow (a control character, U+FFFE), at its place."""
    line = text.count("\n", 0, exc.position)
    col = exc.position - (text.rfind("\n", 0, exc.position) + 1)
    where = Location(file, first_line + line, col + 1 + indent)
    code = exc.character if isinstance(exc.character, int) else ord(exc.character)
    return error(where, f"invalid YAML: character U+{code:04X} is not allowed", "yaml",
                 hint="delete the invisible character, or write it as an escape in a double-quoted string")


def _spot(first_line: int, indent: int, mark: Any) -> tuple[int, int]:
    return first_line + mark.line, mark.column + 1 + indent


def _location(file: str, first_line: int, indent: int, mark: Any) -> Location:
    if mark is None:
        return Location(file, first_line, 1)
    return Location(file, *_spot(first_line, indent, mark))


def _walk(
    node: yaml.Node,
    path: JsonPath,
    keys: dict[JsonPath, tuple[int, int]],
    values: dict[JsonPath, tuple[int, int]],
    problems: list[Problem],
    file: str,
    first_line: int,
    indent: int,
) -> None:
    values[path] = _spot(first_line, indent, node.start_mark)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value) if isinstance(key_node, yaml.ScalarNode) else repr(key_node.value)
            child = path + (key,)
            if key in seen:
                where = _location(file, first_line, indent, key_node.start_mark)
                problems.append(error(where, f"duplicate key {key!r}", "duplicate-key", dotted(child),
                                      hint="each key may appear once; merge or remove one"))
            seen.add(key)
            keys[child] = _spot(first_line, indent, key_node.start_mark)
            _walk(value_node, child, keys, values, problems, file, first_line, indent)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, path + (index,), keys, values, problems, file, first_line, indent)
