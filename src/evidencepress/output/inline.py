"""Render stage: an inline value as HTML and as Markdown, with the same visible text.

In HTML a reported result's value links to its row on the record page (where
the cited line, its check and the evidence link are), any other value to its
evidence; in Markdown every value links to its evidence, so an agent reading
one file reaches the source. What the value is and its conditions sit in a
note, never a ``title``: each distinct note is written once per page, in a
folded list after the body (``ValueNotes``), and a small "i" link after the
value leads to it (footnote style, without JavaScript); site.js turns that link
into a button that shows the note beside the value, by keyboard, touch or pointer. A derived value
shows its formula, each input linked the same way, so a reader can check it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup, escape

from ..checks.inlineselect import Selected, condition_text
from ..checks.inlinevalues import InlineValue
from ..checks.resultids import anchor_of
from ..core.export import ReportedResult, reported_results
from ..core.urls import relative
from ..core.words import key_name
from ..site.records import split_conditions

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>])")


Common = tuple[tuple[tuple[str, str], ...], tuple[str, ...]]  # conditions (key, text) alike, keys null in all


@dataclass(frozen=True)
class Shared:
    """What the page's results of one record share, by the site path of the record page, in the order
    of the record's first result: a value's note names only the conditions that set it apart, and the
    shared ones are written once per record, after the notes."""

    by_record: Mapping[str, Common] = field(default_factory=dict)

    def of(self, row: str) -> tuple[str, Common]:
        path = row.split("#")[0]
        found = self.by_record.get(path) if row else None
        return (path, found) if found and (found[0] or found[1]) else ("", ((), ()))


def shared_conditions(export: Mapping[str, Any] | None) -> Shared:
    groups: dict[str, list[ReportedResult]] = {}
    for result in reported_results(export):
        if result.record_id is not None:
            groups.setdefault(anchor_of(result.record_id, result.data).split("#")[0], []).append(result)
    return Shared({path: _common(results) for path, results in groups.items() if len(results) > 1})


def _common(results: list[ReportedResult]) -> Common:
    """(the non-null conditions all the results share, as text; the keys all of them report as null)."""
    shared, _ = split_conditions(results)
    alike = tuple((key, condition_text(value)) for key, value in shared if value is not None)
    nulls = tuple(key for key, value in shared if value is None)
    return alike, nulls


@dataclass
class ValueNotes:
    """The notes of one page's inline values, each distinct note once, numbered in reading order, and
    the conditions each record's results on the page share, once per record."""

    page_url: str
    shared: Shared = field(default_factory=Shared)
    ids: dict[tuple[str, str, str], str] = field(default_factory=dict)  # (text, row link, record) -> element id
    records: dict[str, str] = field(default_factory=dict)  # record page path -> id of its shared conditions
    titles: Mapping[str, str] = field(default_factory=dict)  # condition key -> its schema title

    def add(self, text: str) -> str:
        return self._id((text, "", ""))

    def add_value(self, part: Selected, derived: str = "") -> str:
        """The note of one value: what it is, the conditions that set it apart from its record's other
        results on the page (each of them when there are none), the link to its row."""
        record, (alike, nulls) = self.shared.of(part.row)
        parts = [(derived + part.about).rstrip(".")]
        own = [f"{self._name(k)}: {v}" for k, v in part.conditions if (k, v) not in alike]
        missing = [self._name(k) for k in part.not_reported if k not in nulls]
        if own:
            parts.append(("Conditions that set it apart: " if record else "Conditions: ") + "; ".join(own))
        if missing:
            parts.append("Not reported: " + ", ".join(missing))
        if record and record not in self.records:
            self.records[record] = f"ev-shared-{len(self.records) + 1}"
        return self._id((". ".join(parts) + ".", relative(self.page_url, part.row) if part.row else "", record))

    def _name(self, key: str) -> str:
        return key_name(key, self.titles)

    def _id(self, key: tuple[str, str, str]) -> str:
        if key not in self.ids:
            self.ids[key] = f"ev-note-{len(self.ids) + 1}"
        return self.ids[key]

    def html(self) -> str:
        """The notes as a folded list after the body, "" for a page without inline values. Each value's
        "i" links its note; site.js shows the note, with its record's shared conditions, beside the value."""
        if not self.ids:
            return ""
        notes = "".join(f'<li id="{ident}"{_shared_ref(self.records.get(record, ""))}>{escape(text)}{_row_link(row)}</li>\n'
                        for (text, row, record), ident in self.ids.items())
        shared = "".join(self._shared_html(record, ident) for record, ident in self.records.items())
        return (f'<details class="ev-notes" data-pagefind-ignore>\n<summary>What each value in the text is, and its '
                f'conditions</summary>\n<ol>\n{notes}</ol>\n{shared}</details>\n')

    def _shared_html(self, record: str, ident: str) -> str:
        alike, nulls = self.shared.by_record[record]
        name = record.rstrip("/").rsplit("/", 1)[-1]
        alike_text = "; ".join(f"{self._name(k)}: {v}" for k, v in alike)
        parts = ["Conditions all its results on this page share: " + alike_text] if alike else []
        if nulls:
            parts.append("Not reported in any: " + ", ".join(map(self._name, nulls)))
        return f'<p class="ev-shared" id="{ident}">{escape(name)} · {escape(". ".join(parts))}.</p>\n'


def _shared_ref(ident: str) -> str:
    return f' data-shared="{ident}"' if ident else ""


def _row_link(row: str) -> Markup:
    if not row:
        return Markup("")
    return Markup(' <a href="{}">Every condition, its source line and its check</a>').format(row)


def value_html(item: InlineValue, page_url: str, notes: ValueNotes, in_link: bool = False) -> str:
    """``page_url`` is the page the value is on (links are relative to it); ``notes`` gathers the page's notes."""
    if not item.derived:
        return _input_html(item.inputs[0], item.text, page_url, notes, in_link)
    if item.operation == "round":
        return _input_html(item.inputs[0], item.text, page_url, notes, in_link, f"Derived by the site: {item.note}. ")
    symbol = item.formula_symbol
    inputs = symbol.join(_input_html(part, part.display, page_url, notes, in_link) for part in item.inputs)
    note = "" if in_link else _note_button(notes.add(f"Derived by the site: {item.note}."), item.text)
    formula = f'<span class="ev-formula"> (= {inputs})</span>'
    return _paired(f'<span class="ev-derived">{escape(item.text)}</span>', note) + formula


def _input_html(part: Selected, text: str, page_url: str, notes: ValueNotes, in_link: bool,
                derived: str = "") -> str:
    kind = "ev-value ev-rounded" if derived else "ev-value"
    href = relative(page_url, part.row) if part.row else part.evidence_url
    note = "" if in_link else _note_button(notes.add_value(part, derived), text)
    if href and not in_link:
        value = f'<a class="{kind}" href="{escape(href)}">{escape(text)}</a>'
    else:
        value = f'<span class="{kind}">{escape(text)}</span>'
    return _paired(value, note)


def _paired(value: str, note: str) -> str:
    """A value and its note's "i" in one span that no line break parts (none: the value alone)."""
    return f'<span class="ev-pair">{value}{note}</span>' if note else value


def _note_button(ident: str, text: str) -> str:
    """The link to a value's note (site.js makes it a button that opens the note as a popover); a value
    inside a link's text has none (links do not nest)."""
    name = escape(f"About {' '.join(text.split())}")
    return f'<a class="ev-more" href="#{ident}" aria-label="{name}"><span aria-hidden="true">i</span></a>'



def value_markdown(item: InlineValue, in_link: bool = False) -> str:
    """The same visible text as the HTML; values link to their evidence (unless inside a link's text)."""
    if not item.derived or item.operation == "round":
        return _input_markdown(item.inputs[0], item.text, in_link)
    inputs = item.formula_symbol.join(_input_markdown(part, part.display, in_link) for part in item.inputs)
    return f"{_text(item.text)} (= {inputs})"


def _input_markdown(part: Selected, text: str, in_link: bool) -> str:
    if not part.evidence_url or in_link:
        return _text(text)
    url = part.evidence_url
    if re.search(r"[\s()<>]", url):
        url = "<" + url.replace("<", "%3C").replace(">", "%3E") + ">"
    return f"[{_text(text)}]({url})"


def _text(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))
