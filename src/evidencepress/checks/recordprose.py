"""Record prose: ``content/community/<source_record_id>.md`` titles a source record's page.

Such a file is not an article. It has front matter (``schema/community.schema.json``)
and Markdown prose, but no export, no charts and no date of its own: the
record's results, dates and sources come from the articles whose exports cite
it. A file named after no record of any export is an error, so that a typo in
the name cannot hide the prose silently.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..core.diagnostics import Location, Problem, error
from ..core.model import ParsedPage, Positions, SourceFile
from ..schemas.explain import schema_problems
from ..schemas.load import SchemaSet
from .validate import json_compatible

PROSE_FOLDER = "community"
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class RecordProse:
    """The validated title and prose of one source record's page."""

    record_id: str
    source: SourceFile
    title: str
    summary: str
    body: str
    body_line: int
    tokens: tuple[Any, ...]  # markdown-it tokens of ``body``

    @property
    def url(self) -> str:
        return record_url(self.record_id)


def record_url(record_id: str) -> str:
    return f"/{PROSE_FOLDER}/{record_id}/"


def is_record_prose(source: SourceFile) -> bool:
    """Files under content/community/ are record prose, never articles."""
    return source.rel.startswith(PROSE_FOLDER + "/")


def validate_record_prose(parsed: ParsedPage, schemas: SchemaSet) -> tuple[RecordProse | None, list[Problem]]:
    source = parsed.source
    parts = source.rel.split("/")
    if len(parts) != 2:
        return None, [error(Location(source.path), "record prose sits directly in content/community/", "community",
                            hint="name the file content/community/<source_record_id>.md")]
    problems = _fence_problems(parsed)
    front, front_problems = _front_matter(parsed, schemas)
    problems += front_problems
    if front is None or problems:
        return None, problems
    record_id = parts[1][: -len(".md")]
    prose = RecordProse(record_id, source, front["title"], front.get("summary", ""), parsed.body, parsed.body_line,
                        parsed.tokens)
    return prose, []


def _fence_problems(parsed: ParsedPage) -> list[Problem]:
    path = parsed.source.path
    problems: list[Problem] = []
    if parsed.export_fence is not None:
        problems.append(error(Location(path, parsed.export_fence.line, 1),
                              "a record page has no export of its own", "community",
                              hint="its results come from the articles that cite the record; move the export into one"))
    for fence in parsed.chart_fences:
        problems.append(error(Location(path, fence.line, 1), "a record page has no charts", "community",
                              hint="draw the chart in an article that cites the record"))
    return problems


def _front_matter(parsed: ParsedPage, schemas: SchemaSet) -> tuple[dict[str, Any] | None, list[Problem]]:
    document = parsed.front_matter
    path = parsed.source.path
    if document is None:
        return None, []  # its YAML error is reported by parse
    value, positions = document.value, document.positions
    if value is None:  # `---` directly followed by `---`
        value, positions = {}, Positions(path, {}, {(): (1, 1)})
    if not isinstance(value, dict):
        return None, [error(Location(path, 2, 1), "front matter must be a YAML mapping of keys to values",
                            "front-matter", hint="write `title: ...` and, optionally, `summary: ...`")]
    front = json_compatible(value)
    problems = schema_problems(schemas.validator("community.schema.json"), front, positions, rule="front-matter")
    return (None if problems else front), problems


def unknown_records(prose: Iterable[RecordProse], known: set[str]) -> list[Problem]:
    """A prose file named after no record of any export (drafts included)."""
    problems: list[Problem] = []
    for entry in prose:
        if entry.record_id in known:
            continue
        close = difflib.get_close_matches(entry.record_id, sorted(known), n=1)
        hint = (f"did you mean content/community/{close[0]}.md?" if close else
                "name the file after a source_record_id of an export, or remove it")
        if entry.record_id == "index":
            hint = "the /community/ index is generated from the exports; remove this file"
        problems.append(error(Location(entry.source.path), f"no export has the source record {entry.record_id!r}",
                              "community", hint=hint))
    return problems
