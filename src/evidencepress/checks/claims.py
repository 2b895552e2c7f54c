"""What an export says of its sources, kept for verification against the vault.

``source_claims`` (during validate, from the export and its positions) keeps,
for each reported result and each fact with a number or a short text value,
the cited document's digest, the cited line or lines (``source_line``, or
``#Ln`` / ``#Ln-Lm`` in ``evidence_url``), the literals to look up as
authored, and the JSON paths of their keys. ``sources`` verifies them, and
places a problem in the Markdown file only when it reports one: placing every
literal of every page made each export's text be scanned for positions, a tenth
of a cold build.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..core.model import JsonPath, dotted

RESULTS = "reported_results"
FACTS = "facts"
SHORT_TEXT = 80  # a fact's text value up to this many characters is looked up on its line

_FRAGMENT = re.compile(r"#L(\d+)(?:-L?(\d+))?$")


@dataclass(frozen=True)
class Literal:
    """One authored value of an entry (a result's value or a number of its uncertainty, a fact's
    value) and its key's path."""

    name: str  # "value", "uncertainty.standard_deviation", "uncertainty.ci95[0]"
    text: str  # as authored, a number's sign dropped
    path: JsonPath
    is_number: bool = True  # False: a fact's text, looked up as words

    @property
    def json_path(self) -> str:
        return dotted(self.path)


@dataclass(frozen=True)
class SourceClaim:
    """What one reported result or fact says about its source document."""

    index: int  # in its section
    digest: str
    literals: tuple[Literal, ...]  # the value first
    source_line: int | None
    fragment: tuple[int, int] | None  # #Ln or #Ln-Lm of evidence_url
    line_key: JsonPath  # source_line's key, else evidence_url's
    section: str = RESULTS  # reported_results or facts
    url_key: str = "evidence_url"  # or a fact's older spelling, url

    @property
    def line_path(self) -> str:
        return dotted(self.line_key)

    @property
    def pointer(self) -> str:
        """The entry's JSON pointer in the export: /reported_results/3."""
        return f"/{self.section}/{self.index}"

    @property
    def lines(self) -> tuple[int, int] | None:
        """The cited lines: source_line when given, else the fragment's."""
        if self.source_line is not None:
            return self.source_line, self.source_line
        return self.fragment

    @property
    def disagrees(self) -> bool:
        if self.source_line is None or self.fragment is None:
            return False
        return not self.fragment[0] <= self.source_line <= self.fragment[1]


def source_claims(export: Any) -> tuple[SourceClaim, ...]:
    """The claims of a valid export: its reported results (each has a document digest), then its
    facts with a number or short text value."""
    if not isinstance(export, dict):
        return ()
    claims = [_claim(RESULTS, index, entry, _result_literals(entry, (RESULTS, index)))
              for index, entry in _entries(export, RESULTS)]
    claims += [_claim(FACTS, index, entry, literals) for index, entry in _entries(export, FACTS)
               if (literals := _fact_literals(entry, (FACTS, index)))]
    return tuple(claims)


def cited_documents(export: Any) -> frozenset[str]:
    """The digests of the documents the export's results and facts cite (those of its claims, and
    perhaps more: a fact with a long text cites one but makes no claim)."""
    if not isinstance(export, dict):
        return frozenset()
    return frozenset(entry["source_document_sha256"] for section in (RESULTS, FACTS)
                     for _, entry in _entries(export, section))


def _entries(export: dict[str, Any], section: str) -> Iterator[tuple[int, dict[str, Any]]]:
    found = export.get(section)
    for index, entry in enumerate(found if isinstance(found, list) else []):
        if isinstance(entry, dict) and isinstance(entry.get("source_document_sha256"), str):
            yield index, entry


def _claim(section: str, index: int, entry: dict[str, Any], literals: list[Literal]) -> SourceClaim:
    path: JsonPath = (section, index)
    url_key = "evidence_url" if "evidence_url" in entry else "url"
    line = entry.get("source_line")
    line_key: JsonPath = path + ("source_line",) if "source_line" in entry else path + (url_key,)
    return SourceClaim(
        index, entry["source_document_sha256"], tuple(literals),
        line if isinstance(line, int) and not isinstance(line, bool) else None,
        _fragment(entry.get(url_key)), line_key, section, url_key)


def _result_literals(entry: dict[str, Any], path: JsonPath) -> list[Literal]:
    literals = [_number("value", entry.get("value"), path + ("value",))]
    literals += [_number(name, number, path + sub) for name, number, sub in _uncertainty_numbers(entry.get("uncertainty"))]
    return [literal for literal in literals if literal is not None]


def _fact_literals(entry: dict[str, Any], path: JsonPath) -> list[Literal]:
    value = entry.get("value")
    if isinstance(value, str):
        text = " ".join(value.split())
        if not text or len(text) > SHORT_TEXT:
            return []
        return [Literal("value", text, path + ("value",), False)]
    number = _number("value", value, path + ("value",))
    return [number] if number is not None else []


def _number(name: str, number: Any, path: JsonPath) -> Literal | None:
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        return None
    text = getattr(number, "literal", None) or (repr(number) if isinstance(number, float) else str(number))
    return Literal(name, text.lstrip("-+"), path)


def _uncertainty_numbers(uncertainty: Any) -> Iterator[tuple[str, Any, JsonPath]]:
    if not isinstance(uncertainty, dict):
        return
    for key, item in uncertainty.items():
        if isinstance(item, list):
            for n, number in enumerate(item):
                yield f"uncertainty.{key}[{n}]", number, ("uncertainty", key, n)
        else:
            yield f"uncertainty.{key}", item, ("uncertainty", key)


def _fragment(url: Any) -> tuple[int, int] | None:
    match = _FRAGMENT.search(url) if isinstance(url, str) else None
    if match is None:
        return None
    start = int(match.group(1))
    return start, max(start, int(match.group(2) or start))
