"""`evidencepress import` turns a published index.md back into a source article."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from sitekit import CHART, article, export, make_site, result, tree
from test_build import copy_project

from evidencepress.authoring.importer import ImportError_, import_markdown
from evidencepress.cli import main


def _build(root: Path) -> None:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    assert outcome.exit_code == 0, outcome.output


def _reimport_all(first: Path, second: Path) -> None:
    """Rebuild a site whose articles are the imports of the first build's index.md files.
    Record prose (content/community/) is not an article with an index.md of its own: it is copied."""
    for source in sorted((first / "content").rglob("*.md")):
        rel = source.relative_to(first / "content")
        published = first / "_site" / rel.with_suffix("") / "index.md"
        target = second / "content" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if rel.parts[0] == "community":
            shutil.copyfile(source, target)
            continue
        outcome = CliRunner().invoke(main, ["import", str(published), "-o", str(target)])
        assert outcome.exit_code == 0, outcome.output


def test_round_trip_gives_the_same_index_json(tmp_path: Path) -> None:
    body = "Intro.\n\n## Results\n\n" + CHART + "\nAfter the chart, a table:\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n"
    front = 'updated: 2026-10-20\ntags: [spark, decode]\n'
    first = make_site(tmp_path / "one", {
        "guides/a.md": article("Article A", body, export(result("Run A"), result("Run B", 1.5)), extra_front=front),
        "notes.md": article("Notes", "Plain page, no export."),
    })
    _build(first)
    second = make_site(tmp_path / "two", {})
    _reimport_all(first, second)
    _build(second)
    one, two = tree(first / "_site"), tree(second / "_site")
    assert one.keys() == two.keys()
    for name in one:
        if name.endswith((".json", ".md", ".svg")):
            assert one[name] == two[name], name


def test_imported_article_restores_front_matter_and_fences(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("Article A", "Intro.\n" + CHART, export(result()))})
    _build(root)
    text = import_markdown((root / "_site/guides/a/index.md").read_text())
    assert text.startswith('---\ntitle: Article A\nsummary: What the test article shows.\nchecked: 2026-10-18\n')
    assert "```chart\nid: decode\n" in text
    assert "```json export\n{\n" in text
    assert "Original sources and conditions" not in text


def test_project_round_trip(tmp_path: Path) -> None:
    first = copy_project(tmp_path / "one")
    _build(first)
    second = copy_project(tmp_path / "two")
    for page in (second / "content").rglob("*.md"):
        page.unlink()
    _reimport_all(first, second)
    _build(second)
    one, two = tree(first / "_site"), tree(second / "_site")
    differing = [n for n in one if n.endswith("index.json") and one[n] != two.get(n)]
    assert differing == []


def test_import_refuses_a_file_that_is_not_a_published_page() -> None:
    with pytest.raises(ImportError_, match="does not start with `# Title`"):
        import_markdown("no title\n")
    with pytest.raises(ImportError_, match="no `Checked YYYY-MM-DD.` line"):
        import_markdown("# Title\n\nbody\n")
