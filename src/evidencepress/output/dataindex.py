"""/data/ as a page: index.html, index.json and index.md, listing every file of the folder.

A static host serves no folder listing, so /data/ would be a 404 without it. Each
file is named, linked, said in one sentence, given its format and its size in
bytes. The sizes are those of the bytes written: the render stage counts each
data file as it is put in the sink (``Measured``) and hands the sizes here, so
this page is rendered after the files it describes. It does not list its own
three files (their sizes would depend on themselves).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import jinja2

from ..core.model import Asset
from ..core.numbers import for_reading
from ..core.urls import absolute
from ..site.gaps import GAPS_FILE
from ..site.index import DATA_FILES, DATA_SUMMARY, DATA_TITLE, DATA_URL
from .article import SiteContext, generated_envelope, page_context
from .datapackage import PACKAGE_FILE, TABLE_SCHEMA_FILE
from .generated import page_files
from .generated_md import page_markdown

# name: (format, what it holds in one sentence)
DESCRIPTIONS: Mapping[str, tuple[str, str]] = {
    "results.json": ("JSON", ("Every reported result of the site, one row each, null where a condition is not "
                             "reported.")),
    "results.csv": ("CSV (RFC 4180)", ("The same rows as CSV: an empty cell is not reported, 'not considered' a "
                                      "condition the result does not carry.")),
    "results.js": ("JavaScript", ("The same rows by column, as a script the explorer loads (it works from disk, "
                                 "where a browser refuses to fetch a file).")),
    "catalog.json": ("JSON", "Every page of the site with its HTML, JSON and Markdown URLs."),
    TABLE_SCHEMA_FILE: ("JSON (Table Schema)", ("The columns of the results table: their types, what they mean and "
                                               "what an empty cell means.")),
    PACKAGE_FILE: ("JSON (Frictionless Data Package)", ("The site's tables as a Data Package: each file with its "
                                                       "schema, size and SHA-256.")),
    GAPS_FILE: ("JSON", ("Per recommended condition, how many results report it, write null or leave it out, and "
                        "which unreported conditions block comparisons.")),
}
STATIC_NOTE = "A file copied as-is from the site's static/ folder."
FORMATS = {".json": "JSON", ".csv": "CSV", ".js": "JavaScript", ".txt": "Text", ".md": "Markdown",
           ".xml": "XML", ".html": "HTML"}
OWN_FILES = ("index.html", "index.json", "index.md")


@dataclass(frozen=True)
class DataFile:
    """A file of /data/ as its index lists it."""

    name: str  # relative to /data/
    url: str  # site path
    description: str
    format: str
    size: int  # bytes, as written
    size_text: str  # the size for reading: 12,345


def data_index_entries(sizes: Mapping[str, int], static: Iterable[Asset] = ()) -> tuple[DataFile, ...]:
    """The files of /data/: the generated ones in the order of ``DATA_FILES`` (``sizes``: their
    byte counts as written, by name), then those copied from static/ into data/, by name."""
    entries = []
    for name in DATA_FILES:
        if name in sizes:
            kind, description = DESCRIPTIONS[name]
            entries.append(_entry(name, kind, description, sizes[name]))
    folder = DATA_URL.lstrip("/")
    copied = sorted((item.rel[len(folder):], len(item.data)) for item in static if item.rel.startswith(folder))
    for name, size in copied:
        if name not in sizes and name not in OWN_FILES:
            suffix = "." + name.rsplit(".", 1)[-1] if "." in name else ""
            entries.append(_entry(name, FORMATS.get(suffix.lower(), "File"), STATIC_NOTE, size))
    return tuple(entries)


def _entry(name: str, kind: str, description: str, size: int) -> DataFile:
    return DataFile(name, DATA_URL + name, description, kind, size, for_reading(str(size)))


def render_data_index(env: jinja2.Environment, ctx: SiteContext, files: tuple[DataFile, ...]) -> dict[str, bytes]:
    """/data/index.html, index.json and index.md."""
    html = env.get_template("data-index.html").render(
        **page_context(ctx, DATA_URL), title=DATA_TITLE, summary=DATA_SUMMARY, files=files,
    )
    base = ctx.config.base_url
    envelope = generated_envelope(ctx, DATA_URL, DATA_TITLE, None)
    envelope["files"] = [{"name": f.name, "url": absolute(base, f.url), "description": f.description,
                          "format": f.format, "bytes": f.size} for f in files]
    links = [(f.name, f.url, f"{f.description} {f.format}, {f.size_text} bytes.") for f in files]
    return page_files(html, envelope, page_markdown(DATA_TITLE, [DATA_SUMMARY], links))
