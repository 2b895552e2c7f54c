"""Render stage: an inline value as HTML and as Markdown, with the same visible text.

In HTML a reported result's value links to its row on the record page (where
the cited line, its check and the evidence link are), any other value to its
evidence; in Markdown every value links to its evidence, so an agent reading
one file reaches the source. The link's ``title`` carries the conditions; a
derived value shows its formula, each input linked the same way, so a reader
can check it without a pointer device.
"""

from __future__ import annotations

import re

from markupsafe import escape

from ..checks.inlineselect import Selected
from ..checks.inlinevalues import InlineValue
from ..core.urls import relative

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>])")


def value_html(item: InlineValue, page_url: str, in_link: bool = False) -> str:
    """``page_url`` is the page the value is on (links are relative to it)."""
    if not item.derived:
        return _input_html(item.inputs[0], item.text, page_url, in_link)
    if item.operation == "round":
        return _input_html(item.inputs[0], item.text, page_url, in_link, f"Derived by the site: {item.note}. ")
    symbol = item.formula_symbol
    inputs = symbol.join(_input_html(part, part.display, page_url, in_link) for part in item.inputs)
    title = escape(f"Derived by the site: {item.note}.")
    return (f'<span class="ev-derived" title="{title}">{escape(item.text)}</span>'
            f'<span class="ev-formula"> (= {inputs})</span>')


def _input_html(part: Selected, text: str, page_url: str, in_link: bool, derived: str = "") -> str:
    title = escape(derived + part.title)
    kind = "ev-value ev-rounded" if derived else "ev-value"
    href = relative(page_url, part.row) if part.row else part.evidence_url
    if href and not in_link:
        return f'<a class="{kind}" href="{escape(href)}" title="{title}">{escape(text)}</a>'
    return f'<span class="{kind}" title="{title}">{escape(text)}</span>'


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
