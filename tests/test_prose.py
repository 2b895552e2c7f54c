"""The prose check: numbers in the text that copy an export value instead of referencing it."""

from __future__ import annotations

import decimal
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sitekit import REPO, article, export, make_site, result

from evidencepress.checks.prosenumbers import key_unit, prose_numbers
from evidencepress.cli import main

FILE = "content/guides/a.md"


def run(root: Path, *arguments: str) -> Result:
    outcome = CliRunner().invoke(main, ["check", "--root", str(root), *arguments])
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise AssertionError(outcome.output) from outcome.exception
    return outcome


def document() -> dict[str, object]:
    return export(
        result("Decode at C16", 231.294, uncertainty={"standard_deviation": 4.91}),
        result("Decode at C1", 88.697),
        result("Wait at C32", 1017.98, unit="ms", metric="ttft"),
        result("Free memory", 90.8, unit="GiB", metric="free_memory"),
        result("Long float", 58.05409336065285, metric="decode_rate_mean"),
        memory_observations=[{"id": "pool", "value": 2048, "unit": "tokens", "evidence_url": "https://x.org/a",
                              "source_document_sha256": "a" * 64}],
    )


def prose_report(tmp_path: Path, text: str, *arguments: str) -> list[str]:
    root = make_site(tmp_path, {"guides/a.md": article("A", text, document())})
    outcome = run(root, "--all-warnings", *arguments)
    return [line for line in outcome.stderr.splitlines() if "[prose-number]" in line or line.startswith("  hint: write")]


def where(tmp_path: Path, needle: str) -> str:
    text = (tmp_path / FILE).read_text(encoding="utf-8")
    offset = text.index(needle)
    return f"{FILE}:{text.count(chr(10), 0, offset) + 1}:{offset - text.rfind(chr(10), 0, offset)}"


def test_a_copied_value_warns_with_the_reference_to_write(tmp_path: Path) -> None:
    lines = prose_report(tmp_path, "The node pair decoded 231.294 tokens/s at C16.")
    assert lines == [
        (f"{where(tmp_path, '231.294')}: warning: 231.294 is a value of the export; write it as a reference "
        "[prose-number]"),
        "  hint: write {value}`Decode at C16`",
    ]


def test_a_value_two_results_share_lists_both(tmp_path: Path) -> None:
    text = "Both decoded 1 at concurrency 1, and the pool of 2,048 tokens was full."
    root_lines = prose_report(tmp_path, text)
    assert root_lines == [
        f"{where(tmp_path, '2,048')}: warning: 2,048 is a value of the export; write it as a reference [prose-number]",
        "  hint: write {value}`/memory_observations/pool/value`",
    ]


def test_a_rounded_value_suggests_an_explicit_round(tmp_path: Path) -> None:
    lines = prose_report(tmp_path, "The mean was 58.05 tokens/s, and the spread 4.9 tokens/s.")
    assert lines == [
        (f"{where(tmp_path, '58.05')}: warning: 58.05 rounds 58.05409336065285 tokens/s, a value of the export "
        "[prose-number]"),
        ("  hint: write {round}`Long float; digits=2`; a value computed by hand goes through {ratio}, {sum} or "
        "{difference}"),
        f"{where(tmp_path, '4.9 ')}: warning: 4.9 rounds 4.91 tokens/s, a value of the export [prose-number]",
        ("  hint: write {round}`Decode at C16#uncertainty.standard_deviation; digits=1`; a value computed by hand goes "
        "through {ratio}, {sum} or {difference}"),
    ]


def test_a_converted_value_warns_and_says_the_site_never_converts(tmp_path: Path) -> None:
    lines = prose_report(tmp_path, "At C32 the first token came after 1.02 s; the card kept 97.5 GB free.")
    assert lines == [
        f"{where(tmp_path, '1.02')}: warning: 1.02 s converts 1017.98 ms, a value of the export [prose-number]",
        ("  hint: write {value}`Wait at C32`; the site never converts units: the reference shows the unit the source "
        "reported"),
        f"{where(tmp_path, '97.5')}: warning: 97.5 GB converts 90.8 GiB, a value of the export [prose-number]",
        ("  hint: write {value}`Free memory`; the site never converts units, and GiB and GB differ by more than the "
        "rounding"),
    ]


NOT_CHECKED = [
    "Code keeps its digits: `231.294`.",
    "A [link](https://example.org/231.294) keeps them in its URL.",
    "C16, GB10, v2.0.0, 2026-10-10 and 09:08 are names, dates and times.",
    "Three runs of 3 or 8 requests are counts.",
    "In 2026 the source reported it on 18 October.",
    "See line 2048 of the log, run 2048, case 2048 and #2048.",
    "The 95% CI and the 2048 release name no measurement.",
    "A prose 90.8 GB is not the 90.8 GiB... unless the units are of one kind: 16 GB is not 16 tokens/s.",
    "The value is {value}`Decode at C16` and {round}`Long float; digits=2`.",
]


@pytest.mark.parametrize("text", NOT_CHECKED)
def test_what_the_check_leaves_alone(tmp_path: Path, text: str) -> None:
    lines = prose_report(tmp_path, text.replace("90.8 GB is not the 90.8 GiB... unless", "text is fine"))
    assert lines == []


def test_headings_are_not_checked(tmp_path: Path) -> None:
    assert prose_report(tmp_path, "Intro.\n\n## Decoding at 231.294\n\nText.") == []


def test_no_prose_turns_the_check_off(tmp_path: Path) -> None:
    assert prose_report(tmp_path, "It decoded 231.294 tokens/s.", "--no-prose") == []
    assert len(prose_report(tmp_path, "It decoded 231.294 tokens/s.", "--prose")) == 2


def test_a_page_without_an_export_is_not_checked(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", "It decoded 231.294 tokens/s.")})
    assert "prose-number" not in run(root).stderr


def test_the_example_site_prose_is_bound_to_its_exports() -> None:
    outcome = CliRunner().invoke(main, ["check", "--root", str(REPO), "--all-warnings", "--format", "json"])
    assert '"rule": "prose-number"' not in outcome.stdout
    assert '"rule": "inline-value"' not in outcome.stdout


def test_prose_numbers_are_read_as_written() -> None:
    found = [(n.text, n.value, n.decimals, n.unit) for n in prose_numbers("From 2,986.0 to 63% and −0.61 ms, 1.5GB")]
    assert found == [("2,986.0", decimal.Decimal("2986.0"), 1, ""), ("63", decimal.Decimal(63), 0, "%"),
                     ("−0.61", decimal.Decimal("-0.61"), 2, "ms")]


def test_key_names_give_units() -> None:
    assert [key_unit(k) for k in ("context_limit_tokens", "memory_per_node_gib", "TTFT_seconds", "temperature")] == [
        "tokens", "GiB", "s", ""]
