"""Numbers for reading: the one formatter of every surface (SPEC §10).

A literal keeps its authored digits; reading adds thousands separators to a whole part of four or
more digits and writes a true minus sign (U+2212). Charts, tables, record pages, inline values and
the explorer (``explore.js`` mirrors :func:`for_reading`) all print numbers through here.
"""

from __future__ import annotations

import re

from . import jsontext

_PLAIN = re.compile(r"(?P<sign>[-+]?)(?P<whole>\d+)(?P<rest>\.\d+)?")
GROUP_FROM = 4  # digits in the whole part from which it is grouped: 2,048 and 131,072, but 512
MINUS = "\u2212"


def grouped(literal: str) -> str:
    """``2986.0`` -> ``2,986.0``; a literal with an exponent or of another form is left as written."""
    match = _PLAIN.fullmatch(literal)
    if match is None or len(match.group("whole")) < GROUP_FROM:
        return literal
    whole = match.group("whole")
    head = len(whole) % 3 or 3
    parts = [whole[:head]] + [whole[i:i + 3] for i in range(head, len(whole), 3)]
    return match.group("sign") + ",".join(parts) + (match.group("rest") or "")


def for_reading(literal: str) -> str:
    """``-1200.50`` -> ``−1,200.50``; ``1e-05`` -> ``1e−05``: separators, a true minus, the digits kept."""
    return grouped(literal).replace("-", MINUS)


def number_for_reading(value: float | bool) -> str:
    """A value of the export as read: its JSON literal (``68.0`` stays ``68.0``) through :func:`for_reading`."""
    if isinstance(value, bool):
        return str(value).lower()
    return for_reading(jsontext.number_text(value))
