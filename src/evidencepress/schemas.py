"""The published JSON Schemas, loaded once, and their errors turned into Problems.

Schemas live in the site's ``schema/`` folder (the site owner extends them
without touching code). Besides standard keywords they carry annotations the
diagnostics use: ``x-message`` (what was expected), ``x-hint`` (how to fix;
``{key}`` is replaced by the offending key), ``x-additional-message`` /
``x-additional-hint`` for unknown keys, and ``x-recommended`` on condition
objects.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator, FormatChecker, ValidationError, validators
from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from . import jsontext
from .diagnostics import Location, Problem, error
from .jsontext import plain
from .model import JsonPath, Positions, dotted
from .typos import misspelling_of

Check = Callable[[Any], bool]

DEFAULT_FOLDER = Path(__file__).resolve().parent / "defaults" / "schema"
SCHEMA_FILES = (
    "export.schema.json",
    "conditions.schema.json",
    "frontmatter.schema.json",
    "community.schema.json",
    "chart.schema.json",
    "site.schema.json",
    "units.json",
)


@dataclass(frozen=True)
class Schema:
    """One schema: jsonschema explains errors; jsonschema-rs (``quick``) answers valid/invalid fast."""

    validator: Validator  # Draft 2020-12, skipping subtrees that ``quick`` finds valid
    quick: Check


@dataclass(frozen=True)
class SchemaSet:
    folder: Path
    registry: Registry
    documents: Mapping[str, Any]  # file name -> parsed schema
    published: tuple[tuple[str, bytes], ...]  # (file name, bytes) for /schema/
    validators: Mapping[str, Schema]

    def validator(self, name: str) -> Schema:
        return self.validators[name]

    @property
    def units(self) -> Mapping[str, Any]:
        units: Mapping[str, Any] = self.documents["units.json"]["units"]
        return units

    @property
    def recommended_conditions(self) -> tuple[str, ...]:
        result = self.documents["conditions.schema.json"]["$defs"]["result_conditions"]
        return tuple(result.get("x-recommended", ()))

    @property
    def known_conditions(self) -> tuple[str, ...]:
        """Every condition key the vocabulary names: typed, required or recommended."""
        vocabulary = self.documents["conditions.schema.json"]["$defs"]
        result = vocabulary["result_conditions"]
        return tuple(dict.fromkeys([*vocabulary["known"].get("properties", {}), *result.get("required", ()),
                                    *self.recommended_conditions]))

    @property
    def core_conditions(self) -> tuple[str, ...]:
        """Required then recommended condition keys of a result: the columns of /data/results.csv."""
        result = self.documents["conditions.schema.json"]["$defs"]["result_conditions"]
        return tuple(dict.fromkeys([*result.get("required", ()), *self.recommended_conditions]))

    @functools.cached_property
    def fingerprint(self) -> str:
        """sha256 of every schema file's bytes: what a cached validation depends on."""
        digest = hashlib.sha256()
        for name, data in self.published:
            digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        return digest.hexdigest()

    def url(self, name: str) -> str:
        return str(self.documents[name].get("$id", name))


def schema_folder(root: Path) -> Path:
    """The site's own ``schema/`` when it has one, else the default set."""
    own = root / "schema"
    return own if (own / "export.schema.json").is_file() else DEFAULT_FOLDER


class SchemaFileError(Exception):
    """A schema file of the site cannot be read or compiled: the site cannot be checked at all."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.format())
        self.problem = problem


def load_schemas(folder: Path) -> SchemaSet:
    """Every schema of ``folder`` (a missing file falls back to the default one).

    Raises SchemaFileError for a file that is not JSON or not a valid JSON Schema.
    """
    documents: dict[str, Any] = {}
    published: list[tuple[str, bytes]] = []
    shown: dict[str, str] = {}
    for name in SCHEMA_FILES:
        path = folder / name
        if not path.is_file():
            path = DEFAULT_FOLDER / name
        if not path.is_file():
            continue  # chart.schema.json may be absent from an old site
        shown[name] = f"schema/{name}" if path.parent == folder else str(path)
        data = path.read_bytes()
        documents[name] = _parse(data, shown[name])
        published.append((name, data))
    registry = _registry(documents)
    try:
        fast_registry = jsonschema_rs.Registry(
            [(d["$id"], d) for d in documents.values() if isinstance(d, dict) and "$id" in d]
        )
        validators = {
            name: _schema(document, registry, fast_registry)
            for name, document in documents.items()
            if name.endswith(".schema.json")
        }
    except (ValueError, jsonschema_rs.ValidationError) as exc:
        raise SchemaFileError(error(Location("schema/"), f"a schema cannot be compiled: {exc}", "schema-file",
                                    hint="check the schema files against JSON Schema 2020-12")) from exc
    return SchemaSet(folder, registry, documents, tuple(published), validators)


def _parse(data: bytes, shown: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SchemaFileError(error(Location(shown), f"not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded",
                                    "schema-file", hint="save the schema as UTF-8")) from exc
    except json.JSONDecodeError as exc:
        raise SchemaFileError(error(Location(shown, exc.lineno, exc.colno), f"invalid JSON: {exc.msg}",
                                    "schema-file", hint="a schema file is one JSON object")) from exc


def _registry(documents: Mapping[str, Any]) -> Registry:
    registry: Registry = Registry()
    for name, document in documents.items():
        uri = document.get("$id", name) if isinstance(document, dict) else name
        resource = Resource.from_contents(document, default_specification=DRAFT202012)
        registry = registry.with_resource(uri=uri, resource=resource)
    return registry.crawl()


def _schema(document: Any, registry: Registry, fast_registry: Any) -> Schema:
    fast = jsonschema_rs.validator_map_for(document, registry=fast_registry, validate_formats=True)
    by_schema: dict[int, Check] = {}
    for ref, sub in _subschemas(document):
        compiled = fast.get(ref)
        if compiled is not None:
            by_schema[id(sub)] = _tolerant(compiled.is_valid)
    validator_class = validators.extend(Draft202012Validator, {  # type: ignore[no-untyped-call]
        "items": _skip_valid_items(by_schema),
        "properties": _skip_valid_properties(by_schema),
        **ECMA_KEYWORDS,
    })
    checker = FormatChecker()
    return Schema(validator_class(document, registry=registry, format_checker=checker), by_schema[id(document)])


# JSON Schema patterns are ECMA 262 regexes, where ``$`` matches only at the very end;
# Python's ``$`` also matches before a final newline, so ``^[a-z]+$`` would accept
# "decode\n" (jsonschema-rs does not). These keywords search with ``$`` as ECMA means it.
Keyword = Callable[[Any, Any, Any, Mapping[str, Any]], Iterator[ValidationError]]
_ADDITIONAL: Keyword = Draft202012Validator.VALIDATORS["additionalProperties"]


def ecma_search(pattern: str, text: str) -> bool:
    return _compiled(pattern).search(text) is not None


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(ecma_dollar(pattern))


def _pattern(validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not ecma_search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Mapping[str, Any], instance: Any,
                        schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if ecma_search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any,
                           schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    patterns = schema.get("patternProperties")
    if isinstance(patterns, dict):
        schema = {**schema, "patternProperties": {ecma_dollar(p): v for p, v in patterns.items()}}
    yield from _ADDITIONAL(validator, additional, instance, schema)


ECMA_KEYWORDS: Mapping[str, Keyword] = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
}


def ecma_dollar(pattern: str) -> str:
    r"""The pattern in Python's dialect: each ``$`` outside a character class becomes ``\Z``."""
    out: list[str] = []
    escaped = in_class = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "$" and not in_class:
            out.append("\\Z")
            continue
        out.append(char)
    return "".join(out)


def _tolerant(check: Check) -> Check:
    """jsonschema-rs refuses number subclasses (an authored ``22.50``): check their plain form.
    A value it cannot take at all is left to jsonschema, which explains what is wrong."""
    def tolerant(instance: Any) -> bool:
        try:
            return check(instance)
        except ValueError:
            try:
                return check(plain(instance))
            except ValueError:
                return False
    return tolerant


def _subschemas(schema: Any, ref: str = "#") -> Iterator[tuple[str, Any]]:
    """Every object in a schema document with its URI-fragment JSON Pointer."""
    if isinstance(schema, dict):
        yield ref, schema
        for key, value in schema.items():
            yield from _subschemas(value, f"{ref}/{key.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _subschemas(value, f"{ref}/{index}")


# jsonschema explains an invalid document; these keyword functions let it skip the
# array items and properties that the exact quick check finds valid (they have no
# errors to explain), so one bad value in a 10 MB export is found in a moment.
_ITEMS: Keyword = Draft202012Validator.VALIDATORS["items"]


def _skip_valid_items(by_schema: Mapping[int, Check]) -> Keyword:
    def items(validator: Any, items: Any, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
        check = by_schema.get(id(items))
        if check is None or "prefixItems" in schema or not validator.is_type(instance, "array"):
            yield from _ITEMS(validator, items, instance, schema)
            return
        for index, item in enumerate(instance):
            if not check(item):
                yield from validator.descend(instance=item, schema=items, path=index)
    return items


def _skip_valid_properties(by_schema: Mapping[int, Check]) -> Keyword:
    def properties(validator: Any, properties: Any, instance: Any,
                   schema: Mapping[str, Any]) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "object"):
            return
        for name, subschema in properties.items():
            if name not in instance:
                continue
            check = by_schema.get(id(subschema))
            if check is None or not check(instance[name]):
                yield from validator.descend(instance[name], subschema, path=name, schema_path=name)
    return properties


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
