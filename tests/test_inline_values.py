"""Inline values: {value}`record/label` in the prose renders the export's literal, linked, with its conditions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sitekit import SOURCE_URL, article, export, make_site, result

from evidencepress.cli import main
from evidencepress.content.inlinerefs import Ref, RoleError, RoleSpec, parse_role

EVIDENCE = SOURCE_URL + "#L10"
ROW = "../../community/example-record/#decode-at-c1"  # the result's row on its record page
FILE = "content/guides/a.md"


def run(root: Path, *arguments: str) -> Result:
    extra = ["--jobs", "1"] if arguments[0] == "build" else []
    outcome = CliRunner().invoke(main, [*arguments, "--root", str(root), *extra])
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise AssertionError(outcome.output) from outcome.exception
    return outcome


def three_results() -> dict[str, object]:
    return export(
        result("Decode at C1", 88.697, uncertainty={"standard_deviation": 2.562}),
        result("Decode at C16", 231.294),
        result("Free memory", 3414, unit="MiB", metric="free_memory", source_record_id="memory-record",
               evidence_url=SOURCE_URL + "#L40"),
        memory_observations=[{"id": "peak", "value": 97.2, "unit": "GiB", "evidence_url": SOURCE_URL + "#L50",
                              "source_document_sha256": "a" * 64}],
    )


def site(tmp_path: Path, body: str, document: dict[str, object] | None = None) -> Path:
    text = article("A", body + "\n\n## Part\n\nMore.\n", document if document is not None else three_results())
    return make_site(tmp_path, {"guides/a.md": text})


def at(root: Path, needle: str, nth: int = 0) -> str:
    """``file:line:col`` of the nth occurrence of ``needle`` in the article, counted by hand."""
    text = (root / FILE).read_text(encoding="utf-8")
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    line = text.count("\n", 0, offset) + 1
    return f"{FILE}:{line}:{offset - text.rfind(chr(10), 0, offset)}"


def built(tmp_path: Path, body: str) -> tuple[str, str]:
    root = site(tmp_path, body)
    outcome = run(root, "build")
    assert outcome.exit_code == 0, outcome.stderr
    html = (root / "_site/guides/a/index.html").read_text(encoding="utf-8")
    prose = html[html.index('<div class="prose">'):html.index("</div>", html.index('<div class="prose">'))]
    markdown = (root / "_site/guides/a/index.md").read_text(encoding="utf-8")
    return prose, shown(markdown.split("\n\n")[3])  # the first paragraph of the body, as it reads


ROLE_COMMENTS = re.compile(r"<!--=.*?-->|<!--/=\n*-->", re.DOTALL)


def shown(markdown: str) -> str:
    """Markdown as a reader sees it: without the comments that carry each value's role for import."""
    return ROLE_COMMENTS.sub("", markdown)


# Conditions by their schema titles (the notes printed raw keys such as ``kv_dtype``, issue 28).
CONDITIONS = ("Conditions: System: 1 x DGX Spark; Experiment date: 2026-10-01; Concurrency: 1; Node count: 1; "
              "Model: m; Engine: vLLM; Weight precision: bf16; KV cache data type: bf16; Input tokens: 128; "
              "Output tokens: 256; Temperature: 0; Thinking: false; Repetitions: 1. Not reported: Model artifact, "
              "Model revision, Runtime execution revision, Cache state, Context limit (tokens).")


def note(prose: str, ident: str) -> str:
    """The text of a value's note in the list after the body."""
    found = re.search(rf'<li id="{ident}"[^>]*>(.*?)</li>', prose)
    assert found is not None, prose
    return found.group(1)


def test_a_value_is_its_literal_and_unit_linked_to_its_row_and_evidence_with_conditions(tmp_path: Path) -> None:
    """HTML links the record row (cited line, check, evidence); Markdown the evidence itself. What the
    value is and its conditions are in a note after the body, reached by a small link named by the value."""
    prose, markdown = built(tmp_path, "Decode ran at {value}`example-record/Decode at C1` on one Spark.")
    # the value and its "i" in one unbreakable pair: the "i" never starts a line alone (issue 28)
    assert (f'<p>Decode ran at <span class="ev-pair"><a class="ev-value" href="{ROW}">88.697 tokens/s</a><a class="ev-more" '
            'href="#ev-note-1" aria-label="About 88.697 tokens/s"><span aria-hidden="true">i</span></a></span> on one Spark.</p>'
            ) in prose
    assert note(prose, "ev-note-1") == (f'Decode at C1 (example-record). one run. '
                                        f'<a href="{ROW}">Every condition, its source line and its check</a>')
    # What the record's results on the page share is written once, after the notes, and each note points to it.
    assert '<li id="ev-note-1" data-shared="ev-shared-1">' in prose
    assert ('<p class="ev-shared" id="ev-shared-1">example-record · Conditions all its results on this page share: '
            + CONDITIONS.removeprefix("Conditions: ").replace("Not reported:", "Not reported in any:") + "</p>") in prose
    assert " title=" not in prose
    assert markdown == f"Decode ran at [88.697 tokens/s]({EVIDENCE}) on one Spark."


def test_a_note_names_only_what_sets_a_value_apart_from_its_records_other_results(tmp_path: Path) -> None:
    """Conditions every result of the record on the page shares are left to the record row (linked)."""
    prose, _ = built(tmp_path, "C1 {value}`Decode at C1`, C16 {value}`Decode at C16` and C1 again {value}`Decode at C1`.")
    assert prose.count('<li id="ev-note-') == 2  # the same note is written once
    assert prose.count('<p class="ev-shared"') == 1  # the record's shared conditions once
    assert prose.count('href="#ev-note-1"') == 2


def test_fields_labels_pointers_and_nounit(tmp_path: Path) -> None:
    body = ("SD {value}`Decode at C1#uncertainty.standard_deviation`, C{value}`Decode at C1#conditions.concurrency`, "
            "{value}`Decode at C16; nounit`, {value}`/memory_observations/peak/value`, "
            "{value}`/reported_results/2/value` and {value}`memory-record/Free memory#conditions.model`.")
    _, markdown = built(tmp_path, body)
    assert markdown == (f"SD [2.562 tokens/s]({EVIDENCE}), C[1]({EVIDENCE}), [231.294]({EVIDENCE}), "
                        f"[97.2 GiB]({SOURCE_URL}#L50), [3,414 MiB]({SOURCE_URL}#L40) and [m]({SOURCE_URL}#L40).")


def test_a_derived_value_shows_its_formula_and_is_marked(tmp_path: Path) -> None:
    body = ("C16 gives {ratio}`Decode at C16; Decode at C1; digits=1` times C1; both add up to "
            "{sum}`Decode at C1; Decode at C16` and differ by {difference}`Decode at C16; Decode at C1`.")
    prose, markdown = built(tmp_path, body)
    c1, c16 = f"[88.697 tokens/s]({EVIDENCE})", f"[231.294 tokens/s]({EVIDENCE})"
    assert markdown == (f"C16 gives 2.6 (= {c16} ÷ {c1}) times C1; both add up to 319.991 tokens/s (= {c1} + {c16}) "
                        f"and differ by 142.597 tokens/s (= {c16} − {c1}).")
    assert ('<span class="ev-pair"><span class="ev-derived">2.6</span><a class="ev-more" href="#ev-note-3" aria-label="About 2.6">'
            '<span aria-hidden="true">i</span></a></span><span class="ev-formula"> (= <span class="ev-pair"><a class="ev-value"') in prose
    assert note(prose, "ev-note-3") == ("Derived by the site: ratio of two values of the export, rounded half-up "
                                        "to 1 decimal place.")
    assert note(prose, "ev-note-4") == "Derived by the site: sum of two values of the export."


def test_a_rounded_value_is_marked_and_never_gains_digits(tmp_path: Path) -> None:
    body = ("Rounded {round}`Decode at C16; digits=1`, {round}`Decode at C16; digits=0; nounit`, "
            "kept {round}`Decode at C16; digits=3` and {round}`Decode at C16; digits=5`.")
    prose, markdown = built(tmp_path, body)
    assert markdown == (f"Rounded [≈231.3 tokens/s]({EVIDENCE}), [≈231]({EVIDENCE}), kept [231.294 tokens/s]({EVIDENCE}) "
                        f"and [231.294 tokens/s]({EVIDENCE}).")
    assert f'<a class="ev-value ev-rounded" href="{ROW}6">≈231.3 tokens/s</a><a class="ev-more" href="#ev-note-1"' in prose
    assert note(prose, "ev-note-1").startswith("Derived by the site: rounded half-up to 1 decimal place from "
                                               "231.294 tokens/s. Decode at C16 (example-record). one run.")


def test_values_in_tables_and_link_text(tmp_path: Path) -> None:
    body = "See [the peak {value}`/memory_observations/peak/value`](#part).\n\n| C | rate |\n|---|--:|\n" \
           "| 1 | {value}`Decode at C1; nounit` |"
    prose, markdown = built(tmp_path, body)
    assert markdown == "See [the peak 97.2 GiB](#part)."
    assert '<a href="#part">the peak <span class="ev-value">97.2 GiB</span></a>.' in prose  # no link in a link
    assert (f'<td style="text-align:right"><span class="ev-pair"><a class="ev-value" href="{ROW}">88.697</a>'
            '<a class="ev-more" href="#ev-note-1"') in prose
    assert 'ev-note-2' not in prose  # the value inside the link has no note


def test_a_value_outside_the_results_links_its_evidence_and_a_row_link_resolves(tmp_path: Path) -> None:
    prose, _ = built(tmp_path, "Peak {value}`/memory_observations/peak/value`, free {value}`Free memory`.")
    assert f'<a class="ev-value" href="{SOURCE_URL}#L50">97.2 GiB</a><a class="ev-more" href="#ev-note-1"' in prose
    assert note(prose, "ev-note-1") == "peak."
    assert '<a class="ev-value" href="../../community/memory-record/#free-memory">3,414 MiB</a>' in prose
    record = (tmp_path / "_site/community/memory-record/index.html").read_text(encoding="utf-8")
    assert 'id="free-memory"' in record


def test_index_json_is_the_export_unchanged(tmp_path: Path) -> None:
    root = site(tmp_path, "Value {value}`Decode at C1`.")
    assert run(root, "build").exit_code == 0
    page = json.loads((root / "_site/guides/a/index.json").read_bytes())
    assert page["reported_results"][0]["value"] == 88.697
    assert "{value}" not in shown((root / "_site/guides/a/index.md").read_text(encoding="utf-8"))


ERRORS = [
    ("{value}`example-record/Decode at C2`",
     "`example-record/Decode at C2`: no reported result is labelled 'Decode at C2' in record 'example-record'",
     "did you mean 'Decode at C1'?"),
    ("{value}`nope/Decode at C1`", "`nope/Decode at C1`: no reported result has source_record_id 'nope'",
     "records of this export: 'example-record', 'memory-record'"),
    ("{value}`Decode at C1#conditions.concurency`",
     "`Decode at C1#conditions.concurency`: the result has no field 'conditions.concurency'",
     "did you mean 'conditions.concurrency'?"),
    ("{value}`Decode at C1#conditions`", "`Decode at C1#conditions`: selects an object, not one value",
     "name one value inside it, e.g. #conditions.system"),
    ("{value}`/reported_results/9/value`",
     "`/reported_results/9/value`: /reported_results has 3 entries, so no entry 9", "entries are counted from 0"),
    ("{value}`/memory_observations/peek/value`",
     "`/memory_observations/peek/value`: /memory_observations has no 'peek'", "did you mean 'peak'?"),
    ("{ratio}`Decode at C16; Decode at C1`", "231.294 ÷ 88.697 has no exact decimal form in 60 digits",
     "say how many decimal places to show, e.g. `; digits=2` (rounded half-up)"),
    ("{ratio}`Decode at C16; Free memory; digits=2`", "{ratio} of values in different units: 'tokens/s' and 'MiB'",
     "the site never converts units; derive from values reported in one unit"),
    ("{sum}`Decode at C1; Decode at C1#conditions.model`",
     "{sum} needs numbers, and `Decode at C1#conditions.model` is a string",
     "reference a numeric field, e.g. the result's value"),
    ("{value}`Decode at C1; digits=1`",
     "digits= rounds a derived value; {value} shows the value exactly as authored",
     "to round it, write {round}`Decode at C1; digits=1`"),
    ("{value}`Decode at C1; Decode at C16`", "{value} takes one reference, got 2",
     ("write {value}`record-id/label`, {round}`record-id/label; digits=N`, or {ratio}, {sum} or {difference} with "
     "references separated by `;`")),
    ("{ratio}`Decode at C1; Decode at C16; digits=x`", "digits=x is not a number of decimal places",
     "write digits=0 to digits=12"),
    ("{value}`Decode at C1; nounit=yes`", "unknown option 'nounit=yes'",
     "options are digits=N (derived values) and nounit"),
    ("{value}`Decode at C11`", "`Decode at C11`: no reported result is labelled 'Decode at C11'",
     "did you mean 'Decode at C1'?"),
    ("{mean}`Decode at C1; Decode at C16`", "unknown inline role {mean}",
     "inline values use {value}, {round}, {ratio}, {sum} or {difference}"),
    ("{round}`Decode at C1`", "{round} needs digits=N, the decimal places to keep", "write {round}`Decode at C1; digits=2`"),
    ("{round}`Decode at C1#conditions.model; digits=1`",
     "{round} needs a number, and `Decode at C1#conditions.model` is a string",
     "reference a numeric field, e.g. the result's value"),
]


@pytest.mark.parametrize("role, message, hint", ERRORS, ids=[e[0] for e in ERRORS])
def test_a_reference_that_selects_nothing_is_an_error_at_its_place(tmp_path: Path, role: str, message: str,
                                                                   hint: str) -> None:
    root = site(tmp_path, f"Before.\n\nThe value is {role} here.")
    outcome = run(root, "check")
    assert outcome.exit_code == 1
    expected = f"{at(root, role)}: error: {message} [inline-value]\n" + (f"  hint: {hint}\n" if hint else "")
    assert outcome.stderr == expected + "1 error, 0 warnings\n"


@pytest.mark.parametrize("body", ["A paragraph\nwhose second line has {value}`No such run` in it.",
                                  "A paragraph\nof three lines\nwith {value}`No such run` on the last.",
                                  "- a list item\n  continued with {value}`No such run`.",
                                  "| run | rate |\n|---|---|\n| a | {value}`No such run` |"])
def test_a_broken_reference_after_the_first_line_of_its_block_is_one_error(tmp_path: Path, body: str) -> None:
    """It was also called 'an inline value where it cannot be shown' (issue 29): it is in the text."""
    root = site(tmp_path, f"Before.\n\n{body}")
    outcome = run(root, "check")
    assert outcome.stderr == (f"{at(root, '{value}`No such run`')}: error: `No such run`: no reported result is labelled "
                              "'No such run' [inline-value]\n  hint: labels: 'Decode at C1', 'Decode at C16', "
                              "'Free memory'\n1 error, 0 warnings\n")


EXTREMES = [
    ("{ratio}`Huge; Tiny; digits=2`",
     "the ratio, 1E+600, has too many digits to show with 2 decimal places (at most 60 digits)",
     "derive from values of a similar size, or write the values themselves"),
    ("{sum}`Huge; Huge; digits=2`",
     "the sum, 2E+300, has too many digits to show with 2 decimal places (at most 60 digits)",
     "derive from values of a similar size, or write the values themselves"),
    ("{difference}`Huge; Tiny`", "1E+300 − 1E-300 has no exact decimal form in 60 digits",
     "say how many decimal places to show, e.g. `; digits=2` (rounded half-up)"),
]


@pytest.mark.parametrize("role, message, hint", EXTREMES, ids=[e[0] for e in EXTREMES])
def test_a_derived_value_beyond_decimals_digits_is_an_error_not_a_traceback(tmp_path: Path, role: str, message: str,
                                                                            hint: str) -> None:
    """Values this large or small made decimal.InvalidOperation escape as a traceback (issue 25)."""
    root = site(tmp_path, f"Before.\n\nThe value is {role} here.", export(result("Huge", 1e300), result("Tiny", 1e-300)))
    outcome = run(root, "check")
    assert outcome.stderr == f"{at(root, role)}: error: {message} [inline-value]\n  hint: {hint}\n1 error, 0 warnings\n"


@pytest.mark.parametrize("role, shown", [
    ("{ratio}`One; Three`", "1 ÷ 3"),
    ("{sum}`Huge; Tiny`", "1E+300 + 1E-300"),
    ("{difference}`Huge; Tiny`", "1E+300 − 1E-300"),
])
def test_a_derived_value_without_an_exact_form_names_its_own_operator(tmp_path: Path, role: str, shown: str) -> None:
    """The message of a {sum} or {difference} spoke of "÷" (issue 25)."""
    document = export(result("Huge", 1e300), result("Tiny", 1e-300), result("One", 1), result("Three", 3))
    root = site(tmp_path, f"Before.\n\nThe value is {role} here.", document)
    outcome = run(root, "check")
    assert outcome.stderr == (f"{at(root, role)}: error: {shown} has no exact decimal form in 60 digits [inline-value]\n"
                              "  hint: say how many decimal places to show, e.g. `; digits=2` (rounded half-up)\n"
                              "1 error, 0 warnings\n")


def test_rounding_a_literal_longer_than_decimals_default_precision(tmp_path: Path) -> None:
    document = export(result("Long", 1.5))
    root = site(tmp_path, "Long {round}`Long; digits=2`.", document)
    text = (root / FILE).read_text(encoding="utf-8").replace('"value": 1.5', '"value": 123456789012345678901234567890.125')
    (root / FILE).write_text(text, encoding="utf-8")
    assert run(root, "build").exit_code == 0
    markdown = shown((root / "_site/guides/a/index.md").read_text(encoding="utf-8"))
    assert "Long [≈123,456,789,012,345,678,901,234,567,890.13 tokens/s]" in markdown


def test_a_label_used_by_two_records_needs_its_record(tmp_path: Path) -> None:
    document = export(result("Decode", 1.5), result("Decode", 2.5, source_record_id="second-record"))
    root = site(tmp_path, "Value {value}`Decode`.", document)
    outcome = run(root, "check")
    assert outcome.stderr.startswith(
        f"{at(root, '{value}')}: error: `Decode`: 2 reported results are labelled 'Decode' (records example-record, "
        "second-record) [inline-value]\n  hint: name the record: example-record/Decode\n")


def test_without_an_export_and_in_a_heading(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", "Value {value}`Decode`.\n\n## At {value}`x/y`\n")})
    outcome = run(root, "check")
    assert outcome.stderr == (
        f"{at(root, '{value}')}: error: an inline value needs the page's export [inline-value]\n"
        "  hint: add a ```json export fence with the value\n"
        f"{at(root, '{value}', 1)}: error: an inline value in a heading [inline-value]\n"
        "  hint: move the value into the text below: headings give the table of contents and the anchors\n"
        "2 errors, 0 warnings\n")


def test_positions_survive_escapes_tables_and_several_roles_on_a_line(tmp_path: Path) -> None:
    body = ("| a \\| b | {value}`Decode at C1` and {value}`Decode at C3` |\n|---|---|\n"
            "| `{value}` code | {value}`x/y` |")
    root = site(tmp_path, body)
    outcome = run(root, "check")
    lines = [line for line in outcome.stderr.splitlines() if ": error: " in line]
    assert [line.split(": error:")[0] for line in lines] == [at(root, "{value}`Decode at C3`"), at(root, "{value}`x/y`")]


def test_parse_role_grammar() -> None:
    spec = parse_role("ratio", " rec-1/Label a/b #uncertainty.standard_deviation ; /x/0/value ; digits=3 ")
    assert spec == RoleSpec("ratio", (
        Ref("rec-1/Label a/b #uncertainty.standard_deviation", "rec-1", "Label a/b", "uncertainty.standard_deviation",
            ""),
        Ref("/x/0/value", "", "", "", "/x/0/value")), 3, True)
    assert parse_role("value", "Label only") == RoleSpec("value", (Ref("Label only", "", "Label only", "value", ""),),
                                                         None, True)
    assert parse_role("value", "Not A Slug/label") == RoleSpec(
        "value", (Ref("Not A Slug/label", "", "Not A Slug/label", "value", ""),), None, True)
    assert isinstance(parse_role("sum", "a;;b"), RoleError)


def test_a_value_where_it_cannot_be_shown_is_an_error(tmp_path: Path) -> None:
    root = site(tmp_path, "An image ![rate {value}`Decode at C1`](/x.png) keeps its alt text plain.")
    outcome = run(root, "check")
    line = at(root, "An image").rsplit(":", 1)[0]
    assert outcome.stderr.startswith(f"{line}:1: error: an inline value where it cannot be shown: "
                                     "{value}`Decode at C1` [inline-value]\n  hint: write inline values in the text "
                                     "of paragraphs, lists and tables\n")


def test_tok_s_is_tokens_s_for_charts_inline_arithmetic_and_the_unit_check(tmp_path: Path) -> None:
    """One vocabulary names the spellings of one unit (issue 29): a chart drew tok/s on a tokens/s
    axis, {ratio} refused the pair as different units, and the unit check called tok/s unknown."""
    from sitekit import CHART

    document = export(result("Decode at C1", 88.697), result("Decode at C16", 231.294, unit="tok/s"),
                      result("Decode at C32", 240.5, unit="Tok/s"))
    body = CHART + "\nThe rate grows {ratio}`Decode at C16; Decode at C1; digits=2`-fold."
    root = make_site(tmp_path, {"guides/a.md": article("A", body + "\n\n## Part\n\nMore.\n", document)})
    outcome = run(root, "build")
    assert outcome.exit_code == 0, outcome.stderr
    warnings = [line for line in outcome.stderr.splitlines() if "[unit]" in line]
    line = at(root, '"Tok/s"').split(":")[1]
    assert warnings == [(f"{FILE}:{line}:7: warning: reported_results[2].unit: unit "
                        "'Tok/s' is not in the unit vocabulary [unit]")]
    assert "  hint: did you mean 'tokens/s'? use a unit of schema/units.json, or add this one there" in outcome.stderr
    html = (root / "_site/guides/a/index.html").read_text(encoding="utf-8")
    assert "2.61" in html  # 231.294 ÷ 88.697, rounded half-up
    assert "chart-unit" not in outcome.stderr


def test_index_md_carries_each_role_and_import_writes_it_back(tmp_path: Path) -> None:
    """import turned every reference into a literal number (issue 29): the body comes back as written."""
    body = ("Decode ran at {value}`Decode at C1` and {ratio}`Decode at C16; Decode at C1; digits=2`-fold\n"
            "at {value}`Decode\nat C16`; see [the peak {value}`/memory_observations/peak/value`](#part).")
    root = site(tmp_path, body)
    assert run(root, "build").exit_code == 0
    markdown = (root / "_site/guides/a/index.md").read_text(encoding="utf-8")
    assert ("Decode ran at <!--={value}`Decode at C1`-->[88.697 tokens/s](" + SOURCE_URL + "#L10)<!--/=--> and "
            "<!--={ratio}`Decode at C16; Decode at C1; digits=2`-->2.61 (= ") in markdown
    assert "<!--={value}`Decode\nat C16`-->" in markdown and "<!--/=\n-->" in markdown, "the line count is kept"
    imported = CliRunner().invoke(main, ["import", str(root / "_site/guides/a/index.md")])
    assert imported.exit_code == 0, imported.output
    assert body in imported.stdout
