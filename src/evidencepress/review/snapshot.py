"""A built site (its files, in memory or on disk) -> the published data of each article.

Both sides of a diff go through here, whether they were rendered from a git
revision or read from a built folder, so the two ways compare the same
things: each article's ``index.json`` (its page envelope and export), the
text of its ``index.md`` and the SVG files of its folder.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from ..core import jsontext
from ..core.diagnostics import Problem
from ..output.article_md import META_OPEN, SOURCES_HEADING

_META_WITHIN = 4000


class SnapshotError(Exception):
    """A folder that is not a built evidencepress site."""


@dataclass(frozen=True)
class PageSnapshot:
    path: str  # site path: /guides/a/
    envelope: Mapping[str, Any]  # the "page" member of index.json
    export: Mapping[str, Any]  # index.json without "page"
    text: str  # index.md up to the generated source list: title, summary, body
    charts: Mapping[str, bytes]  # SVG file name in the page folder -> bytes

    @property
    def title(self) -> str:
        return str(self.envelope.get("title", ""))


@dataclass(frozen=True)
class SiteSnapshot:
    label: str
    pages: Mapping[str, PageSnapshot]  # by site path
    problems: tuple[Problem, ...] | None  # the build's warnings; None when not known


def site_snapshot(label: str, files: Mapping[str, bytes], articles: Collection[str] | None = None,
                  problems: tuple[Problem, ...] | None = None) -> SiteSnapshot:
    """The articles of a built site. ``articles`` lists their site paths when the plan is known;
    otherwise a page is an article when its ``index.md`` is one (generated pages, such as listings,
    record pages or the explorer, repeat data of the articles and are not compared)."""
    folders = sorted(name[: -len("index.json")] for name in files if _is_page_json(name))
    svgs = _svgs_by_folder(files)
    pages: dict[str, PageSnapshot] = {}
    for folder in folders:
        path = "/" + folder
        if articles is not None and path not in articles:
            continue
        document = _document(files, folder + "index.json")
        envelope = document.get("page")
        if not isinstance(envelope, dict):
            continue
        markdown = files.get(folder + "index.md", b"").decode("utf-8", errors="replace")
        if articles is None and not is_article_markdown(markdown):
            continue
        export = {key: value for key, value in document.items() if key != "page"}
        text = _article_text(markdown)
        pages[path] = PageSnapshot(path, envelope, export, text, svgs.get(folder, {}))
    return SiteSnapshot(label, pages, problems)


def _is_page_json(name: str) -> bool:
    return name == "index.json" or name.endswith("/index.json")


def is_article_markdown(markdown: str) -> bool:
    """An article's index.md carries, after its title and summary, the comment `import` reads back
    (a title holds at most 300 characters and a summary 1,000, so it stands near the top)."""
    return markdown.startswith("# ") and f"\n\n{META_OPEN}" in markdown[:_META_WITHIN]


def _document(files: Mapping[str, bytes], name: str) -> dict[str, Any]:
    try:
        value = json.loads(files[name].decode("utf-8"), parse_float=jsontext.parse_float, parse_int=jsontext.parse_int)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise SnapshotError(f"{name} is not the JSON evidencepress writes: {exc}") from None
    if not isinstance(value, dict):
        raise SnapshotError(f"{name} is not the JSON evidencepress writes: not an object")
    return value


def _article_text(text: str) -> str:
    """index.md without the parts generated from the data (sources, checked line, export)."""
    end = text.find(f"\n\n{SOURCES_HEADING}\n")
    if end < 0:  # a page without sources: the generated part starts at the last "Checked" line
        end = text.rfind("\n\nChecked ")
    return text if end < 0 else text[:end]


def _svgs_by_folder(files: Mapping[str, bytes]) -> dict[str, dict[str, bytes]]:
    """folder ("guides/a/") -> SVG file name -> bytes, for the SVGs directly in each folder."""
    svgs: dict[str, dict[str, bytes]] = {}
    for name, data in files.items():
        if name.endswith(".svg"):
            folder, _, file_name = name.rpartition("/")
            svgs.setdefault(folder + "/" if folder else "", {})[file_name] = data
    return svgs
