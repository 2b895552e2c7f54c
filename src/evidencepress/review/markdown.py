"""The review as Markdown for a pull-request comment (SPEC §8, issue 9).

A summary table first, then the new warnings and one collapsible
``<details>`` per page, each folded; at most ``max_chars`` characters (see ``bounded``). When
nothing changed, one line: "no changes to published data". A page's source checks that changed
come before its results, an absent value first and marked ⚠.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..core.diagnostics import Problem
from ..datadiff.mdtext import code, html_text, link, text
from ..datadiff.words import field_line, result_lines, source_lines
from .bounded import GITHUB_COMMENT_LIMIT, Block, bounded
from .model import ChartChange, PageChange, Review, VerificationChange

NO_CHANGES = "no changes to published data"
ABSENT_STATE = "absent"
# Each state of a value against its cited line, in the order the summary counts them, with what it means.
SOURCE_STATES = {
    ABSENT_STATE: "not on its line",
    "moved": "",  # the line it stands on instead is named
    "literal-mismatch": "written differently",
    "source-missing": "the document is not in the vault",
    "no-line": "no line cited",
    "verified": "",
}


@dataclass(frozen=True)
class ReportOptions:
    old_url: str | None = None  # where BASE's site is published: chart pictures and pages link there
    new_url: str | None = None
    pictures: bool = False  # old/ and new/ chart pictures were written (`diff --charts-dir`)
    max_chars: int = GITHUB_COMMENT_LIMIT


def markdown_report(review: Review, options: ReportOptions = ReportOptions()) -> str:
    if not review.pages and not review.new_warnings:
        return NO_CHANGES + "\n"
    blocks = [_summary(review, options)]
    if review.new_warnings:  # before the pages: a long report is cut at its end
        blocks.append(_warnings_block(review.new_warnings))
    blocks += [_page_block(page, options) for page in review.pages]
    return bounded(blocks, options.max_chars)


def _summary(review: Review, options: ReportOptions) -> Block:
    head = [f"### Published data: {code(review.base)} → {code(review.head)}", ""]
    if not review.pages:
        return Block((*head, NO_CHANGES + ".", "", _warnings_line(review)))
    totals = _totals(review.pages) if review.data_changed else (
        f"{NO_CHANGES.capitalize()}: only the text of {_pages(len(review.pages))} changed.")
    head += [totals, "", *_derived_lines(review), _warnings_line(review), "",
             "| Page | Change | Results | Sources | Charts | Text |", "| --- | --- | --- | --- | --- | --- |"]
    return Block(tuple(head), tuple(_row(page, options) for page in review.pages))


def _totals(pages: tuple[PageChange, ...]) -> str:
    parts = [f"Pages: **{_counted(pages)}**"]
    for name, items in (("results", [r for p in pages for r in p.results]),
                        ("sources", [s for p in pages for s in p.sources]),
                        ("charts", [c for p in pages for c in p.charts])):
        if items:
            parts.append(f"{name}: {_counted(items)}")
    checks = [change.new for page in pages for change in page.verification]
    if checks:
        parts.append(f"source checks: {_states_counted(checks)}")
    return " · ".join(parts)


def _states_counted(states: list[str]) -> str:
    """``**1 absent**, 2 source-missing``: by the state each value is in now, absent first and bold."""
    order = (*SOURCE_STATES, *sorted(set(states) - SOURCE_STATES.keys()))
    counted = [(state, states.count(state)) for state in order]
    return ", ".join(f"**{count} {state}**" if state == ABSENT_STATE else f"{count} {text(state)}"
                     for state, count in counted if count)


def _warnings_line(review: Review) -> str:
    if review.new_warnings is None:
        return "Warnings: not compared (a built folder does not record them)."
    resolved = f"; {review.resolved_warnings} no longer reported" if review.resolved_warnings else ""
    if not review.new_warnings:
        return f"New warnings: none{resolved}."
    return f"New warnings: **{len(review.new_warnings)}** (listed below the table){resolved}."


def _counted(items: Iterable[Any]) -> str:
    counts: dict[str, int] = {}
    for item in items:
        counts[item.status] = counts.get(item.status, 0) + 1
    return ", ".join(f"{counts[status]} {status}" for status in ("changed", "added", "removed") if status in counts)


def _derived_lines(review: Review) -> list[str]:
    """The record pages and data files the changed results reach, named once (not per page)."""
    if not review.record_pages and not review.data_files:
        return []
    records = ", ".join(code(path) for path in review.record_pages)
    files = ", ".join(code(path) for path in review.data_files)
    parts = ([f"record pages {records}"] if records else []) + ([f"data files {files}"] if files else [])
    return ["Also changed with these results: " + "; ".join(parts) + ".", ""]


def _pages(count: int) -> str:
    return "1 page" if count == 1 else f"{count} pages"


def _row(page: PageChange, options: ReportOptions) -> str:
    base_url = options.old_url if page.status == "removed" else options.new_url
    title = text(page.title) or code(page.path, in_table=True)
    if base_url:
        title = link(title, _absolute(base_url, page.path))
    text_cell = "changed" if page.text_changed else ""
    cells = [f"{title}<br>{code(page.path, in_table=True)}", page.status, _counted(page.results),
             _counted(page.sources), _counted(page.charts), text_cell]
    return "| " + " | ".join(cell or "—" for cell in cells) + " |"


def _page_block(page: PageChange, options: ReportOptions) -> Block:
    summary = f"<summary><strong>{html_text(page.title)}</strong> · <code>{html_text(page.path)}</code> · {page.status}" \
              "</summary>"
    sections = [
        ("Page", _page_lines(page)),
        ("Source checks (each value against its cited line in the vault)",
         [_verification_line(change) for change in sorted(page.verification, key=lambda c: c.new != ABSENT_STATE)]),
        ("Results (matched by source record and label)", [line for r in page.results for line in result_lines(r)]),
        ("Sources", [line for s in page.sources for line in source_lines(s)]),
        ("Charts", [line for c in page.charts for line in _chart_lines(page.path, c, options)]),
        ("Other export data", [field_line(change) for change in page.other]),
    ]
    body: list[str] = []
    for heading, lines in sections:
        if lines:
            body += ([""] if body else []) + [f"**{heading}**", "", *lines]
    return Block(("<details>", summary, ""), tuple(body), ("", "</details>"), page=True)


def _page_lines(page: PageChange) -> list[str]:
    checked = f", checked {code(page.checked)}" if page.checked else ""
    if page.status == "added":
        return [f"- new page{checked}"]
    if page.status == "removed":
        return [f"- page removed (it was checked {code(page.checked)})" if page.checked else "- page removed"]
    lines = [field_line(change) for change in page.fields]
    sections = ", ".join(page.text_sections) or "the title, summary or body"
    return lines + ([f"- text changed: {sections}"] if page.text_changed else [])


def _verification_line(change: VerificationChange) -> str:
    """``- ⚠ **Run A** · `record`: verified → **absent** (not on its line), line 3: “the line”``."""
    absent = change.new == ABSENT_STATE
    name = f"**{text(change.label)}** · {code(change.source_record_id)}" if change.section == "reported_results" \
        else f"fact **{text(change.label)}**"
    meaning = SOURCE_STATES.get(change.new, "")
    if change.new == "moved" and change.found_line is not None:
        meaning = f"found on line {change.found_line}"
    state = f"**{text(change.new)}**" if absent else text(change.new)
    line = f"- {'⚠ ' if absent else ''}{name}: {text(change.old) if change.old is not None else '(new)'} → {state}"
    line += f" ({meaning})" if meaning else ""
    if change.line is not None:
        line += f", line {change.line}"
    if change.excerpt is not None:
        line += f": “{text(change.excerpt)}”"
    return line


def _chart_lines(path: str, change: ChartChange, options: ReportOptions) -> list[str]:
    names = ", ".join(code(f.name) + ("" if f.status == change.status else f" ({f.status})") for f in change.files)
    lines = [f"- {change.status} chart {code(change.chart_id)}: {names}"]
    for file in change.files:
        sides = [_picture("old", options.old_url, path + file.name, options.pictures) if file.old_svg else "",
                 _picture("new", options.new_url, path + file.name, options.pictures) if file.new_svg else ""]
        if any(sides):
            lines.append(f"  - {code(file.name)}: " + " → ".join(side for side in sides if side))
    return lines


def _picture(side: str, base_url: str | None, site_path: str, pictures: bool) -> str:
    """A link to the picture on the published site, or its path among the written pictures; "" when neither."""
    if base_url:
        return link(side, _absolute(base_url, site_path))
    return code(side + site_path) if pictures else ""


def _absolute(base_url: str, site_path: str) -> str:
    return base_url.rstrip("/") + site_path


def _warnings_block(problems: tuple[Problem, ...]) -> Block:
    count = len(problems)
    summary = f"<summary><strong>New warnings</strong> ({count})</summary>"
    body: list[str] = []
    for problem in problems:
        line, _, hint = problem.format().partition("\n  hint: ")
        body.append(f"- {code(line)}")
        if hint:
            body.append(f"  - hint: {text(hint)}")
    return Block(("<details>", summary, ""), tuple(body), ("", "</details>"))
