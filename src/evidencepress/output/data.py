"""The site's data files: /data/results.{json,csv,js}, /data/catalog.json, each article's index.csv,
and /data/datapackage.json that describes the tables (``datapackage.py``).

Rows come from ``dataset.py`` (values as authored, null kept). URLs inside are
site paths (``/guides/a/``), so the bytes do not depend on base_url: a reader
joins them to ``base_url`` (given in catalog.json), the explorer resolves them
relative to itself. catalog.json and datapackage.json (which names each
article's CSV by its URL) are the two that name ``base_url``. ``results.js`` carries the same rows for the explorer,
column by column (``results_script``), as a script: a browser refuses ``fetch()`` of a local file but
runs ``<script src>``.
"""

from __future__ import annotations

import json
import re
from array import array
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
    """The explorer's data, by column (``format`` 2): each column's distinct cell texts (the authored
    literal; null stays null) in natural order (``_natural``), and each row's position in that list as
    ``width`` characters of ``CODE_DIGITS`` (base 64, most significant first), one string per column.
    A browser then filters and sorts arrays of small integers, never one object per row, and a column
    of 100,000 rows that holds a few values is a string of 100,000 characters. ``evidence_url`` is
    shown nowhere, only searched: it is the document without its ``#`` line anchor (a few per source,
    not one per row). Also the titles of the pages and records the rows link to and the key conditions of each metric of the rows
    (``key_conditions``: what a comparison key stands for, in key order). Written a column at a time."""
    table = index.results
    columns = json.dumps(list(table.columns), ensure_ascii=False)
    yield _script_text(f'window.{RESULTS_JS_GLOBAL} = {{"format": 2, "count": {len(table.rows)}, '
                       f'"columns": {columns}, "code_digits": "{CODE_DIGITS}", "dictionaries": [')
    coded = [_ColumnCodes() for _ in table.columns]
    metrics: dict[str, None] = {}
    evidence = table.columns.index("evidence_url") if "evidence_url" in table.columns else -1
    for batch in batches(table.rows):
        for row in batch:
            texts = row.texts
            if evidence >= 0 and texts[evidence] is not None:
                texts[evidence] = texts[evidence].split("#", 1)[0]  # type: ignore[union-attr]
            for column, text in zip(coded, texts, strict=True):
                column.add(text)
        metrics.update((metric, None) for row in batch if isinstance(metric := row.get("metric"), str))
    for number, column in enumerate(coded):
        column.sort()
        yield _script_text(("" if number == 0 else ", ") + json.dumps(list(column.values), ensure_ascii=False))
    yield b'], "widths": ' + json.dumps([column.width for column in coded]).encode() + b', "codes": ['
    for number, column in enumerate(coded):
        yield (b"" if number == 0 else b", ") + b'"' + column.text().encode() + b'"'
    pages = {e.page.url: e.page.front.title for e in sorted(index.entries, key=lambda e: e.page.url)}
    records = {r.id: r.title for r in index.records}
    keys = {metric: list(rules.keys_of(metric)) for metric in sorted(metrics)}
    yield _script_text(f'], "pages": {json.dumps(pages, ensure_ascii=False)}, '
                       f'"records": {json.dumps(records, ensure_ascii=False)}, '
                       f'"checks": {json.dumps(state_names(), ensure_ascii=False)}, '
                       f'"key_conditions": {json.dumps(keys, ensure_ascii=False)}}};\n')


CODE_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


class _ColumnCodes:
    """One column of the explorer's data: its distinct texts and each row's position among them."""

    def __init__(self) -> None:
        self.values: dict[str | None, int] = {}
        self.codes = array("I")

    def add(self, text: str | None) -> None:
        code = self.values.get(text)
        if code is None:
            code = self.values[text] = len(self.values)
        self.codes.append(code)

    @property
    def width(self) -> int:
        """Base-64 digits per row: enough for the largest position (one at least)."""
        width, reach = 1, len(CODE_DIGITS)
        while reach < len(self.values):
            width, reach = width + 1, reach * len(CODE_DIGITS)
        return width

    def sort(self) -> None:
        """The texts in natural order (the explorer's sort then finds them in order, or nearly: a
        browser's collation has the last word), positions renumbered; null last."""
        ordered = sorted(self.values, key=_natural)
        renumbered = array("I", [0] * len(ordered))
        for new, value in enumerate(ordered):
            renumbered[self.values[value]] = new
        self.values = {value: new for new, value in enumerate(ordered)}
        self.codes = array("I", (renumbered[code] for code in self.codes))

    def text(self) -> str:
        base, width = len(CODE_DIGITS), self.width
        if width == 1:
            return "".join(CODE_DIGITS[code] for code in self.codes)
        digits = [CODE_DIGITS[a] + CODE_DIGITS[b] for a in range(base) for b in range(base)]
        if width == 2:
            return "".join(digits[code] for code in self.codes)
        return "".join(_digits(code, width) for code in self.codes)


_NUMBER_RUN = re.compile(r"(\d+)")


def _natural(text: str | None) -> tuple[int, tuple[tuple[int, int, str], ...], str]:
    """A sort key: case folded, runs of digits by their number ("run 9" before "run 10"), null last."""
    if text is None:
        return (1, (), "")
    parts = _NUMBER_RUN.split(text.casefold())
    return (0, tuple((0, int(part), "") if index % 2 else (1, 0, part) for index, part in enumerate(parts)), text)


def _digits(code: int, width: int) -> str:
    out = []
    for _ in range(width):
        code, digit = divmod(code, len(CODE_DIGITS))
        out.append(CODE_DIGITS[digit])
    return "".join(reversed(out))


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
