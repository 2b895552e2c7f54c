"""The gap census as files: /gaps/ (index.html, index.json, index.md) and /data/gaps.json.

``site/gaps.py`` computes the census (and defines what it counts); this module only words it.
/data/gaps.json holds site paths, like the other files of /data/, so its bytes do not depend on
``base_url``. Its shape:

    {"description": "...", "comparability": "/schema/comparability.json",
     "conditions": [core condition keys, in schema order],
     "site": {"results": n, "conditions": {key: {"reported": n, "not_reported": n, "not_considered": n}}},
     "metrics": [{"metric": name, "results": n, "conditions": {key: {...}}}, ...],
     "pairs": {"cross_record": n, "comparable": n, "one_answer": n},
     "records": {record id: [{"condition": key, "pairs": n}, ...], ...}}

``metrics`` has the most results first (ties by name); ``records`` every record with a reported
result, by id, each with its blocking conditions, most pairs first (``[]``: none).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jinja2
from markupsafe import Markup

from ..checks.recordprose import record_url
from ..core.urls import absolute
from ..site.gaps import GAPS_FILE, GAPS_SUMMARY, GAPS_TITLE, GAPS_URL, Blocker, GapCensus, RecordGaps, StateTable
from ..site.index import DATA_URL, SCHEMA_URL
from .article import SiteContext, dump_json, generated_envelope, page_context
from .generated import page_files

COMPARABILITY_URL = SCHEMA_URL + "comparability.json"
GAPS_DATA_URL = DATA_URL + GAPS_FILE
INTRO = ("A source that does not give a condition has it written as null (not reported); a condition a result "
         "does not carry at all is not considered. This page counts both for every required and recommended condition, and "
         "names, for each source record, the unreported conditions that alone keep its results from being "
         "compared with another record's under the site's comparability rules.")
PAIRS_NOTE = ("A pair counts for a record and a condition when a result of the record and a result of another "
              "record have the same metric, every other key condition of that metric known and equal in both, "
              "and only the other result reports the condition. It is an upper bound: the answer is one value, "
              "and it makes comparable only the pairs whose other result has that value.")


@dataclass(frozen=True)
class RecordGapView:
    """A record's blocking conditions, worded."""

    id: str
    title: str
    url: str
    lines: tuple[str, ...]  # "Ask the source for output_tokens: up to 14 more pairs become comparable."


def blocker_words(blocker: Blocker) -> str:
    pairs = f"{blocker.pairs} more pair{'s' if blocker.pairs != 1 else ''}"
    verb = "becomes" if blocker.pairs == 1 else "become"
    return f"Ask the source for {blocker.condition}: up to {pairs} {verb} comparable."


def gap_files(env: jinja2.Environment, ctx: SiteContext) -> dict[str, bytes]:
    """/gaps/ and /data/gaps.json by site path relative to the root."""
    files = {GAPS_URL.lstrip("/") + name: data for name, data in render_gaps(env, ctx).items()}
    files[GAPS_DATA_URL.lstrip("/")] = dump_json(gaps_document(ctx.index.gaps))
    return files


def record_views(ctx: SiteContext, records: tuple[RecordGaps, ...]) -> tuple[RecordGapView, ...]:
    titles = {record.id: record.title for record in ctx.index.records}
    return tuple(RecordGapView(gaps.record_id, titles.get(gaps.record_id, gaps.record_id), record_url(gaps.record_id),
                               tuple(map(blocker_words, gaps.blockers))) for gaps in records)


def breakable(keys: tuple[str, ...]) -> dict[str, Markup]:
    """Each condition key as HTML that a narrow screen may break after an underscore."""
    return {key: Markup("_<wbr>").join(key.split("_")) for key in keys}


def render_gaps(env: jinja2.Environment, ctx: SiteContext) -> dict[str, bytes]:
    census = ctx.index.gaps
    records = record_views(ctx, census.blocking)
    html = env.get_template("gaps.html").render(
        **page_context(ctx, GAPS_URL), title=GAPS_TITLE, summary=GAPS_SUMMARY, intro=INTRO, pairs_note=PAIRS_NOTE,
        census=census, records=records, pairs_text=_pairs_text(census), unblocked_text=UNBLOCKED,
        unblocked=record_views(ctx, census.unblocked),
        comparability_url=COMPARABILITY_URL, data_url=GAPS_DATA_URL, names=breakable(census.conditions),
    )
    envelope = generated_envelope(ctx, GAPS_URL, GAPS_TITLE, None)
    envelope["data"] = absolute(ctx.config.base_url, GAPS_DATA_URL)
    return page_files(html, envelope, gaps_markdown(census, records))


def gaps_document(census: GapCensus) -> dict[str, Any]:
    """/data/gaps.json (the shape is in the module's docstring)."""
    return {
        "description": GAPS_SUMMARY,
        "comparability": COMPARABILITY_URL,
        "conditions": list(census.conditions),
        "site": _states(census.site),
        "metrics": [{"metric": table.metric, **_states(table)} for table in census.metrics],
        "pairs": {"cross_record": census.pairs.cross_record, "comparable": census.pairs.comparable,
                  "one_answer": census.pairs.one_answer},
        "records": {record.record_id: [{"condition": b.condition, "pairs": b.pairs} for b in record.blockers]
                    for record in census.records},
    }


def _states(table: StateTable) -> dict[str, Any]:
    return {"results": table.results, "conditions": {
        count.condition: {"reported": count.reported, "not_reported": count.not_reported,
                          "not_considered": count.not_considered} for count in table.conditions}}


def gaps_markdown(census: GapCensus, records: tuple[RecordGapView, ...]) -> str:
    parts = [f"# {GAPS_TITLE}", GAPS_SUMMARY, INTRO,
             (f"The rules: [{COMPARABILITY_URL}]({COMPARABILITY_URL}). The counts as JSON: "
             f"[{GAPS_DATA_URL}]({GAPS_DATA_URL})."),
             f"## Across the site\n\n{census.site.results} reported results.\n\n{_markdown_table(census.site)}",
             "## By metric"]
    parts += [f"### {table.metric}\n\n{table.results} result{'s' if table.results != 1 else ''}.\n\n"
              f"{_markdown_table(table)}" for table in census.metrics]
    parts += ["## What one answer would make comparable", _pairs_text(census), PAIRS_NOTE]
    for record in records:
        parts.append(f"### [{record.title}]({record.url})\n\n" + "\n".join(f"- {line}"
                                                                                   for line in record.lines))
    if census.unblocked:
        parts.append(UNBLOCKED + " " + ", ".join(f"[`{gaps.record_id}`]({record_url(gaps.record_id)})"
                                                 for gaps in census.unblocked) + ".")
    return "\n\n".join(parts) + "\n"


UNBLOCKED = "No single unreported condition keeps a result of these records from comparing with another record's:"


def _pairs_text(census: GapCensus) -> str:
    pairs = census.pairs
    counted = (f"Of {pairs.cross_record} pair{'s' if pairs.cross_record != 1 else ''} of results with the same "
               f"metric from two source records, {pairs.comparable} {'is' if pairs.comparable == 1 else 'are'} "
               "comparable now. ")
    if not pairs.one_answer:
        return counted + "No other pair is kept apart only by a condition that one of its two results does not report."
    return (counted + f"In {pairs.one_answer} more, one condition that only one of the two reports is all that "
            "stands between them (by record below).")


def _markdown_table(table: StateTable) -> str:
    lines = ["| Condition | Reported | Not reported (null) | Not considered (absent) |", "|---|---:|---:|---:|"]
    lines += [f"| {c.condition} | {c.reported} | {c.not_reported} | {c.not_considered} |" for c in table.conditions]
    return "\n".join(lines)
