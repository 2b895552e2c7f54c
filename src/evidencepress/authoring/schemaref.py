"""A readable field reference of a published schema, generated from its ``description``s.

``evidencepress schema export --reference`` prints one entry per field, as a
dotted path (``reported_results[].conditions.concurrency``), whether it is
required or recommended, what it holds, and its description. The text comes
from the schema files themselves, so a site that extends its schemas gets
its own fields documented.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from referencing import Registry

from ..schemas.load import SchemaSet
from ..schemas.resolve import resolved as _resolved

# Short names for `evidencepress schema NAME`, and where the fields of each start.
NAMES = {
    "export": ("export.schema.json", "#", ""),
    "conditions": ("conditions.schema.json", "#/$defs/result_conditions", "conditions"),
    "chart": ("chart.schema.json", "#", ""),
    "frontmatter": ("frontmatter.schema.json", "#", ""),
    "site": ("site.schema.json", "#", ""),
    "units": ("units.json", "#", ""),
    "comparability": ("comparability.json", "#", ""),
}
MAX_DEPTH = 8
_TYPE_NAMES = {"array": "list", "object": "object", "string": "text", "integer": "integer", "number": "number",
               "boolean": "true or false", "null": "null"}


@dataclass(frozen=True)
class Field:
    path: str
    flags: str  # "required", "recommended" or ""
    holds: str  # what the value is: "integer >= 1 or null", "list of reported result"
    description: str
    shapes: tuple[str, ...] = ()  # the alternatives of a oneOf, one line each


def field_reference(schemas: SchemaSet, name: str) -> str:
    """The reference of ``name`` (a key of NAMES) as plain text, ready to print."""
    file, start, prefix = NAMES[name]
    document = schemas.documents[file]
    title = document.get("title", "Unit vocabulary" if file == "units.json" else file)
    lines = [f"{title} ({file})", ""]
    if document.get("description"):
        lines += [str(document["description"]), ""]
    lines += [f"Published with every site at /schema/{file}.", ""]
    if file == "units.json":
        lines += _units(document)
    elif file == "comparability.json":
        lines += _comparability(document)
    else:
        resolver = schemas.registry.resolver(base_uri=str(document.get("$id", file)))
        root = resolver.lookup(start).contents
        for field in _fields(root, prefix, schemas.registry, str(document.get("$id", file)), 0, ()):
            lines += _format(field)
    return "\n".join(lines).rstrip("\n") + "\n"


def _units(document: Mapping[str, Any]) -> list[str]:
    units = document.get("units", {})
    width = max((len(name) for name in units), default=0)
    lines = []
    for name, unit in units.items():
        same = f" (the same unit as {unit['same_as']})" if unit.get("same_as") else ""
        lines.append(f"{name.ljust(width)}  {unit.get('description', '')}{same}")
    return lines


def _comparability(document: Mapping[str, Any]) -> list[str]:
    """The default keys, then each family: its metrics and keys."""
    default = document.get("default", {})
    lines = ["default (every metric no family names)", f"    keys: {', '.join(default.get('keys', ()))}"]
    if default.get("description"):
        lines.append(f"    {default['description']}")
    for name, family in document.get("families", {}).items():
        lines += ["", name, f"    metrics: {', '.join(family.get('metrics', ()))}",
                  f"    keys: {', '.join(family.get('keys', ()))}"]
        if family.get("description"):
            lines.append(f"    {family['description']}")
    return lines


def _format(field: Field) -> list[str]:
    head = "  ".join(part for part in (field.path, field.flags, field.holds) if part)
    lines = [head]
    if field.description:
        lines.append(f"    {field.description}")
    lines += [f"    - {shape}" for shape in field.shapes]
    lines.append("")
    return lines


def _fields(schema: Any, prefix: str, registry: Registry[Any], base: str, depth: int,
            seen: tuple[int, ...]) -> Iterator[Field]:
    """Every property under ``schema`` (an object schema), depth first, in the schema's order."""
    schema, base = _resolved(schema, registry, base)
    if not isinstance(schema, Mapping) or depth > MAX_DEPTH or id(schema) in seen:
        return
    seen += (id(schema),)
    required = set(schema.get("required", ())) | set(_resolved(schema, registry, base, own=False)[0].get(
        "required", ()) if isinstance(schema, Mapping) else ())
    recommended = set(schema.get("x-recommended", ()))
    for name, child in _properties(schema, registry, base).items():
        path = f"{prefix}.{name}" if prefix else name
        flags = "required" if name in required else "recommended" if name in recommended else ""
        resolved, child_base = _resolved(child, registry, base)
        yield Field(path, flags, _holds(child, registry, base), _description(child, resolved),
                    _shapes(resolved, registry, child_base))
        yield from _children(resolved, path, registry, child_base, depth, seen)
    patterns = _pattern_properties(schema, registry, base)
    for name in sorted(recommended - set(_properties(schema, registry, base))):  # named by a pattern: *_revision
        child = next((sub for pattern, sub in patterns.items() if re.search(pattern, name)), {})
        resolved, _ = _resolved(child, registry, base)
        yield Field(f"{prefix}.{name}" if prefix else name, "recommended", _holds(child, registry, base),
                    _description(child, resolved))
    for pattern, child in patterns.items():
        resolved, child_base = _resolved(child, registry, base)
        yield Field(f"{prefix}.<key matching {pattern}>" if prefix else f"<key matching {pattern}>", "",
                    _holds(child, registry, base), _description(child, resolved))


def _children(schema: Any, path: str, registry: Registry[Any], base: str, depth: int,
              seen: tuple[int, ...]) -> Iterator[Field]:
    if not isinstance(schema, Mapping):
        return
    if "items" in schema:
        yield from _fields(schema["items"], f"{path}[]", registry, base, depth + 1, seen)
    elif _properties(schema, registry, base):
        yield from _fields(schema, path, registry, base, depth + 1, seen)


def _properties(schema: Mapping[str, Any], registry: Registry[Any], base: str) -> dict[str, Any]:
    """Own properties, and those of a ``$ref`` beside them (result_conditions -> known)."""
    found: dict[str, Any] = {}
    if "$ref" in schema:
        target, _ = _resolved({"$ref": schema["$ref"]}, registry, base)
        if isinstance(target, Mapping):
            found.update(target.get("properties", {}))
    found.update(schema.get("properties", {}))
    return found


def _pattern_properties(schema: Mapping[str, Any], registry: Registry[Any], base: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if "$ref" in schema:
        target, _ = _resolved({"$ref": schema["$ref"]}, registry, base)
        if isinstance(target, Mapping):
            found.update(target.get("patternProperties", {}))
    found.update(schema.get("patternProperties", {}))
    return found


def _description(schema: Any, resolved: Any) -> str:
    for candidate in (schema, resolved):
        if isinstance(candidate, Mapping) and isinstance(candidate.get("description"), str):
            return str(candidate["description"])
    return ""


def _holds(schema: Any, registry: Registry[Any], base: str) -> str:
    """What a value of ``schema`` is, in a few words."""
    schema, base = _resolved(schema, registry, base)
    if not isinstance(schema, Mapping):
        return ""
    message = str(schema.get("x-message", ""))
    if message.startswith("expected "):
        return message[len("expected "):]
    if "enum" in schema:
        return "one of " + ", ".join(str(value) for value in schema["enum"])
    if "const" in schema:
        return f"always {schema['const']}"
    if "oneOf" in schema or "anyOf" in schema:
        return "one of the shapes below"
    kinds = schema.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    text = " or ".join(_TYPE_NAMES.get(kind, kind) for kind in kinds)
    if "array" in kinds and "items" in schema:
        item = _holds(schema["items"], registry, base)
        text = f"list of {item}" if item else text
    return text


def _shapes(schema: Any, registry: Registry[Any], base: str) -> tuple[str, ...]:
    """The alternatives of a ``oneOf``: ``{standard_deviation, kind?}: A reported standard deviation``."""
    if not isinstance(schema, Mapping):
        return ()
    if "items" in schema and "oneOf" not in schema and "anyOf" not in schema:
        return _shapes(_resolved(schema["items"], registry, base)[0], registry, base)
    branches = [_resolved(b, registry, base)[0] for b in schema.get("oneOf", schema.get("anyOf", ()))]
    if not any(isinstance(b, Mapping) and "properties" in b for b in branches):
        return ()  # integer, text or null: the one-line summary says it
    shapes = []
    for branch in branches:
        resolved, _ = _resolved(branch, registry, base)
        if not isinstance(resolved, Mapping):
            continue
        required = set(resolved.get("required", ()))
        names = [name + ("" if name in required else "?") for name in resolved.get("properties", {})]
        shape = "{" + ", ".join(names) + "}" if names else _holds(resolved, registry, base) or "any value"
        description = resolved.get("description", "")
        shapes.append(f"{shape}: {description}" if description else shape)
    return tuple(shapes)
