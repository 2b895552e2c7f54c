"""`evidencepress new` writes an article that passes check; `evidencepress schema` prints schemas and references."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sitekit import REPO, SITE_TOML

from evidencepress.cli import main

SCHEMA_FILES = {"export": "export.schema.json", "conditions": "conditions.schema.json", "chart": "chart.schema.json",
                "frontmatter": "frontmatter.schema.json", "site": "site.schema.json", "units": "units.json",
                "comparability": "comparability.json"}


def run(*arguments: str) -> Result:
    outcome = CliRunner().invoke(main, list(arguments))
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise AssertionError(outcome.output) from outcome.exception
    return outcome


def site(tmp_path: Path) -> Path:
    (tmp_path / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    return tmp_path


def test_new_writes_a_draft_that_checks_and_builds_without_a_warning(tmp_path: Path) -> None:
    root = site(tmp_path)
    (root / "content").mkdir()
    assert run("build", "--root", str(root), "--jobs", "1").exit_code == 0  # a site whose exports/ are current
    created = run("new", "guides/decode-on-one-spark", "--root", str(root), "--checked", "2026-11-30")
    assert created.exit_code == 0
    assert created.stdout == ("created content/guides/decode-on-one-spark.md: a draft; `evidencepress build --drafts` "
                              "shows it, and removing `draft: true` publishes it\n")
    text = (root / "content/guides/decode-on-one-spark.md").read_text(encoding="utf-8")
    assert 'title: "Decode on one spark"' in text and "checked: 2026-11-30" in text
    assert "{value}`decode-on-one-spark/Decode rate, one request`" in text
    checked = run("check", "--root", str(root))
    assert (checked.exit_code, checked.stderr) == (0, (
        "content/guides/decode-on-one-spark.md:7:1: note: draft: /guides/decode-on-one-spark/ is a draft, left out "
        "of the build [draft]\n  hint: build with --drafts to include it; remove `draft: true` to publish it\n"
        # the skeleton's conditions are null until the author fills them in: its chart says so
        "content/guides/decode-on-one-spark.md:35:5: note: panels[0].select: the panel compares results that differ "
        "on or do not report input_tokens, output_tokens, kv_dtype, weight_precision, engine, node_count, thinking "
        "[chart-comparability]\n  hint: the note under the panel names each difference; to compare like with like, "
        "select results that agree, or put the condition on x or series\n"
        "by rule:\n  chart-comparability  1 note\n  draft                1 note\n"
        "by file:\n  content/guides/decode-on-one-spark.md  2 notes\n"
        "0 errors, 0 warnings, 2 notes\n"))
    built = run("build", "--root", str(root), "--drafts", "--jobs", "1")
    assert built.exit_code == 0 and "[chart-comparability]" in built.stderr, built.stderr
    assert "\n0 errors, 0 warnings, 1 note\nbuilt in " in built.stderr, built.stderr
    page = json.loads((root / "_site/guides/decode-on-one-spark/index.json").read_bytes())
    result = page["reported_results"][0]
    assert set(result["conditions"]) >= {"system", "experiment_date", "concurrency", "kv_dtype", "repetitions"}
    assert (root / "_site/guides/decode-on-one-spark/decode-on-one-spark.svg").is_file()
    published = (root / "content/guides/decode-on-one-spark.md").read_text().replace("draft: true", "draft: false")
    (root / "content/guides/decode-on-one-spark.md").write_text(published, encoding="utf-8")
    # Published unedited, its example source is an error at each value (it once built silently)
    unedited = run("build", "--root", str(root), "--jobs", "1")
    assert unedited.exit_code == 1
    assert unedited.stderr.startswith(
        "content/guides/decode-on-one-spark.md:5:10: error: summary: the summary is still the new-article skeleton's "
        "example [placeholder]\n  hint: write the source's own (`evidencepress new` wrote an example), or keep "
        "`draft: true` until then\n"
        "content/guides/decode-on-one-spark.md:11:16: error: sources[0].publisher: the publisher is still the "
        "new-article skeleton's example [placeholder]\n"), unedited.stderr
    assert [line.split(": error: ")[1] for line in unedited.stderr.splitlines() if ": error: " in line][2:] == [
        f"sources[0].{key}: the {what} is still the new-article skeleton's example [placeholder]"
        for key, what in (("url", "URL"), ("revision", "revision"), ("sha256", "SHA-256"))]
    real = (published.replace("example-publisher", "someone").replace("0" * 64, "ab" * 32)
            .replace("0" * 40, "1234567890abcdef1234567890abcdef12345678")
            .replace("One or two sentences: what", "What"))
    (root / "content/guides/decode-on-one-spark.md").write_text(real, encoding="utf-8")
    assert run("build", "--root", str(root), "--jobs", "1").exit_code == 0
    # --strict refuses a chart whose conditions are unknown: the unedited skeleton's
    refused = run("build", "--root", str(root), "--jobs", "1", "--strict")
    assert refused.exit_code == 1 and "error: panels[0].select: the panel compares results" in refused.stderr


def test_new_takes_a_title_and_a_top_level_page(tmp_path: Path) -> None:
    root = site(tmp_path)
    assert run("new", "content/about.md", "--root", str(root), "--title", "About: the site").exit_code == 0
    assert 'title: "About: the site"' in (root / "content/about.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("target, message", [
    ("guides/My Article", ("Invalid value for TARGET: 'My Article' is not a slug: use lowercase letters, digits and "
                          "hyphens, e.g. guides/my-article")),
    ("guides/../x", ("Invalid value for TARGET: '..' is not a slug: use lowercase letters, digits and hyphens, e.g. "
                    "guides/my-article")),
    ("assets/x", ("Invalid value for TARGET: content/assets/ holds static files, not articles; choose a section such "
                 "as guides/")),
])
def test_new_refuses_a_target_that_is_not_a_slug(tmp_path: Path, target: str, message: str) -> None:
    outcome = run("new", target, "--root", str(site(tmp_path)))
    assert outcome.exit_code == 2
    assert outcome.stderr.endswith(f"Error: {message}\n")
    assert not (tmp_path / "content").exists()


def test_new_never_overwrites(tmp_path: Path) -> None:
    root = site(tmp_path)
    (root / "content/guides/a").mkdir(parents=True)
    (root / "content/guides/a/index.md").write_text("mine", encoding="utf-8")
    outcome = run("new", "guides/a", "--root", str(root))
    assert outcome.exit_code == 2
    assert outcome.stderr.endswith(f"Error: {root}/content/guides/a/index.md already exists; edit it, or choose "
                                   "another slug\n")
    assert (root / "content/guides/a/index.md").read_text() == "mine"


def test_new_never_writes_outside_content_through_a_link(tmp_path: Path) -> None:
    """A dangling link and a linked section folder let ``new`` write outside content/ (issue 25); a
    link that stays inside content/ keeps working."""
    (tmp_path / "site").mkdir()
    root = site(tmp_path / "site")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "content/guides").mkdir(parents=True)
    (root / "content/guides/evil.md").symlink_to(outside / "evil.md")
    (root / "content/notes").symlink_to(outside)
    (root / "content/inside").symlink_to("guides")
    for target, link, points in (("guides/evil", "guides/evil.md", outside / "evil.md"), ("notes/a", "notes", outside)):
        outcome = run("new", target, "--root", str(root))
        assert outcome.exit_code == 2
        assert outcome.stderr.endswith(f"Error: content/{link} is a symlink to {points}, outside content/: new writes "
                                       "only inside it (remove the link, or choose another path)\n")
    assert list(outside.iterdir()) == []
    assert run("new", "inside/kept", "--root", str(root)).exit_code == 0
    assert (root / "content/guides/kept.md").is_file()


def test_new_refuses_a_content_folder_linked_outside_the_site(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    root = site(tmp_path / "site")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "content").symlink_to(outside)
    outcome = run("new", "guides/a", "--root", str(root))
    assert outcome.exit_code == 2
    assert outcome.stderr.endswith(f"Error: content is a symlink to {outside}, outside the site root: new writes only "
                                   "inside it\n")
    assert list(outside.iterdir()) == []


def test_new_refuses_a_dangling_link_inside_content(tmp_path: Path) -> None:
    root = site(tmp_path)
    (root / "content/guides").mkdir(parents=True)
    (root / "content/guides/a.md").symlink_to("gone.md")
    outcome = run("new", "guides/a", "--root", str(root))
    assert outcome.exit_code == 2
    assert outcome.stderr.endswith(f"Error: {root}/content/guides/a.md already exists; edit it, or choose another "
                                   "slug\n")
    assert not (root / "content/guides/gone.md").exists()


def test_new_needs_a_site_root(tmp_path: Path) -> None:
    outcome = run("new", "guides/a", "--root", str(tmp_path))
    assert outcome.exit_code == 2
    assert "no site.toml in" in outcome.stderr


@pytest.mark.parametrize("name", sorted(SCHEMA_FILES))
def test_schema_prints_the_published_bytes(name: str) -> None:
    outcome = run("schema", name, "--root", str(REPO))
    assert outcome.stdout.encode() == (REPO / "schema" / SCHEMA_FILES[name]).read_bytes()


def test_schema_without_a_name_lists_them() -> None:
    listing = run("schema", "--root", str(REPO)).stdout.splitlines()
    assert listing[0] == "Schemas published with the site under /schema/:"
    assert listing[1] == "  export         export.schema.json       Evidence export"
    assert listing[7] == "  comparability  comparability.json       Comparability rules"
    assert len(listing) == 2 + len(SCHEMA_FILES)


def test_the_export_reference_names_every_result_field_with_its_description() -> None:
    text = run("schema", "export", "--reference", "--root", str(REPO)).stdout
    assert text.startswith("Evidence export (export.schema.json)\n\nThe measurements and source statements")
    assert ("reported_results[].conditions.concurrency  required  integer >= 1 or null\n"
            "    Concurrent requests during the measurement.\n") in text
    assert ("reported_results[].conditions.model_revision  recommended  a 7-40 character lowercase hex revision or "
            "null\n") in text
    assert "    - {standard_deviation, kind?}: A reported standard deviation (drawn as a ±1 SD error bar).\n" in text
    schema = json.loads((REPO / "schema/export.schema.json").read_text())
    for key, field in schema["$defs"]["reported_result"]["properties"].items():
        assert f"reported_results[].{key}  " in text
        assert field["description"] in text


def test_the_chart_and_units_references() -> None:
    chart = run("schema", "chart", "--reference", "--root", str(REPO)).stdout
    assert ("panels[].select.where  a map of field paths to values\n"
            "    Field path -> value; an entry is selected when every one matches.\n") in chart
    units = run("schema", "units", "--reference", "--root", str(REPO)).stdout
    assert re.search(r"^seconds +seconds \(the same unit as s\)$", units, re.MULTILINE)
    assert re.search(r"^tok/s +tokens per second \(the same unit as tokens/s\)$", units, re.MULTILINE)
    rules = run("schema", "comparability", "--reference", "--root", str(REPO)).stdout
    assert rules.startswith("Comparability rules (comparability.json)\n")
    assert ("default (every metric no family names)\n    keys: concurrency, input_tokens, output_tokens, kv_dtype, "
            "weight_precision, engine, node_count, thinking\n") in rules
    assert "\nquality\n    metrics: accuracy, " in rules


def test_new_refuses_a_slug_too_long_for_a_file_name_and_a_title_that_is_not_text(tmp_path: Path) -> None:
    """A 300-character slug raised ENAMETOOLONG; an invalid UTF-8 title (surrogate-escaped by the terminal)
    raised UnicodeEncodeError and left an empty file (issue 25)."""
    root = site(tmp_path)
    outcome = run("new", "guides/" + "a" * 300, "--root", str(root))
    assert outcome.exit_code == 2
    assert ("Invalid value for TARGET: aaaaaaaaaaaaaaaaaaaa… is 300 characters; a slug has at most 100 (it names a "
            "folder and a URL)") in outcome.stderr
    for title, why in (("Bad \udcff title", "the title is not UTF-8 text"), ("Two\nlines", "the title is one line")):
        outcome = run("new", "guides/bad", "--root", str(root), "--title", title)
        assert outcome.exit_code == 2 and f"Invalid value for --title: {why}" in outcome.stderr
    assert not (root / "content").exists()
