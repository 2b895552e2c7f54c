"""Validate stage: a ParsedPage becomes a Page, or problems say why not.

Front matter and export are checked against their published schemas, then by
the semantic checks of SPEC §4.3; chart fences are planned against the export
(SPEC §6). Every problem of the page is collected before returning.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from ..charts import chart_id_problems, plan_chart
from ..core.diagnostics import Location, Problem, error, has_errors, note, warning
from ..core.export import record_ids
from ..core.model import Document, FrontMatter, JsonPath, ParsedPage, Positions, SourceRef, dotted
from ..schemas.explain import schema_problems
from ..schemas.load import SchemaSet
from .charttext import chart_text
from .claims import cited_documents
from .inlinevalues import resolve_inline_values
from .links import link_facts
from .page import Page
from .placeholders import placeholder_problems
from .prose import check_prose
from .resultids import result_id_problems, result_keys
from .semantic import check_export, normalise_url
from .textdirection import direction_warnings


def validate_page(parsed: ParsedPage, schemas: SchemaSet, prose: bool = True) -> tuple[Page | None, list[Problem]]:
    """``prose``: also warn about prose numbers that copy export values (prose.py). A valid draft
    gets a note (rule ``draft``) that the build leaves out unless it builds drafts."""
    path = parsed.source.path
    problems: list[Problem] = []
    front, front_problems = _front_matter(parsed.front_matter, path, schemas)
    problems += front_problems
    if front is not None:
        positions = parsed.front_matter.positions if parsed.front_matter else Positions(path)
        problems += _source_warnings(front, positions)
        problems += placeholder_problems(front, positions) + direction_warnings(front, positions)
    export = parsed.export
    problems += _export_presence(parsed, front)
    if export is not None:
        problems += _export_problems(export, front, schemas)
    charts, chart_problems = _charts(parsed, export, schemas, prose)
    problems += chart_problems
    inline_values, inline_problems = resolve_inline_values(
        parsed.tokens, parsed.body, parsed.body_line, path, export.value if export else None, schemas.units)
    if export is not None or parsed.export_fence is None:  # an unreadable export is reported once, as JSON
        problems += inline_problems
    if prose and export is not None:
        problems += check_prose(parsed.tokens, parsed.body, parsed.body_line, path, export.value)
    if front is None or has_errors(problems):
        return None, problems
    page = Page(parsed.source, front, parsed.body_line, parsed.tokens,
                export.value if export else None, tuple(charts),
                parsed.export_fence.body_index if parsed.export_fence else None, parsed.chart_fences,
                inline_values=inline_values, record_ids=record_ids(export.value if export else None),
                cited_documents=cited_documents(export.value if export else None))
    page = replace(page, link_facts=link_facts(page))
    if front.draft:
        problems.append(_draft_note(parsed))
    return page, problems


def _draft_note(parsed: ParsedPage) -> Problem:
    """A draft is left out of the build: say so, so that a missing page is never a mystery."""
    front = parsed.front_matter
    where = front.positions.of_key(("draft",)) if front is not None else Location(parsed.source.path)
    return note(where, f"{parsed.source.url} is a draft, left out of the build", "draft", "draft",
                "build with --drafts to include it; remove `draft: true` to publish it")


def _export_problems(export: Document, front: FrontMatter | None, schemas: SchemaSet) -> list[Problem]:
    """Schema errors, then the semantic checks (all of them, so one run shows every problem);
    a semantic problem at a key that already has a schema error is left out."""
    problems = schema_problems(schemas.validator("export.schema.json"), export.value, export.positions)
    if front is None or not front.sources:
        return problems  # no sources to check against: reported once by _export_presence
    reported = {p.json_path for p in problems}
    semantic = check_export(export.value, export.positions, front, schemas.units, schemas.recommended_conditions,
                            schemas.known_conditions)
    semantic += result_id_problems(result_keys(export.value), export.positions)
    return problems + [p for p in semantic if p.json_path not in reported]


def _needs_export(problem: Problem) -> bool:
    """A chart's "the page has no export" problem (at a panel's ``select``)."""
    return problem.rule == "chart-select" and problem.json_path.endswith("select")


def _front_matter(document: Document | None, path: str, schemas: SchemaSet) -> tuple[FrontMatter | None, list[Problem]]:
    if document is None:
        return None, []
    value = document.value
    positions = document.positions
    if value is None:  # `---` directly followed by `---`: missing keys are reported at the first line
        value, positions = {}, Positions(path, {}, {(): (1, 1)})
    if not isinstance(value, dict):
        return None, [error(Location(path, 2, 1), "front matter must be a YAML mapping of keys to values",
                            "front-matter", hint="write `title: ...`, `summary: ...`, `checked: YYYY-MM-DD`")]
    # The schema and the page both see the JSON form: `title: 2026-10-18` is the text "2026-10-18".
    front = json_compatible(value)
    problems = schema_problems(schemas.validator("frontmatter.schema.json"), front, positions, rule="front-matter")
    if problems:
        return None, problems
    sources = tuple(SourceRef(s["publisher"], s["url"], s["revision"], s["sha256"]) for s in front.get("sources", ()))
    return FrontMatter(
        title=front["title"],
        summary=front["summary"],
        checked=_date(front["checked"]),
        updated=_date(front["updated"]) if "updated" in front else None,
        draft=bool(front.get("draft", False)),
        tags=tuple(front.get("tags", ())),
        sources=sources,
    ), []


def json_compatible(value: Any) -> Any:
    """YAML gives dates as date objects; the schema sees them as ISO strings."""
    if isinstance(value, dict):
        return {str(k): json_compatible(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_compatible(v) for v in value]
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
        return []  # a chart without an export is reported by plan_chart, at each panel's select
    if front is not None and not front.sources:
        where = Location(path, parsed.export_fence.line, 1)
        return [error(where, "a page with an export needs `sources` in its front matter", "front-matter",
                      hint="list every document the export's evidence_url values point into")]
    return []


def _charts(parsed: ParsedPage, export: Document | None, schemas: SchemaSet,
            prose: bool = True) -> tuple[list[Any], list[Problem]]:
    """Each chart planned, its alt text and caption with their inline values resolved."""
    plans: list[Any] = []
    problems: list[Problem] = []
    unreadable = parsed.export_fence is not None and export is None
    path = parsed.source.path
    for fence in parsed.chart_fences:
        plan, chart_problems = plan_chart(fence, export, path, schemas)
        if unreadable:  # "the page has no export" would mislead: its JSON error is reported
            chart_problems = [p for p in chart_problems if not _needs_export(p)]
        problems += chart_problems
        if plan is not None:
            plan, text_problems = chart_text(plan, fence, path, export.value if export else None, schemas.units,
                                             prose)
            problems += text_problems
            plans.append(plan)
    return plans, problems + chart_id_problems(plans)
