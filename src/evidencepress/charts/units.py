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


# A value axis in a larger unit: its ticks are divided, its title is the new unit. (unit, step, prefixed units)
_PREFIXES: dict[str, tuple[float, tuple[str, ...]]] = {
    "bytes": (1000, ("kB", "MB", "GB", "TB", "PB")),
    "B": (1000, ("kB", "MB", "GB", "TB", "PB")),
    "kB": (1000, ("MB", "GB", "TB", "PB")),
    "KB": (1000, ("MB", "GB", "TB", "PB")),
    "MB": (1000, ("GB", "TB", "PB")),
    "GB": (1000, ("TB", "PB")),
    "KiB": (1024, ("MiB", "GiB", "TiB", "PiB")),
    "MiB": (1024, ("GiB", "TiB", "PiB")),
    "GiB": (1024, ("TiB", "PiB")),
}
_WORDS = ((10**12, "trillions"), (10**9, "billions"), (10**6, "millions"))
RESCALE_FROM = 100_000  # ticks of six digits and more read better in a larger unit


def axis_scale(unit: str, top: float) -> tuple[float, str]:
    """(divisor, axis title) for a value axis whose largest value is ``top``.

    Byte units take SI or binary prefixes (113,556,639,424 bytes -> ticks in GB;
    53,901,956 KiB -> ticks in GiB); other units take words from ten million up
    (``tokens (millions)``). Below ``RESCALE_FROM`` the axis keeps the unit as written.
    """
    if unit in _PREFIXES and top >= RESCALE_FROM:
        step, names = _PREFIXES[unit]
        divisor, title = 1.0, unit
        for name in names:
            if top / (divisor * step) < 1:
                break
            divisor, title = divisor * step, name
        return divisor, title
    if top >= 10**7:
        scale, word = next((s, w) for s, w in _WORDS if top >= s)
        return float(scale), f"{unit} ({word})" if unit else word
    return 1.0, unit
