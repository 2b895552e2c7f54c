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
from .inline import value_html

# A wide table scrolls sideways inside a focusable frame instead of widening the page.
TABLE_FRAME = '<div class="table-scroll" role="region" aria-label="Table" tabindex="0">\n'


def render_tokens(tokens: Sequence[Token], page_url: str, figures: dict[int, str], hidden: frozenset[int],
                  inline_values: Mapping[tuple[str, str], InlineValue] | None = None) -> str:
    """HTML of the body. Site paths become relative to ``page_url``; a fence whose opening body
    line is in ``figures`` renders as that HTML (a chart), one in ``hidden`` (the export) not at all;
    ``inline_values`` holds the resolved roles ({value}`...`)."""
    env = {"figures": figures, "hidden": hidden, "page_url": page_url, "inline_values": inline_values or {}}
    return str(_HTML.renderer.render(list(tokens), _HTML.options, env))


def _render_role(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
    """An inline value as resolved by the validate stage (a page that reaches rendering has them all)."""
    token = tokens[idx]
    item = env.get("inline_values", {}).get((token.meta.get("name", ""), token.content))
    if item is None:
        return f"<code>{escapeHtml(token.content)}</code>"
    in_link = sum(1 if t.type == "link_open" else -1 for t in tokens[:idx] if t.type in ("link_open", "link_close"))
    return value_html(item, env["page_url"], in_link > 0)


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


def _html_renderer() -> MarkdownIt:
    md = create_parser()
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("table_open", _render_table_open)
    md.add_render_rule("table_close", _render_table_close)
    md.add_render_rule("myst_role", _render_role)
    return md


_HTML = _html_renderer()
