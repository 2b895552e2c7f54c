"""The diff report on its own: field comparison, Markdown safety, size bounds, JSON (no git, no builds)."""

from __future__ import annotations

import json
import re

import pytest
from markdown_it import MarkdownIt

from evidencepress.core.diagnostics import Location, note, warning
from evidencepress.core.jsontext import AuthoredFloat, parse_float
from evidencepress.datadiff.fields import object_changes, relative_change
from evidencepress.datadiff.mdtext import code, text
from evidencepress.review import NO_CHANGES, ReportOptions, json_report, markdown_report
from evidencepress.review.bounded import Block, bounded
from evidencepress.review.compare import compare_charts, compare_results, compare_sources, compare_warnings
from evidencepress.review.model import ABSENT, FieldChange, PageChange, ResultChange, Review, VerificationChange


@pytest.mark.parametrize(("old", "new", "percent", "note"), [
    (40, 30, -25.0, "-25.0 %"),
    (42.5, 45.0, pytest.approx(5.882352941), "+5.9 %"),
    (100, 100.01, pytest.approx(0.01), "+<0.1 %"),
    (-10, -5, 50.0, "+50.0 %"),
    (0, 3, None, "old value is 0: no percentage"),
    (parse_float("1e-400"), 1, None, "old value is 0: no percentage"),
    (22.5, AuthoredFloat("22.50"), 0.0, "same number, written differently"),
    ("12", 13, None, ""),
    (True, 1, None, ""),
    (10**400, 1, None, "too large for a percentage"),
])
def test_relative_change(old: object, new: object, percent: float | None, note: str) -> None:
    assert relative_change(old, new) == (percent, note)


def test_object_changes_follow_paths_and_match_entries_by_label() -> None:
    old = {"facts": [{"label": "Context", "value": 1}, {"label": "Gone", "value": True}],
           "conditions": {"cross_source_ranking_allowed": False}}
    new = {"facts": [{"label": "New", "value": "x"}, {"label": "Context", "value": 2}],
           "conditions": {"cross_source_ranking_allowed": False, "note": None}}
    assert object_changes(old, new) == [
        FieldChange('facts["New"]', ABSENT, {"label": "New", "value": "x"}),
        FieldChange('facts["Context"].value', 1, 2, 100.0, "+100.0 %"),
        FieldChange('facts["Gone"]', {"label": "Gone", "value": True}, ABSENT),
        FieldChange("conditions.note", ABSENT, None),
    ]
    assert object_changes({"xs": [1, 2]}, {"xs": [1, 3, 4]}) == [FieldChange("xs[1]", 2, 3), FieldChange("xs[2]", ABSENT, 4)]


def test_results_are_matched_by_record_and_label_not_position() -> None:
    a = {"source_record_id": "r1", "label": "A", "value": 1}
    b = {"source_record_id": "r1", "label": "B", "value": 2}
    other = {"source_record_id": "r2", "label": "A", "value": 1}
    changes = compare_results([a, b], [b, other, {**a, "value": 1.5}])
    assert [(c.status, c.source_record_id, c.label) for c in changes] == [("added", "r2", "A"), ("changed", "r1", "A")]
    assert changes[1].changes == (FieldChange("value", 1, 1.5, 50.0, "+50.0 %"),)


def test_a_snapshot_source_keeps_its_url_and_a_pinned_source_moves_with_its_revision() -> None:
    snapshot = {"publisher": "p", "url": "https://example.org/report", "revision": "snapshot-2026-10-18",
                "sha256": "a" * 64}
    pinned = {"publisher": "q", "url": "https://github.com/o/r/blob/1234567/README.md", "revision": "1234567",
              "sha256": "b" * 64}
    moved = {**pinned, "url": "https://github.com/o/r/blob/89abcde/README.md", "revision": "89abcde"}
    other = {**pinned, "url": "https://github.com/o/other/blob/89abcde/README.md", "revision": "89abcde"}
    changes = compare_sources([snapshot, pinned], [{**snapshot, "revision": "snapshot-2026-11-02"}, moved, other])
    assert [(c.status, c.url) for c in changes] == [("changed", snapshot["url"]), ("changed", moved["url"]),
                                                    ("added", other["url"])]
    assert [c.field for c in changes[1].changes] == ["revision", "url"]


def test_charts_group_wide_and_narrow_files() -> None:
    old = {"a.svg": b"1", "a.narrow.svg": b"1", "b.svg": b"2", "b.narrow.svg": b"2", "gone.svg": b"3"}
    new = {"a.svg": b"1", "a.narrow.svg": b"9", "b.svg": b"2", "b.narrow.svg": b"2", "new.svg": b"4"}
    changes = compare_charts(old, new)
    assert [(c.status, c.chart_id, [(f.name, f.status) for f in c.files]) for c in changes] == [
        ("changed", "a", [("a.narrow.svg", "changed")]),
        ("removed", "gone", [("gone.svg", "removed")]),
        ("added", "new", [("new.svg", "added")]),
    ]


def test_warnings_are_matched_without_line_numbers() -> None:
    moved = warning(Location("content/a.md", 10, 3), "recommended condition absent: model", "recommended")
    old = [moved, warning(Location("content/a.md", 20, 3), "unpinned source", "pinned")]
    new = [warning(Location("content/a.md", 14, 3), "recommended condition absent: model", "recommended"),
           warning(Location("content/b.md", 5, 1), "unit not in the vocabulary", "unit")]
    fresh, resolved = compare_warnings(old, new)
    assert [str(p.location) for p in fresh or ()] == ["content/b.md:5:1"] and resolved == 1
    assert compare_warnings(None, new) == (None, None)


def test_a_warning_whose_hint_was_reworded_is_the_same_warning() -> None:
    """Matched by rule, file, path and message (issue 29): nine unchanged warnings were reported as
    new and as no longer reported at once because the code reworded their hint."""
    old = [warning(Location("content/a.md", 10, 3), "recommended condition absent: model", "recommended",
                   "reported_results[0].conditions", "write null when the source does not say")]
    new = [warning(Location("content/a.md", 10, 3), "recommended condition absent: model", "recommended",
                   "reported_results[0].conditions", "write null for a condition the source does not report")]
    assert compare_warnings(old, new) == ((), 0)
    other_path = [warning(Location("content/a.md", 10, 3), "recommended condition absent: model", "recommended",
                          "reported_results[1].conditions", "write null for a condition the source does not report")]
    fresh, resolved = compare_warnings(old, other_path)
    assert len(fresh or ()) == 1 and resolved == 1


def test_a_note_is_not_a_new_warning() -> None:
    """A draft left out is a note: a pull request that adds a draft has no new warning."""
    draft = note(Location("content/guides/new.md"), "draft: not published", "draft")
    assert compare_warnings([], [draft]) == ((), 0)
    assert compare_warnings([draft], []) == ((), 0)


HOSTILE = "<script>alert(1)</script> | *bold* [x](javascript:y) @alice </details> `tick`"


def review_of(*pages: PageChange) -> Review:
    return Review("base", "head", pages, (), 0)


def hostile_page() -> PageChange:
    result = {"label": HOSTILE, "source_record_id": "r", "value": 1, "unit": "tokens/s", "statistic": HOSTILE,
              "conditions": {"note": HOSTILE}}
    change = ResultChange("changed", "r", HOSTILE, result, (FieldChange("conditions.note", None, HOSTILE),))
    return PageChange("changed", "/guides/a/", HOSTILE, results=(change, ResultChange("added", "r", "B", result)))


def test_content_cannot_inject_markup_or_mentions() -> None:
    report = markdown_report(review_of(hostile_page()))
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(report)
    assert "<script>" not in html and "<a " not in html
    assert html.count("<details>") == html.count("</details>") == 1
    outside_code = re.sub(r"<code>.*?</code>", "", html)
    assert "@alice" not in outside_code and "@\u200balice" in outside_code  # GitHub links no mention in code
    row = next(line for line in report.splitlines() if line.startswith("| ") and "/guides/a/" in line)
    assert row.count(" | ") == 5  # six cells: the title's pipe is escaped
    assert "<strong>&lt;script&gt;alert(1)&lt;/script&gt; | *bold*" in report  # the <summary> is HTML-escaped


def test_a_cited_line_cannot_inject_markup_or_mentions() -> None:
    """The cited line comes from a third-party document: it reads as text."""
    checks = (VerificationChange("reported_results", "r", HOSTILE, "verified", "absent", 3, HOSTILE),
              VerificationChange("facts", "", "B", None, HOSTILE, None, None))
    report = markdown_report(review_of(PageChange("changed", "/a/", "A", verification=checks)))
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(report)
    assert "<script>" not in html and "<a " not in html and "@alice" not in re.sub(r"<code>.*?</code>", "", html)
    assert html.count("<details>") == html.count("</details>") == 1
    lines = [line for line in report.splitlines() if line.startswith("- ") and "→" in line]
    shown = text(HOSTILE)
    assert lines == [f"- ⚠ **{shown}** · `r`: verified → **absent** (not on its line), line 3: “{shown}”",
                     f"- fact **B**: (new) → {shown}"]
    assert shown.startswith("\\<script\\>alert(1)\\</script\\> \\| \\*bold\\* \\[x\\](javascript:y) @\u200balice")
    assert "source checks: **1 absent**, 1 \\<script\\>alert(1)\\</script\\>" in report


def test_code_spans_and_text_escape() -> None:
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    assert code("a|b") == "`a|b`" and code("a|b", in_table=True) == "`a\\|b`"
    assert code("two\nlines") == "`two lines`"
    assert text("a_b *c* <d> @e") == "a\\_b \\*c\\* \\<d\\> @\u200be"


def test_no_change_is_one_line_and_new_warnings_alone_are_reported() -> None:
    assert markdown_report(review_of()) == NO_CHANGES + "\n"
    problem = warning(Location("content/a.md", 3, 1), "unpinned source", "pinned", hint="pin it")
    report = markdown_report(Review("base", "head", (), (problem,), 0))
    assert report.startswith("### Published data: `base` → `head`\n\nno changes to published data.\n\n"
                             "New warnings: **1** (listed below the table).\n")
    assert "- `content/a.md:3:1: warning: unpinned source [pinned]`\n  - hint: pin it\n" in report


def test_bounded_keeps_the_limit_and_closes_what_it_opens() -> None:
    blocks = [Block(("# head",), tuple(f"row {i}" for i in range(50)))]
    blocks += [Block(("<details>", f"<summary>{i}</summary>", ""), tuple("- line " + "x" * 80 for _ in range(40)),
                     ("", "</details>"), page=True) for i in range(30)]
    for limit in (2000, 5000, 20000):
        report = bounded(blocks, limit)
        assert len(report) <= limit
        assert report.count("<details>") == report.count("</details>")
        assert report.rstrip().splitlines()[-1].startswith(f"**Report truncated** to {limit:,} characters")
    whole = bounded(blocks, 10**6)
    assert "truncated" not in whole and whole.count("<details>") == 30


def test_one_huge_line_is_left_out_not_split() -> None:
    page = PageChange("changed", "/a/", "A", other=(FieldChange("facts[0].value", "x" * 100000, "y"),))
    report = markdown_report(review_of(page), ReportOptions(max_chars=4000))
    assert len(report) <= 4000 and "x" * 100 not in report
    assert "more lines of this section left out" in report


def test_json_report_leaves_absent_out_and_keeps_null() -> None:
    page = PageChange("changed", "/a/", "A", other=(FieldChange("conditions.x", ABSENT, None),
                                                      FieldChange("facts[0].value", AuthoredFloat("1.50"), ABSENT)))
    text_report = json_report(review_of(page))
    assert '"old": 1.50' in text_report
    data = json.loads(text_report)
    assert data["pages"][0]["other"] == [{"field": "conditions.x", "new": None}, {"field": "facts[0].value", "old": 1.5}]


def test_unit_statistic_and_uncertainty_changes_read_as_field_lines() -> None:
    old = {"source_record_id": "r", "label": "A", "value": 1, "unit": "ms", "statistic": "one run", "uncertainty": None,
           "conditions": {"concurrency": 1}}
    new = {**old, "value": 2, "unit": "s", "statistic": "mean of 3", "uncertainty": {"standard_deviation": 0.2},
           "conditions": {"concurrency": 1, "model": None}}
    sd = {**new, "label": "B", "uncertainty": {"standard_deviation": 0.25}}
    results = compare_results([old, {**sd, "uncertainty": {"standard_deviation": 0.2}}], [new, sd])
    report = markdown_report(review_of(PageChange("changed", "/a/", "A", results=results)))
    lines = report.splitlines()
    start = lines.index("- changed **A** · `r`")
    assert lines[start:start + 8] == [
        "- changed **A** · `r`",
        "  - value: `1` → `2` (+100.0 %)",
        '  - unit: `"ms"` → `"s"`',
        '  - statistic: `"one run"` → `"mean of 3"`',
        '  - uncertainty: `null` → `{"standard_deviation": 0.2}`',
        "  - condition `model`: (absent) → `null`",
        "- changed **B** · `r`",
        "  - uncertainty.standard\\_deviation: `0.2` → `0.25`",
    ]


def test_a_built_folder_compares_articles_only() -> None:
    from evidencepress.review.snapshot import site_snapshot

    envelope = {"title": "T", "url": "https://x/a/", "sources": [], "charts": []}
    article_md = '# A\n\n> Summary.\n\n<!-- evidencepress: {"summary": "Summary."} -->\n\nBody.\n\nChecked 2026-10-18. F.\n'
    files = {
        "index.json": json.dumps({"page": {**envelope, "pages": []}}).encode(),
        "index.md": b"# Home\n\n## Guides\n",
        "guides/a/index.json": json.dumps({"page": envelope, "facts": [], "reported_results": []}).encode(),
        "guides/a/index.md": article_md.encode(),
        "guides/a/c.svg": b"<svg/>",
        "explore/index.json": json.dumps({"page": envelope}).encode(),
        "explore/index.md": b"# Explore\n\nA table of every result.\n",
        "community/r/index.json": json.dumps({"page": envelope, "reported_results": []}).encode(),
        "community/r/index.md": b"# Record r\n\n> All results of r.\n\nText.\n",
    }
    snapshot = site_snapshot("folder", files)
    assert list(snapshot.pages) == ["/guides/a/"]
    page = snapshot.pages["/guides/a/"]
    assert page.text == '# A\n\n> Summary.\n\n<!-- evidencepress: {"summary": "Summary."} -->\n\nBody.'
    assert page.charts == {"c.svg": b"<svg/>"} and page.export == {"facts": [], "reported_results": []}
