"""Render stage: a page body's markdown-it tokens as HTML.

The parser of content/markdown.py, with the render rules of the site: site
paths made relative to the page, a chart fence replaced by its figure and the
export fence left out, wide tables framed to scroll, inline values resolved
by the validate stage rendered as links to their evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from ..checks.inlinevalues import InlineValue
from ..content.markdown import create_parser
from ..core.urls import is_site_path, relative
from .inline import Shared, ValueNotes, value_html

# A wide table scrolls sideways inside a focusable frame instead of widening the page; the frame is a
# region named by the heading the table stands under (else by its column headers), never "Table".
TABLE_FRAME = '<div class="table-scroll" role="region" {name} tabindex="0">\n'


def render_tokens(tokens: Sequence[Token], page_url: str, figures: dict[int, str], hidden: frozenset[int],
                  inline_values: Mapping[tuple[str, str], InlineValue] | None = None,
                  shared: Shared | None = None, titles: Mapping[str, str] | None = None) -> str:
    """HTML of the body. Site paths become relative to ``page_url``; a fence whose opening body
    line is in ``figures`` renders as that HTML (a chart), one in ``hidden`` (the export) not at all;
    ``inline_values`` holds the resolved roles ({value}`...`), ``shared`` the conditions their notes
    leave to the sources section, ``titles`` the schema's names of conditions."""
    notes = ValueNotes(page_url, shared or Shared(), titles=titles or {})
    env = {"figures": figures, "hidden": hidden, "page_url": page_url, "inline_values": inline_values or {},
           "notes": notes}
    return str(_HTML.renderer.render(list(tokens), _HTML.options, env)) + notes.html()


def _render_role(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    """An inline value as resolved by the validate stage (a page that reaches rendering has them all)."""
    token = tokens[idx]
    item = env.get("inline_values", {}).get((token.meta.get("name", ""), token.content))
    if item is None:
        return f"<code>{escapeHtml(token.content)}</code>"
    in_link = sum(1 if t.type == "link_open" else -1 for t in tokens[:idx] if t.type in ("link_open", "link_close"))
    return value_html(item, env["page_url"], env["notes"], in_link > 0)


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


def _render_table_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    return TABLE_FRAME.format(name=_table_name(tokens, idx)) + str(self.renderToken(tokens, idx, options, env))


def _table_name(tokens: Sequence[Token], idx: int) -> str:
    """The frame's name: the text of the heading the table stands under, else its column headers
    (a label, not ``aria-labelledby``: the heading also holds its permalink, whose name is not the table's)."""
    for back in range(idx - 1, 0, -1):
        if tokens[back - 1].type == "heading_open" and tokens[back].type == "inline":
            return f'aria-label="{escapeHtml(_plain(tokens[back]))}"'
    headers: list[str] = []
    for token in tokens[idx:]:
        if token.type == "thead_close":
            break
        if token.type == "inline":
            headers.append(_plain(token))
    return f'aria-label="{escapeHtml("Table of " + ", ".join(h for h in headers if h))}"'


def _plain(inline: Token) -> str:
    """An inline token's text as read (its text and code spans)."""
    text = "".join(c.content for c in inline.children or () if c.type in ("text", "code_inline"))
    return " ".join((text or inline.content).split())


def _render_heading_close(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    """An h2 or h3 with an id ends with its permalink: a "#" shown on hover and focus, named by the heading."""
    close = str(self.renderToken(tokens, idx, options, env))
    opening = tokens[idx - 2] if idx >= 2 else None
    if opening is None or opening.type != "heading_open" or opening.tag not in ("h2", "h3"):
        return close
    anchor = opening.attrGet("id")
    if not anchor:
        return close
    text = _plain(tokens[idx - 1])
    return (f'<a class="heading-anchor" href="#{escapeHtml(str(anchor))}" '
            f'aria-label="Link to this section: {escapeHtml(text)}" data-pagefind-ignore>#</a>' + close)


def _render_table_close(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    return str(self.renderToken(tokens, idx, options, env)) + "</div>\n"


def _render_fence(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    where = tokens[idx].map
    start = where[0] if where else -1
    if start in env["hidden"]:
        return ""
    if start in env["figures"]:
        return str(env["figures"][start])
    return _focusable(str(self.fence(tokens, idx, options, env)))


def _render_code_block(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    return _focusable(str(self.code_block(tokens, idx, options, env)))


def _focusable(html: str) -> str:
    """A code block scrolls sideways when its lines are long: a keyboard reaches it (axe's
    scrollable-region-focusable, serious, on /for-ai/)."""
    return html.replace("<pre>", '<pre tabindex="0">', 1) if html.startswith("<pre>") else html


def _html_renderer() -> MarkdownIt:
    md = create_parser()
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("code_block", _render_code_block)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("table_open", _render_table_open)
    md.add_render_rule("table_close", _render_table_close)
    md.add_render_rule("heading_close", _render_heading_close)
    md.add_render_rule("myst_role", _render_role)
    return md


_HTML = _html_renderer()
