"""The site's data files: /data/results.{json,csv,js}, /data/catalog.json, each article's index.csv.

Rows come from ``dataset.py`` (values as authored, null kept). URLs inside are
site paths (``/guides/a/``), so the bytes do not depend on base_url: a reader
joins them to ``base_url`` (given in catalog.json), the explorer resolves them
relative to itself. ``results.js`` carries the same rows for the explorer,
because a browser refuses ``fetch()`` of a local file but runs ``<script src>``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from . import jsontext
from .config import SiteConfig
from .dataset import ResultTable, csv_bytes, csv_cell, json_rows
from .model import Page
from .site import DATA_URL, SiteIndex

RESULTS_JS_GLOBAL = "EVIDENCEPRESS_RESULTS"


def article_csv(page: Page, table: ResultTable) -> bytes:
    """The article's reported results with the columns of /data/results.csv (a header only when none):
    its rows of the site's table (``table``)."""
    return csv_bytes(table, table.rows_of(page.url))


def data_files(index: SiteIndex, config: SiteConfig) -> dict[str, bytes]:
    """Files of /data/ by name."""
    return {
        "results.json": results_json(index.results),
        "results.csv": csv_bytes(index.results),
        "results.js": results_script(index),
        "catalog.json": _json_file(catalog_document(index, config)),
    }


def results_document(table: ResultTable) -> dict[str, Any]:
    return {"columns": list(table.columns), "results": json_rows(table)}


def results_json(table: ResultTable) -> bytes:
    """``results_document`` with one result per line: readable, diffable, and written by the fast
    one-line encoder (a site of thousands of results has hundreds of thousands of values)."""
    document = results_document(table)
    rows = ["    " + jsontext.dumps(row, indent=None) for row in document["results"]]
    results = "[\n" + ",\n".join(rows) + "\n  ]" if rows else "[]"
    columns = jsontext.dumps(document["columns"], indent=None)
    return ('{\n  "columns": ' + columns + ',\n  "results": ' + results + "\n}\n").encode("utf-8")


def results_script(index: SiteIndex) -> bytes:
    """The explorer's rows: every cell as display text (the authored literal; null stays null),
    plus the titles of the pages and records the rows link to. Written row by row: a site of
    thousands of results would otherwise hold millions of cells at once."""
    rows = ", ".join(json.dumps([None if value is None else csv_cell(value) for value in row.values],
                               ensure_ascii=False) for row in index.results.rows)
    pages = {e.page.url: e.page.front.title for e in sorted(index.entries, key=lambda e: e.page.url)}
    records = {r.id: r.title for r in index.records}
    text = (f'{{"columns": {json.dumps(list(index.results.columns), ensure_ascii=False)}, "rows": [{rows}], '
            f'"pages": {json.dumps(pages, ensure_ascii=False)}, "records": {json.dumps(records, ensure_ascii=False)}}}')
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.{RESULTS_JS_GLOBAL} = {text};\n".encode()


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
        item["section"] = entry.section or None
        item["checked"] = entry.checked.isoformat() if entry.checked else None
        item["modified"] = entry.lastmod.isoformat() if entry.lastmod else None
        pages.append(item)
    return {
        "site": {"title": config.title, "description": config.description, "base_url": config.base_url,
                 "language": config.language, "license": _license(config)},
        "data": {name: DATA_URL + name for name in ("results.json", "results.csv")},
        "pages": pages,
    }


def _license(config: SiteConfig) -> Mapping[str, str] | None:
    return {"name": config.license.name, "url": config.license.url} if config.license else None


def _json_file(document: Any) -> bytes:
    return (jsontext.dumps(document) + "\n").encode("utf-8")
