"""index.md: the article as one Markdown file with its export (SPEC §7.2).

Layout::

    # Title

    > summary

    <!-- evidencepress: {"summary": ..., "tags": [...], ...} -->

    body, with each chart fence replaced by
    ![alt](<id>.svg) / *caption* / <!-- evidencepress:chart ...spec... -->

    ## Original sources and conditions
    - publisher: url
      - Document revision: ...
      - SHA-256: ...

    Checked YYYY-MM-DD. <footer> Conditions and selected source facts are in the adjacent JSON export.

    ```json
    {export}
    ```

The HTML comments are invisible when the file is displayed and carry what
``evidencepress import`` needs to rebuild the source article exactly.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..checks.page import Page
from ..content.bodyscan import pieces
from ..core import jsontext
from .inline import value_markdown

META_OPEN = "<!-- evidencepress: "
_FRONT_MATTER = re.compile(r"---\n(.*?\n)---\n", re.DOTALL)
CHART_OPEN = "<!-- evidencepress:chart"
VALUE_OPEN = "<!--="  # an inline value's role, before the text it shows (see values_as_text)
VALUE_CLOSE = "<!--/="  # its end
COMMENT_CLOSE = "-->"
_COMMENT_END = re.compile("(--!?)>")  # what ends an HTML comment (HTML5 also ends one at --!>)
_DASHES = re.compile("-{2,}")
SOURCES_HEADING = "## Original sources and conditions"
CHECKED_TAIL = "Conditions and selected source facts are in the adjacent JSON export."


def article_markdown(page: Page, footer: str) -> str:
    front = page.front
    meta: dict[str, Any] = {"summary": front.summary}
    if front.updated:
        meta["updated"] = front.updated.isoformat()
    if front.tags:
        meta["tags"] = list(front.tags)
    if front.draft:
        meta["draft"] = True
    written = front_matter_text(page.source.text)
    if written is not None:  # as the editor wrote it: import gives it back byte for byte while it agrees
        meta["front_matter"] = written
    parts = [f"# {front.title}", f"> {front.summary}", META_OPEN + meta_json(meta) + " " + COMMENT_CLOSE]
    body = _body(page).strip("\n")
    if body:
        parts.append(body)
    if front.sources:
        parts.append(SOURCES_HEADING)
        parts.append("\n".join(
            f"- {s.publisher}: {s.url}\n  - Document revision: {s.revision}\n  - SHA-256: {s.sha256}"
            for s in front.sources
        ))
    parts.append(f"Checked {front.checked.isoformat()}. {footer} {CHECKED_TAIL}")
    if page.export is not None:
        parts.append("```json\n" + jsontext.dumps(page.export) + "\n```")
    return "\n\n".join(parts) + "\n"


def front_matter_text(source: str) -> str | None:
    """The YAML between a page's opening ``---`` lines, as written (its comments and quoting too)."""
    found = _FRONT_MATTER.match(source.replace("\r\n", "\n"))
    return found.group(1) if found else None


def meta_json(meta: dict[str, Any]) -> str:
    """The metadata as JSON that cannot close its comment: the ``>`` of a ``-->`` or ``--!>`` in a string
    (a summary) is written ``\\u003e``, the same JSON value (outside strings JSON has no ``--``)."""
    return _COMMENT_END.sub(r"\1\\u003e", json.dumps(meta, ensure_ascii=False))


def _body(page: Page) -> str:
    """The body with the export fence removed, chart fences shown as images and inline values as text."""
    lines = values_as_text(page).split("\n")
    charts = {chart.line - page.body_line: chart for chart in page.charts}
    specs = {fence.body_index: fence.content for fence in page.chart_fences}
    replaced: list[tuple[int, int, list[str]]] = []
    for token in page.tokens:
        if token.type != "fence" or not token.map:
            continue
        start, end = token.map
        if start == page.export_index:
            if start > 0 and end < len(lines) and not lines[start - 1].strip() and not lines[end].strip():
                end += 1  # do not leave two blank lines where the fence stood
            replaced.append((start, end, []))
        elif start in charts:
            replaced.append((start, end, _chart_lines(charts[start], specs[start])))
    for start, end, new in sorted(replaced, reverse=True):
        lines[start:end] = new
    return "\n".join(lines)


def values_as_text(page: Page) -> str:
    """The body with each inline value's role replaced by what the HTML shows, between comments that
    hold the role (the line count is kept)."""
    if not page.inline_values:
        return page.body
    starts = [0]
    for line in page.body.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    spans: list[tuple[int, int, str]] = []
    for piece in pieces(page.tokens, page.body, page.body_line):
        item = page.inline_values.get((piece.name, piece.content)) if piece.kind == "role" else None
        if item is not None and piece.source:
            start = starts[piece.line - page.body_line] + piece.col - 1
            # The role rides along in comments (invisible when the Markdown is shown), so that import
            # writes it back: `<!--={value}`A`-->36.6 tokens/s<!--/=-->`; a role written over several
            # lines keeps the line count inside the closing comment.
            text = (f"{VALUE_OPEN}{comment_text(piece.source)}-->{value_markdown(item, piece.in_link)}"
                    f"{VALUE_CLOSE}{chr(10) * piece.source.count(chr(10))}-->")
            spans.append((start, start + len(piece.source), text))
    body = page.body
    for start, end, text in sorted(spans, reverse=True):
        body = body[:start] + text + body[end:]
    return body


def _chart_lines(chart: Any, spec: str) -> list[str]:
    alt = " ".join(chart.alt.split()).replace("]", "\\]")
    lines = [f"![{alt}]({chart.id}.svg)", ""]
    if chart.caption:
        lines += ["*" + " ".join(chart.caption.split()) + "*", ""]
    lines += [CHART_OPEN, comment_text(spec.rstrip("\n")), COMMENT_CLOSE]
    return lines


def comment_text(text: str) -> str:
    """``text`` that can stand in an HTML comment and be read back exactly: every backslash doubled, then
    each dash of a run of two or more written ``\\-``, so that no ``--`` is left (``---`` became ``\\-\\--``,
    and a spec holding ``--->`` closed its comment)."""
    return _DASHES.sub(lambda run: "\\-" * len(run.group()), text.replace("\\", "\\\\"))
