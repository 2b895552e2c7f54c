"""Did you mean ...? A key that is one slip away from a known key.

difflib finds the candidates; a candidate counts only when the two names are
one typing slip apart (a letter missing, doubled, swapped with its neighbour,
or replaced in a longer name) or differ in case alone. Names that merely look
alike (``top_k`` / ``top_p``, ``weight_revision`` / ``weight_precision``) are
different words, and site-specific condition keys are allowed, so they must
not be called typos.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable

# A one-letter substitution in a shorter name is more often a different word than a slip.
SUBSTITUTION_MIN_LENGTH = 6


def misspelling_of(key: str, known: Iterable[str]) -> str | None:
    """The known name ``key`` is most likely a misspelling of, or None."""
    return _misspelling_of(key, frozenset(known))


@functools.lru_cache(maxsize=4096)  # an export repeats its keys in every result: difflib once per key
def _misspelling_of(key: str, known: frozenset[str]) -> str | None:
    names = sorted(known - {key})
    by_lower = {name.lower(): name for name in names}
    if key.lower() in by_lower:
        return by_lower[key.lower()]
    for candidate in difflib.get_close_matches(key.lower(), list(by_lower), n=5, cutoff=0.6):
        if one_slip(key.lower(), candidate):
            return by_lower[candidate]
    return None


def one_slip(typed: str, meant: str) -> bool:
    """One letter inserted, deleted, swapped with its neighbour, or (in a long name) replaced."""
    if abs(len(typed) - len(meant)) > 1 or typed == meant:
        return False
    if len(typed) != len(meant):
        shorter, longer = sorted((typed, meant), key=len)
        return any(longer[:i] + longer[i + 1:] == shorter for i in range(len(longer)))
    differ = [i for i, (a, b) in enumerate(zip(typed, meant, strict=True)) if a != b]
    if len(differ) == 2 and differ[1] == differ[0] + 1:
        first, second = differ
        return typed[first] == meant[second] and typed[second] == meant[first]
    return len(differ) == 1 and len(meant) >= SUBSTITUTION_MIN_LENGTH
