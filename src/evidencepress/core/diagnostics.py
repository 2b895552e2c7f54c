"""Problems found in content, with their exact place in the source file.

Every user-facing error or warning is a :class:`Problem` carrying a
:class:`Location`. Stages return problems; they never print or raise them.
The CLI formats them in the compiler style of SPEC §4.4::

    content/guides/a.md:143:21: error: reported_results[4].conditions.concurrency: expected ... [schema]
      hint: write null when the source does not report concurrency

:func:`format_text` lists them (warnings of one rule beyond the first few
folded into a count, or errors only with ``quiet``), then a summary by rule
and by file when the run has more than one of either, then the count. A
``note`` informs (a draft left out) and never fails a build.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from .model import Location as Location  # noqa: PLC0414 - re-exported: every Problem carries one

T = TypeVar("T")


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"  # information only (a draft left out); fails no build (--strict: those of STRICT_NOTES do)


@dataclass(frozen=True)
class Problem:
    severity: Severity
    location: Location
    message: str
    rule: str
    json_path: str = ""
    hint: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    @property
    def strict_refuses(self) -> bool:
        """A warning, or a note of STRICT_NOTES: what --strict makes an error (and the report folds)."""
        return self.severity is Severity.WARNING or (self.severity is Severity.NOTE and self.rule in STRICT_NOTES)

    def sort_key(self) -> tuple[str, int, int, str, str, str]:
        loc = self.location
        return (loc.path, loc.line, loc.col, self.json_path, self.rule, self.message)

    def format(self) -> str:
        where = f"{_one_line(self.json_path)}: " if self.json_path else ""
        text = f"{_one_line(str(self.location))}: {self.severity.value}: {where}{_one_line(self.message)} [{self.rule}]"
        if self.hint:
            text += f"\n  hint: {_one_line(self.hint)}"
        return text

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Problem:
        """The problem ``as_dict`` gave (a build record's); KeyError, TypeError or ValueError when
        ``data`` is not one."""
        location = Location(_field(data, "file", str), _field(data, "line", int), _field(data, "column", int))
        return cls(Severity(_field(data, "severity", str)), location, _field(data, "message", str),
                   _field(data, "rule", str), _field(data, "path", str), _field(data, "hint", str))

    def as_dict(self) -> dict[str, object]:
        loc = self.location
        return {
            "file": loc.path,
            "line": loc.line,
            "column": loc.col,
            "severity": self.severity.value,
            "path": self.json_path,
            "message": self.message,
            "rule": self.rule,
            "hint": self.hint,
        }


def _field(data: Mapping[str, object], name: str, kind: type[T]) -> T:
    value = data[name]
    if type(value) is not kind:
        raise TypeError(f"{name}: not {kind.__name__}")
    return value


# Characters that would break "one problem, one line" (keys and values come from content).
_LINE_BREAKING = {code: json.dumps(chr(code))[1:-1] for code in [*range(0x20), 0x7F, 0x85, 0x2028, 0x2029]}


def _one_line(text: str) -> str:
    return text.translate(_LINE_BREAKING)


def shown_path(path: Path, root: Path) -> str:
    """``path`` as a problem (or a line of output) names it: relative to the site root when it is inside
    it (``content/guides/a.md``), else as given."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def error(location: Location, message: str, rule: str, json_path: str = "", hint: str = "") -> Problem:
    return Problem(Severity.ERROR, location, message, rule, json_path, hint)


def warning(location: Location, message: str, rule: str, json_path: str = "", hint: str = "") -> Problem:
    return Problem(Severity.WARNING, location, message, rule, json_path, hint)


def note(location: Location, message: str, rule: str, json_path: str = "", hint: str = "") -> Problem:
    return Problem(Severity.NOTE, location, message, rule, json_path, hint)


STRICT_NOTES = frozenset({"chart-comparability"})  # notes that --strict refuses: a panel compares unlike results


def strict(problems: Iterable[Problem]) -> list[Problem]:
    """``--strict``: every warning becomes an error, and so do the notes of STRICT_NOTES (the others
    stay notes)."""
    return [replace(p, severity=Severity.ERROR) if p.strict_refuses else p for p in problems]


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    unique = {(p.sort_key(), p.severity, p.hint): p for p in problems}
    return [unique[key] for key in sorted(unique, key=lambda k: (k[0], k[1].value, k[2]))]


def has_errors(problems: Iterable[Problem]) -> bool:
    return any(p.is_error for p in problems)


def summary(problems: Sequence[Problem]) -> str:
    """The closing count: ``2 errors, 1 warning`` (and ``, 1 note`` when there are notes)."""
    counts = _counts(problems)
    text = f"{_plural(counts[Severity.ERROR], 'error')}, {_plural(counts[Severity.WARNING], 'warning')}"
    if counts[Severity.NOTE]:
        text += f", {_plural(counts[Severity.NOTE], 'note')}"
    return text


@dataclass(frozen=True)
class TextOptions:
    """How much of a run the text report lists (the counts always cover every problem)."""

    quiet: bool = False  # errors only, then the summary
    all_warnings: bool = False  # do not fold the warnings of a rule beyond the first few
    fold_after: int = 3  # warnings listed per rule before the rest are folded into a count


def format_text(problems: Sequence[Problem], options: TextOptions = TextOptions()) -> str:
    """The list (sorted problems with their hints), folded counts, a summary by rule and file, the count."""
    shown, folded = _listed(problems, options)
    lines = [p.format() for p in shown]
    for (rule, kind), count in folded.items():
        lines.append(f"... {_plural(count, f'more {kind}')} [{rule}] not listed (--all-warnings lists them)")
    lines += _breakdown(problems)
    lines.append(summary(problems))
    return "\n".join(lines) + "\n"


def _listed(problems: Sequence[Problem], options: TextOptions) -> tuple[list[Problem], dict[tuple[str, str], int]]:
    """The problems the list shows, and per (rule, "warning" or "note") how many were folded away:
    warnings and the notes of STRICT_NOTES (a site's every unlike panel) beyond the first few."""
    if options.quiet:
        return [p for p in problems if p.is_error], {}
    shown: list[Problem] = []
    per_rule: Counter[str] = Counter()
    folded: Counter[tuple[str, str]] = Counter()
    for problem in problems:
        if problem.strict_refuses and not options.all_warnings:
            per_rule[problem.rule] += 1
            if per_rule[problem.rule] > options.fold_after:
                folded[(problem.rule, problem.severity.value)] += 1
                continue
        shown.append(problem)
    return shown, dict(sorted(folded.items()))


def _breakdown(problems: Sequence[Problem]) -> list[str]:
    """Counts by rule (most first) and by file, when the run has more than one of either. Each
    problem is grouped once (by rule and by file in one pass): linear in the problems."""
    by_rule: dict[str, list[Problem]] = {}
    by_file: dict[str, list[Problem]] = {}
    for problem in problems:
        by_rule.setdefault(problem.rule, []).append(problem)
        by_file.setdefault(problem.location.path, []).append(problem)
    if len(by_rule) < 2 and len(by_file) < 2:
        return []
    rule_counts = {rule: _counts(group) for rule, group in by_rule.items()}
    ranked = sorted(by_rule, key=lambda r: (-rule_counts[r][Severity.ERROR], -rule_counts[r][Severity.WARNING],
                                            -len(by_rule[r]), r))
    lines = ["by rule:"] + _table([(r, rule_counts[r]) for r in ranked])
    lines += ["by file:"] + _table([(f, _counts(by_file[f])) for f in sorted(by_file)])
    return lines


def _table(rows: list[tuple[str, Counter[Severity]]]) -> list[str]:
    """``  name  count``: names padded to one column, counts aligned on their first number."""
    width = max(len(name) for name, _ in rows)
    counts = [_severity_counts(group).split(" ", 1) for _, group in rows]
    digits = max(len(number) for number, _ in counts)
    return [f"  {name.ljust(width)}  {number.rjust(digits)} {rest}"
            for (name, _), (number, rest) in zip(rows, counts, strict=True)]


def _counts(problems: Iterable[Problem]) -> Counter[Severity]:
    counts: Counter[Severity] = Counter(p.severity for p in problems)
    return counts


def _severity_counts(counts: Counter[Severity]) -> str:
    """``2 errors, 1 warning``, leaving out severities that do not occur."""
    parts = [_plural(counts[s], noun) for s, noun in
             ((Severity.ERROR, "error"), (Severity.WARNING, "warning"), (Severity.NOTE, "note")) if counts[s]]
    return ", ".join(parts) or "0 problems"


def format_json(problems: Sequence[Problem], ascii_only: bool = False) -> str:
    """Every problem as data, never folded (the shape of ``Problem.as_dict``)."""
    return json.dumps([p.as_dict() for p in problems], indent=2, ensure_ascii=ascii_only) + "\n"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")
