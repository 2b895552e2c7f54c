"""Parse stage: a SourceFile becomes a ParsedPage.

Splits the YAML front matter from the body, parses both the front matter and
the ``json export`` fence with positions in the Markdown file, and collects
the ``chart`` fences. Nothing is validated against a schema here.
"""

from __future__ import annotations

from markdown_it.token import Token

from .diagnostics import Location, Problem, error
from .jsonmap import load_json
from .markdown import CHART_INFO, EXPORT_INFO, fences, tokenize
from .model import Document, Fence, ParsedPage, SourceFile
from .yamlmap import load_yaml

_FRONT_HINT = "start the file with a line `---`, the YAML front matter, and another line `---`"


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
    tokens = tokenize(body)
    export_fence, chart_fences, fence_problems = _fences(tokens, body, body_line, source.path)
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


def _fences(
    tokens: list[Token], body: str, body_line: int, path: str
) -> tuple[Fence | None, list[Fence], list[Problem]]:
    body_lines = body.split("\n")
    export: Fence | None = None
    charts: list[Fence] = []
    problems: list[Problem] = []
    for token in fences(tokens):
        info = " ".join(token.info.split())
        if info not in (EXPORT_INFO, CHART_INFO) or not token.map:
            continue
        indent = _content_column(body_lines[token.map[0]], token.markup)
        fence = Fence(info, token.content, body_line + token.map[0], indent)
        if info == CHART_INFO:
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
