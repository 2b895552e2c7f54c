"""index.md of the generated pages: listings, source records and the site's tool pages.

Links are site paths, as in an article's index.md. A record's results are a
list of the conditions every result shares, then a GFM table per citing article
and metric; ``not reported`` marks a null condition, ``—`` one a result lacks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..site.index import Entry, Listing
from ..site.records import Record
from .views import Cell, CitationView, ResultView


def listing_markdown(listing: Listing) -> str:
    parts = [f"# {listing.heading}"]
    if listing.intro:
        parts.append(listing.intro)
    if listing.entries:
        parts.append("## Most recently checked" if listing.sections else "## Articles")
        parts.append(_entry_lines(listing.entries))
    if listing.sections:
        parts.append("## Sections")
        parts.append("\n".join(f"- [{s.title}]({s.url}) — {s.articles} article{'s' if s.articles != 1 else ''}"
                                for s in listing.sections))
    if listing.more:
        parts.append("## More")
        parts.append(_entry_lines(listing.more))
    return "\n\n".join(parts) + "\n"


def _entry_lines(entries: Sequence[Entry]) -> str:
    return "\n".join(
        f"- [{e.page.front.title}]({e.page.url}) — {e.page.front.summary} (checked {e.page.front.checked.isoformat()}; "
        f"{_count(e.figures.results, 'result')}; [JSON]({e.page.url}index.json), [Markdown]({e.page.url}index.md))"
        for e in entries
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def record_markdown(record: Record, citations: Sequence[CitationView], unknown: Sequence[str] = (),
                    shared: Sequence[tuple[str, Cell]] = ()) -> str:
    """A record's index.md; ``unknown``: its lines on the conditions none of its results knows;
    ``shared``: the conditions every result of the record has with one value."""
    parts = [f"# {record.title}"]
    if record.summary:
        parts.append(f"> {record.summary}")
    if record.prose is not None and record.prose.body.strip():
        parts.append(record.prose.body.strip("\n"))
    parts.append(f"Source record `{record.id}`: {_count(len(record.results), 'reported result')} "
                 f"cited by {_count(len(record.citations), 'article')}. Values are written as the sources report "
                 "them; `not reported` marks a condition the source does not give.")
    parts += unknown
    if shared:
        parts.append("Conditions of every result of this record:\n\n" + _condition_list(shared))
    for view in citations:
        parts.append(f"## From [{view.page.front.title}]({view.page.url})")
        for table in view.tables:
            if len(view.tables) > 1 or table.metric:
                parts.append(f"### {_cell(table.heading)}" + (f" (`{table.metric}`)" if table.metric else ""))
            if table.shared:
                parts.append("Conditions of every result below:\n\n" + _condition_list(table.shared))
            parts.append(_results_table(table.varying, table.results))
        if view.mentions:
            parts.append("Other entries of the export that name this record: " + ", ".join(
                f"`{m.pointer}` ({_cell(m.label)})" for m in view.mentions))
    parts.append("The same results, with every condition, are in the adjacent JSON.")
    return "\n\n".join(parts) + "\n"


def _condition_list(shared: Sequence[tuple[str, Cell]]) -> str:
    return "\n".join(f"- {key}: {_cell(value.text)}" for key, value in shared)


def _results_table(varying: Sequence[str], results: Sequence[ResultView]) -> str:
    header = ["Label", "Value", "Unit", "Statistic", "Uncertainty", *varying]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in results:
        cells = [row.label, row.value, row.unit, row.statistic, row.uncertainty, *(c.text for c in row.conditions)]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def page_markdown(title: str, paragraphs: Sequence[str], links: Sequence[tuple[str, str, Any]] = ()) -> str:
    """A tool page: a title, paragraphs, then a list of (text, site path, note) links."""
    parts = [f"# {title}", *paragraphs]
    if links:
        parts.append("\n".join(f"- [{text}]({url})" + (f" — {note}" if note else "") for text, url, note in links))
    return "\n\n".join(parts) + "\n"
