"""JSON numbers exactly as authored, and JSON text that writes them so.

``json.loads`` turns ``22.50`` into ``22.5``, ``1.0e2`` into ``100.0``, ``-0``
into ``0`` and ``1e-400`` into ``0.0``. An export is published with every
number as its literal was written (SPEC §10), so the reader keeps the literal
of a number whose shortest form differs (:func:`parse_float`,
:func:`parse_int`): an :class:`AuthoredFloat` / :class:`AuthoredInt` is the
number for arithmetic, comparison and schema checks, and carries ``literal``
for output. :func:`dumps` writes JSON like ``json.dumps(..., ensure_ascii=False)``
(same layout, byte for byte) but with each number's literal.
"""

from __future__ import annotations

import functools
import json
import math
import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from json.encoder import c_make_encoder  # type: ignore[attr-defined]  # None without the C accelerator
from typing import Any, Self, cast

import orjson

_encode_string: Callable[[str], str] = json.encoder.encode_basestring


class AuthoredFloat(float):
    """A float whose JSON literal is not its shortest repr (``22.50``, ``1e2``, ``1e-400``)."""

    literal: str

    def __new__(cls, literal: str) -> Self:
        number = super().__new__(cls, literal)
        number.literal = literal
        return number

    def __reduce__(self) -> tuple[type[AuthoredFloat], tuple[str]]:
        return AuthoredFloat, (self.literal,)

    def __deepcopy__(self, memo: dict[int, Any]) -> AuthoredFloat:
        return self

    def __copy__(self) -> AuthoredFloat:
        return self


class AuthoredInt(int):
    """An integer whose literal is not its shortest form: ``-0``."""

    literal: str

    def __new__(cls, literal: str) -> Self:
        number = super().__new__(cls, literal)
        number.literal = literal
        return number

    def __reduce__(self) -> tuple[type[AuthoredInt], tuple[str]]:
        return AuthoredInt, (self.literal,)


def parse_float(literal: str) -> float:
    """A JSON number with a fraction or exponent; the literal is kept when it differs from repr."""
    value = float(literal)
    return value if repr(value) == literal else AuthoredFloat(literal)


def parse_int(literal: str) -> int:
    value = int(literal)
    return value if str(value) == literal else AuthoredInt(literal)


def is_authored(value: Any) -> bool:
    return isinstance(value, (AuthoredFloat, AuthoredInt))


def number_text(value: float) -> str:
    """A number as JSON writes it, with its authored literal when it has one."""
    literal = getattr(value, "literal", None)
    if literal is not None:
        return str(literal)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if math.isnan(value):
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def plain(value: Any) -> Any:
    """The same JSON value with plain int/float numbers (for libraries that refuse subclasses)."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, AuthoredFloat):
        return float(value)
    if isinstance(value, AuthoredInt):
        return int(value)
    return value


@dataclass(frozen=True)
class _Layout:
    indent: int | None
    comma: str
    colon: str
    sort_keys: bool
    default: Callable[[Any], Any] | None


def dumps(
    value: Any,
    indent: int | None = 2,
    *,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
    default: Callable[[Any], Any] | None = None,
) -> str:
    """JSON text of ``value`` laid out as ``json.dumps(value, indent=indent,
    separators=separators, sort_keys=sort_keys, default=default, ensure_ascii=False)``
    would, every number written as authored."""
    comma, colon = separators or ((", ", ": ") if indent is None else (",", ": "))
    if indent is None and default is None:  # what ``default`` returns may hold authored numbers too
        return _compact(value, (comma, colon), sort_keys)
    if indent == 2 and (comma, colon) == (",", ": ") and not sort_keys and default is None:
        fast = _fast_indented(value)
        if fast is not None:
            return fast.decode("utf-8")
    parts: list[str] = []
    _write(value, parts, _Layout(indent, comma, colon, sort_keys, default), 0)
    return "".join(parts)


def dumps_utf8(value: Any) -> bytes:
    """A JSON file: ``(dumps(value) + "\n").encode("utf-8")``, made as UTF-8 from the start where orjson
    writes it (a record's index.json of 26,000 results is 27 MB: it was copied four times as text)."""
    fast = _fast_indented(value, orjson.OPT_APPEND_NEWLINE)
    return fast if fast is not None else (dumps(value) + "\n").encode("utf-8")


def _fast_indented(value: Any, options: int = 0) -> bytes | None:
    """``dumps(value).encode("utf-8")`` at two-space indent through orjson (written in Rust, about three times
    faster than ``_write`` on an export), or None where its text could differ from ``json.dumps``:
    a float that repr writes with an exponent (orjson writes 1e-05 as 0.00001), a type it
    refuses (an integer past 64 bits, a key that is not a string, a lone surrogate). Authored
    numbers go through it as placeholder strings, replaced by their literals.
    ``options``: orjson's, beside two-space indent and subclasses as their base types."""
    if not _orjson_writes_as_json_does(value):
        return None
    options |= orjson.OPT_INDENT_2 | orjson.OPT_PASSTHROUGH_SUBCLASS
    literals: list[str] = []

    def literal(number: Any) -> str:
        if isinstance(number, (AuthoredFloat, AuthoredInt)):
            literals.append(number.literal)
            return _placeholder(len(literals) - 1)
        raise TypeError(f"Object of type {type(number).__name__} is not JSON serializable")

    try:
        data = orjson.dumps(value, default=literal, option=options)
    except (TypeError, orjson.JSONEncodeError):  # a key that is not a string, an integer past 64 bits...
        return None
    if not literals:
        return data
    return _PLACEHOLDER_UTF8.sub(lambda found: literals[int(found.group(1))].encode("utf-8"), data)


_PLAIN_SCALARS = frozenset({str, int, bool, type(None)})


def _orjson_writes_as_json_does(value: Any) -> bool:
    """No float in ``value`` that repr writes with an exponent (below 1e-4 or from 1e16), and
    nothing but dicts, lists, plain scalars and authored numbers (walked without recursion;
    containers of plain scalars alone are passed over by their types)."""
    stack: list[Any] = [[value]]  # the value itself is checked as a member
    while stack:
        item = stack.pop()
        members = item.values() if type(item) is dict else item
        kinds = set(map(type, members))
        if kinds <= _PLAIN_SCALARS:
            continue
        for member in members:
            kind = type(member)
            if kind is dict or kind is list:
                stack.append(member)
            elif not _written_alike(member, kind):
                return False
    return True


def _written_alike(scalar: Any, kind: type) -> bool:
    """A scalar that orjson writes as ``json.dumps`` does (an authored number goes through a placeholder)."""
    if kind is float:
        return not scalar or 1e-4 <= abs(scalar) < 1e16  # NaN and the infinities are neither
    return kind in _PLAIN_SCALARS or kind is AuthoredFloat or kind is AuthoredInt


class _Literal:
    """Stands in for an authored number while the C encoder writes the rest."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


def _compact(value: Any, separators: tuple[str, str], sort_keys: bool) -> str:
    """One-line JSON through the standard library's C encoder. Authored numbers, which it would
    write in their shortest form, go through it as placeholder strings that are then replaced by
    their literals; the placeholders carry a random token that no content can know in advance."""
    literals: list[str] = []
    marked = _marked(value, literals)
    text = "".join(_encoder(*separators, sort_keys)(marked, 0))
    return _PLACEHOLDER.sub(lambda found: literals[int(found.group(1))], text) if literals else text


_TOKEN = secrets.token_hex(8)  # drawn once per process


def _placeholder(index: int) -> str:
    return f"\x00{_TOKEN}:{index}\x00"


# A placeholder as JSON text writes it (``_encode_string`` and orjson alike escape NUL so).
_PLACEHOLDER = re.compile(r'"\\u0000' + _TOKEN + r':(\d+)\\u0000"')
_PLACEHOLDER_UTF8 = re.compile(_PLACEHOLDER.pattern.encode("ascii"))


def _fallback(item: Any) -> Any:
    if isinstance(item, _Literal):
        return _placeholder(item.index)
    raise TypeError(f"Object of type {type(item).__name__} is not JSON serializable")


@functools.cache
def _encoder(comma: str, colon: str, sort_keys: bool) -> Callable[[Any, int], Iterable[str]]:
    """What ``json.dumps(ensure_ascii=False, separators=(comma, colon), sort_keys=sort_keys)``
    runs, made once: ``json.dumps`` makes it again at each call, which costs more than encoding
    one row of a table (the site's data files encode tens of thousands)."""
    if c_make_encoder is None:  # no C accelerator: the pure-Python encoder
        encoder = json.JSONEncoder(ensure_ascii=False, separators=(comma, colon), sort_keys=sort_keys,
                                   default=_fallback)
        return lambda value, _: (encoder.encode(value),)
    return cast(Callable[[Any, int], Iterable[str]],
                c_make_encoder(None, _fallback, _encode_string, None, colon, comma, sort_keys, False, True))


def _marked(value: Any, literals: list[str]) -> Any:
    """``value`` with each authored number replaced by a _Literal (``value`` itself when it has none)."""
    if isinstance(value, (AuthoredFloat, AuthoredInt)):
        literals.append(value.literal)
        return _Literal(len(literals) - 1)
    if isinstance(value, dict):
        items = {key: _marked(item, literals) for key, item in value.items()} if _holds_authored(value) else value
        return items
    if isinstance(value, (list, tuple)):
        return [_marked(item, literals) for item in value] if _holds_authored(value) else value
    return value


def _holds_authored(value: Any) -> bool:
    """Does ``value`` contain an authored number (walked without recursion)? Containers whose
    members are all plain scalars (the rows of a site's table) are passed over by their types."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (AuthoredFloat, AuthoredInt)):
            return True
        members = item.values() if isinstance(item, dict) else item if isinstance(item, (list, tuple)) else ()
        if set(map(type, members)) <= _PLAIN:
            continue
        stack.extend(members)
    return False


_PLAIN = frozenset({str, int, float, bool, type(None)})


def _write(value: Any, parts: list[str], layout: _Layout, level: int) -> None:
    if isinstance(value, str):
        parts.append(_encode_string(value))
    elif value is None:
        parts.append("null")
    elif isinstance(value, (bool, int, float)):
        parts.append(number_text(value))
    elif isinstance(value, dict):
        _write_members(list(value.items()), parts, layout, level)
    elif isinstance(value, (list, tuple)):
        _write_items(value, parts, layout, level)
    elif layout.default is not None:
        _write(layout.default(value), parts, layout, level)
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _scalar(value: Any) -> str | None:
    """The JSON text of a plain scalar, or None for anything else (containers, authored numbers,
    objects for ``default``). Exact type checks: the writer's hot path, one call per value."""
    kind = type(value)
    if kind is str:
        return _encode_string(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    return None



def _write_members(members: list[tuple[Any, Any]], parts: list[str], layout: _Layout, level: int) -> None:
    if not members:
        parts.append("{}")
        return
    if layout.sort_keys:
        members.sort(key=lambda member: member[0])
    inner, close = _breaks(layout, level)
    first, later, colon = inner, layout.comma + inner, layout.colon
    parts.append("{")
    for index, (key, item) in enumerate(members):
        text = _scalar(item)
        name = _encode_string(key if type(key) is str else _key(key))
        if text is not None:
            parts.append((later if index else first) + name + colon + text)
        else:
            parts.append((later if index else first) + name + colon)
            _write(item, parts, layout, level + 1)
    parts.append(close + "}")


def _write_items(items: list[Any] | tuple[Any, ...], parts: list[str], layout: _Layout, level: int) -> None:
    if not items:
        parts.append("[]")
        return
    inner, close = _breaks(layout, level)
    first, later = inner, layout.comma + inner
    parts.append("[")
    for index, item in enumerate(items):
        text = _scalar(item)
        if text is not None:
            parts.append((later if index else first) + text)
        else:
            parts.append(later if index else first)
            _write(item, parts, layout, level + 1)
    parts.append(close + "]")


def _breaks(layout: _Layout, level: int) -> tuple[str, str]:
    """(before each member, before the closing bracket)."""
    if layout.indent is None:
        return "", ""
    return "\n" + " " * (layout.indent * (level + 1)), "\n" + " " * (layout.indent * level)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, (bool, int, float)):
        return number_text(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")
