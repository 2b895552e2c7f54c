"""The published JSON Schemas, loaded and compiled once.

Schemas live in the site's ``schema/`` folder (the site owner extends them
without touching code). Each is compiled twice: jsonschema-rs answers
"valid?" fast, and jsonschema, told to skip the subtrees that are valid,
finds the errors that explain.py turns into Problems. The second is made on
first use (a document with an error, ``--base-url``): a valid site never
imports jsonschema, a tenth of a build's start-up. Besides standard
keywords the schemas carry annotations for the diagnostics (``x-message``,
``x-hint``, ``x-additional-message``/``x-additional-hint``) and
``x-recommended`` on condition objects. Patterns match as ECMA 262 says.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from ..core.diagnostics import Location, Problem, error
from ..core.jsonsyntax import problem_of
from ..core.jsontext import plain
from .comparability import FILE as COMPARABILITY_FILE
from .comparability import Rules, RulesError, rules_of, rules_problem

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator
    from referencing import Registry

Check = Callable[[Any], bool]

DEFAULT_FOLDER = Path(__file__).resolve().parents[1] / "defaults" / "schema"
SCHEMA_FILES = (
    "export.schema.json",
    "conditions.schema.json",
    "frontmatter.schema.json",
    "community.schema.json",
    "chart.schema.json",
    "site.schema.json",
    "units.json",
    "comparability.json",
)


@dataclass(frozen=True)
class Schema:
    """One schema: jsonschema-rs (``quick``) answers valid/invalid fast; jsonschema explains errors."""

    quick: Check
    explainer: Callable[[], Validator]  # makes ``validator``

    @functools.cached_property
    def validator(self) -> Validator:
        """Draft 2020-12, skipping the subtrees that ``quick`` finds valid."""
        return self.explainer()


@dataclass(frozen=True)
class SchemaSet:
    folder: Path
    documents: Mapping[str, Any]  # file name -> parsed schema
    published: tuple[tuple[str, bytes], ...]  # (file name, bytes) for /schema/
    validators: Mapping[str, Schema]

    registry_of: Callable[[], Registry]  # the schemas as referencing resolves them (their $ids), made once
    comparability: Rules  # which results may be compared (comparability.json)

    def validator(self, name: str) -> Schema:
        return self.validators[name]

    @property
    def registry(self) -> Registry:
        return self.registry_of()

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
    def condition_titles(self) -> tuple[tuple[str, str], ...]:
        """(key, title) of each typed condition key whose schema gives a ``title``: its human name."""
        known = self.documents["conditions.schema.json"]["$defs"]["known"].get("properties", {})
        return tuple((key, entry["title"]) for key, entry in known.items()
                     if isinstance(entry, Mapping) and isinstance(entry.get("title"), str) and entry["title"].strip())

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
        """The schema's ``$id`` (its name when it has none): how schemas refer to one another."""
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
    registry = functools.cache(functools.partial(_registry, documents))  # made on first use
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
    try:
        rules = rules_of(documents.get(COMPARABILITY_FILE, {"default": {"keys": []}}))
    except RulesError as exc:
        raise SchemaFileError(rules_problem(exc, shown[COMPARABILITY_FILE])) from exc
    return SchemaSet(folder, documents, tuple(published), validators, registry, rules)


def _parse(data: bytes, shown: str) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaFileError(error(Location(shown), f"not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded",
                                    "schema-file", hint="save the schema as UTF-8")) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:  # described in words that do not change with the Python version
        problem = problem_of(text, exc)
        raise SchemaFileError(error(Location(shown, *problem.line_col(text)), f"invalid JSON: {problem.message}",
                                    "schema-file", hint="a schema file is one JSON object")) from exc


def _registry(documents: Mapping[str, Any]) -> Registry:
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    registry: Registry = Registry()
    for name, document in documents.items():
        uri = document.get("$id", name) if isinstance(document, dict) else name
        resource = Resource.from_contents(document, default_specification=DRAFT202012)
        registry = registry.with_resource(uri=uri, resource=resource)
    return registry.crawl()


def _schema(document: Any, registry: Callable[[], Registry], fast_registry: Any) -> Schema:
    fast = jsonschema_rs.validator_map_for(document, registry=fast_registry, validate_formats=True)
    by_schema: dict[int, Check] = {}
    for ref, sub in _subschemas(document):
        compiled = fast.get(ref)
        if compiled is not None:
            by_schema[id(sub)] = _tolerant(compiled.is_valid)
    return Schema(by_schema[id(document)], functools.partial(_explainer, document, registry, by_schema))


def _explainer(document: Any, registry: Callable[[], Registry], by_schema: Mapping[int, Check]) -> Validator:
    from jsonschema import Draft202012Validator, FormatChecker, validators

    validator_class = validators.extend(Draft202012Validator, {  # type: ignore[no-untyped-call]
        "items": _skip_valid_items(by_schema),
        "properties": _skip_valid_properties(by_schema),
        **ECMA_KEYWORDS,
    })
    return validator_class(document, registry=registry(), format_checker=FormatChecker())  # type: ignore[no-any-return]


# JSON Schema patterns are ECMA 262 regexes, where ``$`` matches only at the very end;
# Python's ``$`` also matches before a final newline, so ``^[a-z]+$`` would accept
# "decode\n" (jsonschema-rs does not). These keywords search with ``$`` as ECMA means it.
Keyword = Callable[[Any, Any, Any, Mapping[str, Any]], Iterator["ValidationError"]]


@functools.cache
def _standard(keyword: str) -> Keyword:
    """Draft 2020-12's own function for ``keyword``."""
    from jsonschema import Draft202012Validator

    found: Keyword = Draft202012Validator.VALIDATORS[keyword]
    return found


def ecma_search(pattern: str, text: str) -> bool:
    return _compiled(pattern).search(text) is not None


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(ecma_dollar(pattern))


def _pattern(validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    from jsonschema import ValidationError

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
    yield from _standard("additionalProperties")(validator, additional, instance, schema)


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


def _skip_valid_items(by_schema: Mapping[int, Check]) -> Keyword:
    def items(validator: Any, items: Any, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
        check = by_schema.get(id(items))
        if check is None or "prefixItems" in schema or not validator.is_type(instance, "array"):
            yield from _standard("items")(validator, items, instance, schema)
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
