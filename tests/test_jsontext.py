"""JSON text with every number as authored (SPEC §10)."""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sitekit import article, export, make_site, result, tree

from evidencepress.content.jsonmap import load_json
from evidencepress.core import jsontext

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES)
@settings(max_examples=300, deadline=None)
def test_layout_is_that_of_json_dumps(value: object) -> None:
    assert jsontext.dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)
    assert jsontext.dumps(value, indent=None) == json.dumps(value, ensure_ascii=False)
    compact = jsontext.dumps(value, indent=None, separators=(",", ":"), sort_keys=True)
    assert compact == json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


LITERALS = ["22.50", "1.0e2", "-0", "1e-400", "1E+2", "-0.0", "0.10", "245.72", "7", "-3", "1e2", "12345678901234567890"]


def test_numbers_keep_their_literal_through_load_and_dump() -> None:
    text = "{" + ", ".join(f'"n{i}": {literal}' for i, literal in enumerate(LITERALS)) + "}"
    document, problems = load_json(text, "a.md", 1)
    assert problems == [] and document is not None
    assert jsontext.dumps(document.value, indent=None) == text
    assert document.value["n0"] == 22.5 and document.value["n1"] == 100.0 and document.value["n3"] == 0.0


def test_authored_numbers_are_numbers_and_pickle() -> None:
    number = jsontext.parse_float("22.50")
    assert isinstance(number, float) and number == 22.5 and jsontext.number_text(number) == "22.50"
    assert jsontext.number_text(pickle.loads(pickle.dumps(number))) == "22.50"
    zero = jsontext.parse_int("-0")
    assert isinstance(zero, int) and zero == 0 and jsontext.number_text(zero) == "-0"
    assert jsontext.plain({"a": [number, zero]}) == {"a": [22.5, 0]}
    assert type(jsontext.plain(number)) is float
    assert jsontext.parse_float("245.72").__class__ is float  # no wrapper where repr is the literal


def test_published_json_and_markdown_keep_the_literals(tmp_path) -> None:
    from evidencepress.build.recipe import build_site
    from evidencepress.core.options import BuildOptions

    page = article(export_doc=export(result(value=1.0)))
    page = page.replace('"value": 1.0', '"value": 22.50').replace('"temperature": 0', '"temperature": -0')
    site = make_site(tmp_path / "site", {"guides/a.md": page})
    problems = build_site(BuildOptions(root=site, jobs=1, use_cache=False))
    assert not [p for p in problems if p.is_error], problems
    files = tree(site / "_site")
    for name in ("guides/a/index.json", "guides/a/index.md"):
        text = files[name].decode()
        assert '"value": 22.50' in text and '"temperature": -0' in text, name
    assert b'"value": 22.50' in tree(site / "exports")["guides/a.json"]


AUTHORED = st.sampled_from(LITERALS).map(lambda text: jsontext.parse_float(text) if any(c in text for c in ".eE")
                                          else jsontext.parse_int(text))
WITH_LITERALS = st.recursive(
    AUTHORED | st.none() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=25,
)


@given(WITH_LITERALS)
@settings(max_examples=300, deadline=None)
def test_the_fast_one_line_writer_equals_the_reference_writer(value: object) -> None:
    """One-line JSON goes through the C encoder with placeholders for authored numbers."""
    for separators in ((", ", ": "), (",", ":")):
        parts: list[str] = []
        jsontext._write(value, parts, jsontext._Layout(None, *separators, False, None), 0)
        assert jsontext.dumps(value, indent=None, separators=separators) == "".join(parts)


def test_the_one_line_writer_without_the_c_accelerator(monkeypatch: pytest.MonkeyPatch) -> None:
    value = {"a": [jsontext.parse_float("22.50"), 1.5, None, "é"], "b": {"c": jsontext.parse_int("-0"), "d": True}}
    expected = '{"a": [22.50, 1.5, null, "é"], "b": {"c": -0, "d": true}}'
    assert jsontext.dumps(value, indent=None) == expected
    monkeypatch.setattr(jsontext, "c_make_encoder", None)
    jsontext._encoder.cache_clear()
    try:
        assert jsontext.dumps(value, indent=None) == expected
        assert jsontext.dumps(value, indent=None, separators=(",", ":"), sort_keys=True) == expected.replace(
            ", ", ",").replace(": ", ":")
    finally:
        jsontext._encoder.cache_clear()


def test_content_cannot_forge_a_placeholder() -> None:
    value = {"a": jsontext.parse_float("22.50"), "b": "\x00" + "0" * 16 + ":0\x00"}
    assert jsontext.dumps(value, indent=None) == '{"a": 22.50, "b": "\\u00000000000000000000:0\\u0000"}'


def test_numbers_reached_through_default_keep_their_literal() -> None:
    """The chart cache key hashes dataclasses through ``default``: 42.5 and 42.50 must differ."""
    from dataclasses import asdict, dataclass

    @dataclass
    class Point:
        value: float

    def plain(item: object) -> object:
        return asdict(item)  # type: ignore[call-overload]

    texts = {jsontext.dumps(Point(jsontext.parse_float(t)), indent=None, default=plain) for t in ("42.5", "42.50")}
    assert texts == {'{"value": 42.5}', '{"value": 42.50}'}


# What orjson writes as json.dumps does: 64-bit integers, floats that repr writes without exponent.
ORJSON_SCALARS = (st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text() | AUTHORED
                  | st.floats(1e-4, 1e16, exclude_max=True) | st.floats(-1e16, -1e-4, exclude_min=True)
                  | st.sampled_from([0.0, -0.0]))
EDGES = st.sampled_from([1e-05, 1e16, 2**70, -(2**64), "\ud800", "a\x00\x1f\x7f\u2028", 0.0, -0.0, 1e-4, 9.99e15])


def _values(scalars: st.SearchStrategy[object], other_keys: bool = False) -> st.SearchStrategy[object]:
    def containers(children: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
        found = st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
        return found | st.dictionaries(st.integers(), children, max_size=2) if other_keys else found
    return st.recursive(scalars, containers, max_leaves=20)


@given(_values(ORJSON_SCALARS))
@settings(max_examples=300, deadline=None)
def test_orjson_gives_the_text_of_the_python_writer(value: object) -> None:
    """orjson writes a document (authored numbers through placeholders) as ``_write`` does."""
    assert jsontext._fast_indented(value) == _python_text(value).encode("utf-8")
    assert jsontext.dumps_utf8(value) == (_python_text(value) + "\n").encode("utf-8")  # a JSON file's bytes


@given(_values(ORJSON_SCALARS | EDGES, other_keys=True))
@settings(max_examples=300, deadline=None)
def test_what_orjson_would_write_otherwise_is_left_to_the_python_writer(value: object) -> None:
    """A float written with an exponent, an integer past 64 bits, a lone surrogate or a key that
    is not a string: ``_fast_indented`` declines, or gives the same text."""
    fast = jsontext._fast_indented(value)
    assert fast is None or fast == _python_text(value).encode("utf-8")
    assert jsontext.dumps(value) == _python_text(value)
    assert _bytes_or_error(lambda: jsontext.dumps_utf8(value)) == _bytes_or_error(
        lambda: (_python_text(value) + "\n").encode("utf-8"))


def _bytes_or_error(make: Callable[[], bytes]) -> bytes | type:
    """What ``make`` gives, or the type of what it raises (a lone surrogate cannot be UTF-8)."""
    try:
        return make()
    except UnicodeEncodeError as exc:
        return type(exc)


def _python_text(value: object) -> str:
    parts: list[str] = []
    jsontext._write(value, parts, jsontext._Layout(2, ",", ": ", False, None), 0)
    return "".join(parts)


def test_an_export_is_written_by_orjson_unless_its_text_would_differ() -> None:
    document, _ = load_json('{"page": {"n": 1e2}, "reported_results": [{"value": 22.50, "c": {"x": null}}, -0, []],'
                            ' "x": [1.5, "é", true]}', "a.md", 1)
    assert document is not None
    fast = jsontext._fast_indented(document.value)
    assert fast is not None and fast.decode("utf-8") == _python_text(document.value)
    assert b'"value": 22.50' in fast and b"\n    -0,\n" in fast and b'"n": 1e2' in fast
    assert jsontext.dumps_utf8(document.value) == fast + b"\n"
    for declined in (1e-05, 1e16, 2**70, "\ud800", {1: "a"}, (1, 2), float("nan")):
        assert jsontext._fast_indented({"reported_results": [{"value": declined}]}) is None


def test_an_export_holds_one_object_for_each_distinct_string() -> None:
    """json shares the keys of a document, not its values: every result of an export repeated its
    unit, state, conditions and digests (a third of 5,000 exports in memory, issue 27). Equal strings
    are now one object, which pickle also writes once."""
    text = json.dumps({"reported_results": [{"unit": "tokens/s", "state": "source_reported", "c": {"engine": "vLLM"},
                                             "label": f"Cell {n}", "notes": ["tokens/s"]} for n in range(3)]})
    document, problems = load_json(text, "a.md", 1)
    assert document is not None and problems == [] and document.value == json.loads(text)
    results = document.value["reported_results"]
    for key in ("unit", "state"):
        assert len({id(result[key]) for result in results}) == 1
    assert len({id(result["c"]["engine"]) for result in results}) == 1
    assert len({id(result["label"]) for result in results}) == 3
    again, _ = load_json(text, "b.md", 1)
    assert again is not None and again.value["reported_results"][0]["unit"] is not results[0]["unit"]  # per document
