"""Fit a report into a size limit (GitHub refuses a comment longer than 65,536 characters).

A report is a list of blocks. Blocks are kept whole while they fit; the
first one that does not is cut line by line (its head and tail stay, so
``<details>`` stays closed); the rest are left out. A closing note says how
much was left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

GITHUB_COMMENT_LIMIT = 65536
NOTE_ROOM = 400  # characters kept free for the closing note


@dataclass(frozen=True)
class Block:
    head: tuple[str, ...]
    body: tuple[str, ...] = ()
    tail: tuple[str, ...] = ()
    page: bool = False  # one page's section (counted in the note when left out)

    def text(self, body: Sequence[str] | None = None) -> str:
        return "\n".join((*self.head, *(self.body if body is None else body), *self.tail))


def bounded(blocks: Sequence[Block], limit: int = GITHUB_COMMENT_LIMIT) -> str:
    """The blocks joined by blank lines, at most ``limit`` characters long."""
    whole = "\n\n".join(block.text() for block in blocks) + "\n"
    if len(whole) <= limit:
        return whole
    budget = limit - NOTE_ROOM
    parts: list[str] = []
    used = 0
    pages_out = lines_out = 0
    cut = False
    for block in blocks:
        text = block.text()
        if not cut and used + len(text) + 2 <= budget:
            parts.append(text)
            used += len(text) + 2
            continue
        if not cut:
            cut = True
            shortened, omitted = _shorten(block, budget - used)
            if shortened is not None:
                parts.append(shortened)
                lines_out += omitted
                continue
        pages_out += block.page
        lines_out += len(block.body) if block.page else len(block.head) + len(block.body)
    parts.append(_note(limit, pages_out, lines_out))
    return "\n\n".join(parts) + "\n"


def _shorten(block: Block, room: int) -> tuple[str | None, int]:
    """The block with as many body lines as fit in ``room`` and a line saying how many were cut."""
    marker = "- … {} more lines of this section left out"
    fixed = len(block.text(())) + len(marker) + 12
    if fixed > room:
        return None, 0
    kept: list[str] = []
    left = room - fixed
    for line in block.body:
        if len(line) + 1 > left:
            break
        kept.append(line)
        left -= len(line) + 1
    omitted = len(block.body) - len(kept)
    return block.text([*kept, "", marker.format(omitted)]), omitted


def _note(limit: int, pages_out: int, lines_out: int) -> str:
    pages = f"{pages_out} page section{'' if pages_out == 1 else 's'}"
    lines = f"{lines_out} line{'' if lines_out == 1 else 's'}"
    return (f"**Report truncated** to {limit:,} characters (a GitHub comment holds at most "
            f"{GITHUB_COMMENT_LIMIT:,}): {pages} and {lines} left out. "
            "Run `evidencepress diff` locally, or with `--format json`, for the whole report.")
