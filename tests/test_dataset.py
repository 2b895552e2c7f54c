"""The results table: one row per reported result, values as authored, null kept."""

from __future__ import annotations

import csv
import io
import json

from sitekit import export, result

from evidencepress.dataset import csv_bytes, json_rows, result_table
from evidencepress.jsonmap import load_json
from evidencepress.schemas import DEFAULT_FOLDER, load_schemas


def _export(*results: dict) -> dict:
    text = json.dumps(export(*results)).replace('"value": 1.5', '"value": 22.50')
    document, problems = load_json(text, "a.md", 1)
    assert document is not None and not problems
    return document.value


def test_rows_keep_literals_nulls_and_order() -> None:
    conditions = load_schemas(DEFAULT_FOLDER).core_conditions
    assert conditions[:3] == ("system", "experiment_date", "concurrency") and "kv_dtype" in conditions
    first = _export(result("A", 1.5, uncertainty={"ci95": [1, 2.0]}), result("B, \"quoted\"", 3))
    table = result_table([("/guides/a/", first), ("/guides/b/", None)], conditions)
    assert [row.get("label") for row in table.rows] == ["A", 'B, "quoted"']
    rows = json_rows(table)
    assert rows[0]["conditions.kv_dtype"] is None and rows[0]["uncertainty_kind"] == "ci95"
    text = csv_bytes(table).decode()
    assert text.startswith("page,source_record_id,label,metric,value,unit,")
    assert "\r\n" in text and '"B, ""quoted"""' in text
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert parsed[0]["value"] == "22.50" and parsed[0]["uncertainty_low"] == "1"
    assert parsed[0]["uncertainty_high"] == "2.0"
    assert parsed[0]["conditions.kv_dtype"] == "" and parsed[0]["conditions.thinking"] == "false"
