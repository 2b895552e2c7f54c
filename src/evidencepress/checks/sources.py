"""Source verification: each claim's literals, looked up on the line of the document it cites.

``verify_page`` (pure: one page's claims of ``claims.source_claims`` and the
vault's documents) gives each reported result, and each fact with a number or a short
text value, one state, and the problems:

- ``verified``: every literal stands on the cited line(s), a number as a number token,
  a text as whole words;
- ``literal-mismatch``: there, but written differently (``8.2`` for ``8.20``, another case): a warning;
- ``moved``: found only on another line (the nearest one is named): a warning;
- ``absent``: nowhere on the cited line(s) nor elsewhere: an error quoting the line;
- ``no-line``: the entry names no line;
- ``source-missing``: the document is not in the vault (one note for the whole run, when the
  vault folder exists).

A number token is a whole number as written: ``88`` is not a token of
``188.5``, ``1.5`` is not one of the version ``1.5.2``. Signs are not compared.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from ..core.diagnostics import Location, Problem, error, note, warning
from ..core.model import JsonPath
from .claims import RESULTS, Literal, SourceClaim

# Where a key of the page's export stands in its Markdown file (asked only for a problem).
Locate = Callable[[JsonPath], Location]

VERIFIED = "verified"
LITERAL_MISMATCH = "literal-mismatch"
MOVED = "moved"
ABSENT = "absent"
NO_LINE = "no-line"
SOURCE_MISSING = "source-missing"
STATES = (VERIFIED, LITERAL_MISMATCH, MOVED, ABSENT, NO_LINE, SOURCE_MISSING)

_TOKEN = re.compile(r"(?<![\d.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\d]|[.,]\d)")
_QUOTE_CHARS = 160  # of the cited line, in a diagnostic
EXCERPT_CHARS = 300  # of the cited line, as published


@dataclass(frozen=True)
class ResultState:
    """One entry's state against its cited document."""

    index: int  # in its section
    state: str
    line: int | None = None  # the first cited line
    excerpt: str | None = None  # the cited line(s) as the document writes them (None: not in the vault)
    found: int | None = None  # the line to write, for a moved entry
    section: str = RESULTS
    at: int | None = None  # where in ``excerpt`` the value stands (verified, literal-mismatch)

    @property
    def pointer(self) -> str:
        return f"/{self.section}/{self.index}"


@dataclass(frozen=True)
class PageVerification:
    """One page's states (its results', then its facts', in export order), its problems, and the
    digests of the documents its claims cite that are not in the vault (one per claim)."""

    states: tuple[ResultState, ...]
    problems: tuple[Problem, ...]
    missing: tuple[str, ...]
    # sha256 of the states written out: what a page's rendered files take of them. Made from the
    # states when the verification is made, and kept with it in the page cache (never passed in).
    digest: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "digest", hashlib.sha256(repr(self.states).encode()).hexdigest())


def verified_states(verified: Mapping[str, PageVerification], vault_folder: str, vault_exists: bool
                    ) -> tuple[dict[str, tuple[ResultState, ...]], list[Problem]]:
    """Each page's states (by URL; its results', then its facts', in export order) and the problems
    of the pages verified one by one (``verify_page``). The ``source-missing`` note is given only when
    ``vault_exists`` (the folder exists or site.toml names it): a site without either has not set up
    verification, and its runs stay as they were."""
    problems = [problem for page in verified.values() for problem in page.problems]
    missing = [digest for page in verified.values() for digest in page.missing]
    if missing and vault_exists:
        problems.append(_missing_note(len(missing), len(set(missing)), vault_folder))
    return {url: page.states for url, page in verified.items()}, problems


def verify_page(claims: tuple[SourceClaim, ...], documents: Mapping[str, tuple[str, ...]],
                vault_folder: str, locate: Locate) -> PageVerification:
    """One page's claims looked up in ``documents`` (the vault's lines by digest); ``locate`` places
    the keys of its problems."""
    states: list[ResultState] = []
    problems: list[Problem] = []
    missing: list[str] = []
    for claim in claims:
        lines = documents.get(claim.digest)
        problems += _disagreement(claim, lines, locate)
        if lines is None:
            missing.append(claim.digest)
            cited = claim.lines
            states.append(ResultState(claim.index, SOURCE_MISSING, cited[0] if cited else None, section=claim.section))
            continue
        state, claim_problems = verify_claim(claim, lines, vault_folder, locate)
        states.append(state)
        problems += claim_problems
    return PageVerification(tuple(states), tuple(problems), tuple(missing))


def result_states(states: Mapping[str, tuple[ResultState, ...]]) -> dict[str, tuple[str, ...]]:
    """Each page's reported results' states, in export order (a valid result always cites a document)."""
    return {url: tuple(state.state for state in page if state.section == RESULTS) for url, page in states.items()}


def _missing_note(entries: int, documents: int, vault_folder: str) -> Problem:
    cite = "1 value cites" if entries == 1 else f"{entries} values cite"
    documents_text = "1 document" if documents == 1 else f"{documents} documents"
    return note(Location(vault_folder + "/"), f"{cite} {documents_text} not in the vault: their lines are not "
                "verified", "source-missing", hint="run `evidencepress sources fetch` to fill the vault")


def _disagreement(claim: SourceClaim, lines: tuple[str, ...] | None, locate: Locate) -> list[Problem]:
    if not claim.disagrees or claim.source_line is None or claim.fragment is None:
        return []
    start, end = claim.fragment
    url_key = claim.url_key
    cited = f"#L{start}" if start == end else f"#L{start}-L{end}"
    quoted = f" (line {claim.source_line}: {_quote(lines, claim.source_line)})" if lines is not None else ""
    return [warning(locate(claim.line_key), f"source_line {claim.source_line} disagrees with {url_key}'s "
                    f"{cited}{quoted}", "source-line", claim.line_path,
                    f"make source_line and the #L fragment of {url_key} name the same line")]


def verify_claim(claim: SourceClaim, lines: tuple[str, ...], vault_folder: str,
                 locate: Locate) -> tuple[ResultState, list[Problem]]:
    cited = claim.lines
    if cited is None:
        return ResultState(claim.index, NO_LINE, section=claim.section), []
    start, end = cited
    where = f"line {start}" if start == end else f"lines {start}-{end}"
    text = " ".join(lines[start - 1:end]) if start <= len(lines) else ""
    tokens = _tokens(text)

    def state(name: str, found: int | None = None) -> ResultState:
        cited = excerpt(lines, start, end)
        at = _offset(claim.literals[0], cited) if cited is not None and name in (VERIFIED, LITERAL_MISMATCH) else None
        return ResultState(claim.index, name, start, cited, found, claim.section, at)

    exact = [lit for lit in claim.literals if _stands(lit, text, tokens)]
    if len(exact) == len(claim.literals):
        return state(VERIFIED), []
    written = {lit.name: _written(lit, text, tokens) for lit in claim.literals if lit not in exact}
    if all(written.values()):
        return state(LITERAL_MISMATCH), [
            warning(locate(lit.path), f"{lit.name} {_shown(lit)} is written {_shown(lit, written[lit.name])} on "
                    f"{where} of the cited document: {_quote(lines, start, end)}", "source-literal", lit.json_path,
                    f"copy the {'number' if lit.is_number else 'text'} as the source writes it: "
                    f"{_shown(lit, written[lit.name])}")
            for lit in claim.literals if lit.name in written]
    found = _elsewhere(claim, lines, start, end)
    value = claim.literals[0]
    if found is not None:
        return state(MOVED, found), [
            warning(locate(value.path), f"{value.name} {_shown(value)} is on line {found} of the cited document, not "
                    f"{where}: {_quote(lines, found)}", "source-moved", value.json_path,
                    f'write "source_line": {found} (and #L{found} in {claim.url_key})')]
    lost = next(lit for lit in claim.literals if lit.name in written and not written[lit.name])
    if start > len(lines):
        message = f"{lost.name} {_shown(lost)} is not on {where} of the cited document: it has {len(lines)} lines"
    else:
        message = f"{lost.name} {_shown(lost)} is not on {where} of the cited document: {_quote(lines, start, end)}"
    return state(ABSENT), [
        error(locate(lost.path), message, "source-absent", lost.json_path,
              f"the document is {vault_folder}/{claim.digest}: correct the "
              f"{'number' if lost.is_number else 'text'} or the line it cites")]


def _shown(literal: Literal, text: str | None = None) -> str:
    """A literal (or what the line writes for it) in a message: a number as it is, a text quoted."""
    shown = literal.text if text is None else text
    return shown if literal.is_number else json.dumps(shown, ensure_ascii=False)


def _stands(literal: Literal, text: str, tokens: set[str]) -> bool:
    if literal.is_number:
        return literal.text in tokens
    return _words(literal.text).search(text) is not None


def _written(literal: Literal, text: str, tokens: set[str]) -> str:
    """How the line writes the literal otherwise (a number equal to it, a text in another case or
    spacing), or ""."""
    if literal.is_number:
        return _equal(literal.text, tokens)
    match = _words(literal.text, loose=True).search(text)
    return match.group(0) if match is not None else ""


def _words(text: str, loose: bool = False) -> re.Pattern[str]:
    """The text as whole words: "8" is not in "188", "vLLM" is not in "vLLMx"; ``loose``: in any
    case and spacing."""
    body = r"\s+".join(map(re.escape, text.split())) if loose else re.escape(text)
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE if loose else 0)


def _offset(literal: Literal, text: str) -> int | None:
    """Where the literal (or the number equal to it) first stands in ``text``."""
    if not literal.is_number:
        match = _words(literal.text, loose=True).search(text)
        return match.start() if match is not None else None
    number = _decimal(literal.text)
    for token in _TOKEN.finditer(text):
        if token.group(0) == literal.text or (number is not None and _decimal(token.group(0).replace(",", "")) == number):
            return token.start()
    return None


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

    first = claim.literals[0].text
    candidates = sorted((n for n in range(1, len(lines) + 1) if not start <= n <= end), key=lambda n: (distance(n), n))
    for number in candidates:
        line = lines[number - 1]
        if first in line and all(_stands(lit, line, _tokens(line)) for lit in claim.literals):
            return number
    return None


def excerpt(lines: tuple[str, ...], start: int, end: int, limit: int = EXCERPT_CHARS) -> str | None:
    """The cited lines as published: stripped, joined by a space, at most ``limit`` characters; None
    when the document has no such line."""
    if start > len(lines):
        return None
    text = " ".join(line.strip() for line in lines[start - 1:end])
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _quote(lines: tuple[str, ...] | None, start: int, end: int | None = None) -> str:
    """The cited lines in a diagnostic: the excerpt, shorter, in double quotes."""
    text = excerpt(lines, start, end or start, _QUOTE_CHARS) if lines is not None else None
    return '"' + (text or "").replace('"', '\\"') + '"'
