"""A change to the published data in ``diff``'s words (Markdown list items) as HTML.

CommonMark with raw HTML off: every word that comes from the content is escaped.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markupsafe import Markup

from ..site.history import DataChange


@dataclass(frozen=True)
class ChangeView:
    """A change with its words as HTML, for the templates."""

    change: DataChange
    words: Markup


@functools.cache
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False})


def change_views(changes: Sequence[DataChange]) -> tuple[ChangeView, ...]:
    return tuple(ChangeView(change, Markup(_markdown().render("\n".join(change.lines) + "\n"))) for change in changes)
