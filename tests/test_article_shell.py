"""The article page's shell (issue 28): sources with their use, one footer statement, permalinks,
previous/next within a section, named focusable table frames, no ``title`` walls."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner
from sitekit import CHART, REV, SHA, SOURCE_URL, article, export, make_site, result

from evidencepress.cli import main
from evidencepress.core.model import SourceRef
from evidencepress.output.sourcelist import source_views

FOOTER = "AI-assisted writing, sources checked by the site. No independent model tests."


def build(root: Path) -> None:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    assert outcome.exit_code == 0, outcome.output


def two_results() -> dict[str, object]:
    return export(result("Decode at C1", 88.697), result("Decode at C16", 231.294, metric="aggregate_rate",
                                                         conditions={**result()["conditions"], "concurrency": 16}))


def page(root: Path, url: str = "guides/a") -> str:
    return (root / "_site" / url / "index.html").read_text(encoding="utf-8")


def test_each_source_is_listed_once_with_what_the_article_takes_from_it() -> None:
    source = SourceRef("example", SOURCE_URL, REV, SHA)
    other = SourceRef("other", "https://example.org/other.csv", "v1", "b" * 64)
    views = source_views((source, source, other), two_results(), {"example-record": "Example bench"})
    assert [view.source for view in views] == [source, other]
    first = views[0]
    assert (first.results, first.metrics) == ("2 results", ("decode rate", "aggregate rate"))
    assert first.records == (("Example bench", "/community/example-record/"),)
    # Conditions by name: the schema's title where given, else the key in words (raw keys, issue 28).
    assert ("System", "1 x DGX Spark") in first.shared and not any(k == "Concurrency" for k, _ in first.shared)
    named = source_views((source,), two_results(), {}, {"kv_dtype": "KV cache data type"})[0]
    assert ("KV cache data type", "bf16") in named.shared and ("Node count", "1") in named.shared
    assert first.short_revision == REV[:12] and first.short_sha256 == SHA[:12]
    assert views[1].results == "" and views[1].short_revision == "v1"  # a revision that is no hash stays whole


def test_the_sources_section_shows_use_conditions_and_shortened_ids_with_the_full_value_on_demand(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.\n\n## Part\n\nMore.\n", two_results())})
    build(root)
    html = page(root)
    sources = html[html.index('<section class="sources"'):html.index("</section>", html.index('<section class="sources"'))]
    assert "This article takes 2 results (decode rate, aggregate rate) of record" in sources
    assert 'href="../../community/example-record/">m with vLLM on 1 x DGX Spark, from example</a>' in sources  # by its title
    assert "<summary>Conditions shared by all its results</summary>" in sources and "<dt>System</dt><dd>1 x DGX Spark</dd>" in sources
    # In full once each, inside a disclosure (the revision also stands in the pinned URL).
    assert sources.count(f">{REV}</code>") == 1 and sources.count(SHA) == 1
    assert f'<summary><code>{REV[:12]}</code>' in sources and f'<code class="hash">{REV}</code></details>' in sources
    assert " title=" not in sources


def test_a_source_no_value_cites_is_called_background(tmp_path: Path) -> None:
    extra = "  - publisher: other\n    url: https://example.org/notes.txt\n    revision: v1\n    sha256: " + "b" * 64 + "\n"
    text = article("A", "Text.\n", two_results()).replace("---\n\nText.", extra + "---\n\nText.", 1)
    root = make_site(tmp_path, {"guides/a.md": text})
    build(root)
    sources = page(root).split('<section class="sources"', 1)[1]
    assert "<p class=\"source-use\">Background: none of this article's values cites this document.</p>" in sources


def test_the_footer_statement_appears_once_on_an_article_and_once_on_other_pages(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.\n", two_results()),
                                "guides/b.md": article("B", "Text.\n")})
    build(root)
    assert page(root).count(FOOTER) == 1
    assert page(root, "guides/b").count(FOOTER) == 1
    assert (root / "_site/index.html").read_text(encoding="utf-8").count(FOOTER) == 1


def test_h2_and_h3_get_a_named_permalink_and_the_toc_is_marked_for_site_js(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.\n\n## First part\n\n### A detail\n\nMore.\n")})
    build(root)
    html = page(root)
    assert ('<h2 id="first-part">First part<a class="heading-anchor" href="#first-part" '
            'aria-label="Link to this section: First part" data-pagefind-ignore>#</a></h2>') in html
    assert '<a class="heading-anchor" href="#a-detail" aria-label="Link to this section: A detail"' in html
    assert '<a class="heading-anchor" href="#cite-this-page" aria-label="Link to this section: Cite this page">' in html
    assert '<nav class="toc" aria-labelledby="toc-title"' in html and '<body class="page-article">' in html


def test_previous_and_next_follow_the_section_listing_order(tmp_path: Path) -> None:
    dated = {name: article(name.upper(), "Text.\n").replace("2026-10-18", day)
             for name, day in (("a", "2026-10-18"), ("b", "2026-10-20"), ("c", "2026-10-19"))}
    root = make_site(tmp_path, {f"guides/{name}.md": text for name, text in dated.items()})
    build(root)
    # The listing is newest checked first: B, C, A.
    newest, middle, oldest = page(root, "guides/b"), page(root, "guides/c"), page(root, "guides/a")
    assert 'rel="prev"' not in newest and '<a class="pager-next" href="../c/" rel="next"><span class="pager-label">Next</span> C</a>' in newest
    assert 'href="../b/" rel="prev"' in middle and 'href="../a/" rel="next"' in middle
    assert 'href="../c/" rel="prev"' in oldest and 'rel="next"' not in oldest
    assert '<nav class="article-pager" aria-label="More in Guides"' in middle


def test_a_retitled_neighbour_renders_the_article_beside_it_again(tmp_path: Path) -> None:
    """An article's key holds its neighbours' titles and URLs: a cached build shows the new title."""
    dated = {name: article(name.upper(), "Text.\n").replace("2026-10-18", day)
             for name, day in (("a", "2026-10-18"), ("b", "2026-10-20"))}
    root = make_site(tmp_path, {f"guides/{name}.md": text for name, text in dated.items()})
    build(root)
    assert '<span class="pager-label">Next</span> A</a>' in page(root, "guides/b")
    retitled = root / "content/guides/a.md"
    retitled.write_text(retitled.read_text().replace('title: "A"', 'title: "A renamed"'))
    build(root)
    assert '<span class="pager-label">Next</span> A renamed</a>' in page(root, "guides/b")


def test_every_table_frame_is_focusable_and_named_never_just_table(tmp_path: Path) -> None:
    body = ("| a | b |\n|---|---|\n| 1 | 2 |\n\n## Speeds\n\nText.\n\n| c | d |\n|---|---|\n| 3 | 4 |\n" + CHART)
    root = make_site(tmp_path, {"guides/a.md": article("A", body, two_results())})
    build(root)
    html = page(root)
    frames = re.findall(r'<div class="table-scroll"[^>]*>', html)
    assert frames and all('tabindex="0"' in f and 'role="region"' in f for f in frames), frames
    assert 'aria-label="Table"' not in html
    assert '<div class="table-scroll" role="region" aria-label="Table of a, b" tabindex="0">' in html
    assert '<div class="table-scroll" role="region" aria-label="Speeds" tabindex="0">' in html
    assert 'aria-label="Values plotted in the chart: Decode rate"' in html


def test_inline_values_carry_no_title_and_the_page_has_no_long_title(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", "Ran at {value}`Decode at C1`.\n" + CHART, two_results())})
    build(root)
    html = page(root)
    assert max(map(len, re.findall(r' title="([^"]*)"', html))) <= 40
    assert '<a class="ev-more" href="#ev-note-1" aria-label="About 88.697 tokens/s">' in html
