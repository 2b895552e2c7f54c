"""Verification states as the site publishes them: index.json, the CSV and JSON tables, badges.

The sites cite a document the tests write themselves into the vault (sources/).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sitekit import CHART, SHA, SOURCE_URL, article, export, make_site, result

from evidencepress.cli import main
from evidencepress.content.parse import parse_page

DOCUMENT = (
    b"Benchmark notes\n"
    b"\n"
    b"Decode at C1 reached 42.5 tokens/s over 3 runs.\n"
    b"Prefill took 8.20 s at 1,024 tokens.\n"
    b"Total 188.5 tokens.\n"
)
DIGEST = hashlib.sha256(DOCUMENT).hexdigest()
LINE_3 = "Decode at C1 reached 42.5 tokens/s over 3 runs."
LINE_4 = "Prefill took 8.20 s at 1,024 tokens."


def cited(label: str, value: Any, line: int | None, **overrides: Any) -> dict[str, Any]:
    entry = result(label, value, source_document_sha256=DIGEST, **overrides)
    entry["evidence_url"] = SOURCE_URL + (f"#L{line}" if line is not None else "")
    if line is not None:
        entry["source_line"] = line
    return entry


RESULTS = [
    cited("Decode, \"quoted\" at C1", 42.5, 3),  # a label the CSV writer must quote (a label is one line)
    cited("Prefill", 8.2, 4, metric="prefill_time", unit="s"),
    cited("Total", 188.5, 4, source_record_id="other-record"),
    cited("Tokens", 1024, None),
]
FACT = {"label": "Runs", "value": "3 runs", "classification": "setting", "evidence_url": SOURCE_URL + "#L3",
        "source_line": 3, "source_document_sha256": DIGEST}


def site(root: Path, vault: bool = True) -> Path:
    text = article("Cited", "Text." + CHART, export(*RESULTS, facts=[FACT])).replace(SHA, DIGEST)
    make_site(root, {"guides/a.md": text})
    if vault:
        (root / "sources").mkdir()
        (root / "sources" / DIGEST).write_bytes(DOCUMENT)
    return root


def build(root: Path, *args: str) -> None:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", *args])
    assert outcome.exit_code == 0, outcome.output


def envelope(root: Path) -> dict[str, Any]:
    page: dict[str, Any] = json.loads((root / "_site/guides/a/index.json").read_text())["page"]
    return page


def test_index_json_carries_one_state_per_result_in_export_order(tmp_path: Path) -> None:
    root = site(tmp_path)
    build(root)
    page = envelope(root)
    assert page["verification"] == [
        {"pointer": "/reported_results/0", "state": "verified", "line": 3, "excerpt": LINE_3, "found_line": None},
        {"pointer": "/reported_results/1", "state": "literal-mismatch", "line": 4, "excerpt": LINE_4,
         "found_line": None},
        {"pointer": "/reported_results/2", "state": "moved", "line": 4, "excerpt": LINE_4, "found_line": 5},
        {"pointer": "/reported_results/3", "state": "no-line", "line": None, "excerpt": None, "found_line": None},
    ]
    assert page["facts_verification"] == [
        {"pointer": "/facts/0", "state": "verified", "line": 3, "excerpt": LINE_3, "found_line": None}]
    exported = json.loads((root / "_site/guides/a/index.json").read_text())
    assert exported["reported_results"][1]["value"] == 8.2  # the export itself stays as authored


def test_the_csv_and_json_tables_have_a_verification_column(tmp_path: Path) -> None:
    root = site(tmp_path)
    build(root)
    states = ["verified", "literal-mismatch", "moved", "no-line"]
    for name in ("guides/a/index.csv", "data/results.csv"):
        rows = list(csv.DictReader(io.StringIO((root / "_site" / name).read_text(), newline="")))
        assert [row["verification"] for row in rows] == states
        assert rows[0]["label"] == "Decode, \"quoted\" at C1"
    table = json.loads((root / "_site/data/results.json").read_text())
    assert table["columns"][-1] == "verification"
    assert [row["verification"] for row in table["results"]] == states
    script = (root / "_site/data/results.js").read_text()
    assert '"checks": {"verified": "✓ verified"' in script


def test_exports_leave_the_states_out_whatever_the_vault(tmp_path: Path) -> None:
    with_vault, without = site(tmp_path / "with"), site(tmp_path / "without", vault=False)
    build(with_vault)
    build(without)
    for name in ("results.csv", "guides/a.json"):
        assert (with_vault / "exports" / name).read_bytes() == (without / "exports" / name).read_bytes()
    assert b"verification" not in (with_vault / "exports/results.csv").read_bytes()
    assert b"verification" not in (with_vault / "exports/guides/a.json").read_bytes()


def test_chart_tables_and_record_pages_show_badges_with_the_cited_line(tmp_path: Path) -> None:
    root = site(tmp_path)
    build(root)
    html = (root / "_site/guides/a/index.html").read_text()
    assert '<th scope="col">Source line</th>' in html
    assert 'class="check check-verified" tabindex="0" role="note"' in html
    assert (f'data-tip="The value stands on line 3 of the cited document. Line 3: “{LINE_3}”"') in html
    assert f'<q class="excerpt" title="{LINE_3}">{LINE_3}</q>' in html
    record = (root / "_site/community/example-record/index.html").read_text()
    assert record.count('class="check check-') == 3  # the record's three results
    assert "≈ written differently</span> · line 4" in record
    other = (root / "_site/community/other-record/index.html").read_text()
    assert "↕ on another line</span> · line 4, found on line 5" in other
    assert json.loads((root / "_site/community/other-record/index.json").read_text())["page"]["verification"] == [
        {"pointer": "/reported_results/0", "state": "moved", "line": 4, "excerpt": LINE_4, "found_line": 5}]


def test_without_the_document_the_tables_say_once_that_nothing_was_checked(tmp_path: Path) -> None:
    root = site(tmp_path, vault=False)
    build(root)
    html = (root / "_site/guides/a/index.html").read_text()
    assert "Source line</th>" not in html and 'class="check ' not in html
    assert "were not in the vault when this page was built" in html
    assert {entry["state"] for entry in envelope(root)["verification"]} == {"source-missing"}


def test_a_document_leaving_the_vault_renders_the_cached_pages_again(tmp_path: Path) -> None:
    root = site(tmp_path)
    build(root)
    assert envelope(root)["verification"][0]["state"] == "verified"
    (root / "sources" / DIGEST).unlink()
    build(root)  # the page and its cache entries are unchanged: only the vault is
    assert {entry["state"] for entry in envelope(root)["verification"]} == {"source-missing"}
    record = (root / "_site/community/example-record/index.html").read_text()
    assert 'class="check ' not in record
    rows = list(csv.DictReader(io.StringIO((root / "_site/guides/a/index.csv").read_text(), newline="")))
    assert {row["verification"] for row in rows} == {"source-missing"}


def test_a_page_is_verified_again_only_when_it_or_a_document_it_cites_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every claim of every page was looked up again on each build (1 s for 5,000 articles, issue 27)."""
    from evidencepress.build import plan

    root = site(tmp_path)
    make_site(root, {"guides/b.md": article("Other", "Text.", export(result("Other run")))})
    build(root)
    verified: list[int] = []
    real = plan.verify_page
    monkeypatch.setattr(plan, "verify_page", lambda claims, *rest: verified.append(len(claims)) or real(claims, *rest))
    (root / "content/guides/b.md").write_text(article("Other", "Text, edited.", export(result("Other run"))))
    build(root)
    assert verified == [1]  # the edited page only
    (root / "sources" / DIGEST).unlink()
    build(root)
    assert verified == [1, 5]  # the page that cites the document that left the vault
    assert {entry["state"] for entry in envelope(root)["verification"]} == {"source-missing"}


def test_a_document_added_to_the_vault_verifies_the_cached_page(tmp_path: Path) -> None:
    """No page keeps its claims: a page read back from the page cache makes them from its export
    when a document it cites enters the vault, and reads as a build without the cache reads it."""
    root = site(tmp_path / "site", vault=False)
    build(root)
    assert {entry["state"] for entry in envelope(root)["verification"]} == {"source-missing"}
    (root / "sources").mkdir()
    (root / "sources" / DIGEST).write_bytes(DOCUMENT)
    build(root)
    fresh = site(tmp_path / "fresh")
    build(fresh, "--no-cache")
    assert envelope(root)["verification"] == envelope(fresh)["verification"]
    assert envelope(root)["verification"][0]["state"] == "verified"


def test_a_page_is_parsed_again_only_to_place_its_verification_problems(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A page's claims are made from its export, never by parsing it a second time (a cold build
    would parse every page twice to verify it). A page is parsed again once to place its
    verification problems, and only a page that has some: the claims keep JSON paths (placing
    every literal scanned every export's text, issue 27)."""
    from evidencepress.checks import page

    parsed: list[str] = []  # a page parsed again (``Page.reparsed``)
    monkeypatch.setattr(page, "parse_page", lambda source: parsed.append(source.path) or parse_page(source))
    root = site(tmp_path)
    make_site(root, {"guides/b.md": article("Other", "Text.", export(result("Other run")))})
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    assert outcome.exit_code == 0, outcome.output
    assert parsed == ["content/guides/a.md"]  # b cites a document the vault does not hold: no problem of its own
    assert "content/guides/a.md:" in outcome.output and "content/guides/b.md:" not in outcome.output


def test_llms_txt_explains_the_states(tmp_path: Path) -> None:
    root = site(tmp_path)
    build(root)
    text = (root / "_site/llms.txt").read_text()
    for state in ("`verified`", "`literal-mismatch`", "`moved`", "`no-line`", "`source-missing`", "`absent`"):
        assert state in text
    explore = (root / "_site/explore/index.html").read_text()
    assert '<select id="filter-verification" name="verification">' in explore


def test_states_written_into_the_cached_csv_lines_are_the_csv_writers_bytes(tmp_path: Path) -> None:
    from evidencepress.build.plan import plan_site
    from evidencepress.core.options import BuildOptions
    from evidencepress.site.dataset import csv_lines

    root = site(tmp_path)
    plan, _ = plan_site(BuildOptions(root, use_cache=False, jobs=1))
    assert plan is not None
    table = plan.index.results
    written = table.csv_lines_of("/guides/a/")
    assert written == csv_lines(table.rows_of("/guides/a/"))  # the rows' own cells, states included
    assert written.count(b",literal-mismatch\r\n") == 1 and b'"Decode, ""quoted"" at C1"' in written


def test_pages_with_badges_are_well_formed_html(tmp_path: Path) -> None:
    import html5lib

    root = site(tmp_path)
    build(root)
    parser = html5lib.HTMLParser(strict=True)
    for page in ("guides/a/index.html", "community/example-record/index.html", "explore/index.html"):
        parser.parse((root / "_site" / page).read_bytes())
