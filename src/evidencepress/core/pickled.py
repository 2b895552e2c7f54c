"""Values pickled one after another into a file this process made for itself (a spool, a child's
result): its pickles are trusted, as no other process writes it."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from typing import IO, Any


def load_each(file: IO[bytes]) -> Iterator[Any]:
    """Each value pickled into ``file`` from where it stands, in order."""
    while True:
        try:
            yield pickle.load(file)
        except EOFError:
            return
