"""YAML documents with the position of every key and value in the Markdown file.

PyYAML's composer gives each node a start mark; we walk the node tree once to
record them, and let PyYAML's safe constructor build the values.
"""

from __future__ import annotations

from typing import Any

import yaml

from .diagnostics import Location, Problem, error
from .model import Document, JsonPath, Positions, dotted

_HINT = "YAML needs `key: value` pairs; quote values that contain `: ` or start with a special character"


def load_yaml(text: str, file: str, first_line: int, indent: int = 0) -> tuple[Document | None, list[Problem]]:
    """Parse ``text`` whose first line is line ``first_line`` of ``file``.

    Returns the document (None when it cannot be read) and the problems found.
    """
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return Document(None, Positions(file)), []
        value = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = _location(file, first_line, indent, mark)
        message = f"invalid YAML: {exc.problem or exc.context}"
        return None, [error(where, message, "yaml", hint=_HINT)]
    except yaml.YAMLError as exc:  # pragma: no cover - PyYAML marks nearly everything
        return None, [error(Location(file, first_line, 1), f"invalid YAML: {exc}", "yaml", hint=_HINT)]
    finally:
        loader.dispose()
    keys: dict[JsonPath, tuple[int, int]] = {}
    values: dict[JsonPath, tuple[int, int]] = {}
    problems: list[Problem] = []
    _walk(node, (), keys, values, problems, file, first_line, indent)
    return Document(value, Positions(file, keys, values)), problems


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
                problems.append(error(where, f"duplicate key {key!r}", "duplicate-key", dotted(child)))
            seen.add(key)
            keys[child] = _spot(first_line, indent, key_node.start_mark)
            _walk(value_node, child, keys, values, problems, file, first_line, indent)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, path + (index,), keys, values, problems, file, first_line, indent)

