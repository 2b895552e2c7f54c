"""JSON syntax errors are described in words and at positions that do not change with the
Python version: ``jsonsyntax`` finds what CPython 3.11's scanner reports, on any interpreter.

Python 3.13 reports a trailing comma in its own words, at the comma; every other error
``json.loads`` reports the same way on 3.11, 3.12 and 3.13, which the comparison below checks
on the interpreter that runs it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencepress.authoring import importer
from evidencepress.content import jsonmap
from evidencepress.core import jsonsyntax
from evidencepress.core.jsonsyntax import SyntaxProblem, first_problem
from evidencepress.schemas import load

PIECES = list('{}[]:,"\\ \n\t0123456789-+.eEabfnrtux\x01') + [
    "null", "true", "false", "NaN", "Infinity", "-Infinity", "\\u", "d83d", "\\ude00", '"a"', '"k":', "1.5e3", "\ufeff"]
VALID = ['{"a": [1, 2, {"b": null}], "c": "x\\u00e9"}', "[1, 2, 3]", '{"k": "v", "n": -1.5e3}', '"\\ud83d\\ude00"',
         '{"facts": [], "reported_results": [], "conditions": {}}']
TRAILING = ("Illegal trailing comma before end of object", "Illegal trailing comma before end of array")  # 3.13's


def stdlib(text: str) -> tuple[str, int] | None:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return exc.msg, exc.pos
    return None


def ours(text: str) -> tuple[str, int] | None:
    problem = first_problem(text)
    return None if problem is None else (problem.message, problem.offset)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A valid JSON text with a few pieces deleted, inserted or replaced, or pieces at random."""
    if draw(st.booleans()):
        return "".join(draw(st.lists(st.sampled_from(PIECES), max_size=12)))
    text = list(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["delete", "insert", "replace"]))
        if action == "insert" or not text:
            text.insert(at, draw(st.sampled_from(PIECES)))
        elif action == "delete":
            del text[min(at, len(text) - 1)]
        else:
            text[min(at, len(text) - 1)] = draw(st.sampled_from(PIECES))
    return "".join(text)


@settings(max_examples=1500, deadline=None)
@given(mutated())
def test_the_scan_finds_the_error_json_loads_finds(text: str) -> None:
    expected = stdlib(text)
    if expected is not None and expected[0] in TRAILING:  # 3.13 on: at the comma, in new words
        expected = _as_before_3_13(text, expected[1])
    assert ours(text) == expected


def _as_before_3_13(text: str, comma: int) -> tuple[str, int]:
    after = len(text[:comma + 1]) + len(text[comma + 1:]) - len(text[comma + 1:].lstrip(" \t\n\r"))
    return ("Expecting property name enclosed in double quotes" if text[after] == "}" else "Expecting value"), after


@pytest.mark.parametrize(("text", "problem"), [
    ('{\n  "a": 1,\n}', (jsonsyntax.EXPECTING_NAME, 12)),  # 3.13: "Illegal trailing comma ..." at 10
    ("[1, 2, ]", (jsonsyntax.EXPECTING_VALUE, 7)),
    ('{"a" 1}', (jsonsyntax.EXPECTING_COLON, 5)),
    ('{"a": 1 "b": 2}', (jsonsyntax.EXPECTING_COMMA, 8)),
    ('{"a": }', (jsonsyntax.EXPECTING_VALUE, 6)),
    ("{'a': 1}", (jsonsyntax.EXPECTING_NAME, 1)),
    ('{"a": 1} x', (jsonsyntax.EXTRA_DATA, 9)),
    ('{"a": "b', (jsonsyntax.UNTERMINATED, 6)),
    ('["a\x01"]', (jsonsyntax.CONTROL, 3)),
    ('["\\q"]', (jsonsyntax.ESCAPE, 2)),
    ('["\\u12g4"]', (jsonsyntax.UNICODE_ESCAPE, 3)),
    ('["\\ud83d\\uzzzz"]', (jsonsyntax.UNICODE_ESCAPE, 9)),
    ("\ufeff{}", (jsonsyntax.BOM, 0)),
    ("", (jsonsyntax.EXPECTING_VALUE, 0)),
    ("[" * 100_000, (jsonsyntax.EXPECTING_VALUE, 100_000)),  # no recursion
    ('{"a": [1, {"b": "\\ud83d\\ude00"}], "c": -0.5e-3, "d": [true, false, null, NaN, -Infinity]}', None),
])
def test_each_kind_of_error_at_its_position(text: str, problem: tuple[str, int] | None) -> None:
    assert ours(text) == problem


def test_line_and_column_count_like_json() -> None:
    text = '{\n  "a": 1,\n}'
    problem = first_problem(text)
    assert problem is not None and problem.line_col(text) == (3, 1)
    assert SyntaxProblem("x", 0).line_col("{") == (1, 1)


def refuse_in_other_words(text: str, **_: object) -> object:
    """``json.loads`` of a future Python: another message at another position."""
    raise json.JSONDecodeError("Some new wording", text, 0)


def test_reports_do_not_take_the_words_of_json_loads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The message, position and hint come from the scan, whatever ``json.loads`` says."""
    text = '{\n  "facts": [],\n  "conditions": {},\n}'
    monkeypatch.setattr(jsonmap.json, "loads", refuse_in_other_words)
    _, problems = jsonmap.load_json(text, "content/a.md", 10, indent=2)
    assert [(p.location.line, p.location.col, p.message) for p in problems] == [
        (12, 21, "invalid JSON: a comma after the last member of an object")]

    schema = tmp_path / "export.schema.json"
    schema.write_text('{\n  "type": "object"\n  "required": []\n}\n')
    with pytest.raises(load.SchemaFileError) as raised:
        load._parse(schema.read_bytes(), "schema/export.schema.json")
    problem = raised.value.problem
    assert (problem.location.line, problem.location.col, problem.message) == (
        3, 3, "invalid JSON: Expecting ',' delimiter")

    with pytest.raises(importer.ImportError_, match="not valid JSON: Expecting ':' delimiter$"):
        importer._meta(importer.META_OPEN + '{"title" "x"}' + importer.COMMENT_CLOSE)
