"""Validate a chart spec with the site's ``chart.schema.json``, through the site's SchemaSet.

The chart schema is one of the published schemas: a site that ships its own
``schema/chart.schema.json`` gets its rules enforced, and errors are explained
by the same code as the export's (``x-message`` / ``x-hint`` annotations).
YAML is read into JSON's value space first: a date is its ISO text, a mapping
key is text (``true:`` -> ``"true"``), and a number JSON cannot hold
(``.inf``, ``1.0e+400``) is refused at its key.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator
from typing import Any

from ..core.diagnostics import Problem, error
from ..core.model import JsonPath, Positions, dotted
from ..schemas.explain import schema_problems
from ..schemas.load import SchemaSet

SCHEMA_FILE = "chart.schema.json"
RULE = "chart-schema"


def json_value(value: Any) -> Any:
    """The JSON form of a YAML value: ISO dates, text keys (``true`` -> ``"true"``)."""
    if isinstance(value, dict):
        return {key_text(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_value(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    return value


def key_text(key: Any) -> str:
    """A YAML mapping key as text, as JSON would write the value: ``True`` -> ``"true"``."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, (dt.date, dt.datetime)):
        return key.isoformat()
    return str(key)


def non_finite(value: Any, positions: Positions, path: JsonPath = ()) -> Iterator[tuple[JsonPath, Problem]]:
    """A problem at every number JSON cannot hold (YAML's ``.inf``, ``-.inf``, ``.nan``, ``1.0e+400``)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from non_finite(item, positions, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from non_finite(item, positions, path + (index,))
    elif isinstance(value, float) and not math.isfinite(value):
        message = f"{value!r} is not a finite number (YAML reads .inf, .nan and numbers beyond 1.8e308 so)"
        hint = "a chart draws finite numbers only; select values from the export"
        yield path, error(positions.of_key(path), message, RULE, dotted(path), hint)


def chart_schema_problems(
    schemas: SchemaSet, value: Any, positions: Positions, skip: frozenset[JsonPath]
) -> list[Problem]:
    """Every schema error of ``value`` (JSON form), except those at or under a path in ``skip``."""
    problems = schema_problems(schemas.validator(SCHEMA_FILE), value, positions, rule=RULE)
    kept: dict[tuple[str, str], Problem] = {}
    for problem in problems:
        if any(_under(problem.json_path, s) for s in skip):
            continue
        kept.setdefault((problem.json_path, problem.message), problem)
    return list(kept.values())


def _under(json_path: str, path: JsonPath) -> bool:
    prefix = dotted(path)
    return json_path == prefix or json_path.startswith((prefix + ".", prefix + "["))


def chart_kinds(schemas: SchemaSet) -> tuple[str, ...]:
    """The kinds the site's chart schema allows."""
    document = schemas.documents.get(SCHEMA_FILE, {})
    return tuple(document.get("$defs", {}).get("kind", {}).get("enum", ()))
