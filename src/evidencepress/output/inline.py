"""Render stage: an inline value as HTML and as Markdown, with the same visible text.

In HTML a reported result's value links to its row on the record page (where
the cited line, its check and the evidence link are), any other value to its
evidence; in Markdown every value links to its evidence, so an agent reading
one file reaches the source. What the value is and its conditions sit in a
note: a small button after the value opens it as a popover (by keyboard, touch
or pointer, without JavaScript), and each distinct note is written once per
page, after the body (``ValueNotes``), never as a ``title``. A derived value
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
from ..core.export import reported_results
from ..core.urls import relative

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>])")


@dataclass(frozen=True)
class Shared:
    """What the page's results of one record share (by the site path of the record page): a value's
    note names only the conditions that tell it from the record's other results on the page, and
    links its row on the record page, which lists every condition."""

    by_record: Mapping[str, tuple[frozenset[tuple[str, str]], frozenset[str]]] = field(default_factory=dict)

    def of(self, row: str) -> tuple[frozenset[tuple[str, str]], frozenset[str]]:
        return self.by_record.get(row.split("#")[0], (frozenset(), frozenset())) if row else (frozenset(), frozenset())


def shared_conditions(export: Mapping[str, Any] | None) -> Shared:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for result in reported_results(export):
        if result.record_id is not None:
            groups.setdefault(anchor_of(result.record_id, result.data).split("#")[0], []).append(result.conditions)
    return Shared({path: _common(conditions) for path, conditions in groups.items() if len(conditions) > 1})


def _common(conditions: list[Mapping[str, Any]]) -> tuple[frozenset[tuple[str, str]], frozenset[str]]:
    reported = [{(str(k), condition_text(v)) for k, v in c.items() if v is not None} for c in conditions]
    nulls = [{str(k) for k, v in c.items() if v is None} for c in conditions]
    return frozenset(set.intersection(*reported)), frozenset(set.intersection(*nulls))


@dataclass
class ValueNotes:
    """The notes of one page's inline values, each distinct note once, numbered in reading order."""

    page_url: str
    shared: Shared = field(default_factory=Shared)
    ids: dict[tuple[str, str], str] = field(default_factory=dict)  # (note text, its row's link) -> element id

    def add(self, text: str) -> str:
        return self._id((text, ""))

    def add_value(self, part: Selected, derived: str = "") -> str:
        """The note of one value: what it is, the conditions that set it apart from its record's other
        results on the page (each of them when it has no row to link), the link to its row."""
        common, nulls = self.shared.of(part.row)
        parts = [(derived + part.about).rstrip(".")]
        own = [f"{k}: {v}" for k, v in part.conditions if (k, v) not in common]
        missing = [k for k in part.not_reported if k not in nulls]
        if own:
            parts.append(("Conditions that set it apart: " if common or nulls else "Conditions: ") + "; ".join(own))
        if missing:
            parts.append("Not reported: " + ", ".join(missing))
        return self._id((". ".join(parts) + ".", relative(self.page_url, part.row) if part.row else ""))

    def _id(self, key: tuple[str, str]) -> str:
        if key not in self.ids:
            self.ids[key] = f"ev-note-{len(self.ids) + 1}"
        return self.ids[key]

    def html(self) -> str:
        """The notes as popovers (hidden until opened); "" for a page without inline values."""
        if not self.ids:
            return ""
        notes = "".join(f'<p class="ev-note" id="{ident}" popover>{escape(text)}{_row_link(row)}</p>\n'
                        for (text, row), ident in self.ids.items())
        return f'<div class="ev-notes" data-pagefind-ignore>\n{notes}</div>\n'


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
    note = _note_button(notes.add(f"Derived by the site: {item.note}."), item.text, in_link)
    return (f'<span class="ev-derived">{escape(item.text)}</span>{note}'
            f'<span class="ev-formula"> (= {inputs})</span>')


def _input_html(part: Selected, text: str, page_url: str, notes: ValueNotes, in_link: bool,
                derived: str = "") -> str:
    kind = "ev-value ev-rounded" if derived else "ev-value"
    href = relative(page_url, part.row) if part.row else part.evidence_url
    note = _note_button(notes.add_value(part, derived), text, in_link)
    if href and not in_link:
        return f'<a class="{kind}" href="{escape(href)}">{escape(text)}</a>{note}'
    return f'<span class="{kind}">{escape(text)}</span>{note}'


def _note_button(ident: str, text: str, in_link: bool) -> str:
    """The button that opens a value's note; none inside a link's text (a button may not sit in a link)."""
    if in_link:
        return ""
    name = escape(f"About {' '.join(text.split())}")
    return (f'<button type="button" class="ev-more" popovertarget="{ident}" aria-label="{name}">'
            f'<span aria-hidden="true">i</span></button>')


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
