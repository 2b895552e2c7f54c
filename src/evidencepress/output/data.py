"""The site's data files: /data/results.{json,csv,js}, /data/catalog.json, each article's index.csv,
and /data/datapackage.json that describes the tables (``datapackage.py``).

Rows come from ``dataset.py`` (values as authored, null kept). URLs inside are
site paths (``/guides/a/``), so the bytes do not depend on base_url: a reader
joins them to ``base_url`` (given in catalog.json), the explorer resolves them
relative to itself. catalog.json and datapackage.json (which names each
article's CSV by its URL) are the two that name ``base_url``. ``results.js`` carries the same rows for the explorer,
because a browser refuses ``fetch()`` of a local file but runs ``<script src>``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from ..charts import ChartPlan
from ..checks.config import SiteConfig
from ..checks.page import Page
from ..core import jsontext
from ..schemas.comparability import Rules
from ..schemas.load import SchemaSet
from ..site.dataset import ResultTable, batches, csv_chunks, json_rows, page_csv
from ..site.gaps import GAPS_FILE
from ..site.index import DATA_URL, SiteIndex
from ..site.tableschema import result_fields
from .datapackage import PACKAGE_FILE, TABLE_SCHEMA_FILE, Measured, datapackage, table_schema
from .verification import state_names

RESULTS_JS_GLOBAL = "EVIDENCEPRESS_RESULTS"


def article_csv(page: Page, table: ResultTable) -> bytes:
    """The article's reported results with the columns of /data/results.csv (a header only when none):
    its rows of the site's table (``table``)."""
    return page_csv(table, page.url)


def data_files(index: SiteIndex, config: SiteConfig, schemas: SchemaSet) -> Iterator[tuple[str, Iterator[bytes]]]:
    """Files of /data/ by name, one at a time, each in chunks: a site of thousands of results
    would otherwise hold several copies of its whole table at once. Each is to be written before
    the next is asked for: datapackage.json, the last, names the size and SHA-256 of results.csv
    and results.json as they were written."""
    json_file, csv_file = Measured(results_json(index.results)), Measured(csv_chunks(index.results))
    yield "results.json", iter(json_file)
    yield "results.csv", iter(csv_file)
    yield "results.js", results_script(index, schemas.comparability)
    yield "catalog.json", iter([_json_file(catalog_document(index, config))])
    yield TABLE_SCHEMA_FILE, iter([_json_file(table_schema(result_fields(schemas, index.results.columns)))])
    yield PACKAGE_FILE, _package(index, config, csv_file, json_file)


def _package(index: SiteIndex, config: SiteConfig, csv_file: Measured, json_file: Measured) -> Iterator[bytes]:
    """datapackage.json, made when it is written: after results.csv and results.json."""
    yield _json_file(datapackage(index, config, csv_file.digest(), json_file.digest()))


def results_json(table: ResultTable) -> Iterator[bytes]:
    """``{"columns": [...], "results": [...]}`` with one result per line: readable, diffable,
    and written by the fast one-line encoder (a site of thousands of results has hundreds of
    thousands of values), a few thousand rows at a time."""
    yield ('{\n  "columns": ' + jsontext.dumps(list(table.columns), indent=None) + ',\n  "results": ').encode()
    if not table.rows:
        yield b"[]\n}\n"
        return
    lead = "[\n    "
    for batch in batches(table.rows):
        yield (lead + ",\n    ".join(jsontext.dumps(row, indent=None) for row in json_rows(table, batch))).encode()
        lead = ",\n    "
    yield b"\n  ]\n}\n"


def results_script(index: SiteIndex, rules: Rules) -> Iterator[bytes]:
    """The explorer's rows: every cell as display text (the authored literal; null stays null),
    plus the titles of the pages and records the rows link to and the key conditions of each
    metric of the rows (``key_conditions``: what a comparison key stands for, in key order).
    Written a few thousand rows at a time: a site of thousands of results would otherwise hold
    millions of cells at once."""
    columns = json.dumps(list(index.results.columns), ensure_ascii=False)
    yield _script_text(f'window.{RESULTS_JS_GLOBAL} = {{"columns": {columns}, "rows": [')
    lead = ""
    metrics: dict[str, None] = {}
    for batch in batches(index.results.rows):
        cells = [row.texts for row in batch]
        metrics.update((metric, None) for row in batch if isinstance(metric := row.get("metric"), str))
        yield _script_text(lead + json.dumps(cells, ensure_ascii=False)[1:-1])  # the rows, without the brackets
        lead = ", "
    pages = {e.page.url: e.page.front.title for e in sorted(index.entries, key=lambda e: e.page.url)}
    records = {r.id: r.title for r in index.records}
    keys = {metric: list(rules.keys_of(metric)) for metric in sorted(metrics)}
    yield _script_text(f'], "pages": {json.dumps(pages, ensure_ascii=False)}, '
                       f'"records": {json.dumps(records, ensure_ascii=False)}, '
                       f'"checks": {json.dumps(state_names(), ensure_ascii=False)}, '
                       f'"key_conditions": {json.dumps(keys, ensure_ascii=False)}}};\n')


def _script_text(text: str) -> bytes:
    """JavaScript source bytes of JSON text: U+2028 and U+2029 escaped (line ends to older engines)."""
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").encode()


def catalog_document(index: SiteIndex, config: SiteConfig) -> dict[str, Any]:
    pages = []
    for entry in index.catalog:
        item: dict[str, Any] = {
            "kind": entry.kind,
            "title": entry.title,
            "summary": entry.summary,
            "url": entry.url,
            "json_url": entry.url + "index.json",
            "md_url": entry.url + "index.md",
        }
        if entry.has_csv:
            item["csv_url"] = entry.url + "index.csv"
        if entry.kind == "article":
            item["charts"] = [_chart_item(entry.url, chart) for chart in entry.charts]
        item["section"] = entry.section or None
        item["checked"] = entry.checked.isoformat() if entry.checked else None
        item["modified"] = entry.lastmod.isoformat() if entry.lastmod else None
        pages.append(item)
    return {
        "site": {"title": config.title, "description": config.description, "base_url": config.base_url,
                 "language": config.language, "license": _license(config)},
        "data": {name: DATA_URL + name for name in ("results.json", "results.csv", PACKAGE_FILE, GAPS_FILE)},
        "pages": pages,
    }


def _chart_item(url: str, chart: ChartPlan) -> dict[str, str]:
    """An article's chart in catalog.json: its id, title, and its SVG, CSV and JSON files."""
    csv, json_file = chart.data_files()
    return {"id": chart.id, "title": chart.title, "svg_url": f"{url}{chart.id}.svg", "csv_url": url + csv,
            "json_url": url + json_file}


def _license(config: SiteConfig) -> Mapping[str, str] | None:
    return {"name": config.license.name, "url": config.license.url} if config.license else None


def _json_file(document: Any) -> bytes:
    return (jsontext.dumps(document) + "\n").encode("utf-8")
