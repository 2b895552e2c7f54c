"""The results table: one row per reported result, values as authored, null kept."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Iterable
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from sitekit import export, many_pages, result

from evidencepress.cli import main
from evidencepress.content.jsonmap import load_json
from evidencepress.core import jsontext
from evidencepress.output.writer import StagedFolder
from evidencepress.schemas.load import DEFAULT_FOLDER, load_schemas
from evidencepress.site import dataset
from evidencepress.site.dataset import csv_bytes, json_rows, result_table, table_spec


def _export(*results: dict) -> dict:
    text = json.dumps(export(*results)).replace('"value": 1.5', '"value": 22.50')
    document, problems = load_json(text, "a.md", 1)
    assert document is not None and not problems
    return document.value


def test_rows_keep_literals_nulls_and_order() -> None:
    spec = table_spec(load_schemas(DEFAULT_FOLDER))
    conditions = spec.conditions
    assert conditions[:3] == ("system", "experiment_date", "concurrency") and "cache_state" in conditions
    first = _export(result("A", 1.5, uncertainty={"ci95": [1, 2.0]}), result("B, \"quoted\"", 3))
    table = result_table([("/guides/a/", first), ("/guides/b/", None)], spec)
    assert [row.get("label") for row in table.rows] == ["A", 'B, "quoted"']
    rows = json_rows(table)
    assert rows[0]["conditions.cache_state"] is None and rows[0]["uncertainty_kind"] == "ci95"
    text = csv_bytes(table).decode()
    assert text.startswith("page,source_record_id,result_id,label,metric,value,unit,")
    assert "\r\n" in text and '"B, ""quoted"""' in text
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert parsed[0]["value"] == "22.50" and parsed[0]["uncertainty_low"] == "1"
    assert parsed[0]["uncertainty_high"] == "2.0"
    assert parsed[0]["conditions.cache_state"] == "" and parsed[0]["conditions.thinking"] == "false"


def test_a_condition_a_result_does_not_carry_is_not_considered_not_null() -> None:
    """SPEC §4.2 tells null (not reported) from an absent key (not considered): the CSV writes "" for
    one and ``not considered`` for the other, a results.json row has null for one and leaves the
    other out; the explorer shows both as null."""
    spec = table_spec(load_schemas(DEFAULT_FOLDER))
    entry = result("A", 1.5)
    del entry["conditions"]["engine"]
    table = result_table([("/guides/a/", _export(entry))], spec)
    assert table.rows[0].get("conditions.engine") is dataset.NOT_CONSIDERED
    parsed = next(csv.DictReader(io.StringIO(csv_bytes(table).decode())))
    assert parsed["conditions.cache_state"] == "" and parsed["conditions.engine"] == "not considered"
    row = json_rows(table)[0]
    assert row["conditions.cache_state"] is None and "conditions.engine" not in row
    texts = dict(zip(table.columns, table.rows[0].texts, strict=True))
    assert texts["conditions.cache_state"] is None and texts["conditions.engine"] is None


def test_the_data_files_are_written_in_chunks_with_the_same_bytes(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """/data/results.json and .js go to the output a few rows at a time, never held whole,
    results.csv and exports/results.csv an article's rows at a time (the CSV lines of its facts,
    never read back from the output); the bytes do not depend on the chunk size."""
    root = many_pages(tmp_path / "site", 5)
    assert CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"]).exit_code == 0
    whole = {name: (root / "_site/data" / name).read_bytes() for name in ("results.json", "results.csv", "results.js")}
    whole["exports"] = (root / "exports/results.csv").read_bytes()
    chunks: dict[str, int] = {}
    put_chunks = StagedFolder.put_chunks

    def counting(self: StagedFolder, rel: str, pieces: Iterable[bytes]) -> None:
        listed = list(pieces)
        chunks[rel] = len(listed)
        put_chunks(self, rel, listed)

    monkeypatch.setattr(dataset, "CHUNK_ROWS", 2)
    monkeypatch.setattr(StagedFolder, "put_chunks", counting)
    assert CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", "--no-cache"]).exit_code == 0
    assert {name: (root / "_site/data" / name).read_bytes() for name in whole if name != "exports"} | {
        "exports": (root / "exports/results.csv").read_bytes()} == whole
    assert chunks["data/results.json"] == 5  # the head, three chunks of at most two of the five rows, the end
    assert chunks["data/results.csv"] == 6  # the header, then the rows of each article's index.csv
    columns = len(json.loads(whole["results.json"])["columns"])  # results.js: the head, then a column at a time
    assert chunks["data/results.js"] == 2 * columns + 3 and chunks["results.csv"] == 6  # (texts, then positions)
    assert json.loads(whole["results.json"])["results"][4]["label"] == "Run A"


CELLS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
    | st.sampled_from(["22.50", "-0", "1e2", "1.0e-400", "-0.0"]).map(
        lambda literal: json.loads(literal, parse_float=jsontext.parse_float, parse_int=jsontext.parse_int)),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=6,
)


@given(st.lists(st.lists(CELLS, min_size=3, max_size=3), max_size=6))
@settings(max_examples=300, deadline=None)
def test_the_csv_is_each_row_written_by_csv_writer_with_values_as_authored(values: list[list[object]]) -> None:
    """Rows are written a batch at a time; the bytes are those of one csv.writer row per result, each
    cell ``csv_cell`` of its value (numbers as authored, null empty, lists and objects as JSON), made
    inert for a spreadsheet (``inert_cell``)."""
    columns = ("page", "a", "b", "verification")
    table = dataset.ResultTable(columns, tuple((str(v[0]), (tuple(v),)) for v in values))  # states: none
    expected = io.StringIO()
    writer = csv.writer(expected, lineterminator="\r\n")
    writer.writerow(columns)
    writer.writerows([*(dataset.inert_cell(dataset.csv_cell(value)) for value in row), ""] for row in values)
    assert csv_bytes(table) == expected.getvalue().encode("utf-8")
    assert [row.texts for row in table.rows] == [[*(None if v is None else dataset.csv_cell(v) for v in row), None]
                                                  for row in values]


@given(st.lists(st.lists(CELLS, min_size=len(dataset.FIXED_COLUMNS), max_size=len(dataset.FIXED_COLUMNS)), max_size=5))
@settings(max_examples=200, deadline=None)
def test_a_pages_csv_lines_are_those_of_csv_writer_and_each_end_is_its_line_end(values: list[list[object]]) -> None:
    """A page's lines, kept for the site's CSV: one csv.writer row per result (a newline or a quote
    in a cell included), with the empty verification cell, and each end where that line's CRLF is."""
    spec = dataclasses.replace(table_spec(load_schemas(DEFAULT_FOLDER)), conditions=())
    lines, ends = dataset.unverified_csv("/guides/a/", tuple(tuple(row) for row in values), spec)
    expected = io.StringIO()
    csv.writer(expected, lineterminator="\r\n").writerows(
        [*(dataset.inert_cell(dataset.csv_cell(value)) for value in row), ""] for row in values)
    assert lines == expected.getvalue().encode("utf-8")
    assert len(ends) == len(values) and all(lines[end:end + 2] == b"\r\n" for end in ends)
    assert ends == () or ends[-1] == len(lines) - 2


def test_the_site_csv_is_the_rows_of_the_articles_csvs_in_page_order(tmp_path: Path) -> None:
    """/data/results.csv is made of each article's index.csv (header once): the same bytes as the
    table's own CSV, with articles without results, a draft left out, authored numbers and
    quoted text, also when most articles come back from the rendered cache."""
    from sitekit import article, make_site

    from evidencepress.build.recipe import BuildOptions, plan_site

    quoted = result("Run, \"quoted\"", 2.0, source_record_id="record-a")
    root = make_site(tmp_path / "site", {
        "guides/a.md": article("A", export_doc=export(result("Run A", 1.5), quoted)),
        "guides/b.md": article("B"),
        "guides/c.md": article("C", export_doc=export(result("Run C", 3, source_record_id="record-c"))),
        "d.md": article("D", export_doc=export(result("Run D", 4.25))),
        "guides/e.md": article("E", export_doc=export(result("Run E", 5))).replace("---\n", "---\ndraft: true\n", 1),
    })
    (root / "content/guides/a.md").write_text((root / "content/guides/a.md").read_text().replace("1.5,", "1.50,", 1))

    def expected() -> bytes:
        plan, _ = plan_site(BuildOptions(root, use_cache=False))
        assert plan is not None and len(plan.index.results.rows) == 4
        return csv_bytes(plan.index.results)

    assert CliRunner().invoke(main, ["build", "--root", str(root)]).exit_code == 0
    assert (root / "_site/data/results.csv").read_bytes() == expected()
    assert b"1.50" in expected() and b"Run E" not in expected()
    (root / "content/guides/c.md").write_text((root / "content/guides/c.md").read_text().replace("Run C", "Run C2"))
    assert CliRunner().invoke(main, ["build", "--root", str(root)]).exit_code == 0
    assert (root / "_site/data/results.csv").read_bytes() == expected()
    # exports/ is the content's snapshot: the verification states (from the vault) are left out
    assert (root / "exports/results.csv").read_bytes() == expected().replace(b",source-missing\r\n", b"\r\n").replace(
        b",verification\r\n", b"\r\n", 1)


def test_a_text_cell_a_spreadsheet_would_evaluate_is_neutralised_in_every_csv(tmp_path: Path) -> None:
    """CSV injection (OWASP): a label or condition starting with =, +, -, @ reached every CSV unchanged
    (issue 25). It gets a leading apostrophe in CSV; a negative number stays a number; JSON keeps it all."""
    from sitekit import CHART, article, make_site

    hostile = result('=HYPERLINK("http://x.example/","click")', -0.5)
    hostile["conditions"] = {**hostile["conditions"], "model": "@SUM(1+1)", "system": "+1 x DGX Spark"}
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.\n" + CHART, export(hostile, result("B", 2.0)))})
    assert CliRunner().invoke(main, ["build", "--root", str(root)]).exit_code == 0
    for name in ("_site/data/results.csv", "_site/guides/a/index.csv", "exports/results.csv", "_site/guides/a/decode.csv"):
        rows = list(csv.DictReader(io.StringIO((root / name).read_text(encoding="utf-8"))))
        first = rows[0]
        assert first["label"] == '\'=HYPERLINK("http://x.example/","click")' and first["value"] == "-0.5", name
        if "conditions.model" in first:
            assert first["conditions.model"] == "'@SUM(1+1)" and first["conditions.system"] == "'+1 x DGX Spark"
    row = json.loads((root / "_site/data/results.json").read_bytes())["results"][0]
    assert row["label"].startswith("=HYPERLINK") and row["conditions.model"] == "@SUM(1+1)" and row["value"] == -0.5
