"""The one number formatter every surface prints through (core.numbers)."""

from __future__ import annotations

import pytest

from evidencepress.charts import style
from evidencepress.core.numbers import for_reading, number_for_reading


@pytest.mark.parametrize(("literal", "shown"), [
    ("17235.9", "17,235.9"),
    ("-1200", "\u22121,200"),
    ("512", "512"),
    ("2048", "2,048"),
    ("113556639424", "113,556,639,424"),
    ("-0.6065200909780136", "\u22120.6065200909780136"),
    ("1e-05", "1e\u221205"),
    ("1.5E+10", "1.5E+10"),
    ("68.0", "68.0"),
])
def test_reading_adds_separators_and_a_true_minus_and_keeps_every_digit(literal: str, shown: str) -> None:
    assert for_reading(literal) == shown


def test_export_values_read_from_their_json_literal() -> None:
    assert number_for_reading(68.0) == "68.0"
    assert number_for_reading(-1200) == "\u22121,200"
    assert number_for_reading(True) == "true"


def test_charts_print_through_the_same_formatter() -> None:
    for value in (-1200.5, 113556639424, 0.00828, -3):
        assert style.display_number(value) == number_for_reading(value)
