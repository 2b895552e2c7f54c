"""Verification states as the site publishes them: ``page.verification`` and the badges.

Each reported result's state against its cited document (``checks.sources``)
is published three ways: as data in the ``page`` envelope of index.json (one
entry per result, in export order), as the ``verification`` column of the CSV
and JSON tables (``site.dataset``), and as a badge beside each value in the
article's chart tables and a record page's results, with the cited line quoted
as text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..checks.claims import FACTS, RESULTS
from ..checks.sources import (
    ABSENT,
    LITERAL_MISMATCH,
    MOVED,
    NO_LINE,
    SOURCE_MISSING,
    VERIFIED,
    ResultState,
)

# (symbol, label) of each state, as a badge shows it.
_SHOWN = {
    VERIFIED: ("✓", "verified"),
    LITERAL_MISMATCH: ("≈", "written differently"),
    MOVED: ("↕", "on another line"),
    ABSENT: ("✗", "not on its line"),
    NO_LINE: ("–", "no line cited"),
    SOURCE_MISSING: ("?", "not checked"),
}
Held = TypeVar("Held")
UNCHECKED = frozenset({SOURCE_MISSING})  # a table of these only says so once, in a note
SNIPPET_CHARS = 32  # of the cited line on each side of the value, in a table


@dataclass(frozen=True)
class Badge:
    """One value's state as a page shows it."""

    state: str
    symbol: str
    label: str
    line: int | None  # the cited line
    excerpt: str  # the cited line as the document writes it; "" when the build did not have it
    explanation: str  # one sentence: what the state means for this value
    snippet: str = ""  # the part of the excerpt around the value, as a table shows it
    found: int | None = None  # the line the value stands on, when moved

    @property
    def tip(self) -> str:
        """The explanation and the cited line, as hover and focus show them."""
        return self.explanation + (f" Line {self.line}: “{self.excerpt}”" if self.excerpt else "")

    @property
    def checked(self) -> bool:
        return self.state not in UNCHECKED


def entries(states: Sequence[ResultState], section: str = RESULTS) -> list[dict[str, Any]]:
    """``page.verification`` (or the facts'): ``{"pointer", "state", "line", "excerpt", "found_line"}``
    per entry of ``section``, in export order."""
    return [{"pointer": state.pointer, "state": state.state, "line": state.line, "excerpt": state.excerpt,
             "found_line": state.found} for state in states if state.section == section]


def envelope_members(states: Sequence[ResultState]) -> dict[str, list[dict[str, Any]]]:
    return {"verification": entries(states, RESULTS), "facts_verification": entries(states, FACTS)}


def state_names() -> dict[str, str]:
    """Each state as a badge names it ("✓ verified"), for the explorer."""
    return {state: f"{symbol} {label}" for state, (symbol, label) in _SHOWN.items()}


def badge(state: ResultState) -> Badge:
    symbol, label = _SHOWN.get(state.state, ("?", state.state))
    excerpt = state.excerpt or ""
    return Badge(state.state, symbol, label, state.line, excerpt, _explanation(state), _snippet(excerpt, state.at),
                 state.found)


def _snippet(excerpt: str, at: int | None) -> str:
    """The excerpt around the value (its whole when short or when the value's place is not known)."""
    if at is None or len(excerpt) <= 2 * SNIPPET_CHARS + 20:
        return excerpt
    start, end = max(0, at - SNIPPET_CHARS), min(len(excerpt), at + SNIPPET_CHARS + 20)
    if start > 0:
        start = excerpt.find(" ", start) + 1 or start  # begin and end at a word
    if end < len(excerpt):
        end = excerpt.rfind(" ", at, end) if excerpt.rfind(" ", at, end) > at else end
    return ("…" if start > 0 else "") + excerpt[start:end].strip() + ("…" if end < len(excerpt) else "")


def _explanation(state: ResultState) -> str:
    line = f"line {state.line}" if state.line is not None else "its line"
    if state.state == VERIFIED:
        return f"The value stands on {line} of the cited document."
    if state.state == LITERAL_MISMATCH:
        return f"{line.capitalize()} of the cited document writes the value differently."
    if state.state == MOVED:
        return f"The value stands on line {state.found} of the cited document, not on the cited {line}."
    if state.state == ABSENT:
        return f"The value is not on {line} of the cited document."
    if state.state == NO_LINE:
        return "The result cites no line of its document."
    return "The cited document was not in this build's vault: the line was not checked."


def badges_by_pointer(states: Iterable[ResultState]) -> dict[str, Badge]:
    return {state.pointer: badge(state) for state in states}


def of_entry(pointer: str, by_pointer: Mapping[str, Held]) -> Held | None:
    """What ``by_pointer`` (badges, states) holds for the entry at ``pointer`` or for the entry that
    holds it (a chart may plot /reported_results/3/value)."""
    found = by_pointer.get(pointer)
    while found is None and pointer.count("/") > 2:
        pointer = pointer.rsplit("/", 1)[0]
        found = by_pointer.get(pointer)
    return found


def any_checked(badges: Iterable[Badge | None]) -> bool:
    return any(b is not None and b.checked for b in badges)
