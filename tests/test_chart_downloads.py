"""Each chart's downloads: <id>.csv and <id>.json beside the page, the figure's links, index.json, catalog.json.

The sites cite a document the tests write into the vault (sources/), so that the
plotted values have verification states.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from sitekit import CHART, REV, SHA, SOURCE_URL, article, export, make_site, result, tree

from evidencepress.cli import main

DOCUMENT = b"Benchmark notes\n\nDecode at C1 reached 42.50 tokens/s (SD 1.20).\nDecode at C8 reached 40 tokens/s.\n"
DIGEST = hashlib.sha256(DOCUMENT).hexdigest()
C8 = {**result()["conditions"], "concurrency": 8}
URL_C1, URL_C8 = SOURCE_URL + "#L3", SOURCE_URL + "#L4"
BASE = "https://example.org/sub/guides/a/"
HEADER = ("label,value,unit,statistic,uncertainty,result_id,evidence_url,series,panel,state,source_record_id,"
          "pointer,verification\r\n")
SHARED = {  # every condition of the two results but concurrency, core keys in the schema's order
    "system": "1 x DGX Spark", "experiment_date": "2026-10-01", "node_count": 1, "model": "m",
    "model_artifact": None, "model_revision": None, "engine": "vLLM", "runtime_execution_revision": None,
    "weight_precision": "bf16", "kv_dtype": "bf16", "input_tokens": 128, "output_tokens": 256, "temperature": 0,
    "thinking": False, "cache_state": None, "repetitions": 1, "context_limit_tokens": None,
}
# Two panels: the decode results, and a section whose first value is not reported (null).
TWO_PANELS = """
```chart
id: decode-memory
kind: bar
title: Decode and memory
alt: Decode rate of two runs and the memory of one.
caption: One model, two concurrencies.
panels:
  - title: Decode
    select:
      where: {metric: decode_rate}
  - title: Memory
    select: {from: memory_observations}
```
"""
MEMORY = [
    {"label": "Peak host RAM", "value": None, "unit": "GiB", "source_record_id": "example-record",
     "evidence_url": URL_C1, "source_document_sha256": SHA},
    {"label": "KV cache", "value": 6, "unit": "GiB", "source_record_id": "example-record"},
]


def site(root: Path, body: str = "Text." + CHART, **sections: Any) -> Path:
    results = [result("Decode at C1", 42.5, evidence_url=URL_C1, source_line=3,
                      uncertainty={"standard_deviation": 1.20}),
               result("Decode at C8", 40, evidence_url=URL_C8, source_line=4, conditions=C8, id="c8")]
    text = article("Article A", body, export(*results, **sections))
    text = text.replace('"value": 42.5,', '"value": 42.50,').replace('"standard_deviation": 1.2', '"standard_deviation": 1.20')
    make_site(root, {"guides/a.md": text.replace(SHA, DIGEST)})
    (root / "sources").mkdir()
    (root / "sources" / DIGEST).write_bytes(DOCUMENT)
    return root


def build(root: Path, *args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", *args])
    return outcome.exit_code, outcome.output


def built(root: Path) -> dict[str, bytes]:
    code, output = build(root)
    assert code == 0, output
    return tree(root / "_site")


def test_chart_csv_holds_the_plotted_values_as_authored(tmp_path: Path) -> None:
    files = built(site(tmp_path))
    assert files["guides/a/decode.csv"].decode() == (
        HEADER
        + f"Decode at C1,42.50,tokens/s,one run,±1.20 (1 SD as reported),decode-at-c1,{URL_C1},,,,example-record,"
          "/reported_results/0,verified\r\n"
        + f"Decode at C8,40,tokens/s,one run,,c8,{URL_C8},,,,example-record,/reported_results/1,verified\r\n"
    )


def test_chart_json_describes_the_chart_and_lists_its_values(tmp_path: Path) -> None:
    files = built(site(tmp_path))
    value: dict[str, Any] = {"label": "Decode at C1", "value": 42.5, "unit": "tokens/s", "statistic": "one run",
                             "uncertainty": "±1.20 (1 SD as reported)", "result_id": "decode-at-c1",
                             "evidence_url": URL_C1, "series": None, "panel": None, "state": None,
                             "source_record_id": "example-record", "pointer": "/reported_results/0",
                             "verification": {"state": "verified", "line": 3,
                                              "excerpt": "Decode at C1 reached 42.50 tokens/s (SD 1.20).", "found_line": None}}
    second = {**value, "label": "Decode at C8", "value": 40, "uncertainty": None, "result_id": "c8",
              "evidence_url": URL_C8, "pointer": "/reported_results/1",
              "verification": {"state": "verified", "line": 4, "excerpt": "Decode at C8 reached 40 tokens/s.",
                               "found_line": None}}
    expected = {
        "id": "decode", "kind": "bar", "title": "Decode rate", "alt": "Decode rate of two runs.", "caption": None,
        "page_url": BASE, "svg_url": BASE + "decode.svg", "csv_url": BASE + "decode.csv",
        "units": ["tokens/s"], "statistics": ["one run"], "uncertainty_basis": ["±1 SD as reported"],
        "conditions": SHARED,
        "sources": [{"publisher": "example", "url": SOURCE_URL, "revision": REV, "sha256": DIGEST, "pinned": True}],
        "notes": ["Not like with like \u2014 Concurrency: 1 / 8"],  # the chart compares them on x: label
        "values": [value, second],
    }
    text = (json.dumps(expected, indent=2, ensure_ascii=False) + "\n").replace('"value": 42.5,', '"value": 42.50,')
    assert files["guides/a/decode.json"].decode() == text


def test_a_value_not_reported_is_an_empty_cell_and_null(tmp_path: Path) -> None:
    files = built(site(tmp_path, "Text." + TWO_PANELS, memory_observations=MEMORY))
    lines = files["guides/a/decode-memory.csv"].decode().split("\r\n")
    assert lines[3] == f"Peak host RAM,,GiB,,,peak-host-ram,{URL_C1},,Memory,,example-record,/memory_observations/0,"
    assert lines[4] == "KV cache,6,GiB,,,kv-cache,,,Memory,,example-record,/memory_observations/1,"
    assert lines[1].split(",")[8] == "Decode"
    document = json.loads(files["guides/a/decode-memory.json"])
    peak = document["values"][2]
    assert (peak["value"], peak["unit"], peak["verification"]) == (None, "GiB", None)
    assert document["caption"] == "One model, two concurrencies."
    assert document["units"] == ["tokens/s", "GiB"]
    assert document["conditions"] == {}  # the memory entries carry no conditions: none is shared
    # the page's table says what the empty cell means
    assert "<td>not reported</td>" in files["guides/a/index.html"].decode().replace(' class="num"', "")


def test_figure_has_a_download_row_with_accessible_names(tmp_path: Path) -> None:
    html = built(site(tmp_path))["guides/a/index.html"].decode()
    assert ('<ul class="downloads chart-downloads" aria-label="Downloads of this chart" data-pagefind-ignore>\n'
            '      <li><a href="decode.svg" aria-label="Download the chart “Decode rate” as SVG">SVG</a></li>\n'
            '      <li><a href="decode.csv" download aria-label="Download the values of “Decode rate” as CSV">CSV</a></li>\n'
            '      <li><a href="decode.json" aria-label="Download the values and description of “Decode rate” as JSON">'
            'JSON</a></li>\n    </ul>') in html


def test_index_json_and_catalog_list_the_chart_files(tmp_path: Path) -> None:
    files = built(site(tmp_path))
    page = json.loads(files["guides/a/index.json"])["page"]
    assert page["charts"] == [{"id": "decode", "file": BASE + "decode.svg", "csv": BASE + "decode.csv",
                               "json": BASE + "decode.json", "kind": "bar", "plotted": ["Decode at C1", "c8"]}]
    catalog = json.loads(files["data/catalog.json"])
    article_a = next(item for item in catalog["pages"] if item["url"] == "/guides/a/")
    assert article_a["charts"] == [{"id": "decode", "title": "Decode rate", "svg_url": "/guides/a/decode.svg",
                                    "csv_url": "/guides/a/decode.csv", "json_url": "/guides/a/decode.json"}]
    for chart in article_a["charts"]:
        assert all(chart[key].lstrip("/") in files for key in ("svg_url", "csv_url", "json_url"))


def test_chart_files_are_byte_identical_from_build_to_build(tmp_path: Path) -> None:
    root = site(tmp_path / "site", "Text." + TWO_PANELS + CHART, memory_observations=MEMORY)
    first = built(root)
    again = built(root)  # from the rendered cache
    fresh = tree(root / "_site") if build(root, "--no-cache")[0] == 0 else {}
    names = ["guides/a/decode.csv", "guides/a/decode.json", "guides/a/decode-memory.csv", "guides/a/decode-memory.json"]
    assert all(name in first for name in names)
    assert {n: first[n] for n in names} == {n: again[n] for n in names} == {n: fresh[n] for n in names}


def test_links_to_chart_files_check_and_a_file_in_their_place_is_an_error(tmp_path: Path) -> None:
    root = site(tmp_path, "See [the data](decode.csv) and [its description](/guides/a/decode.json).\n" + CHART)
    assert build(root)[0] == 0
    (root / "static" / "guides" / "a").mkdir(parents=True)
    (root / "static" / "guides" / "a" / "decode.csv").write_text("x\r\n")
    code, output = build(root)
    assert code == 1
    assert "static/guides/a/decode.csv: error: /guides/a/decode.csv is a file the build generates [path]" in output


def test_a_chart_may_not_be_called_index(tmp_path: Path) -> None:
    code, output = build(site(tmp_path, "Text." + CHART.replace("id: decode", "id: index")))
    assert code == 1
    assert "content/guides/a.md:14:1: error: id: chart id 'index' is taken by the page's own files [chart-id]" in output
