"""Output paths that one file system would take for one: ``Logo.png`` and ``logo.png``, or ``Café``
written composed (NFC) and decomposed (NFD).

macOS and Windows file systems, and so a checkout of the built site or of the
sources there, keep one of such a pair (or merge two folders); a static host
fed from such a checkout then serves the other file, or none. Each copied file
(an asset or a static file) whose path, or one of whose folders, folds to a
path already taken is an error at that file, naming the other.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable, Mapping

from ..core.diagnostics import Location, Problem, error


def name_collisions(generated: Iterable[str], copied: Mapping[str, str]) -> list[Problem]:
    """``generated``: site paths the build writes itself; ``copied``: site path -> the file it is copied from."""
    return list(_collisions(frozenset(generated), tuple(sorted(copied.items()))))


@functools.lru_cache(maxsize=1)  # a dev server's rebuild of an edit has the paths of the last: 0.05 s at 5,000 articles
def _collisions(generated: frozenset[str], copied_items: tuple[tuple[str, str], ...]) -> tuple[Problem, ...]:
    copied = dict(copied_items)
    taken: dict[str, str] = {}  # folded path (a file, or a folder ending in /) -> the path as first seen
    for path in sorted(generated):
        _claim(path, taken)
    problems: list[Problem] = []
    for path in sorted(copied):
        clash = _claim(path, taken)
        if clash is not None:
            mine, theirs = clash
            shown_mine = f"its folder {mine}" if mine.endswith("/") else mine
            difference, systems = _difference(mine, theirs)
            message = (f"{shown_mine} differs from {_named(theirs, copied)} only in {difference}: "
                       f"{systems} only one of the two")
            problems.append(error(Location(copied[path]), message, "path",
                                  hint="rename one of them so that the names differ in more than that"))
    return tuple(problems)


def _claim(path: str, taken: dict[str, str]) -> tuple[str, str] | None:
    """Record ``path`` and its folders; the first of them that folds to another path, with that path."""
    segments = path.strip("/").split("/")
    for end in range(1, len(segments) + 1):
        prefix = "/" + "/".join(segments[:end]) + ("" if end == len(segments) else "/")
        first = taken.setdefault(_folded(prefix), prefix)
        if first != prefix:
            return prefix, first
    return None


def _folded(path: str) -> str:
    return unicodedata.normalize("NFC", path).lower()


def _named(path: str, copied: Mapping[str, str]) -> str:
    if path.endswith("/"):
        return f"the folder {path}"
    return copied.get(path, f"{path}, a file the build generates")


def _difference(mine: str, theirs: str) -> tuple[str, str]:
    """How the two names differ, and which file systems take them for one."""
    if unicodedata.normalize("NFC", mine) == unicodedata.normalize("NFC", theirs):
        return "Unicode normalization (one name is composed, NFC, the other decomposed, NFD)", "a macOS file system holds"
    if mine.lower() == theirs.lower():
        return "case", "macOS and Windows file systems hold"
    return "case and Unicode normalization", "a macOS file system holds"
