"""Where a JSON text stops being JSON, and what was expected there, in our own words.

``json.loads`` says what is wrong in its ``JSONDecodeError`` (``msg``, ``pos``), but
those words and positions belong to the CPython version: 3.13 reports a trailing comma
as ``Illegal trailing comma before end of object`` at the comma, where 3.11 and 3.12
say ``Expecting property name enclosed in double quotes`` at the ``}``. A report (and
the hints that read it) must not change with the interpreter, so the text that
``json.loads`` refused is scanned again here, without recursion, and the first error
is described the way CPython 3.11's scanner describes it: the messages below, at the
positions it gives. Only a text that failed is scanned; a valid one never is.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

EXPECTING_VALUE = "Expecting value"
EXPECTING_NAME = "Expecting property name enclosed in double quotes"
EXPECTING_COLON = "Expecting ':' delimiter"
EXPECTING_COMMA = "Expecting ',' delimiter"
EXTRA_DATA = "Extra data"
UNTERMINATED = "Unterminated string starting at"
CONTROL = "Invalid control character at"
ESCAPE = "Invalid \\escape"
UNICODE_ESCAPE = "Invalid \\uXXXX escape"
BOM = "Unexpected UTF-8 BOM (decode using utf-8-sig)"

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')  # the characters of a string up to its end, an escape or a control character
_LITERALS = ("null", "true", "false", "NaN", "Infinity", "-Infinity")  # what json.loads reads besides numbers
_ESCAPED = frozenset('"\\/bfnrt')
_HEX = frozenset("0123456789abcdefABCDEF")


@dataclass(frozen=True)
class SyntaxProblem:
    message: str  # one of the constants above
    offset: int  # in characters from the start of the text

    def line_col(self, text: str) -> tuple[int, int]:
        """1-based line and column of ``offset`` in ``text`` (as ``JSONDecodeError`` counts them)."""
        line = text.count("\n", 0, self.offset) + 1
        return line, self.offset - text.rfind("\n", 0, self.offset)


class _Failed(Exception):
    def __init__(self, message: str, offset: int) -> None:
        self.problem = SyntaxProblem(message, offset)


def first_problem(text: str) -> SyntaxProblem | None:
    """The first syntax error of ``text`` as ``json.loads`` reads it, or None if it has none.
    (Errors that are not syntax, such as a number too long to convert, are the caller's.)"""
    try:
        _check(text)
    except _Failed as failed:
        return failed.problem
    return None


def problem_of(text: str, refusal: json.JSONDecodeError) -> SyntaxProblem:
    """What is wrong with ``text``, which ``json.loads`` refused with ``refusal``: in our words
    (``refusal``'s own only if the scan finds no error, which no known Python gives)."""
    return first_problem(text) or SyntaxProblem(refusal.msg, refusal.pos)


def _skip(text: str, offset: int) -> int:
    return _WHITESPACE.match(text, offset).end()  # type: ignore[union-attr]  # matches the empty string


def _check(text: str) -> None:
    if text.startswith("\ufeff"):
        raise _Failed(BOM, 0)
    end = len(text)
    closers: list[str] = []  # "}" or "]" of each open object and array, innermost last
    offset = _skip(text, 0)
    while True:  # a value starts at ``offset``
        if offset < end and text[offset] in "{[":
            close = "}" if text[offset] == "{" else "]"
            inner = _skip(text, offset + 1)
            if inner < end and text[inner] == close:
                offset = inner + 1
            else:
                closers.append(close)
                offset = _member_name(text, inner) if close == "}" else inner
                continue  # to its first member's value, or its first item
        else:
            offset = _scalar(text, offset)
        while True:  # after a value: close what ends here, or go on to the next member or item
            offset = _skip(text, offset)
            if not closers:
                if offset != end:
                    raise _Failed(EXTRA_DATA, offset)
                return
            if offset < end and text[offset] == closers[-1]:
                closers.pop()
                offset += 1
                continue
            if offset >= end or text[offset] != ",":
                raise _Failed(EXPECTING_COMMA, offset)
            offset = _skip(text, offset + 1)
            if closers[-1] == "}":
                offset = _member_name(text, offset)
            break


def _scalar(text: str, offset: int) -> int:
    """Where the string, number or literal at ``offset`` ends."""
    if offset < len(text) and text[offset] == '"':
        return _string(text, offset)
    for literal in _LITERALS:
        if text.startswith(literal, offset):
            return offset + len(literal)
    number = _NUMBER.match(text, offset)
    if number is None:
        raise _Failed(EXPECTING_VALUE, offset)
    return number.end()


def _member_name(text: str, offset: int) -> int:
    """After the name of the object member at ``offset``, its colon and the space around it."""
    if offset >= len(text) or text[offset] != '"':
        raise _Failed(EXPECTING_NAME, offset)
    offset = _skip(text, _string(text, offset))
    if offset >= len(text) or text[offset] != ":":
        raise _Failed(EXPECTING_COLON, offset)
    return _skip(text, offset + 1)


def _string(text: str, begin: int) -> int:
    """Where the string whose opening quote is at ``begin`` ends (after its closing quote)."""
    end = len(text)
    offset = begin + 1
    while True:
        offset = _PLAIN.match(text, offset).end()  # type: ignore[union-attr]  # matches the empty string
        if offset == end:
            raise _Failed(UNTERMINATED, begin)
        char = text[offset]
        if char == '"':
            return offset + 1
        if char != "\\":
            raise _Failed(CONTROL, offset)
        offset += 1
        if offset == end:
            raise _Failed(UNTERMINATED, begin)
        if text[offset] != "u":
            if text[offset] not in _ESCAPED:
                raise _Failed(ESCAPE, offset - 1)
            offset += 1
            continue
        digits = offset + 1
        offset = digits + 4
        if offset >= end or not _HEX.issuperset(text[digits:offset]):
            raise _Failed(UNICODE_ESCAPE, digits - 1)
        if 0xD800 <= int(text[digits:offset], 16) <= 0xDBFF and offset + 6 < end and text.startswith("\\u", offset):
            low = text[offset + 2:offset + 6]
            if not _HEX.issuperset(low):
                raise _Failed(UNICODE_ESCAPE, offset + 1)
            if 0xDC00 <= int(low, 16) <= 0xDFFF:
                offset += 6
