"""The Markdown dialect of SPEC §3.2, and what the pipeline reads from its tokens.

CommonMark + GFM tables, strikethrough, footnotes, heading anchors and
autolinks. Raw HTML is escaped (``html: False``). Link targets are not
filtered by markdown-it here: the validate stage reports a refused scheme as
an error with its line instead of silently turning the link into text. This
module parses and reads tokens (fences, links, headings); turning them into
HTML is the render stage's (output/body.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from linkify_it import LinkifyIt  # type: ignore[import-untyped]
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.myst_role import myst_role_plugin


def slugify(title: str) -> str:
    """Stable heading id: lowercase words joined by hyphens."""
    slug = re.sub(r"[^\w\s-]", "", title.lower(), flags=re.UNICODE)
    return re.sub(r"[\s_-]+", "-", slug).strip("-") or "section"


class _Markdown(MarkdownIt):
    def validateLink(self, url: str) -> bool:
        """Every target passes: refused schemes are reported by validate, not dropped."""
        return True


class _QuickLinkify(LinkifyIt):  # type: ignore[misc]
    """linkify-it with a quicker first test. Its own runs one large regular expression over
    every paragraph (a tenth of the parse time of long prose); a link needs a scheme (``:``),
    ``//``, an e-mail's ``@`` or a dot before the letters of a domain, which plain substring
    tests rule out for most paragraphs. What is linked does not change."""

    def pretest(self, text: str) -> bool:
        if ":" not in text and "//" not in text and "@" not in text and not _DOT_LETTER.search(text):
            return False
        return bool(super().pretest(text))


_DOT_LETTER = re.compile(r"\.[^\W\d_]")


def create_parser() -> MarkdownIt:
    md = _Markdown("commonmark", {"html": False, "linkify": True, "typographer": False})
    md.enable(["table", "strikethrough", "linkify"])
    md.linkify = _QuickLinkify()
    md.use(footnote_plugin)
    md.use(anchors_plugin, min_level=2, max_level=4, slug_func=slugify)
    md.use(myst_role_plugin)  # inline values: {value}`record/label` (inlinerefs.py)
    return md


def tokenize(text: str) -> list[Token]:
    return _PARSER.parse(text, {})


_PARSER = create_parser()


@dataclass(frozen=True)
class Link:
    href: str
    line: int  # 0-based line within the body
    col: int  # 1-based column, 0 when unknown
    is_image: bool


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str


def fences(tokens: Sequence[Token]) -> list[Token]:
    return [t for t in tokens if t.type == "fence"]


def links(tokens: Sequence[Token], body_lines: Callable[[], Sequence[str]]) -> list[Link]:
    """Every link and image target, with the line and column where it is written (in the body's
    lines, which ``body_lines`` gives when there is a link: many pages have none)."""
    found: list[Link] = []
    lines: Sequence[str] | None = None
    for block in tokens:
        if block.type != "inline" or not block.map or not block.children:
            continue
        for child in block.children:
            if child.type == "link_open":
                href, image = str(child.attrGet("href") or ""), False
            elif child.type == "image":
                href, image = str(child.attrGet("src") or ""), True
            else:
                continue
            if child.markup == "linkify":
                continue  # bare http(s)/www URLs found by linkify: nothing to check
            lines = body_lines() if lines is None else lines
            line, col = _find(href, lines, block.map[0], block.map[1])
            found.append(Link(href, line, col, image))
    return found


def _find(href: str, lines: Sequence[str], start: int, end: int) -> tuple[int, int]:
    """Where ``href`` is written: in its block, else (a reference link) at its definition."""
    for number in [*range(start, min(end, len(lines))), *range(len(lines))]:
        col = lines[number].find(href)
        if col >= 0:
            return number, col + 1
    return start, 0


def headings(tokens: Sequence[Token], level: int = 2) -> list[Heading]:
    found: list[Heading] = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == f"h{level}":
            inline = tokens[index + 1]
            text = "".join(c.content for c in inline.children or () if c.type in ("text", "code_inline"))
            found.append(Heading(level, text or inline.content, str(token.attrGet("id") or "")))
    return found
