"""Text layout and number display helpers of the chart style (property tests)."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from evidencepress.charts import style
from evidencepress.charts.fieldpath import Missing, get_path, resolve_pointer
from evidencepress.charts.units import same_unit
from evidencepress.core import jsontext

words = st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC0123456789_./-", min_size=1, max_size=40), max_size=12)


@given(words, st.integers(min_value=40, max_value=400))
def test_wrap_fits_and_keeps_every_character(parts: list[str], width: int) -> None:
    text = " ".join(parts)
    lines = style.wrap(text, width, style.SIZE_TICK)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    for line in lines:
        assert style.text_px(line, style.SIZE_TICK) <= width or len(line) == 1


@given(st.floats(allow_nan=False, allow_infinity=False) | st.integers(min_value=-(10**18), max_value=10**18))
def test_display_number_is_the_literal_with_separators(value: float) -> None:
    text = style.display_number(value)
    assert text.replace(",", "").replace("\u2212", "-") == jsontext.number_text(value)


def test_display_number_keeps_authored_digits() -> None:
    values = (88.697, 2986.0, 161728, -0.5, 0.00828, jsontext.parse_float("22.50"), 17235.9, -1200)
    assert [style.display_number(v) for v in values] == [
        "88.697", "2,986.0", "161,728", "\u22120.5", "0.00828", "22.50", "17,235.9", "\u22121,200",
    ]
    assert style.display_number(90.06823351023503) == "90.06823351023503"  # never rounded: the chart omits such labels


def test_units_alias_but_never_convert() -> None:
    assert same_unit("s", "seconds") and same_unit("%", "percent") and same_unit("tokens/s", "tok/s")
    assert not same_unit("s", "ms") and not same_unit("MiB", "MB") and not same_unit("GiB", "GB")


def test_field_paths_and_pointers() -> None:
    entry = {"a": {"b": None}, "samples": [{"value": 1}, {"value": 2.5}], "n": 3}
    assert get_path(entry, "samples.value") == [1, 2.5]
    assert get_path(entry, "a.b.c") is None  # null on the way: not reported
    assert get_path(entry, "a.x") == Missing("x", ("b",))
    assert get_path(entry, "n.x") == Missing("x", ())
    assert resolve_pointer({"a/b": [0, {"~k": 7}]}, "/a~1b/1/~0k") == 7
    assert isinstance(resolve_pointer({"a": [1]}, "/a/01"), Missing)
    assert math.isclose(resolve_pointer(entry, "/samples/1/value"), 2.5)
