"""Problems found in content, with their exact place in the source file.

Every user-facing error or warning is a :class:`Problem` carrying a
:class:`Location`. Stages return problems; they never print or raise them.
The CLI formats them in the compiler style of SPEC §4.4::

    content/guides/a.md:143:21: error: reported_results[4].conditions.concurrency: expected ... [schema]
      hint: write null when the source does not report concurrency
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from enum import Enum
from typing import Iterable, Sequence


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Location:
    """A place in a file: 1-based line and column; 0 means "the whole file"."""

    path: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{max(self.col, 1)}"


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

    def sort_key(self) -> tuple[str, int, int, str, str, str]:
        loc = self.location
        return (loc.path, loc.line, loc.col, self.json_path, self.rule, self.message)

    def format(self) -> str:
        where = f"{_one_line(self.json_path)}: " if self.json_path else ""
        text = f"{_one_line(str(self.location))}: {self.severity.value}: {where}{_one_line(self.message)} [{self.rule}]"
        if self.hint:
            text += f"\n  hint: {_one_line(self.hint)}"
        return text

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


# Characters that would break "one problem, one line" (keys and values come from content).
_LINE_BREAKING = {code: json.dumps(chr(code))[1:-1] for code in [*range(0x20), 0x7F, 0x85, 0x2028, 0x2029]}


def _one_line(text: str) -> str:
    return text.translate(_LINE_BREAKING)


def error(location: Location, message: str, rule: str, json_path: str = "", hint: str = "") -> Problem:
    return Problem(Severity.ERROR, location, message, rule, json_path, hint)


def warning(location: Location, message: str, rule: str, json_path: str = "", hint: str = "") -> Problem:
    return Problem(Severity.WARNING, location, message, rule, json_path, hint)


def strict(problems: Iterable[Problem]) -> list[Problem]:
    """``--strict``: every warning becomes an error."""
    return [replace(p, severity=Severity.ERROR) for p in problems]


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    unique = {(p.sort_key(), p.severity, p.hint): p for p in problems}
    return [unique[key] for key in sorted(unique, key=lambda k: (k[0], k[1].value, k[2]))]


def has_errors(problems: Iterable[Problem]) -> bool:
    return any(p.is_error for p in problems)


def summary(problems: Sequence[Problem]) -> str:
    errors = sum(1 for p in problems if p.is_error)
    warnings = len(problems) - errors
    return f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}"


def format_text(problems: Sequence[Problem]) -> str:
    lines = [p.format() for p in problems]
    lines.append(summary(problems))
    return "\n".join(lines) + "\n"


def format_json(problems: Sequence[Problem], ascii_only: bool = False) -> str:
    return json.dumps([p.as_dict() for p in problems], indent=2, ensure_ascii=ascii_only) + "\n"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")
