"""content/community/<source_record_id>.md: the title and prose of a record page, checked like content."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from sitekit import article, export, make_site, result

from evidencepress.build.recipe import BuildOptions, plan_site
from evidencepress.build.render import site_context
from evidencepress.cli import main
from evidencepress.core import jsontext
from evidencepress.core.export import ReportedResult
from evidencepress.output.article import dump_json
from evidencepress.output.generated import record_document, record_json
from evidencepress.site.records import split_conditions


def run(root: Path, command: str = "build") -> tuple[int, str]:
    outcome = CliRunner().invoke(main, [command, "--root", str(root)])
    return outcome.exit_code, outcome.output


def site(root: Path, prose: dict[str, str]) -> Path:
    pages = {"guides/a.md": article("Article A", "Text.", export(result(), result("Run B", source_record_id="other-record")))}
    pages.update({f"community/{name}": text for name, text in prose.items()})
    return make_site(root, pages)


PROSE = """---
title: "Example bench: one machine, two runs"
summary: "What the example record measured."
---

The record behind [Article A](/guides/a/), in a few words.
"""


def test_prose_gives_the_record_page_its_title_and_text(tmp_path: Path) -> None:
    root = site(tmp_path, {"example-record.md": PROSE})
    code, output = run(root)
    assert code == 0, output
    html = (root / "_site/community/example-record/index.html").read_text()
    assert "<h1>Example bench: one machine, two runs</h1>" in html
    assert '<p>The record behind <a href="../../guides/a/">Article A</a>, in a few words.</p>' in html
    assert '<meta name="description" content="What the example record measured.">' in html
    document = json.loads((root / "_site/community/example-record/index.json").read_text())
    assert document["page"]["title"] == "Example bench: one machine, two runs"
    markdown = (root / "_site/community/example-record/index.md").read_text()
    assert markdown.startswith("# Example bench: one machine, two runs\n\n> What the example record measured.\n\n"
                               "The record behind [Article A](/guides/a/), in a few words.\n")
    # the article links its records by their titles; the record without prose gets one from its results
    article_html = (root / "_site/guides/a/index.html").read_text()
    assert '<a href="../../community/example-record/">Example bench: one machine, two runs</a>' in article_html
    assert '<a href="../../community/other-record/">other-record</a>' not in article_html
    assert '<a href="../../community/other-record/">m with vLLM on 1 x DGX Spark, from example</a>' in article_html
    # prose files are not articles: no page of their own anywhere else, not in listings
    assert not (root / "_site/community/example-record/example-record").exists()
    assert "Example bench" not in (root / "_site/guides/index.html").read_text()


def test_prose_for_a_record_no_export_has_is_an_error_with_a_hint(tmp_path: Path) -> None:
    root = site(tmp_path, {"exmaple-record.md": PROSE})
    code, output = run(root, "check")
    assert code == 1
    assert output.startswith(
        "content/community/exmaple-record.md: error: no export has the source record 'exmaple-record' [community]\n"
        "  hint: did you mean content/community/example-record.md?\n"
    )


def test_prose_for_a_record_of_a_draft_is_not_an_error(tmp_path: Path) -> None:
    draft = article("Draft", "Text.", export(result(source_record_id="draft-record")), extra_front="draft: true\n")
    root = site(tmp_path, {"draft-record.md": PROSE})
    (root / "content/guides/d.md").write_text(draft)
    assert run(root)[0] == 0
    assert not (root / "_site/community/draft-record").exists()
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--drafts"])
    assert outcome.exit_code == 0, outcome.output
    assert "<h1>Example bench: one machine, two runs</h1>" in (root / "_site/community/draft-record/index.html").read_text()


def test_record_prose_front_matter_is_validated_with_positions(tmp_path: Path) -> None:
    text = PROSE.replace('summary: "What the example record measured."', "summary: x\ncheked: 2026-10-18")
    root = site(tmp_path, {"example-record.md": text})
    code, output = run(root, "check")
    assert code == 1
    assert output.startswith(
        "content/community/example-record.md:4:1: error: cheked: unknown front matter key for a record page 'cheked'"
        " [front-matter]\n"
        "  hint: a record page has title and summary; its results, dates and sources come from the articles' exports\n"
    )


def test_record_prose_needs_a_title(tmp_path: Path) -> None:
    root = site(tmp_path, {"example-record.md": "---\nsummary: x\n---\n\nText.\n"})
    code, output = run(root, "check")
    assert code == 1
    assert "content/community/example-record.md:2:1: error: title: missing required key 'title' [front-matter]" in output


def test_record_prose_may_hold_neither_an_export_nor_charts(tmp_path: Path) -> None:
    text = PROSE + "\n```chart\nid: x\n```\n\n```json export\n{}\n```\n"
    root = site(tmp_path, {"example-record.md": text})
    code, output = run(root, "check")
    assert code == 1
    assert ("content/community/example-record.md:8:1: error: a record page has no charts [community]\n"
            "  hint: draw the chart in an article that cites the record\n") in output
    assert ("content/community/example-record.md:12:1: error: a record page has no export of its own [community]\n"
            "  hint: its results come from the articles that cite the record; move the export into one\n") in output


def test_record_prose_sits_directly_in_community(tmp_path: Path) -> None:
    root = site(tmp_path, {"deep/example-record.md": PROSE})
    code, output = run(root, "check")
    assert code == 1
    assert output.startswith("content/community/deep/example-record.md: error: record prose sits directly in "
                             "content/community/ [community]\n")


def test_links_in_record_prose_are_checked(tmp_path: Path) -> None:
    root = site(tmp_path, {"example-record.md": PROSE.replace("/guides/a/", "/guides/missing/")})
    code, output = run(root, "check")
    assert code == 1
    assert output.startswith("content/community/example-record.md:6:31: error: broken internal link /guides/missing/:"
                             " no page or file at /guides/missing/ [link]\n")


def test_an_index_file_in_community_is_refused(tmp_path: Path) -> None:
    root = site(tmp_path, {"index.md": PROSE})
    code, output = run(root, "check")
    assert code == 1
    assert ("content/community/index.md: error: no export has the source record 'index' [community]\n"
            "  hint: the /community/ index is generated from the exports; remove this file\n") in output


def test_a_record_json_holds_each_result_as_its_article_wrote_it(tmp_path: Path) -> None:
    """A record's index.json is what dump_json(record_document) writes: authored numbers, non-ASCII
    text, two citing articles, a result the record does not own in between."""
    first = export(result("Run A", source_record_id="shared-record"), result("Other", source_record_id="elsewhere"),
                   result("Run µ", statistic="médiane", source_record_id="shared-record"))
    text = article("Article A", "Text.", first).replace('"value": 42.5', '"value": 42.50', 1)
    pages = {"guides/a.md": text,
             "guides/b.md": article("Article B", "Text.", export(result("Run C", 7, source_record_id="shared-record")))}
    root = make_site(tmp_path, pages)
    plan, problems = plan_site(BuildOptions(root=root, use_cache=False))
    assert plan is not None, problems
    ctx = site_context(plan)
    for record in plan.index.records:
        assert record_json(record, ctx) == dump_json(record_document(record, ctx))
    shared = next(r for r in plan.index.records if r.id == "shared-record")
    written = record_json(shared, ctx).decode()
    assert '"value": 42.50,' in written and '"label": "Run µ"' in written and '"label": "Other"' not in written
    code, output = run(root)
    assert code == 0, output
    assert (root / "_site/community/shared-record/index.json").read_bytes() == record_json(shared, ctx)


# Condition values that are equal in Python but written differently (1, 1.0, true; 22.5 and 22.50),
# or of kinds the fast comparison leaves to the slow one (null, lists, objects).
CONDITION_VALUES = st.sampled_from([
    "a", "b", "", 1, 2, 1.0, True, False, None, 22.5, jsontext.AuthoredFloat("22.50"), jsontext.AuthoredInt("-0"), 0,
    [1], [1.0], {"k": 1}])


@given(st.lists(st.dictionaries(st.sampled_from(["model", "engine", "x", "y"]), CONDITION_VALUES, max_size=4),
                min_size=1, max_size=6))
@settings(max_examples=400, deadline=None)
def test_a_condition_is_shared_when_every_result_has_it_written_the_same(conditions: list[dict[str, object]]) -> None:
    """Shared: present in every result with the same JSON text (1, 1.0 and true differ, as do 22.5
    and 22.50); any other key varies. Core keys come first, then the others as first seen."""
    results = [ReportedResult({"conditions": found}) for found in conditions]
    shared, varying = split_conditions(results, ("model", "engine"))
    seen = list(dict.fromkeys(key for found in conditions for key in found))
    keys = [key for key in ("model", "engine") if key in seen] + [key for key in seen if key not in ("model", "engine")]
    texts = [[jsontext.dumps(found[key], indent=None) if key in found else None for found in conditions]
             for key in keys]
    expected_shared = [key for key, written in zip(keys, texts, strict=True)
                       if None not in written and len(set(written)) == 1]
    assert [key for key, _ in shared] == expected_shared
    assert list(varying) == [key for key in keys if key not in expected_shared]
    assert all(value is conditions[0][key] for key, value in shared)
