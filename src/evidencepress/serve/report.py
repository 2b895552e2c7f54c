"""What ``serve`` prints for each build: one line, and above it only what is new."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..core.diagnostics import Problem, sort_problems

if TYPE_CHECKING:
    from .server import Snapshot


class RebuildReport:
    """What serve prints per build: one line (what changed, how long, the counts), above it the
    errors and only the warnings that are new since the last build (``full``: every problem, each
    time). The first build lists its errors and counts its warnings (``check`` lists them)."""

    def __init__(self, echo: Callable[..., None], full: bool = False) -> None:
        self.echo, self.full = echo, full
        self.shown: frozenset[str] | None = None  # the problems of the last build; None before the first

    def __call__(self, snapshot: Snapshot, seconds: float, changed: Sequence[str] = ()) -> None:
        problems = sort_problems(snapshot.problems)
        seen = self.shown
        self.shown = frozenset(p.format() for p in problems)
        listed = [p for p in problems if self.full or p.is_error or (seen is not None and p.format() not in seen)]
        if listed:  # the problems with their hints; the counts are on the line below
            self.echo("".join(problem.format() + "\n" for problem in listed), nl=False, err=True)
        self.echo(self._line(snapshot, seconds, changed, problems, len(listed), seen is None), err=True)

    def _line(self, snapshot: Snapshot, seconds: float, changed: Sequence[str], problems: list[Problem],
              listed: int, first: bool) -> str:
        errors = sum(p.is_error for p in problems)
        warnings = sum(p.severity.value == "warning" for p in problems)
        counts = f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"
        if warnings and first and not self.full:
            counts += " (evidencepress check lists them)"
        elif listed and not first:
            counts += f", {listed} listed above"
        after = f" after {_names(changed)}" if changed else ""
        if snapshot.failed:
            return f"build failed in {seconds:.2f} s{after}: {counts}; still serving the last good build"
        return f"{'built' if first else 'rebuilt'} in {seconds:.2f} s{after}: {counts}"


def _names(changed: Sequence[str]) -> str:
    shown = ", ".join(changed[:3])
    return shown + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
