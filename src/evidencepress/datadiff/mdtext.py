"""Text from content made safe for GitHub-flavoured Markdown and the HTML around it.

Labels, titles and values come from articles; in a pull-request comment they
must not open a link, a list, an HTML tag, a table cell or mention a user.
"""

from __future__ import annotations

import html
import re
from typing import Any

from ..core import jsontext
from .changes import ABSENT

_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&#!])")
_TICKS = re.compile(r"`+")
_BREAKS = re.compile(r"\r\n|[\r\n\u2028\u2029\x85]")


def one_line(text: str) -> str:
    return " ".join(text.split())


def text(value: str) -> str:
    """Plain Markdown text: punctuation that Markdown would read is escaped; ``@`` mentions nobody."""
    escaped = _SPECIAL.sub(r"\\\1", one_line(value))
    return escaped.replace("@", "@\u200b")


def code(value: str, in_table: bool = False) -> str:
    """An inline code span holding ``value`` exactly (on one line). In a table cell a pipe needs a backslash
    (GFM splits cells before it reads code spans); elsewhere the backslash would show."""
    content = _BREAKS.sub(" ", value)
    content = content.replace("|", "\\|") if in_table else content
    longest = max((len(run) for run in _TICKS.findall(content)), default=0)
    fence = "`" * (longest + 1)
    edges = content[:1] + content[-1:]
    pad = " " if "`" in edges or (edges == "  " and content.strip()) else ""  # CommonMark strips one space each side
    return f"{fence}{pad}{content}{pad}{fence}"


def json_code(value: Any) -> str:
    """A JSON value as authored, as inline code (``"fp8"``, ``null``, ``22.50``); absent reads (absent)."""
    if value is ABSENT:
        return "(absent)"
    return code(jsontext.dumps(value, indent=None))


def html_text(value: str) -> str:
    """Text inside an HTML element of the report (``<summary>``)."""
    return html.escape(one_line(value), quote=True).replace("@", "@\u200b")


def link(label: str, url: str) -> str:
    """``[label](url)``; the URL is written in angle brackets so that spaces and parentheses survive."""
    target = url.replace("<", "%3C").replace(">", "%3E").replace(" ", "%20")
    return f"[{label}](<{target}>)"
