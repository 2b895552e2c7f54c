"""The columns of the results table as Table Schema fields: types and descriptions from the schemas.

Every CSV of the site (``/data/results.csv``, each article's ``index.csv``) and
``/data/results.json`` hold the table of ``dataset.py``; ``/data/datapackage.json``
describes them with one Table Schema. A column taken from a field of the export
(``label``, ``value``, ``conditions.<key>``) takes its type and description from
that field's JSON Schema, so a site that extends its schemas gets its own
columns described; the columns the build derives (``page``, ``result_id``, the
uncertainty split into kind and bounds, ``verification``) are described here,
beside the code that fills them. An empty cell is null (not reported); a
condition column also holds ``not considered``, for a key a result does not carry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..checks.sources import STATES
from ..schemas.load import SchemaSet, ecma_search
from ..schemas.resolve import json_types, resolved
from .dataset import FIXED_COLUMNS, UNCERTAINTY_KINDS, VERIFICATION

CONDITION = "conditions."
# Table Schema types of the JSON types a field allows (without null); several: "any".
_TYPES = {
    frozenset({"string"}): "string",
    frozenset({"integer"}): "integer",
    frozenset({"number"}): "number",
    frozenset({"integer", "number"}): "number",
    frozenset({"boolean"}): "boolean",
    frozenset({"array"}): "array",
    frozenset({"object"}): "object",
}


@dataclass(frozen=True)
class TableField:
    """One column of the results table, as a Table Schema field says it."""

    name: str
    type: str  # a Table Schema type: string, number, integer, boolean, array, object or any
    description: str
    required: bool = False  # every row has a value: an empty cell is an error
    condition: bool = False  # a condition: its cell may say ``not considered`` (the result lacks the key)
    enum: tuple[str, ...] = ()  # the values it may hold
    empty: str = "not reported"  # what an empty cell means
    units: tuple[tuple[str, str], ...] = ()  # the unit vocabulary (unit, description): the ``unit`` column's


# The columns the build derives rather than copies from the export.
_DERIVED = {field.name: field for field in (
    TableField("page", "string", "The site path of the article that reports the result, e.g. /guides/a/.",
               required=True),
    TableField("result_id", "string", ("The result's stable id: its `id`, else its label as a slug; unique "
                                       "within its source record."), required=True),
    TableField("comparison_key", "string", ("A hash of the result's metric and the conditions "
                                            "/schema/comparability.json names for it: results with the same key "
                                            "may be compared. Empty when any of those conditions is not reported "
                                            "or not considered.")),
    TableField("uncertainty_kind", "string", (f"Which dispersion the source reports: {', '.join(UNCERTAINTY_KINDS)}; "
                                              "empty when it reports none."), enum=UNCERTAINTY_KINDS),
    TableField("uncertainty_value", "number", ("The reported standard deviation (in the unit of the value) or "
                                               "spread ratio; empty for the other kinds.")),
    TableField("uncertainty_low", "number", ("The observed minimum, or the lower bound of the 95% confidence "
                                             "interval, in the unit of the value; empty for the other kinds.")),
    TableField("uncertainty_high", "number", ("The observed maximum, or the upper bound of the 95% confidence "
                                              "interval, in the unit of the value; empty for the other kinds.")),
    TableField(VERIFICATION, "string", (f"The value's state against the line of the document it cites: "
                                        f"{', '.join(STATES)}; empty when it was not checked."),
               enum=STATES, empty="not checked"),
)}
_AFTER = {"value": " Its unit is the row's `unit`."}  # what a column adds to its field's description


def result_fields(schemas: SchemaSet, columns: Sequence[str]) -> tuple[TableField, ...]:
    """The fields of a results table's ``columns`` (``table_columns``), in order."""
    registry = schemas.registry
    result, result_base = _lookup(registry, schemas.url("export.schema.json"), "#/$defs/reported_result")
    vocabulary, vocabulary_base = _lookup(registry, schemas.url("conditions.schema.json"),
                                          "#/$defs/result_conditions")
    units = tuple((unit, str(entry.get("description", ""))) for unit, entry in schemas.units.items())
    fields: list[TableField] = []
    for name in columns:
        if name in _DERIVED:
            fields.append(_DERIVED[name])
        elif name in FIXED_COLUMNS:
            found = _field(name, _property(result, name), result, registry, result_base)
            fields.append(replace(found, units=units) if name == "unit" else found)
        else:
            schema = _condition(vocabulary, name.removeprefix(CONDITION))
            fields.append(_field(name, schema, vocabulary, registry, vocabulary_base))
    return tuple(fields)


def _lookup(registry: Any, base: str, pointer: str) -> tuple[Mapping[str, Any], str]:
    """The object schema at ``pointer``, each ``$ref`` followed and merged under what refers to it
    (result_conditions: the known keys, and its own required keys)."""
    schema: Any = {"$ref": pointer}
    for _ in range(8):  # a chain of references, never a loop
        if not isinstance(schema, Mapping) or "$ref" not in schema:
            break
        schema, base = resolved(schema, registry, base)
    return (schema if isinstance(schema, Mapping) else {}), base


def _field(name: str, schema: Any, parent: Mapping[str, Any], registry: Any, base: str) -> TableField:
    """A column holding the value of ``schema``, a property of ``parent`` (required there or not)."""
    target, _ = resolved(schema, registry, base)
    types = json_types(schema, registry, base)
    key = name.removeprefix(CONDITION)
    required = key in parent.get("required", ()) and "null" not in types
    return TableField(name, _TYPES.get(types - {"null"}, "any"), _description(schema, target) + _AFTER.get(name, ""),
                      required=required, condition=name.startswith(CONDITION))


def _property(schema: Mapping[str, Any], name: str) -> Any:
    properties = schema.get("properties", {})
    return properties.get(name, {}) if isinstance(properties, Mapping) else {}


def _condition(vocabulary: Mapping[str, Any], key: str) -> Any:
    """The schema of condition ``key``: its property, else the first pattern it matches (described by
    what it refers to: a *_revision key is "a hex revision", not "any key ending in _revision"), else
    any value."""
    if key in vocabulary.get("properties", {}):
        return vocabulary["properties"][key]
    patterns = vocabulary.get("patternProperties", {})
    found: Mapping[str, Any] = next((sub for pattern, sub in patterns.items() if ecma_search(pattern, key)), {})
    return {k: v for k, v in found.items() if k != "description"} if "$ref" in found else found


def _description(schema: Any, target: Any) -> str:
    for candidate in (schema, target):
        if isinstance(candidate, Mapping) and isinstance(candidate.get("description"), str):
            return str(candidate["description"])
    return ""
