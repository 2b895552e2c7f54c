"""`evidencepress diff` reports source checks that changed: a value that becomes absent, a document that
left the vault, a new value that is not verified (small sites with a vault the tests write themselves)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from sitekit import article, export, make_site
from test_review import build, commit, diff, git
from test_source_verification import DIGEST, DOCUMENT, PAGE, cited, fact, site, where

from evidencepress.build.plan import plan_site
from evidencepress.cli import main
from evidencepress.core.diagnostics import Severity
from evidencepress.core.options import BuildOptions
from evidencepress.review.compare import compare_verification
from evidencepress.review.snapshot import PageSnapshot

LINE_3 = "Decode at C1 reached 42.5 tokens/s over 3 runs."


def repository(root: Path) -> Path:
    """A site whose value is verified, committed without its vault (sites do not commit it)."""
    site(root, cited("Decode at C1", "42.5", 3))
    (root / ".gitignore").write_text("/sources/\n")
    git(root, "init", "-q", "-b", "main")
    commit(root, "first")
    return root


def edit(root: Path, old: str, new: str) -> None:
    page = root / PAGE
    page.write_text(page.read_text().replace(old, new))


ABSENT_REPORT = """\
### Published data: `{base}` → `{head}`

Pages: **1 changed** · results: 1 changed · source checks: **1 absent**

Also changed with these results: record pages `/community/example-record/`; data files `/data/results.csv`, \
`/data/results.json`, `/data/catalog.json`, `/data/gaps.json`, `/explore/`.

New warnings: **1** (listed below the table).

| Page | Change | Results | Sources | Charts | Text |
| --- | --- | --- | --- | --- | --- |
| Cited<br>`/guides/a/` | changed | 1 changed | — | — | — |

<details>
<summary><strong>New warnings</strong> (1)</summary>

- `{where}: warning: reported_results[0].value: value 42.6 is not on line 3 of the cited document: \
"Decode at C1 reached 42.5 tokens/s over 3 runs." [source-absent]`
  - hint: the document is sources/{digest}: correct the number or the line it cites

</details>

<details>
<summary><strong>Cited</strong> · <code>/guides/a/</code> · changed</summary>

**Source checks (each value against its cited line in the vault)**

- ⚠ **Decode at C1** · `example-record`: verified → **absent** (not on its line), line 3: \
“Decode at C1 reached 42.5 tokens/s over 3 runs.”

**Results (matched by source record and label)**

- changed **Decode at C1** · `example-record`
  - value: `42.5` → `42.6` tokens/s (+0.2 %)

</details>
"""


def test_a_value_that_becomes_absent_is_reported_with_the_line_it_cites(tmp_path: Path) -> None:
    """HEAD edits the value; both revisions are checked against the working tree's vault (a checkout has
    none), so BASE's value reads verified; the diff reports HEAD's absent value instead of failing on it."""
    root = repository(tmp_path / "repo")
    first = git(root, "rev-parse", "HEAD")
    edit(root, '"value": 42.5', '"value": 42.6')
    second = commit(root, "a digit changed")
    outcome = diff(root, first, second)
    assert (outcome.exit_code, outcome.stderr) == (0, "")
    assert outcome.stdout == ABSENT_REPORT.format(base=first[:7], head=second[:7], where=where(root, 0), digest=DIGEST)
    assert diff(root, first, second, "--exit-code").exit_code == 1  # a change, like any other
    assert CliRunner().invoke(main, ["check", "--root", str(root)]).exit_code == 1  # check fails on it


def test_the_json_report_lists_the_source_checks_of_each_page(tmp_path: Path) -> None:
    root = repository(tmp_path / "repo")
    edit(root, '"value": 42.5', '"value": 42.6')
    outcome = diff(root, "HEAD", "--format", "json")
    assert (outcome.exit_code, outcome.stderr) == (0, "")
    data = json.loads(outcome.stdout)
    assert data["pages"] == [{
        "status": "changed", "path": "/guides/a/", "title": "Cited", "checked": "2026-10-18", "fields": [],
        "text_changed": False, "text_sections": [], "data_changed": True,
        "results": [{"status": "changed", "source_record_id": "example-record", "label": "Decode at C1",
                     "changes": [{"field": "value", "old": 42.5, "new": 42.6, "percent": 0.23529411764706218,
                                  "note": "+0.2 %"}]}],
        "sources": [], "charts": [], "other": [],
        "verification": [{"section": "reported_results", "source_record_id": "example-record",
                          "label": "Decode at C1", "old": "verified", "new": "absent", "line": 3,
                          "excerpt": LINE_3, "found_line": None}],
    }]
    assert [(p["severity"], p["rule"]) for p in data["new_warnings"]] == [("warning", "source-absent")]


def test_a_change_that_leaves_the_checks_as_they_were_reports_none(tmp_path: Path) -> None:
    """BASE's checkout has no vault: it is checked against the working tree's, like HEAD."""
    root = repository(tmp_path / "repo")
    edit(root, "Text.", "Other text.")
    outcome = diff(root, "HEAD", "--format", "json")
    page = json.loads(outcome.stdout)["pages"][0]
    assert (page["text_changed"], page["verification"]) == (True, [])
    assert "source checks" not in diff(root, "HEAD").stdout


LEFT_REPORT = """\
### Published data: `{base}` → `{head}`

Pages: **1 changed** · source checks: 1 source-missing

{warnings}

| Page | Change | Results | Sources | Charts | Text |
| --- | --- | --- | --- | --- | --- |
| Cited<br>`/guides/a/` | changed | — | — | — | — |

<details>
<summary><strong>Cited</strong> · <code>/guides/a/</code> · changed</summary>

**Source checks (each value against its cited line in the vault)**

- **Decode at C1** · `example-record`: verified → source-missing (the document is not in the vault), line 3: \
“Decode at C1 reached 42.5 tokens/s over 3 runs.”

</details>
"""


def test_a_document_that_left_the_vault_reads_verified_to_source_missing(tmp_path: Path) -> None:
    """Two built folders (the second built after the document left the vault), and two site folders, each
    checked against its own vault: BASE's line is quoted, since HEAD no longer has it."""
    old = site(tmp_path / "old", cited("Decode at C1", "42.5", 3))
    new = site(tmp_path / "new", cited("Decode at C1", "42.5", 3), documents=())
    build(old, tmp_path / "old_site", "https://example.org/")
    build(new, tmp_path / "new_site", "https://example.org/")
    built = diff(old, str(tmp_path / "old_site"), str(tmp_path / "new_site"))
    assert (built.exit_code, built.stderr) == (0, "")
    assert built.stdout == LEFT_REPORT.format(base=tmp_path / "old_site", head=tmp_path / "new_site",
                                              warnings="Warnings: not compared (a built folder does not record them).")
    sites = diff(old, str(old), str(new))
    assert (sites.exit_code, sites.stderr) == (0, "")
    assert sites.stdout == LEFT_REPORT.format(base=old, head=new, warnings="New warnings: none.")
    data = json.loads(diff(old, str(old), str(new), "--format", "json").stdout)
    assert data["pages"][0]["verification"] == [
        {"section": "reported_results", "source_record_id": "example-record", "label": "Decode at C1",
         "old": "verified", "new": "source-missing", "line": 3, "excerpt": LINE_3, "found_line": None}]


def test_a_new_digest_not_in_the_vault_reads_source_missing(tmp_path: Path) -> None:
    """HEAD pins another snapshot of the document, which the vault does not hold yet."""
    root = repository(tmp_path / "repo")
    edit(root, DIGEST, "c" * 64)
    data = json.loads(diff(root, "HEAD", "--format", "json").stdout)
    assert data["pages"][0]["verification"] == [
        {"section": "reported_results", "source_record_id": "example-record", "label": "Decode at C1",
         "old": "verified", "new": "source-missing", "line": 3, "excerpt": LINE_3, "found_line": None}]


def fact_page(root: Path, *facts: dict[str, object]) -> None:
    results = [cited("Decode at C1", "42.5", 3)]
    if len(facts) > 1:  # the second revision adds a result cited on the wrong line
        results.append(cited("Prefill", "8.20", 3, source_record_id="other", metric="prefill_time", unit="s"))
    text = article("Cited", "Text.", export(*results, facts=list(facts[:1])))
    text = text.replace("a" * 64, DIGEST).replace('"@42.5@"', "42.5").replace('"@8.20@"', "8.20")
    make_site(root, {"guides/a.md": text})


MIXED = """\
- ⚠ fact **A statement**: verified → **absent** (not on its line), line 3: “{line}”
- **Prefill** · `other`: (new) → moved (found on line 4), line 3: “{line}”"""


def test_absent_values_come_first_and_new_values_are_reported_when_not_verified(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    fact_page(root, fact("tokens/s", 3))
    (root / "sources").mkdir()
    (root / "sources" / DIGEST).write_bytes(DOCUMENT)
    (root / ".gitignore").write_text("/sources/\n")
    git(root, "init", "-q", "-b", "main")
    commit(root, "first")
    fact_page(root, fact("tokens/m", 3), {})
    report = diff(root, "HEAD").stdout
    assert "Pages: **1 changed** · results: 1 added · source checks: **1 absent**, 1 moved\n" in report
    start = report.index("**Source checks (each value against its cited line in the vault)**\n\n")
    section = report[start:].split("\n\n")[1]
    assert section == MIXED.format(line=LINE_3)
    data = json.loads(diff(root, "HEAD", "--format", "json").stdout)
    assert data["pages"][0]["verification"] == [  # HEAD's order: results, then facts
        {"section": "reported_results", "source_record_id": "other", "label": "Prefill", "new": "moved", "line": 3,
         "excerpt": LINE_3, "found_line": 4},
        {"section": "facts", "source_record_id": "", "label": "A statement", "old": "verified", "new": "absent",
         "line": 3, "excerpt": LINE_3, "found_line": None}]


def test_states_are_matched_by_record_and_label_not_position() -> None:
    first = {"source_record_id": "r", "label": "A"}
    second = {"source_record_id": "r", "label": "B"}

    def page(results: list[dict[str, str]], states: list[str]) -> PageSnapshot:
        verification = [{"pointer": f"/reported_results/{n}", "state": state, "line": 3, "excerpt": "x",
                         "found_line": None} for n, state in enumerate(states)]
        return PageSnapshot("/a/", {"verification": verification}, {"reported_results": results}, "", {})

    old = page([first, second], ["verified", "moved"])
    assert compare_verification(old, page([second, first], ["moved", "verified"])) == ()
    changes = compare_verification(old, page([second, first], ["moved", "absent"]))
    assert [(c.label, c.old, c.new) for c in changes] == [("A", "verified", "absent")]
    new_only = page([second, first, {"source_record_id": "r", "label": "C"}], ["moved", "verified", "source-missing"])
    assert compare_verification(old, new_only) == ()  # a new value not in the vault is not a finding


def test_plan_site_can_report_an_absent_value_as_a_warning(tmp_path: Path) -> None:
    root = site(tmp_path, cited("A", "42.6", 3))
    plan, problems = plan_site(BuildOptions(root, use_cache=False, jobs=1))
    assert plan is None and [(p.severity, p.rule) for p in problems] == [(Severity.ERROR, "source-absent")]
    kept, warned = plan_site(BuildOptions(root, use_cache=False, jobs=1, absent_is_error=False))
    assert kept is not None and [s.state for s in kept.source_states["/guides/a/"]] == ["absent"]
    assert [(p.severity, p.rule, p.message) for p in warned] == [(Severity.WARNING, "source-absent", problems[0].message)]
