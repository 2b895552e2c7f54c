"""Source verification: each reported result's number, looked up on the line of the document it cites.

``source_claims`` (during validate, from the export and its positions) keeps
what verification needs of each reported result: the cited document's digest,
the cited line or lines (``source_line``, or ``#Ln`` / ``#Ln-Lm`` in
``evidence_url``), the value's and the uncertainty's literals as authored, and
where their keys stand in the Markdown file. ``verify_sources`` (pure: the
claims and the vault's documents) gives each result one state and the problems:

- ``verified``: every literal is a number token of the cited line(s);
- ``literal-mismatch``: there, but written differently (``8.2`` for ``8.20``): a warning;
- ``moved``: found only on another line (the nearest one is named): a warning;
- ``absent``: nowhere on the cited line(s) nor elsewhere: an error quoting the line;
- ``no-line``: the result names no line;
- ``source-missing``: the document is not in the vault (one note for the whole run, when the
  vault folder exists).

A number token is a whole number as written: ``88`` is not a token of
``188.5``, ``1.5`` is not one of the version ``1.5.2``. Signs are not compared.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from ..core.diagnostics import Location, Problem, error, note, warning
from ..core.model import JsonPath, Positions, dotted

VERIFIED = "verified"
LITERAL_MISMATCH = "literal-mismatch"
MOVED = "moved"
ABSENT = "absent"
NO_LINE = "no-line"
SOURCE_MISSING = "source-missing"

_TOKEN = re.compile(r"(?<![\d.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\d]|[.,]\d)")
_FRAGMENT = re.compile(r"#L(\d+)(?:-L?(\d+))?$")
_QUOTE_CHARS = 160


@dataclass(frozen=True)
class Literal:
    """One authored number of a result (its value, or a number of its uncertainty) and its key's place."""

    name: str  # "value", "uncertainty.standard_deviation", "uncertainty.ci95[0]"
    text: str  # as authored, sign dropped
    json_path: str
    location: Location


@dataclass(frozen=True)
class SourceClaim:
    """What one reported result says about its source document."""

    index: int  # in reported_results
    digest: str
    literals: tuple[Literal, ...]  # the value first
    source_line: int | None
    fragment: tuple[int, int] | None  # #Ln or #Ln-Lm of evidence_url
    line_location: Location  # source_line's key, else evidence_url's
    line_path: str

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


@dataclass(frozen=True)
class ResultState:
    index: int  # in reported_results
    state: str
    line: int | None = None  # the line to write, for a moved result


def source_claims(export: Any, positions: Positions) -> tuple[SourceClaim, ...]:
    """The claims of a valid export's reported results (those with a document digest)."""
    results = export.get("reported_results", []) if isinstance(export, dict) else []
    claims = []
    for index, entry in enumerate(results):
        if not isinstance(entry, dict) or not isinstance(entry.get("source_document_sha256"), str):
            continue
        path: JsonPath = ("reported_results", index)
        literals = [_literal("value", entry.get("value"), path + ("value",), positions)]
        literals += [_literal(name, number, path + sub, positions)
                     for name, number, sub in _uncertainty_numbers(entry.get("uncertainty"))]
        line = entry.get("source_line")
        line_key: JsonPath = path + ("source_line",) if "source_line" in entry else path + ("evidence_url",)
        claims.append(SourceClaim(
            index, entry["source_document_sha256"], tuple(x for x in literals if x is not None),
            line if isinstance(line, int) and not isinstance(line, bool) else None,
            _fragment(entry.get("evidence_url")), positions.of_key(line_key), dotted(line_key)))
    return tuple(claims)


def _literal(name: str, number: Any, path: JsonPath, positions: Positions) -> Literal | None:
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        return None
    text = getattr(number, "literal", None) or (repr(number) if isinstance(number, float) else str(number))
    return Literal(name, text.lstrip("-+"), dotted(path), positions.of_key(path))


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


# --- verification ------------------------------------------------------------------------------


def verify_sources(claims_by_page: Iterable[tuple[str, tuple[SourceClaim, ...]]],
                   documents: Mapping[str, tuple[str, ...]], vault_folder: str, vault_exists: bool = True
                   ) -> tuple[dict[str, tuple[ResultState, ...]], list[Problem]]:
    """Each page's result states (by URL) and the problems. ``documents``: the vault's lines by digest.
    The ``source-missing`` note is given only when the vault folder exists: a site without one has not
    set up verification, and its runs stay as they were."""
    states: dict[str, tuple[ResultState, ...]] = {}
    problems: list[Problem] = []
    missing: set[str] = set()
    missing_results = 0
    for url, claims in claims_by_page:
        page_states = []
        for claim in claims:
            lines = documents.get(claim.digest)
            problems += _disagreement(claim, lines)
            if lines is None:
                missing.add(claim.digest)
                missing_results += 1
                page_states.append(ResultState(claim.index, SOURCE_MISSING))
                continue
            state, claim_problems = verify_claim(claim, lines, vault_folder)
            page_states.append(state)
            problems += claim_problems
        states[url] = tuple(page_states)
    if missing and vault_exists:
        results = "1 reported result cites" if missing_results == 1 else f"{missing_results} reported results cite"
        documents_text = "1 document" if len(missing) == 1 else f"{len(missing)} documents"
        problems.append(note(Location(vault_folder + "/"), f"{results} {documents_text} not in the vault: "
                             "their lines are not verified", "source-missing",
                             hint="run `evidencepress sources fetch` to fill the vault"))
    return states, problems


def _disagreement(claim: SourceClaim, lines: tuple[str, ...] | None) -> list[Problem]:
    if not claim.disagrees or claim.source_line is None or claim.fragment is None:
        return []
    start, end = claim.fragment
    cited = f"#L{start}" if start == end else f"#L{start}-L{end}"
    quoted = f" (line {claim.source_line}: {_quote(lines, claim.source_line)})" if lines is not None else ""
    return [warning(claim.line_location, f"source_line {claim.source_line} disagrees with evidence_url's "
                    f"{cited}{quoted}", "source-line", claim.line_path,
                    "make source_line and the #L fragment of evidence_url name the same line")]


def verify_claim(claim: SourceClaim, lines: tuple[str, ...], vault_folder: str) -> tuple[ResultState, list[Problem]]:
    cited = claim.lines
    if cited is None:
        return ResultState(claim.index, NO_LINE), []
    start, end = cited
    where = f"line {start}" if start == end else f"lines {start}-{end}"
    text = " ".join(lines[start - 1:end]) if start <= len(lines) else ""
    tokens = _tokens(text)
    exact = [lit for lit in claim.literals if lit.text in tokens]
    if len(exact) == len(claim.literals):
        return ResultState(claim.index, VERIFIED), []
    equal = {lit.name: _equal(lit.text, tokens) for lit in claim.literals if lit not in exact}
    if all(equal.values()):
        return ResultState(claim.index, LITERAL_MISMATCH), [
            warning(lit.location, f"{lit.name} {lit.text} is written {equal[lit.name]} on {where} of the cited "
                    f"document: {_quote(lines, start, end)}", "source-literal", lit.json_path,
                    f"copy the number as the source writes it: {equal[lit.name]}")
            for lit in claim.literals if lit.name in equal]
    found = _elsewhere(claim, lines, start, end)
    value = claim.literals[0]
    if found is not None:
        return ResultState(claim.index, MOVED, found), [
            warning(value.location, f"{value.name} {value.text} is on line {found} of the cited document, not "
                    f"{where}: {_quote(lines, found)}", "source-moved", value.json_path,
                    f'write "source_line": {found} (and #L{found} in evidence_url)')]
    lost = next(lit for lit in claim.literals if lit.name in equal and not equal[lit.name])
    if start > len(lines):
        message = f"{lost.name} {lost.text} is not on {where} of the cited document: it has {len(lines)} lines"
    else:
        message = f"{lost.name} {lost.text} is not on {where} of the cited document: {_quote(lines, start, end)}"
    return ResultState(claim.index, ABSENT), [
        error(lost.location, message, "source-absent", lost.json_path,
              f"the document is {vault_folder}/{claim.digest}: correct the number or the line it cites")]


def _tokens(text: str) -> set[str]:
    return set(_TOKEN.findall(text))


def _equal(literal: str, tokens: set[str]) -> str:
    """The token numerically equal to ``literal`` (the first in sorted order), or ""."""
    number = _decimal(literal)
    if number is None:
        return ""
    return next((token for token in sorted(tokens) if _decimal(token.replace(",", "")) == number), "")


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def _elsewhere(claim: SourceClaim, lines: tuple[str, ...], start: int, end: int) -> int | None:
    """The line nearest the cited ones on which every literal stands exactly (the nearer line first)."""
    def distance(number: int) -> int:
        return start - number if number < start else number - end

    candidates = sorted((n for n in range(1, len(lines) + 1) if not start <= n <= end), key=lambda n: (distance(n), n))
    for number in candidates:
        line = lines[number - 1]
        if claim.literals[0].text in line and all(lit.text in _tokens(line) for lit in claim.literals):
            return number
    return None


def _quote(lines: tuple[str, ...] | None, start: int, end: int | None = None) -> str:
    if lines is None or start > len(lines):
        return '""'
    text = " ".join(line.strip() for line in lines[start - 1:(end or start)])
    if len(text) > _QUOTE_CHARS:
        text = text[:_QUOTE_CHARS - 1] + "…"
    return '"' + text.replace('"', '\\"') + '"'
