"""Where each inline piece of the body stands in the Markdown file.

markdown-it gives block tokens a line range but inline tokens no position.
The pieces of an inline block (text, code spans, roles) appear in the source
in the order of its children, so each is found by searching the block's
source lines from where the previous piece ended; table cells of one row
continue on the row's line. A piece whose source differs from its content
(an escape, an entity) is placed at the start of its block and marked
``exact=False``.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from markdown_it.token import Token

ROLE = "myst_role"


@dataclass(frozen=True)
class Piece:
    """A text run, a code span or a role of the body, at its place in the file (1-based)."""

    kind: str  # "text", "code" or "role"
    content: str  # the text, the code, or the role's content
    name: str  # the role's name; "" for text and code
    line: int
    col: int
    exact: bool  # False when the piece could not be found verbatim (placed at its block)
    in_heading: bool
    in_link: bool  # part of a link's text
    source: str  # the role as written: {value}`...`; "" for text and code


class _Block:
    """The source text of one inline block and a cursor moving through it."""

    def __init__(self, lines: Sequence[str], start: int, end: int, first_file_line: int) -> None:
        self.text = "\n".join(lines[start:end])
        self.starts = [0]
        for line in lines[start:end - 1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.first_file_line = first_file_line

    def spot(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self.starts, offset) - 1
        return self.first_file_line + index, offset - self.starts[index] + 1


def pieces(tokens: Sequence[Token], body: str, body_line: int) -> Iterator[Piece]:
    """Every text, code and role piece of the body's inline blocks, in document order."""
    lines = body.split("\n")
    cursors: dict[int, int] = {}  # a block's first line -> where its last piece ended (table rows)
    heading = False
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            heading = token.type == "heading_open"
        if token.type != "inline" or not token.map or not token.children:
            continue
        start, end = token.map
        block = _Block(lines, start, max(end, start + 1), body_line + start)
        cursor = cursors.get(start, 0)
        for piece, after in _walk(token.children, block, cursor, heading):
            cursor = after
            yield piece
        cursors[start] = cursor


def _walk(children: Sequence[Token], block: _Block, cursor: int, heading: bool) -> Iterator[tuple[Piece, int]]:
    in_link = False
    for child in children:
        if child.type == "link_open":
            in_link = True
        elif child.type == "link_close":
            in_link = False
            cursor = _past_destination(block.text, cursor)
        elif child.type in ("text", "code_inline", ROLE) and child.content:
            span = _find(child, block.text, cursor)
            exact = span is not None
            begin, finish, content_at = span if span is not None else (0, 0, 0)
            line, col = block.spot(content_at if child.type != ROLE else begin)
            kind = {"text": "text", "code_inline": "code"}.get(child.type, "role")
            name = str(child.meta.get("name", "")) if kind == "role" else ""
            source = block.text[begin:finish] if kind == "role" and exact else ""
            if exact:
                cursor = finish
            yield Piece(kind, child.content, name, line, col, exact, heading, in_link, source), cursor


def _find(child: Token, text: str, cursor: int) -> tuple[int, int, int] | None:
    """(start, end, start of content) of the child's source from ``cursor``, or None."""
    if child.type == "text":
        found = text.find(child.content, cursor)
        return (found, found + len(child.content), found) if found >= 0 else None
    opening = "{" + str(child.meta.get("name", "")) + "}" if child.type == ROLE else ""
    start = text.find(opening + "`", cursor)
    if start < 0:
        return None
    ticks_at = start + len(opening)
    ticks = len(text[ticks_at:]) - len(text[ticks_at:].lstrip("`"))
    close = text.find("`" * ticks, ticks_at + ticks + (1 if child.type == ROLE else 0))
    if close < 0:
        return None
    return start, close + ticks, ticks_at + ticks


def _past_destination(text: str, cursor: int) -> int:
    """After a link's text: skip ``](destination "title")`` or ``][label]`` so its digits are not prose."""
    if text.startswith("](", cursor):
        depth, index = 0, cursor + 1
        while index < len(text):
            char = text[index]
            if char == "\\":
                index += 1
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    return index + 1
            index += 1
    elif text.startswith("][", cursor):
        close = text.find("]", cursor + 2)
        return close + 1 if close >= 0 else cursor
    return cursor
