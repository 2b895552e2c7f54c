"""The Markdown dialect of SPEC §3.2, and what the pipeline reads from its tokens.

CommonMark + GFM tables, strikethrough, footnotes, heading anchors and
autolinks. Raw HTML is escaped (``html: False``). Link targets are not
filtered by markdown-it here: the validate stage reports a refused scheme as
an error with its line instead of silently turning the link into text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from linkify_it import LinkifyIt  # type: ignore[import-untyped]
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

from ..core.urls import is_site_path, relative
from ..output.inline import value_html


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
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("table_open", _render_table_open)
    md.add_render_rule("table_close", _render_table_close)
    md.add_render_rule("myst_role", _render_role)
    return md


def tokenize(text: str) -> list[Token]:
    return _PARSER.parse(text, {})


def render_tokens(tokens: Sequence[Token], page_url: str, figures: dict[int, str], hidden: frozenset[int],
                  inline_values: Mapping[tuple[str, str], Any] | None = None) -> str:
    """HTML of the body. Site paths become relative to ``page_url``; a fence whose opening body
    line is in ``figures`` renders as that HTML (a chart), one in ``hidden`` (the export) not at all;
    ``inline_values`` holds the resolved roles ({value}`...`)."""
    env = {"figures": figures, "hidden": hidden, "page_url": page_url, "inline_values": inline_values or {}}
    return str(_PARSER.renderer.render(list(tokens), _PARSER.options, env))


def _render_role(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    """An inline value as resolved by the validate stage (a page that reaches rendering has them all)."""
    token = tokens[idx]
    item = env.get("inline_values", {}).get((token.meta.get("name", ""), token.content))
    if item is None:
        return f"<code>{escapeHtml(token.content)}</code>"
    in_link = sum(1 if t.type == "link_open" else -1 for t in tokens[:idx] if t.type in ("link_open", "link_close"))
    return value_html(item, in_link > 0)


def _relative_copy(token: Token, attr: str, env: dict[str, Any]) -> Token:
    """The token with a site-path ``attr`` made relative; the shared token is not changed."""
    value = token.attrGet(attr)
    if not isinstance(value, str) or not is_site_path(value):
        return token
    copy = token.copy()
    copy.attrs = dict(token.attrs)
    copy.attrSet(attr, relative(env["page_url"], value))
    return copy


def _render_link_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    return str(self.renderToken([_relative_copy(tokens[idx], "href", env)], 0, options, env))


def _render_image(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    return str(self.image([_relative_copy(tokens[idx], "src", env)], 0, options, env))


# A wide table scrolls sideways inside a focusable frame instead of widening the page.
TABLE_FRAME = '<div class="table-scroll" role="region" aria-label="Table" tabindex="0">\n'


def _render_table_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    return TABLE_FRAME + str(self.renderToken(tokens, idx, options, env))


def _render_table_close(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    return str(self.renderToken(tokens, idx, options, env)) + "</div>\n"


def _render_fence(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    where = tokens[idx].map
    start = where[0] if where else -1
    if start in env["hidden"]:
        return ""
    if start in env["figures"]:
        return str(env["figures"][start])
    return str(self.fence(tokens, idx, options, env))


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
