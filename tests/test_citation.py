"""Cite this page: each article's citation (text, BibTeX, CSL-JSON), its citation_* meta tags and
the site's CITATION.cff, validated by cffconvert (installed by make setup into .cff-tools/)."""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from sitekit import REPO, SITE_TOML, article, export, make_site, result

from evidencepress.cli import main
from evidencepress.output.citation import _SPDX, spdx_id

CFFCONVERT = REPO / ".cff-tools" / "bin" / "cffconvert"
AUTHORS = """
[citation]
doi = "10.5281/zenodo.1234567"

[[citation.authors]]
family = "Doe"
given = "Jane"
orcid = "https://orcid.org/0000-0002-1825-0097"

[[citation.authors]]
name = "The Evidence Project"
"""
LICENSE = '\n[license]\nname = "CC BY 4.0"\nurl = "https://creativecommons.org/licenses/by/4.0/"\n'
HOSTILE = 'Tokens <b>per</b> second & "latency" {C1} 50% $_#'


def build(root: Path) -> None:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    assert outcome.exit_code == 0, outcome.output


def site(root: Path, site_toml: str) -> Path:
    """An article with sources, one updated after its check, and a top-level page without either."""
    updated = article("Article B", "Body.", export(result())).replace("checked: 2026-10-18",
                                                                    "checked: 2026-10-18\nupdated: 2026-11-02")
    pages = {"guides/a.md": article("Article A", "Text.\n\n## Part\n\nMore.\n", export(result())),
             "guides/b.md": updated, "about.md": article("About", "A page.")}
    root = make_site(root, pages, site_toml)
    build(root)
    return root


def cite_section(page_html: str) -> dict[str, str]:
    """The citation as the reader copies it (entities decoded), by format."""
    section = page_html.split('<section class="cite"', 1)[1].split("</section>", 1)[0]
    text = re.search(r'<p class="cite-text">(.*?)</p>', section, re.DOTALL)
    blocks = dict(re.findall(r"<summary>(.*?)</summary>\s*<pre><code>(.*?)</code></pre>", section, re.DOTALL))
    assert text is not None and set(blocks) == {"BibTeX", "CSL-JSON"}
    return {"text": html.unescape(text.group(1)), **{name: html.unescape(code) for name, code in blocks.items()}}


def meta_tags(page_html: str) -> list[tuple[str, str]]:
    return [(name, html.unescape(content))
            for name, content in re.findall(r'<meta name="(citation_[a-z_]+)" content="([^"]*)">', page_html)]


def validate_cff(path: Path) -> None:
    assert CFFCONVERT.is_file(), "cffconvert is missing: make setup installs it into .cff-tools/"
    outcome = subprocess.run([str(CFFCONVERT), "--validate", "-i", str(path)], capture_output=True, text=True,
                             check=False)
    assert outcome.returncode == 0, (outcome.stdout + outcome.stderr)[:600]  # the error, before the schema


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return site(tmp_path_factory.mktemp("configured"), SITE_TOML + LICENSE + AUTHORS)


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """No description, license or [citation]: nothing of them may appear."""
    toml = SITE_TOML.replace('description = "A site built by the tests."\n', "")
    return site(tmp_path_factory.mktemp("bare"), toml)


def test_an_article_cites_its_authors_title_site_version_and_url(configured: Path) -> None:
    cite = cite_section((configured / "_site/guides/a/index.html").read_text())
    assert cite["text"] == ("Doe, Jane; The Evidence Project. Article A. Test Evidence, version of 2026-10-18. "
                            "https://example.org/sub/guides/a/")
    assert cite["BibTeX"] == """@online{guides-a-2026-10-18,
  author = {Doe, Jane and {The Evidence Project}},
  title = {{Article A}},
  organization = {Test Evidence},
  date = {2026-10-18},
  version = {2026-10-18},
  url = {https://example.org/sub/guides/a/}
}"""
    assert cite["CSL-JSON"] == """[
  {
    "id": "guides-a-2026-10-18",
    "type": "webpage",
    "title": "Article A",
    "author": [{"family": "Doe", "given": "Jane"}, {"literal": "The Evidence Project"}],
    "container-title": "Test Evidence",
    "URL": "https://example.org/sub/guides/a/",
    "issued": {"date-parts": [[2026, 10, 18]]},
    "version": "2026-10-18",
    "language": "en"
  }
]"""


def test_an_updated_article_cites_the_updated_version_and_says_when_it_was_checked(configured: Path) -> None:
    page = (configured / "_site/guides/b/index.html").read_text()
    cite = cite_section(page)
    assert cite["text"] == ("Doe, Jane; The Evidence Project. Article B. Test Evidence, version of 2026-11-02 "
                            "(sources checked 2026-10-18). https://example.org/sub/guides/b/")
    assert "  date = {2026-11-02},\n  version = {2026-11-02},\n" in cite["BibTeX"]
    assert cite["BibTeX"].startswith("@online{guides-b-2026-11-02,\n")
    assert cite["BibTeX"].endswith("  note = {Sources checked 2026-10-18}\n}")
    (item,) = json.loads(cite["CSL-JSON"])
    assert (item["issued"], item["version"], item["note"]) == (
        {"date-parts": [[2026, 11, 2]]}, "2026-11-02", "Sources checked 2026-10-18")
    assert meta_tags(page) == [
        ("citation_title", "Article B"),
        ("citation_author", "Doe, Jane"),
        ("citation_author", "The Evidence Project"),
        ("citation_publication_date", "2026/11/02"),
        ("citation_publisher", "Test Evidence"),
        ("citation_public_url", "https://example.org/sub/guides/b/"),
        ("citation_language", "en"),
    ]
    assert '<a href="../../CITATION.cff">CITATION.cff</a>' in page  # the site's own
    # the table of contents (on a page with headings) lists the section
    assert '<li><a href="#cite-this-page">Cite this page</a></li>' in (configured / "_site/guides/a/index.html").read_text()


def test_what_the_site_does_not_configure_is_left_out(bare: Path) -> None:
    page = (bare / "_site/about/index.html").read_text()
    cite = cite_section(page)
    assert cite["text"] == "About. Test Evidence, version of 2026-10-18. https://example.org/sub/about/"
    assert "author" not in cite["BibTeX"] and "note" not in cite["BibTeX"]
    (item,) = json.loads(cite["CSL-JSON"])
    assert list(item) == ["id", "type", "title", "container-title", "URL", "issued", "version", "language"]
    assert [name for name, _ in meta_tags(page)] == [
        "citation_title", "citation_publication_date", "citation_publisher", "citation_public_url",
        "citation_language"]


def test_a_title_with_markup_and_latex_characters_stays_text(tmp_path: Path) -> None:
    title = HOSTILE.replace('"', '\\"')  # as the front matter's double-quoted YAML writes it
    root = make_site(tmp_path, {"guides/a.md": article(title, "Text.")})
    build(root)
    page = (root / "_site/guides/a/index.html").read_text()
    assert "<b>per</b>" not in page
    assert ('<p class="cite-text">Tokens &lt;b&gt;per&lt;/b&gt; second &amp; &#34;latency&#34; {C1} 50% $_#. '
            "Test Evidence, version of 2026-10-18. https://example.org/sub/guides/a/</p>") in page
    assert ('<meta name="citation_title" content="Tokens &lt;b&gt;per&lt;/b&gt; second &amp; &#34;latency&#34; '
            '{C1} 50% $_#">') in page
    cite = cite_section(page)
    assert cite["text"].startswith(HOSTILE + ". ")
    assert r'  title = {{Tokens <b>per</b> second \& "latency" \{C1\} 50\% \$\_\#}},' in cite["BibTeX"]
    unescaped = re.sub(r"\\[{}]", "", cite["BibTeX"])
    assert unescaped.count("{") == unescaped.count("}")  # BibTeX reads the entry to its end
    (item,) = json.loads(cite["CSL-JSON"])
    assert item["title"] == HOSTILE


def test_citation_cff_describes_the_site_and_is_valid(configured: Path) -> None:
    path = configured / "_site/CITATION.cff"
    assert path.read_text() == """\
cff-version: 1.2.0
message: If you use this site's articles or data, please cite them using these metadata.
type: dataset
title: Test Evidence
abstract: A site built by the tests.
authors:
- family-names: Doe
  given-names: Jane
  orcid: https://orcid.org/0000-0002-1825-0097
- name: The Evidence Project
url: https://example.org/sub/
doi: 10.5281/zenodo.1234567
license: CC-BY-4.0
date-released: '2026-11-02'
"""
    validate_cff(path)


def test_citation_cff_without_authors_names_the_site_and_nothing_unconfigured(bare: Path) -> None:
    path = bare / "_site/CITATION.cff"
    assert path.read_text() == """\
cff-version: 1.2.0
message: If you use this site's articles or data, please cite them using these metadata.
type: dataset
title: Test Evidence
authors:
- name: Test Evidence
url: https://example.org/sub/
date-released: '2026-11-02'
"""
    validate_cff(path)


def test_a_license_without_a_known_spdx_id_is_named_by_its_url(tmp_path: Path) -> None:
    toml = SITE_TOML + '\n[license]\nname = "Our terms"\nurl = "https://example.org/terms"\n'
    root = site(tmp_path, toml)
    cff = (root / "_site/CITATION.cff").read_text()
    assert "license-url: https://example.org/terms\n" in cff and "\nlicense:" not in cff
    validate_cff(root / "_site/CITATION.cff")


def test_cffconvert_rejects_a_file_without_authors(tmp_path: Path) -> None:
    """The validator is not a no-op: the key a CITATION.cff may not leave out."""
    path = tmp_path / "CITATION.cff"
    path.write_text("cff-version: 1.2.0\nmessage: m\ntitle: t\n")
    with pytest.raises(AssertionError, match="'authors' is a required property"):
        validate_cff(path)


@pytest.mark.parametrize("url, spdx", [
    ("https://creativecommons.org/licenses/by/4.0/", "CC-BY-4.0"),
    ("http://www.creativecommons.org/licenses/by-sa/4.0/legalcode", "CC-BY-SA-4.0"),
    ("https://creativecommons.org/licenses/by-nc/4.0/legalcode.de", "CC-BY-NC-4.0"),
    ("https://creativecommons.org/publicdomain/zero/1.0/", "CC0-1.0"),
    ("https://opendatacommons.org/licenses/odbl/1-0/", "ODbL-1.0"),
    ("https://creativecommons.org/licenses/by/3.0/", None),  # not in the table: named by its URL
    ("https://example.org/licenses/by/4.0/", None),
])
def test_spdx_ids_only_for_license_urls_that_are_certain(url: str, spdx: str | None) -> None:
    assert spdx_id(url) == spdx


def test_every_spdx_id_the_site_may_write_is_one_cff_knows() -> None:
    (schema,) = (REPO / ".cff-tools").glob("lib/python*/site-packages/cffconvert/schemas/1.2.0/schema.json")
    known = set(json.loads(schema.read_text())["definitions"]["license-enum"]["enum"])
    assert set(_SPDX.values()) <= known


@pytest.mark.parametrize("table, message", [
    ('[[citation.authors]]\nfamily = "Doe"\nname = "Org"\n',
     "site.toml:11:1: error: citation.authors[0]: expected a person (family, and given) or an organisation (name)"),
    ('[[citation.authors]]\ngiven = "Jane"\n',
     "site.toml:11:1: error: citation.authors[0]: expected a person (family, and given) or an organisation (name)"),
    ('[[citation.authors]]\nname = "Org"\nemail = "a@b.c"\n',
     "site.toml:13:1: error: citation.authors[0].email: unknown key in an author 'email' [config]"),
    ('[[citation.authors]]\nfamily = "Doe"\norcid = "0000-0002-1825-0097"\n',
     'site.toml:13:1: error: citation.authors[0].orcid: expected an ORCID iD URL, got "0000-0002-1825-0097"'),
    ('[citation]\ndoi = "https://doi.org/10.5281/zenodo.1"\n',
     ("site.toml:12:1: error: citation.doi: expected a DOI such as 10.5281/zenodo.1234567 (not its https://doi.org/ "
      'URL), got "https://doi.org/10.5281/zenodo.1"')),
])
def test_citation_settings_are_checked_where_they_are_written(tmp_path: Path, table: str, message: str) -> None:
    root = make_site(tmp_path, {"about.md": article()}, SITE_TOML + "\n" + table)
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    assert outcome.exit_code == 1
    assert message in outcome.output, outcome.output


def test_a_link_to_the_citation_section_checks(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"about.md": article("About", "[Cite it](#cite-this-page).")})
    build(root)
