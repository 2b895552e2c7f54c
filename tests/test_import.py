"""`evidencepress import` turns a published index.md back into a source article."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sitekit import CHART, REV, SOURCE_URL, article, export, make_site, result, tree
from test_build import copy_project

from evidencepress.authoring.importer import ImportError_, import_markdown
from evidencepress.checks import placeholders
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
    assert text.startswith('---\ntitle: "Article A"\nsummary: "What the test article shows."\nchecked: 2026-10-18\n')
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
    # The sources themselves, byte for byte: front matter as written, inline values as references (issue 29)
    sources = [page for page in sorted((first / "content").rglob("*.md")) if "community" not in page.parts]
    assert [page.name for page in sources if page.read_bytes() != (second / page.relative_to(first)).read_bytes()] == []


def test_a_front_matter_edited_in_index_md_is_written_from_what_it_shows(tmp_path: Path) -> None:
    """The front matter kept in the comment is used only while the page agrees with it."""
    text = article("Article A", "Intro.", export(result())).replace('title: "Article A"', "title: Article A  # kept")
    root = make_site(tmp_path, {"guides/a.md": text})
    _build(root)
    published = (root / "_site/guides/a/index.md").read_text()
    assert import_markdown(published) == text
    edited = import_markdown(published.replace("# Article A\n", "# Article B\n", 1))
    assert edited.startswith("---\ntitle: Article B\nsummary: What the test article shows.\n")


def test_import_refuses_a_file_that_is_not_a_published_page() -> None:
    with pytest.raises(ImportError_, match="does not start with `# Title`"):
        import_markdown("no title\n")
    with pytest.raises(ImportError_, match="no `Checked YYYY-MM-DD.` line"):
        import_markdown("# Title\n\nbody\n")


# --- pages the build publishes that import misread (issue 25) ------------------------------------

def _round_trip(tmp_path: Path, text: str) -> tuple[str, str]:
    """Build ``text``, import its index.md and build the import: the two sites' (index.json, index.md)
    must be equal; gives the imported source and the first index.md."""
    first = make_site(tmp_path / "one", {"guides/a.md": text})
    _build(first)
    published = (first / "_site/guides/a/index.md").read_text(encoding="utf-8")
    imported = import_markdown(published)
    second = make_site(tmp_path / "two", {"guides/a.md": imported})
    _build(second)
    for name in ("index.json", "index.md"):
        assert (second / "_site/guides/a" / name).read_bytes() == (first / "_site/guides/a" / name).read_bytes(), name
    return imported, published


def test_a_summary_holding_the_end_of_a_comment_round_trips(tmp_path: Path) -> None:
    """`-->` in the summary closed the metadata comment: import said it was not valid JSON."""
    text = article("T", "Body.", export(result())).replace("What the test article shows.", "Shows --> and --!> too")
    imported, published = _round_trip(tmp_path, text)
    assert '<!-- evidencepress: {"summary": "Shows --\\u003e and --!\\u003e too", "front_matter": ' in published
    assert "-->" not in published.split("<!-- evidencepress: ", 1)[1].split(" -->", 1)[0]
    assert imported == text


def test_a_json_block_in_the_body_stays_in_the_body(tmp_path: Path) -> None:
    """The first ```json block was read as the export, up to the end of the file: import found no Checked line."""
    body = 'Before.\n\n```json\n{"a": 1}\n```\n\nAfter.\n\n```json\n[2]\n```\n'
    imported, _ = _round_trip(tmp_path, article("T", body, export(result())))
    assert '\n\nBefore.\n\n```json\n{"a": 1}\n```\n\nAfter.\n\n```json\n[2]\n```\n\n```json export\n{\n' in imported


def test_a_body_heading_named_like_the_sources_list_stays_in_the_body(tmp_path: Path) -> None:
    """Without sources, the body's last `## Original sources and conditions` and what followed it were dropped."""
    imported, _ = _round_trip(tmp_path, article("T", "Intro.\n\n## Original sources and conditions\n\n- none yet\n"))
    assert imported.endswith("Intro.\n\n## Original sources and conditions\n\n- none yet\n")


def test_a_title_with_outer_spaces_keeps_them(tmp_path: Path) -> None:
    """import stripped the title, and the rebuilt page had another title."""
    text = article(" Spaced title  ", "Body.", export(result()))
    imported, _ = _round_trip(tmp_path, text)
    assert imported == text


def test_a_chart_spec_holding_dashes_and_backslashes_round_trips(tmp_path: Path) -> None:
    """`---` was written `\\-\\--` in the chart's comment, so `--->` closed it for a Markdown viewer; a `\\-\\-`
    the spec held came back as `--`."""
    chart = CHART.replace("title: Decode rate", r"title: 'Decode ---> rate \-\- and \ too'")
    imported, published = _round_trip(tmp_path, article("T", "Intro.\n" + chart, export(result())))
    assert r"title: 'Decode \-\-\-> rate \\-\\- and \\ too'" in published
    assert r"title: 'Decode ---> rate \-\- and \ too'" in imported


@pytest.mark.parametrize("old, new, message", [
    ("publisher: example", 'publisher: "x\\n  - SHA-256: 0\\n- evil: https://evil.example/"',
     "sources[0].publisher: expected one non-empty line"),
    (f'revision: "{REV}"', f'revision: "{REV}\\n- injected"', "sources[0].revision: expected a string on one line"),
])
def test_a_line_break_in_a_source_field_is_refused_at_build(tmp_path: Path, old: str, new: str, message: str) -> None:
    """A newline in a publisher or revision injected list items that import read as another source: the
    build refuses it, so no published page holds one."""
    text = article("T", "Body.", export(result()))
    assert old in text
    root = make_site(tmp_path, {"guides/a.md": text.replace(old, new, 1)})
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    assert outcome.exit_code == 1 and message in outcome.stderr, outcome.stderr


def test_a_deep_metadata_comment_is_an_import_error_at_its_line(tmp_path: Path) -> None:
    """100,000 nested arrays in the comment: a RecursionError traceback."""
    deep = "[" * 100_000 + "]" * 100_000
    page = ("# T\n\n> s\n\n<!-- evidencepress: " + deep + " -->\n\nBody.\n\nChecked 2026-10-18. Footer. "
            "Conditions and selected source facts are in the adjacent JSON export.\n")
    (tmp_path / "index.md").write_text(page, encoding="utf-8")
    outcome = CliRunner().invoke(main, ["import", str(tmp_path / "index.md")])
    assert outcome.exit_code == 1 and isinstance(outcome.exception, SystemExit)
    assert outcome.stderr == (f"{tmp_path / 'index.md'}:5:1: error: the evidencepress comment nests deeper than a "
                              "list in an object [import]\n  hint: import reads the index.md that build publishes\n")


@pytest.mark.parametrize("meta, message", [
    ('{"summary": 5}', "the evidencepress comment's `summary` must be a string"),
    ('{"tags": ["a", 1]}', "the evidencepress comment's `tags` must be a list of strings"),
    ('{"draft": "yes"}', "the evidencepress comment's `draft` must be true or false"),
    ('{"author": "x"}', "the evidencepress comment's `author` is not a key of it"),
])
def test_a_metadata_comment_of_other_keys_or_types_is_an_import_error(meta: str, message: str) -> None:
    page = (f"# T\n\n<!-- evidencepress: {meta} -->\n\nChecked 2026-10-18. F. "
            "Conditions and selected source facts are in the adjacent JSON export.\n")
    with pytest.raises(ImportError_) as caught:
        import_markdown(page)
    assert (str(caught.value), caught.value.line) == (message, 3)


def test_only_the_export_may_follow_the_checked_line() -> None:
    page = ("# T\n\n<!-- evidencepress: {} -->\n\nChecked 2026-10-18. F. "
            "Conditions and selected source facts are in the adjacent JSON export.\n\nA stray paragraph.\n")
    with pytest.raises(ImportError_) as caught:
        import_markdown(page)
    assert (str(caught.value), caught.value.line) == (
        "after the Checked line only the export's ```json block may follow", 7)


# --- every page the build publishes round-trips (property) ---------------------------------------

# One line of text as an editor might write it: any character the front matter allows (no line break,
# no control character an output cannot hold), with the pieces the format itself is made of.
_LINE_CHARACTERS = st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp"),
                                 exclude_characters="\x85\ufffe\uffff") | st.sampled_from(list("\t:#>-`*[]()!<"))
_FORMAT_PIECES = st.sampled_from(["-->", "--!>", "<!--", "```json", "# ", "> ", ": ", "\\-\\-", "- ", "Checked",
                                  "Checked 2026-10-18. ", "## Original sources and conditions", "é", "\u0301", "😀",
                                  "\u202e", "\ufdd0"])
one_line = st.lists(st.text(_LINE_CHARACTERS, min_size=1, max_size=8) | _FORMAT_PIECES, min_size=1, max_size=5).map(
    "".join)
words = st.text(st.characters(codec="utf-8", categories=("L", "N", "Zs")) | st.sampled_from(list(".,;é😀")),
                min_size=1, max_size=24).filter(str.strip)


@st.composite
def body_block(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["paragraph", "heading", "list", "fence", "comment", "value"]))
    text = draw(words).strip()
    if kind == "paragraph":
        return text + draw(st.sampled_from(["", " --> after", " <!-- a comment --> after", " `code`", "\nsecond line"]))
    if kind == "heading":
        return draw(st.sampled_from(["## ", "### "])) + text
    if kind == "list":
        return "\n".join("- " + draw(words).strip() for _ in range(draw(st.integers(1, 3))))
    if kind == "fence":
        language = draw(st.sampled_from(["", "json", "python", "text"]))
        return f"```{language}\n" + draw(st.sampled_from(['{"a": 1}', "[1, 2]", text, "-->"])) + "\n```"
    if kind == "comment":
        return "<!-- " + text + " -->"
    return "The run reached {value}`example-record/Decode at C1`."


@st.composite
def source(draw: st.DrawFn) -> dict[str, str]:
    path = draw(st.text(st.sampled_from("abc019-_~%./"), min_size=1, max_size=12))
    revision = draw((one_line | st.just(REV)).filter(lambda text: text != placeholders.REVISION))
    # The skeleton's example values are an error on a published page (checks/placeholders.py): a generated
    # source never draws them, or the build refuses the site before the round trip is tried.
    return {"publisher": draw(one_line.filter(lambda text: text != placeholders.PUBLISHER)),
            "url": f"https://example.org/{path}", "revision": revision,
            "sha256": draw(st.text(st.sampled_from("0123456789abcdef"), min_size=64, max_size=64)
                           .filter(lambda digest: digest != placeholders.SHA256))}


@st.composite
def published_article(draw: st.DrawFn) -> str:
    front: dict[str, Any] = {"title": draw(one_line), "summary": draw(one_line), "checked": "2026-10-18"}
    if draw(st.booleans()):
        front["updated"] = "2026-10-20"
    if draw(st.booleans()):
        front["tags"] = draw(st.lists(st.sampled_from(["spark", "decode", "a-b"]), unique=True, min_size=1))
    has_export = draw(st.booleans())
    blocks = draw(st.lists(body_block(), max_size=6))
    if not has_export:
        blocks = [b for b in blocks if "{value}" not in b]
    elif draw(st.booleans()):
        title = draw(st.lists(st.text("abcXYZ é09.,", min_size=1, max_size=8) | st.sampled_from(["--->", "-->", "---", "\\-\\-", "\\", "--!>"]), min_size=1,
                              max_size=4).map(" ".join))
        spec = {"id": "decode", "kind": "bar", "title": title, "alt": "Decode rate.",
                "panels": [{"select": {"where": {"label": "Decode at C1"}}}]}
        blocks.insert(draw(st.integers(0, len(blocks))), "```chart\n" + yaml.safe_dump(spec, allow_unicode=True) + "```")
    if has_export or draw(st.booleans()):
        pinned = {"publisher": "example", "url": SOURCE_URL, "revision": REV, "sha256": "a" * 64}
        front["sources"] = [pinned] + draw(st.lists(source(), max_size=2))
    text = "---\n" + yaml.safe_dump(front, allow_unicode=True, sort_keys=False, width=1000) + "---\n\n"
    text += "\n\n".join(blocks) + "\n"
    if has_export:
        text += "\n```json export\n" + json.dumps(export(result(draw(one_line), id="generated"), result()), indent=2) + "\n```\n"
    return text


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(articles=st.lists(published_article(), min_size=1, max_size=3))
def test_every_page_the_build_publishes_round_trips(tmp_path_factory: pytest.TempPathFactory,
                                                    articles: list[str]) -> None:
    """Build, import each index.md, build again: each page's index.json and index.md are the same, and
    importing the second index.md gives the first import byte for byte."""
    base = tmp_path_factory.mktemp("round")
    first = make_site(base / "one", {f"guides/p{n}.md": text for n, text in enumerate(articles)})
    _build(first)
    imported = {rel: import_markdown((first / "_site" / rel.removesuffix(".md") / "index.md").read_text("utf-8"))
                for rel in (f"guides/p{n}.md" for n in range(len(articles)))}
    second = make_site(base / "two", imported)
    _build(second)
    for rel, source_text in imported.items():
        folder = rel.removesuffix(".md")
        for name in ("index.json", "index.md"):
            assert (second / "_site" / folder / name).read_bytes() == (first / "_site" / folder / name).read_bytes()
        assert import_markdown((second / "_site" / folder / "index.md").read_text("utf-8")) == source_text
