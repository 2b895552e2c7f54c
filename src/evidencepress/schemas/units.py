"""The unit vocabulary's names: one place says which spellings are one unit.

``units.json`` lists each unit; an entry with ``same_as`` is another spelling
of the unit it names (``tok/s`` of ``tokens/s``, ``seconds`` of ``s``). Charts
(one unit per panel), inline arithmetic (``{ratio}`` of two values in one unit)
and the unit check read these names alike; nothing is ever converted.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from ..core.typos import misspelling_of

Units = Mapping[str, Any]  # units.json's "units": name -> {"description", optional "same_as"}


def canonical_unit(unit: str, units: Units | None = None) -> str:
    """The name ``unit`` stands for: its entry's ``same_as``, else itself. A spelling in another case
    or spacing (``Tokens/s``, ``tokens  per second``) is looked up too."""
    known = default_units() if units is None else units
    text = " ".join(unit.split())
    for name in (unit, text, text.lower()):
        entry = known.get(name)
        if isinstance(entry, Mapping):
            same_as = entry.get("same_as")
            return same_as if isinstance(same_as, str) else name
    return text


def suggested_unit(unit: str, units: Units) -> str | None:
    """For a unit outside the vocabulary: the canonical name of the one it looks like, if any."""
    close = misspelling_of(unit, units)
    return canonical_unit(close, units) if close is not None else None


@functools.cache
def default_units() -> Units:
    """The package's own vocabulary (for a chart planned without a site's schemas)."""
    from .load import DEFAULT_FOLDER

    units: Units = json.loads((DEFAULT_FOLDER / "units.json").read_text(encoding="utf-8"))["units"]
    return units
