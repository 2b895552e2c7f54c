"""Schema errors explained: every jsonschema error of a document as a located Problem.

The position is that of the offending key in the source file (also inside a
JSON export or a YAML chart); the message comes from the schema's
``x-message`` (else jsonschema's own), the hint from ``x-hint`` (``{key}``
replaced); unknown keys use ``x-additional-message`` / ``x-additional-hint``
(``{allowed}``, ``{did_you_mean}``); a missing required key written with a
slip (``concurency``) is reported at the slip.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..core import jsontext
from ..core.diagnostics import Problem, error
from ..core.model import JsonPath, Positions, dotted
from ..core.typos import misspelling_of
from .load import Schema, ecma_search

if TYPE_CHECKING:
    from jsonschema import ValidationError


def schema_problems(
    schema: Schema,
    instance: Any,
    positions: Positions,
    rule: str = "schema",
    prefix: JsonPath = (),
) -> list[Problem]:
    """Every schema violation of ``instance`` as a Problem at its key's position."""
    if schema.quick(instance):
        return []
    problems: list[Problem] = []
    for err in sorted(schema.validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path]):
        problems.extend(_explain(err, positions, rule, prefix))
    return problems


def _explain(err: ValidationError, positions: Positions, rule: str, prefix: JsonPath) -> Iterator[Problem]:
    path: JsonPath = tuple(err.absolute_path)
    schema = err.schema if isinstance(err.schema, dict) else {}
    if err.validator == "required":
        missing = _quoted_name(err.message)
        typo = _misspelled_as(missing, err.instance, schema)
        if typo is not None:  # name the slip where it stands: `concurency` for `concurrency`
            yield error(positions.of_key(path + (typo,)), f"missing required key {missing!r}; {typo!r} looks "
                        "like a misspelling of it", rule, dotted(prefix + path + (typo,)), f"rename {typo!r} to {missing!r}")
            return
        where = positions.of_key(path)
        hint = _hint(schema, missing)
        yield error(where, f"missing required key {missing!r}", rule, dotted(prefix + path + (missing,)), hint)
    elif err.validator == "additionalProperties":
        for extra in _extra_keys(err):
            child = path + (extra,)
            message = schema.get("x-additional-message", "unknown key")
            yield error(positions.of_key(child), f"{message} {extra!r}", rule, dotted(prefix + child),
                        _additional_hint(schema, extra))
    elif "propertyNames" in err.schema_path:
        child = path + (str(err.instance),)
        message = _message(err) or "key not allowed"
        yield error(positions.of_key(child), f"{message}, got {err.instance!r}", rule, dotted(prefix + child),
                    _hint(schema, str(err.instance)))
    else:
        key = str(path[-1]) if path else ""
        message = _message(err) or err.message
        got = "" if err.validator in ("not",) else f", got {_show(err.instance)}"
        yield error(positions.of_key(path), message + got, rule, dotted(prefix + path), _hint(schema, key))


def _misspelled_as(missing: str, instance: Any, schema: Mapping[str, Any]) -> str | None:
    """The key of ``instance`` that looks like a slip for the required key ``missing``."""
    if not isinstance(instance, dict):
        return None
    expected = set(schema.get("required", ())) | set(schema.get("properties", {}))
    for key in instance:
        if isinstance(key, str) and key not in expected and misspelling_of(key, [missing]) == missing:
            return key
    return None


def _message(err: ValidationError) -> str:
    schema = err.schema if isinstance(err.schema, dict) else {}
    return str(schema.get("x-message", ""))


def _hint(schema: Any, key: str) -> str:
    if not isinstance(schema, dict):
        return ""
    return str(schema.get("x-hint", "")).replace("{key}", key)


def _additional_hint(schema: Mapping[str, Any], extra: str) -> str:
    """``x-additional-hint`` with ``{allowed}`` (the known keys) and ``{did_you_mean}`` filled in."""
    hint = str(schema.get("x-additional-hint", ""))
    if "{" not in hint:
        return hint
    allowed = sorted(schema.get("properties", {}))
    close = difflib.get_close_matches(extra, allowed, n=1)
    did_you_mean = f"did you mean {close[0]!r}? " if close else ""
    return hint.replace("{allowed}", ", ".join(allowed)).replace("{did_you_mean}", did_you_mean)


def _quoted_name(message: str) -> str:
    match = re.match(r"'(.*)' is a required property", message)
    return match.group(1) if match else message


def _extra_keys(err: ValidationError) -> list[str]:
    schema = err.schema if isinstance(err.schema, dict) else {}
    if not isinstance(err.instance, dict):
        return []
    known = set(schema.get("properties", {}))
    patterns = list(schema.get("patternProperties", {}))
    return [k for k in err.instance if k not in known and not any(ecma_search(p, k) for p in patterns)]


def _show(value: Any) -> str:
    text = jsontext.dumps(value, indent=None, default=str)
    return text if len(text) <= 60 else text[:57] + "..."
