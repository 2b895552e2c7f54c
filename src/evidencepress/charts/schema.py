"""Validate a chart spec with ``schema/chart.schema.json`` and explain each error.

jsonschema collects every error with its path; we turn each into a Problem at
the line and column of the offending key of the chart fence, in words an
editor can act on (unknown keys by name, with a close match when there is one).
"""

from __future__ import annotations

import datetime as dt
import difflib
import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from ..diagnostics import Location, Problem, error
from ..model import JsonPath, Positions, dotted
from ..schemas import DEFAULT_FOLDER

SCHEMA_ID = "https://evidencepress.dev/schema/chart.schema.json"
RULE = "chart-schema"

_PATTERN_MESSAGES = {
    "^[a-z0-9-]+$": "must be a slug of lowercase letters, digits and hyphens",
    "\\S": "must not be empty",
    "^[^.\\s]+(\\.[^.\\s]+)*$": "is not a field path (dotted field names, e.g. conditions.concurrency)",
    "^(/([^~/]|~[01])*)+$": "is not a JSON Pointer (e.g. /comparison_groups/0/samples)",
    "^([A-Za-z][A-Za-z0-9_]*|(/([^~/]|~[01])*)+)$": "must be an export section name or a JSON Pointer starting with /",
}
_BLANK_HINTS: dict[JsonPath, str] = {
    ("alt",): "describe what a screen-reader user needs to know from the chart, e.g. what rises or falls",
    ("title",): "write the chart's title",
}
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}


def schema_path() -> Path:
    """The default ``chart.schema.json`` (the one published with every site)."""
    return DEFAULT_FOLDER / "chart.schema.json"


@functools.cache
def chart_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(schema_path().read_text(encoding="utf-8"))
    return schema


@functools.cache
def _validator() -> Draft202012Validator:
    schema = chart_schema()
    registry: Registry[Any] = Registry().with_resource(SCHEMA_ID, DRAFT202012.create_resource(schema))
    return Draft202012Validator(schema, registry=registry)


def schema_problems(value: Any, positions: Positions, fence_line: int, skip: frozenset[JsonPath]) -> list[Problem]:
    """Every schema error of ``value``, except those at or under a path in ``skip``."""
    problems: dict[tuple[JsonPath, str], Problem] = {}
    for err in _validator().iter_errors(value):
        for path, message, hint in _explain(err):
            if any(path[: len(s)] == s for s in skip):
                continue
            where = _where(path, err, positions, fence_line)
            problems.setdefault((path, message), error(where, message, RULE, dotted(path), hint))
    return list(problems.values())


def _where(path: JsonPath, err: ValidationError, positions: Positions, fence_line: int) -> Location:
    if not path:
        return Location(positions.file, fence_line, 1)
    if err.validator == "required":
        return positions.of_value(path)
    return positions.of_key(path)


def _explain(err: ValidationError) -> Iterator[tuple[JsonPath, str, str]]:
    path: JsonPath = tuple(err.absolute_path)
    kind = err.validator
    if kind == "additionalProperties" and isinstance(err.instance, dict):
        allowed = sorted(err.schema.get("properties", {}))
        for key in err.instance:
            if key not in allowed:
                yield path + (key,), f"unknown key {key!r}", _did_you_mean(key, allowed)
    elif kind == "required" and isinstance(err.instance, dict):
        for key in err.validator_value:
            if key not in err.instance:
                yield path, f"missing required key {key!r}", ""
    elif kind in ("oneOf", "anyOf") and err.context:
        yield from _explain(_best_branch(err))
    elif kind == "propertyNames":
        name = err.instance
        yield path + (str(name),), f"{name!r} is not a field path (dotted field names)", ""
    else:
        yield path, _message(err), _hint(err)


def _best_branch(err: ValidationError) -> ValidationError:
    """The error of the branch whose type matches the instance (else the first)."""
    by_branch: dict[Any, list[ValidationError]] = {}
    for sub in err.context or ():
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
    for subs in by_branch.values():
        if not any(s.validator == "type" and not s.relative_path for s in subs):
            return min(subs, key=lambda s: -len(s.relative_path))
    return next(iter(by_branch.values()))[0]


def _message(err: ValidationError) -> str:
    got = _describe(err.instance)
    kind = err.validator
    if kind == "type":
        expected = err.validator_value
        names = " or ".join(expected) if isinstance(expected, list) else str(expected)
        return f"expected {names}, got {got}"
    if kind == "enum":
        return f"expected one of {', '.join(map(str, err.validator_value))}; got {got}"
    if kind == "pattern" and isinstance(err.instance, str) and not err.instance.strip():
        return "must not be empty"  # the same words as minLength: "" is reported once
    if kind == "pattern":
        return f"{got} " + _PATTERN_MESSAGES.get(str(err.validator_value), f"does not match {err.validator_value}")
    if kind == "minLength":
        return "must not be empty"
    if kind == "minItems":
        return "needs at least one item"
    if kind == "minProperties":
        return "needs at least one key"
    return str(err.message)


def _hint(err: ValidationError) -> str:
    if isinstance(err.instance, str) and not err.instance.strip() and err.validator in ("minLength", "pattern"):
        return _BLANK_HINTS.get(tuple(err.absolute_path), "write the text; it may not be blank")
    if isinstance(err.instance, (dt.date, dt.time)):
        return "YAML reads an unquoted date or time as a date; quote it"
    if err.validator == "type" and err.validator_value == "string" and not isinstance(err.instance, (dict, list)):
        return "quote the value to make it text"
    return ""


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    name = _JSON_TYPES.get(type(value), type(value).__name__)
    if isinstance(value, (dict, list)):
        return f"an {name}" if name[0] in "aeiou" else f"a {name}"
    if isinstance(value, (str, bool, int, float)):
        return f"{name} {json.dumps(value, ensure_ascii=False)}"
    return f"{name} {value}"


def _did_you_mean(key: str, allowed: list[str]) -> str:
    close = difflib.get_close_matches(key, allowed, n=1)
    if close:
        return f"did you mean {close[0]!r}? allowed keys: {', '.join(allowed)}"
    return f"allowed keys: {', '.join(allowed)}"
