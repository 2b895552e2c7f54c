"""Numbers for reading: thousands separators added to an authored literal, never digits (SPEC §10)."""

from __future__ import annotations

import re

_PLAIN = re.compile(r"(?P<sign>[-+]?)(?P<whole>\d+)(?P<rest>\.\d+)?")
GROUP_FROM = 4  # digits in the whole part from which it is grouped: 2,048 and 131,072, but 512


def grouped(literal: str) -> str:
    """``2986.0`` -> ``2,986.0``; a literal with an exponent or of another form is left as written."""
    match = _PLAIN.fullmatch(literal)
    if match is None or len(match.group("whole")) < GROUP_FROM:
        return literal
    whole = match.group("whole")
    head = len(whole) % 3 or 3
    parts = [whole[:head]] + [whole[i:i + 3] for i in range(head, len(whole), 3)]
    return match.group("sign") + ",".join(parts) + (match.group("rest") or "")
