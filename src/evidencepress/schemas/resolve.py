"""A schema node with its ``$ref`` followed, and the JSON types it allows.

What the field reference (``schema --reference``) and the data package's Table
Schema read of a field: its description, its required keys, its types. ``$ref``
is followed through the ``SchemaSet``'s registry, so a site's own schemas may
point anywhere in the set.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referencing import Registry

JSON_TYPES = frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})


def resolved(schema: Any, registry: Registry[Any], base: str, own: bool = True) -> tuple[Any, str]:
    """The schema a ``$ref`` points to, merged under the referring schema's own keywords (``own``),
    and the base URI of what it holds."""
    if not isinstance(schema, Mapping) or "$ref" not in schema:
        return schema, base
    target = registry.resolver(base_uri=base).lookup(schema["$ref"]).contents
    if not isinstance(target, Mapping):
        return schema, base
    merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}} if own else dict(target)
    if "properties" in target and "properties" in schema:
        merged["properties"] = {**target["properties"], **schema["properties"]}
    document = str(schema["$ref"]).split("#", 1)[0]
    return merged, urllib.parse.urljoin(base, document) if document else base


def json_types(schema: Any, registry: Registry[Any], base: str) -> frozenset[str]:
    """The JSON types a value of ``schema`` may have: its ``type``, else those of its ``const`` or
    ``enum``, else those its ``oneOf``/``anyOf`` branches allow (every type: no constraint)."""
    schema, base = resolved(schema, registry, base)
    if not isinstance(schema, Mapping):
        return JSON_TYPES if schema is not False else frozenset()
    kinds = schema.get("type")
    if isinstance(kinds, str):
        return frozenset({kinds})
    if isinstance(kinds, list):
        return frozenset(kind for kind in kinds if isinstance(kind, str))
    if "const" in schema:
        return frozenset({_type_of(schema["const"])})
    if isinstance(schema.get("enum"), list):
        return frozenset(map(_type_of, schema["enum"]))
    branches = schema.get("oneOf", schema.get("anyOf"))
    if isinstance(branches, list) and branches:
        return frozenset().union(*(json_types(branch, registry, base) for branch in branches))
    return JSON_TYPES


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"
