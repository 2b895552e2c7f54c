"""Field paths and JSON Pointers into export values.

A field path is dotted (``conditions.concurrency``); a segment that meets a
list maps over it, so ``samples.value`` yields the list of the samples'
values. A ``null`` met on the way means "not reported" and yields ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Missing:
    """A path that does not exist: which segment, and the keys that were there."""

    segment: str
    available: tuple[str, ...]


def get_path(value: Any, path: str) -> Any:
    """The value at ``path`` in ``value``, or a :class:`Missing`."""
    return _walk(value, path.split("."))


def _walk(value: Any, segments: list[str]) -> Any:
    if not segments:
        return value
    if value is None:
        return None
    if isinstance(value, list):
        items = [_walk(item, segments) for item in value]
        missing = next((item for item in items if isinstance(item, Missing)), None)
        return missing if missing is not None else items
    head, rest = segments[0], segments[1:]
    if isinstance(value, dict) and head in value:
        return _walk(value[head], rest)
    available = tuple(value) if isinstance(value, dict) else ()
    return Missing(head, available)


def parent_path(path: str) -> str:
    """``summary.median`` -> ``summary``; ``value`` -> ``""``."""
    return path.rpartition(".")[0]


def unescape(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


def split_pointer(pointer: str) -> list[str]:
    return [unescape(part) for part in pointer.split("/")[1:]] if pointer else []


def resolve_pointer(document: Any, pointer: str) -> Any:
    """The value an RFC 6901 pointer designates, or a :class:`Missing`."""
    value = document
    for segment in split_pointer(pointer):
        if isinstance(value, dict) and segment in value:
            value = value[segment]
        elif (
            isinstance(value, list)
            and segment.isdigit()
            and (segment == "0" or not segment.startswith("0"))
            and int(segment) < len(value)
        ):
            value = value[int(segment)]
        else:
            available = (
                tuple(value)
                if isinstance(value, dict)
                else tuple(str(i) for i in range(len(value)))
                if isinstance(value, list)
                else ()
            )
            return Missing(segment, available)
    return value


def same(actual: Any, expected: Any) -> bool:
    """JSON equality: booleans never equal numbers; 1 equals 1.0."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return isinstance(actual, bool) and isinstance(expected, bool) and actual is expected
    if isinstance(actual, (int, float)) and isinstance(expected, (int, float)):
        return actual == expected
    return type(actual) is type(expected) and actual == expected


def matches(value: Any, expected: Any) -> bool:
    """A where-clause match: the value equals, or a list value holds an equal item."""
    if isinstance(value, list):
        return any(matches(item, expected) for item in value)
    return same(value, expected)
