"""Parse stage: a SourceFile becomes a ParsedPage.

Splits the YAML front matter from the body, finds the ``json export`` and
``chart`` fences, and parses the front matter and the export with positions
in the Markdown file. Fences are classified here, once (:func:`fence_kind`);
every later stage uses this result by the fence's line.

The bodies of those fences are JSON and YAML read by their own parsers, so
the Markdown tokenizer does not need them: a fence that opens at column 0
after a blank line (it can only be a fence of the document) has its body
lines left out of the text markdown-it tokenizes, and the line numbers of the
tokens are then put back as in the file. This spares markdown-it a walk over
every line of a large export; the tokens of those fences hold no content (the
fence's body as written is in its ``Fence``). When the tokens do not show the
fence exactly where the scan found it, the body is tokenized again as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it.token import Token

from ..core.diagnostics import Location, Problem, error
from ..core.model import CHART_FENCE, EXPORT_FENCE, Document, Fence, ParsedPage, SourceFile
from .jsonmap import load_json
from .markdown import fences, tokenize
from .yamlmap import load_yaml

_FRONT_HINT = "start the file with a line `---`, the YAML front matter, and another line `---`"
_OPENING = re.compile(r"(`{3,}|~{3,})([^`]*)$")


def fence_kind(info: str) -> str | None:
    """``export`` for a ``json export`` fence, ``chart`` for a ``chart`` fence, else None.
    Words are compared, so ``json  export`` (two spaces) is the export too."""
    words = info.split()
    if words == ["json", "export"]:
        return EXPORT_FENCE
    if words == ["chart"]:
        return CHART_FENCE
    return None


def parse_page(source: SourceFile) -> tuple[ParsedPage | None, list[Problem]]:
    if not source.text.strip():
        return None, [error(Location(source.path, 1, 1), "empty file", "front-matter", hint=_FRONT_HINT)]
    split = _split_front_matter(source)
    if isinstance(split, Problem):
        return None, [split]
    yaml_text, body, body_line = split
    problems: list[Problem] = []
    front, front_problems = load_yaml(yaml_text, source.path, 2)
    problems.extend(front_problems)
    lines = body.split("\n")
    tokens, found = _tokenize(lines)
    export_fence, chart_fences, fence_problems = _classify(found, lines, body_line, source.path)
    problems.extend(fence_problems)
    export: Document | None = None
    if export_fence is not None:
        export, export_problems = load_json(
            export_fence.content, source.path, export_fence.content_line, export_fence.indent
        )
        problems.extend(export_problems)
    page = ParsedPage(source, front, body, body_line, export_fence, export, tuple(chart_fences), tuple(tokens))
    return page, problems


def _split_front_matter(source: SourceFile) -> tuple[str, str, int] | Problem:
    lines = source.text.split("\n")
    if lines[0].rstrip() != "---":
        return error(Location(source.path, 1, 1), "missing front matter", "front-matter", hint=_FRONT_HINT)
    for number, line in enumerate(lines[1:], start=1):
        if line.rstrip() in ("---", "..."):
            yaml_text = "\n".join(lines[1:number]) + "\n"
            body = "\n".join(lines[number + 1 :])
            return yaml_text, body, number + 2
    return error(Location(source.path, 1, 1), "front matter is not closed", "front-matter",
                 hint="end the front matter with a line `---`")


# --- tokenizing without the data fences' bodies ----------------------------------


def _tokenize(lines: list[str]) -> tuple[list[Token], list[tuple[Token, str]]]:
    """Tokens of the body, and each data fence token with its content as written."""
    spans = _data_fence_spans(lines)
    if spans:
        kept: list[str] = []
        left_out: list[tuple[int, int]] = []  # (opening line in the shortened text, body lines left out)
        previous = 0
        for start, end in spans:
            left_out.append((len(kept) + start - previous, end - start - 2))
            kept += lines[previous : start + 1]
            previous = end - 1  # the closing line stays
        tokens = tokenize("\n".join(kept + lines[previous:]))
        _put_back_lines(tokens, left_out)
        found = _data_fences(tokens)
        if {(t.map[0], t.map[1]) for t, _ in found if t.map} >= set(spans):
            # The fence tokens keep no content (a page's tokens are held for the whole build):
            # the body as written goes with each fence.
            contents = {start: "".join(line + "\n" for line in lines[start + 1 : end - 1]) for start, end in spans}
            return tokens, [(t, contents.get(t.map[0], t.content) if t.map else t.content) for t, _ in found]
    tokens = tokenize("\n".join(lines))
    return tokens, _data_fences(tokens)


def _put_back_lines(tokens: Sequence[Token], left_out: list[tuple[int, int]]) -> None:
    """Give each token's map the lines of the file: a line after the opening of a fence whose
    body was left out moves down by that body's length (the fence's own end included)."""
    for token in tokens:
        for item in (token, *(token.children or ())):
            if item.map:
                item.map = [_line_in_file(line, left_out) for line in item.map]


def _line_in_file(line: int, left_out: list[tuple[int, int]]) -> int:
    return line + sum(count for opening, count in left_out if opening < line)


def _data_fences(tokens: Sequence[Token]) -> list[tuple[Token, str]]:
    return [(t, t.content) for t in fences(tokens) if t.map and fence_kind(t.info) is not None]


def _data_fence_spans(lines: list[str]) -> list[tuple[int, int]]:
    """(opening line, line after the closing fence) of each closed data fence that opens at
    column 0 after a blank line, by CommonMark's fence rules (0-based body lines)."""
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        opening = _OPENING.match(lines[index])
        if opening is None:
            index += 1
            continue
        marker = opening.group(1)
        close = _closing(lines, index + 1, marker)
        after_blank = index == 0 or not lines[index - 1].strip()
        if close is not None and after_blank and fence_kind(opening.group(2)) is not None:
            spans.append((index, close + 1))
        index = (close if close is not None else len(lines)) + 1
    return spans


def _closing(lines: list[str], start: int, marker: str) -> int | None:
    """The line that closes a fence opened with ``marker``: the same character, at least as
    many, indented at most 3 spaces, nothing else on the line."""
    pattern = re.compile(r" {0,3}" + re.escape(marker[0]) + "{" + str(len(marker)) + r",}[ \t]*$")
    for number in range(start, len(lines)):
        if pattern.match(lines[number]):
            return number
    return None


# --- classification ------------------------------------------------------------


def _classify(
    found: list[tuple[Token, str]], lines: list[str], body_line: int, path: str
) -> tuple[Fence | None, list[Fence], list[Problem]]:
    export: Fence | None = None
    charts: list[Fence] = []
    problems: list[Problem] = []
    for token, content in found:
        kind = fence_kind(token.info)
        assert kind is not None and token.map is not None  # _data_fences keeps only these
        indent = _content_column(lines[token.map[0]], token.markup)
        fence = Fence(kind, content, body_line + token.map[0], indent, token.map[0])
        if kind == CHART_FENCE:
            charts.append(fence)
        elif export is None:
            export = fence
        else:
            where = Location(path, fence.line, indent + 1)
            problems.append(error(where, f"a second `json export` fence; the first is on line {export.line}",
                                  "export", hint="a page has at most one export; merge the two"))
    return export, charts, problems


def _content_column(opening: str, markup: str) -> int:
    """Columns before the fence's content on each line: its indentation, or a list or quote marker."""
    found = opening.find(markup) if markup else -1
    return found if found >= 0 else len(opening) - len(opening.lstrip(" "))
