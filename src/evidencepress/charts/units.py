"""One unit per panel: names that mean the same unit, and nothing more.

``s`` and ``seconds`` are one unit; ``s`` and ``ms`` are two. Values are never
converted between units, so a panel whose entries disagree is an error.
"""

from __future__ import annotations

_SAME = (
    ("s", "sec", "secs", "second", "seconds"),
    ("ms", "msec", "millisecond", "milliseconds"),
    ("percent", "%"),
    ("tokens/s", "tok/s", "tokens/sec", "tokens per second"),
)
_CANONICAL = {name: names[0] for names in _SAME for name in names}


def unit_key(unit: str) -> str:
    """The name that stands for ``unit`` when comparing: ``seconds`` -> ``s``."""
    text = " ".join(unit.split())
    return _CANONICAL.get(text.lower() if text.lower() in _CANONICAL else text, text)


def same_unit(a: str, b: str) -> bool:
    return unit_key(a) == unit_key(b)
