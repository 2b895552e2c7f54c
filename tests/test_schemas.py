"""The published schemas: well-formed 2020-12 documents that describe every property."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from sitekit import REPO

SCHEMA_DIR = REPO / "schema"
SCHEMAS = sorted(SCHEMA_DIR.glob("*.schema.json"))


def _properties(schema: Any, where: str = "#") -> Iterator[tuple[str, Any]]:
    if isinstance(schema, dict):
        for name, sub in schema.get("properties", {}).items():
            yield f"{where}/properties/{name}", sub
        for key, value in schema.items():
            yield from _properties(value, f"{where}/{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _properties(value, f"{where}/{index}")


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_schema_is_valid_2020_12_with_an_id(path: Path) -> None:
    schema = json.loads(path.read_text())
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith("/" + path.name)
    assert schema.get("description")


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_every_property_has_a_description(path: Path) -> None:
    schema = json.loads(path.read_text())
    missing = [where for where, sub in _properties(schema) if not (isinstance(sub, dict) and sub.get("description"))]
    assert missing == []


def test_units_vocabulary_is_published_data() -> None:
    units = json.loads((SCHEMA_DIR / "units.json").read_text())
    assert units["$id"].endswith("/units.json")
    for name, entry in units["units"].items():
        assert entry.get("description"), name
        assert entry.get("same_as") in (None, *units["units"]), name
