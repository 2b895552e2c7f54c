"""Validate stage: a ParsedPage becomes a Page, or problems say why not.

Front matter and export are checked against their published schemas, then by
the semantic checks of SPEC §4.3; chart fences are planned against the export
(SPEC §6). Every problem of the page is collected before returning.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Mapping

from .charts import plan_chart
from .diagnostics import Location, Problem, error, has_errors, warning
from .model import Document, FrontMatter, JsonPath, Page, ParsedPage, Positions, SourceRef, dotted
from .schemas import SchemaSet, schema_problems
from .semantic import check_export, normalise_url


def validate_page(parsed: ParsedPage, schemas: SchemaSet) -> tuple[Page | None, list[Problem]]:
    path = parsed.source.path
    problems: list[Problem] = []
    front, front_problems = _front_matter(parsed.front_matter, path, schemas)
    problems += front_problems
    if front is not None:
        problems += _source_warnings(front, parsed.front_matter.positions if parsed.front_matter else Positions(path))
    export = parsed.export
    problems += _export_presence(parsed, front)
    if export is not None:
        problems += schema_problems(schemas.validator("export.schema.json"), export.value, export.positions)
        if front is not None and not has_errors(problems):
            problems += check_export(export.value, export.positions, front, schemas.units,
                                     schemas.recommended_conditions)
    charts, chart_problems = _charts(parsed, export)
    problems += chart_problems
    if front is None or has_errors(problems):
        return None, problems
    page = Page(parsed.source, front, parsed.body, parsed.body_line, parsed.tokens,
                export.value if export else None, tuple(charts))
    return page, problems


def _front_matter(document: Document | None, path: str, schemas: SchemaSet) -> tuple[FrontMatter | None, list[Problem]]:
    if document is None:
        return None, []
    value = document.value
    if value is None:
        value = {}
    if not isinstance(value, dict):
        return None, [error(Location(path, 2, 1), "front matter must be a YAML mapping of keys to values",
                            "front-matter", hint="write `title: ...`, `summary: ...`, `checked: YYYY-MM-DD`")]
    instance = _json_compatible(value)
    problems = schema_problems(schemas.validator("frontmatter.schema.json"), instance, document.positions,
                               rule="front-matter")
    if problems:
        return None, problems
    sources = tuple(SourceRef(s["publisher"], s["url"], s["revision"], s["sha256"]) for s in value.get("sources", ()))
    return FrontMatter(
        title=value["title"],
        summary=value["summary"],
        checked=_date(value["checked"]),
        updated=_date(value["updated"]) if "updated" in value else None,
        draft=bool(value.get("draft", False)),
        tags=tuple(value.get("tags", ())),
        sources=sources,
    ), []


def _json_compatible(value: Any) -> Any:
    """YAML gives dates as date objects; the schema sees them as ISO strings."""
    if isinstance(value, dict):
        return {str(k): _json_compatible(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_compatible(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value


def _date(value: Any) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value))


def _source_warnings(front: FrontMatter, positions: Positions) -> list[Problem]:
    problems: list[Problem] = []
    first_index: dict[str, int] = {}
    for index, source in enumerate(front.sources):
        path: JsonPath = ("sources", index)
        state = source.pin_state
        if state == "snapshot":
            problems.append(warning(positions.of_key(path + ("revision",)),
                                    "mutable URL, pinned only by its snapshot hash", "unpinned", dotted(path + ("revision",)),
                                    "prefer a permanent URL that contains a commit when one exists"))
        elif state == "unpinned":
            problems.append(warning(positions.of_key(path + ("revision",)),
                                    f"unpinned source: revision {source.revision!r} is not a commit in its URL",
                                    "unpinned", dotted(path + ("revision",)),
                                    "link a URL that contains the commit, or record a snapshot-YYYY-MM-DD revision"))
        key = normalise_url(source.url)
        if key in first_index:
            problems.append(warning(positions.of_key(path + ("url",)),
                                    f"the same URL is listed as sources[{first_index[key]}]", "duplicate-source",
                                    dotted(path + ("url",)), "list each source document once"))
        first_index.setdefault(key, index)
    return problems


def _export_presence(parsed: ParsedPage, front: FrontMatter | None) -> list[Problem]:
    path = parsed.source.path
    if parsed.export_fence is None:
        if parsed.chart_fences:
            fence = parsed.chart_fences[0]
            return [error(Location(path, fence.line, fence.indent + 1), "a page with charts needs a `json export` fence",
                          "export", hint="charts plot values selected from the page's export")]
        return []
    if front is not None and not front.sources:
        where = Location(path, parsed.export_fence.line, 1)
        return [error(where, "a page with an export needs `sources` in its front matter", "front-matter",
                      hint="list every document the export's evidence_url values point into")]
    return []


def _charts(parsed: ParsedPage, export: Document | None) -> tuple[list[Any], list[Problem]]:
    plans: list[Any] = []
    problems: list[Problem] = []
    first_line: dict[str, int] = {}
    for fence in parsed.chart_fences:
        plan, chart_problems = plan_chart(fence, export, parsed.source.path)
        problems += chart_problems
        if plan is None:
            continue
        if plan.id in first_line:
            problems.append(error(Location(parsed.source.path, fence.line, fence.indent + 1),
                                  f"chart id {plan.id!r} is already used on line {first_line[plan.id]}", "chart-id",
                                  hint="give each chart of a page its own id"))
        first_line.setdefault(plan.id, fence.line)
        plans.append(plan)
    return plans, problems
