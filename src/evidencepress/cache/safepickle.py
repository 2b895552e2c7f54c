"""Reading pickled cache entries without trusting them to name what runs.

A pickle can call any function it names; this reader names only value types:
the package's frozen dataclasses and enums (whose construction only stores
fields), the few library value types a validated page holds, and nothing else
— a pickle that names ``os.system`` or any other callable is refused, so a
planted entry cannot run code even if it got past its seal
(``core.seal``). A new type in a page that is not admitted here is a miss
(the tests load every entry of full sites to keep the list whole).
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import functools
import io
import pickle
from typing import Any

_PACKAGE = __name__.split(".")[0]


@functools.cache
def _admitted() -> dict[tuple[str, str], type]:
    """The value types from outside the package (markdown-it is imported only now: a build that
    replays its record reads no pickle and never imports it)."""
    from markdown_it.token import Token

    kinds = (Token, datetime.date, datetime.datetime, datetime.timedelta, datetime.timezone, decimal.Decimal,
             complex, frozenset, set, bytearray)
    return {(kind.__module__, kind.__qualname__): kind for kind in kinds}


class _ValuesOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        admitted = _admitted().get((module, name)) or _found.get((module, name))
        if admitted is not None:
            return admitted
        if module == _PACKAGE or module.startswith(_PACKAGE + "."):
            found = super().find_class(module, name)
            if _is_value_type(found):
                _found[(module, name)] = found  # looked up and checked once: a build loads thousands of entries
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not a value type of the cache")


_found: dict[tuple[str, str], type] = {}  # the package's value types found so far


def _is_value_type(found: object) -> bool:
    if not isinstance(found, type):
        return False
    if issubclass(found, enum.Enum):
        return True
    params = getattr(found, "__dataclass_params__", None)
    return dataclasses.is_dataclass(found) and params is not None and bool(params.frozen)


def loads(data: bytes) -> Any:
    """The value pickled in ``data``; ``pickle.UnpicklingError`` (or another exception of a damaged
    pickle) when it is not made of admitted value types."""
    return _ValuesOnly(io.BytesIO(data)).load()


def dumps(value: Any) -> bytes | None:
    """``value`` pickled, or None when it cannot be (a cache then keeps nothing of it)."""
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return None
