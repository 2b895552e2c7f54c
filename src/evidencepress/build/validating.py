"""Parsing and validating the pages the page cache does not hold, on every core when there are many.

Each page's outcome depends only on its file and the schemas, so a cold build
of a large site validates its pages in forked workers (``forking.ordered_map``),
which return each outcome pickled, the form the page cache stores anyway. An
outcome that cannot be pickled is computed again here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from ..cache import safepickle
from ..cache.pages import Outcome, outcome_from, pickled_outcome
from ..checks.validate import validate_page
from ..content.parse import parse_page
from ..core.forking import ordered_map
from ..core.model import SourceFile
from ..schemas.load import SchemaSet
from ..site.dataset import table_spec
from ..site.index import page_facts


def validate_sources(sources: list[SourceFile], schemas: SchemaSet, jobs: int) -> Iterator[tuple[Outcome, bytes | None]]:
    """Each source's outcome and its pickled form (for the page cache), in the order of ``sources``.
    The page cache keeps no tokens; a page validated now has them (they come from the worker
    apart, and are put back)."""
    def pickled(source: SourceFile) -> tuple[bytes | None, bytes | None]:
        outcome = validate_source(source, schemas)
        page = outcome.page
        return pickled_outcome(outcome), safepickle.dumps(page.tokens if page else ())

    for source, (data, kept) in zip(sources, ordered_map(pickled, sources, jobs), strict=True):
        outcome = with_kept(outcome_from(data, source), kept)
        yield (outcome, data) if outcome is not None else (validate_source(source, schemas), None)


def with_kept(outcome: Outcome | None, kept: bytes | None) -> Outcome | None:
    """The outcome with its page's tokens put back (None: they could not be read back)."""
    if outcome is None or outcome.page is None:
        return outcome
    if kept is None:
        return None
    try:
        tokens = safepickle.loads(kept)
    except Exception:  # noqa: BLE001 - what did not come back whole is made again here
        return None
    if not isinstance(tokens, tuple):
        return None
    return replace(outcome, page=replace(outcome.page, parsed_tokens=tokens))


def validate_source(source: SourceFile, schemas: SchemaSet) -> Outcome:
    """Parse and validate one page, and find what the site index takes from it (kept in the cache)."""
    parsed, problems = parse_page(source)
    page = None
    if parsed is not None:
        page, validation_problems = validate_page(parsed, schemas)
        problems += validation_problems
    facts = page_facts(page, table_spec(schemas)) if page is not None else None
    return Outcome(page, facts, tuple(problems))
