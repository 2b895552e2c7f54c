"""/data/datapackage.json: the site's tables as a Frictionless Data Package, and their Table Schema.

The package is Data Package 2.0 (its ``$schema``) with 1.0's tabular profile
(``profile``, every resource a table). Its resources are ``results.csv``,
``results.json`` (when it has a row: frictionless reads no JSON table without
one) and each article's ``index.csv``: one table, so each names
``tableschema.json`` beside it (``site/tableschema.py`` gives its fields)
rather than repeating it once per article. A package's paths may not leave its
folder, so an article's CSV is named by its absolute URL; the package's bytes
depend on ``base_url``, as catalog.json's do.

Each resource declares its size and SHA-256: results.csv and results.json are
measured as they are written (``Measured``), an article's index.csv made again
by the function that renders it (``page_csv``, of the cached CSV lines). results.json declares no ``bytes``:
frictionless 5.21 counts none for a JSON table (its JSON reader reads past the
stream that counts), so any declared size fails its validation; the tests
check the hash, which it does not.

An empty cell is null, a value the source does not report; a condition column
also holds ``not considered``, a key the result does not carry (SPEC §4.2):
two ``missingValues`` with their labels.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..checks.config import SiteConfig
from ..core.urls import absolute
from ..site.dataset import NOT_CONSIDERED_CELL, page_csv
from ..site.index import SiteIndex
from ..site.tableschema import TableField

PACKAGE_FILE = "datapackage.json"
TABLE_SCHEMA_FILE = "tableschema.json"
PACKAGE_PROFILE = "https://datapackage.org/profiles/2.0/datapackage.json"
TABLE_SCHEMA_PROFILE = "https://datapackage.org/profiles/2.0/tableschema.json"
PRIMARY_KEY = ("page", "source_record_id", "result_id")  # unique: rule result-id, within each page


@dataclass(frozen=True)
class FileDigest:
    size: int
    sha256: str  # hex

    @classmethod
    def of(cls, data: bytes) -> FileDigest:
        return cls(len(data), hashlib.sha256(data).hexdigest())


class Measured:
    """A file's chunks, passed on as they are written and counted and hashed on the way: the size and
    SHA-256 of a file that is never held whole."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = chunks
        self._hash = hashlib.sha256()
        self._size = 0
        self._done = False

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._chunks:
            self._hash.update(chunk)
            self._size += len(chunk)
            yield chunk
        self._done = True

    def digest(self) -> FileDigest:
        if not self._done:
            raise RuntimeError("a file's digest was asked for before the file was written")
        return FileDigest(self._size, self._hash.hexdigest())


def table_schema(fields: Sequence[TableField]) -> dict[str, Any]:
    """The Table Schema of the results table: the fields, null as an empty cell, the primary key."""
    names = [field.name for field in fields]
    return {
        "$schema": TABLE_SCHEMA_PROFILE,
        "fields": [_field(field) for field in fields],
        "missingValues": _missing("not reported"),
        **({"primaryKey": list(PRIMARY_KEY)} if all(name in names for name in PRIMARY_KEY) else {}),
    }


def _field(field: TableField) -> dict[str, Any]:
    item: dict[str, Any] = {"name": field.name, "type": field.type, "description": field.description}
    constraints: dict[str, Any] = {}
    if field.required:
        constraints["required"] = True
    if field.enum:
        constraints["enum"] = list(field.enum)
    if constraints:
        item["constraints"] = constraints
    if field.condition:
        item["missingValues"] = _missing(field.empty) + [{"value": NOT_CONSIDERED_CELL, "label": "not considered"}]
    elif field.empty != "not reported":
        item["missingValues"] = _missing(field.empty)
    if field.units:
        item["x-units"] = dict(field.units)
    return item


def _missing(label: str) -> list[dict[str, str]]:
    return [{"value": "", "label": label}]


def datapackage(index: SiteIndex, config: SiteConfig, results_csv: FileDigest,
                results_json: FileDigest) -> dict[str, Any]:
    """The package: the site, its license, every source its articles cite, and the tables."""
    document: dict[str, Any] = {"$schema": PACKAGE_PROFILE, "profile": "tabular-data-package",
                                "title": config.title}
    if config.description:
        document["description"] = config.description
    document["homepage"] = config.base_url
    if config.license is not None:
        document["licenses"] = [{"title": config.license.name, "path": config.license.url}]
    document["sources"] = _sources(index)
    document["resources"] = [_table("results-csv", "results.csv", results_csv, "Every reported result",
                                    ("One row per reported result of the site, page after page (RFC 4180 CSV). "
                                     "An empty cell is null: the source does not report it; a condition column's "
                                     "`not considered` is a condition the result does not carry."))]
    if index.results.count:  # frictionless 5.21 reads no JSON table without a row (a CSV has its header)
        document["resources"].append(_json_table(results_json, index.results.columns))
    for entry in sorted(index.entries, key=lambda entry: entry.page.url):
        url = entry.page.url
        document["resources"].append(_table(
            "page." + url.strip("/").replace("/", "."), absolute(config.base_url, url + "index.csv"),
            FileDigest.of(page_csv(index.results, url)), entry.page.front.title,
            f"The reported results of {url}, with the columns of results.csv."))
    return document


def _json_table(digest: FileDigest, columns: Sequence[str]) -> dict[str, Any]:
    """results.json: its rows are the objects of its ``results`` member, every column a key (but the
    conditions a result does not carry), in Data Package 2.0's words and then in frictionless-py's."""
    resource = _table("results-json", "results.json", digest, "Every reported result, as JSON",
                      'The rows of results.csv as {"columns": [...], "results": [{column: value, ...}, ...]}: '
                      "null is not reported, a condition the result does not carry is left out of its row.", "json")
    resource["dialect"] = {"property": "results", "itemType": "object", "itemKeys": list(columns),
                           "json": {"property": "results", "keys": list(columns)}}
    return resource


def _table(name: str, path: str, digest: FileDigest, title: str, description: str,
           file_format: str = "csv") -> dict[str, Any]:
    resource: dict[str, Any] = {
        "name": name, "type": "table", "profile": "tabular-data-resource", "title": title,
        "description": description, "path": path, "format": file_format,
        "mediatype": "text/csv" if file_format == "csv" else "application/json", "encoding": "utf-8",
    }
    if file_format == "csv":
        resource["bytes"] = digest.size
    resource["hash"] = f"sha256:{digest.sha256}"
    resource["schema"] = TABLE_SCHEMA_FILE
    return resource


def _sources(index: SiteIndex) -> list[dict[str, str]]:
    """Every document the articles cite, once, by URL then revision."""
    cited = {(source.url, source.revision, source.publisher, source.sha256, source.document)
             for entry in index.entries for source in entry.page.front.sources}
    return [{"title": f"{publisher}: {document}", "path": url, "version": revision, "hash": f"sha256:{sha256}"}
            for url, revision, publisher, sha256, document in sorted(cited)]
