"""Site-wide pages and files (SPEC §7.3, issue 8): listings, record pages, /data/, feeds, 404, /schema/."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from sitekit import CHART, REPO, SITE_TOML, article, export, make_site, result, tree

from evidencepress.cli import main

LICENSE = '\n[license]\nname = "CC BY 4.0"\nurl = "https://creativecommons.org/licenses/by/4.0/"\n'


def build(root: Path, *args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", *args])
    return outcome.exit_code, outcome.output


def data_site(root: Path, site_toml: str = SITE_TOML) -> Path:
    """Two articles citing one shared record; a null condition, an authored 22.50, a label with a comma."""
    shared = result("Shared C1", 22.50, source_record_id="shared-record")
    shared["value"] = 22.50
    quoted = result('Run "A", first', 40.0)
    quoted["conditions"]["kv_dtype"] = None
    run_b = result("Run B", 38.5)
    run_b["conditions"]["kv_dtype"] = "fp8"
    second = result("Shared C4", 12.0, source_record_id="shared-record")
    second["conditions"]["concurrency"] = 4
    a = article("Article A", "Intro.\n\n## Results\n\n" + CHART, export(quoted, run_b, shared))
    b = article("Article B", "Body.", export(second)).replace("2026-10-18", "2026-11-02")
    c = article("About", "A top-level page.")
    root = make_site(root, {"guides/a.md": a, "guides/b.md": b, "about.md": c}, site_toml)
    # json.dumps wrote 22.5; the author wrote 22.50
    path = root / "content/guides/a.md"
    path.write_text(path.read_text().replace('"value": 22.5,', '"value": 22.50,'))
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    root = data_site(tmp_path_factory.mktemp("site"), SITE_TOML + LICENSE)
    code, output = build(root)
    assert code == 0, output
    return tree(root / "_site")


def text(files: dict[str, bytes], name: str) -> str:
    return files[name].decode("utf-8")


def test_every_source_record_has_a_page_with_json_and_markdown(built: dict[str, bytes]) -> None:
    for record in ("example-record", "shared-record"):
        for name in ("index.html", "index.json", "index.md"):
            assert f"community/{record}/{name}" in built
    for name in ("index.html", "index.json", "index.md"):
        assert f"community/{name}" in built


def test_a_record_page_shows_every_result_of_every_citing_article(built: dict[str, bytes]) -> None:
    html = text(built, "community/shared-record/index.html")
    assert html.count('<th scope="row" data-label="Result">') == 2 and html.count('<tr id="') == 2  # each row anchored by its id
    assert "Shared C1" in html and "Shared C4" in html
    assert '<td class="num" data-label="Value">22.50</td>' in html  # the authored literal
    assert '<a href="../../guides/a/">Article A</a>' in html and '<a href="../../guides/b/">Article B</a>' in html
    assert "data-pagefind-body" in html


def test_a_record_page_names_each_source_document_by_its_path() -> None:
    """Two files of one commit must not read as the same source twice (publisher and revision alike)."""
    from evidencepress.core.model import SourceRef

    commit = "89abcdef0123456789abcdef0123456789abcdef"
    def named(url: str, revision: str = commit) -> str:
        return SourceRef("example", url, revision, "b" * 64).document

    assert named(f"https://github.com/o/r/blob/{commit}/results/a%20b.csv") == "results/a b.csv"
    assert named(f"https://huggingface.co/o/m/blob/{commit}/README.md") == "README.md"
    assert named("https://example.org/reports/2026/report.pdf", "2026-10-18") == "report.pdf"
    assert named(f"https://example.org/{commit}") == commit  # the revision is the document itself
    assert named("https://example.org/", "2026-10-18") == "example.org"


def test_the_source_documents_of_a_citation_are_told_apart(built: dict[str, bytes]) -> None:
    html = text(built, "community/example-record/index.html")
    sources = html[html.index('<div class="meta record-sources">'):]
    sources = sources[:sources.index("</div>")]
    assert re.search(r'<li>example: <a href="[^"]+">README\.md</a>\s+· revision <details class="full-id"><summary>'
                     r'<code>0123456789ab</code>', sources), sources
    # a revision the documents share is written once, in full only on demand (it stood eight times, issue 28)
    assert sources.count("0123456789abcdef0123456789abcdef01234567</code>") == 1


def test_documents_at_one_revision_share_one_line() -> None:
    from evidencepress.core.model import SourceRef
    from evidencepress.output.views import CitationView

    rev = "9c6ab02340b770c6c3e1a9a4d5e70a56c5829d32"
    a, b, c = (SourceRef("p", f"https://example.org/{n}", rev, "a" * 64) for n in "abc")
    other = SourceRef("q", "https://example.org/d", "v2", "b" * 64)
    view = CitationView(page=None, tables=(), mentions=(), sources=(a, other, b, c))  # type: ignore[arg-type]
    assert [(g.publisher, g.short_revision, g.documents) for g in view.source_groups] == [
        ("p", rev[:12], (a, b, c)), ("q", "v2", (other,))]


def test_a_null_condition_reads_not_reported_on_the_record_page(built: dict[str, bytes]) -> None:
    html = text(built, "community/example-record/index.html")
    # shared by every result: listed once; varying: a column
    assert '<div><dt>Cache state</dt><dd class="cell-null">not reported</dd></div>' in html
    assert '<th scope="col">KV cache data type</th>' in html
    assert '<td class="cell-null" data-label="KV cache data type">not reported</td>' in html
    assert '<td class="cell-value" data-label="KV cache data type">fp8</td>' in html
    markdown = text(built, "community/example-record/index.md")
    assert "- Cache state: not reported" in markdown  # the human name, as on the HTML page
    assert "| Label | Value | Unit | Statistic | Uncertainty | KV cache data type |" in markdown
    assert '| Run "A", first | 40.0 | tokens/s | one run | not reported | not reported |' in markdown


def test_record_json_has_the_export_shape_and_says_which_article_reports_what(built: dict[str, bytes]) -> None:
    document = json.loads(built["community/shared-record/index.json"])
    assert list(document) == ["page", "facts", "reported_results", "conditions"]
    page = document["page"]
    assert page["source_record_id"] == "shared-record"
    assert page["url"] == "https://example.org/sub/community/shared-record/"
    assert [a["url"] for a in page["articles"]] == ["https://example.org/sub/guides/a/",
                                                   "https://example.org/sub/guides/b/"]
    assert [a["results"] for a in page["articles"]] == [[0], [1]]
    assert page["checked"] == "2026-11-02"
    assert [r["label"] for r in document["reported_results"]] == ["Shared C1", "Shared C4"]
    assert b'"value": 22.50' in built["community/shared-record/index.json"]
    _export_validator().validate({k: v for k, v in document.items() if k != "page"})


def _export_validator() -> Draft202012Validator:
    registry: Registry = Registry()
    for name in ("export.schema.json", "conditions.schema.json"):
        schema = json.loads((REPO / "schema" / name).read_text())
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
    export_schema = json.loads((REPO / "schema/export.schema.json").read_text())
    return Draft202012Validator(export_schema, registry=registry)


def test_community_index_lists_every_record(built: dict[str, bytes]) -> None:
    html = text(built, "community/index.html")
    title = "m with vLLM on 1 x DGX Spark, from example"  # derived from the results: never the bare id
    assert f'<h2 class="entry-title"><a href="example-record/">{title}</a></h2>' in html
    assert f'<h2 class="entry-title"><a href="shared-record/">{title}</a></h2>' in html
    page = json.loads(built["community/index.json"])["page"]
    assert [(r["id"], r["results"], r["articles"]) for r in page["records"]] == [
        ("example-record", 2, 1), ("shared-record", 2, 2)]


def test_results_csv_has_one_rfc4180_row_per_result_with_authored_values(built: dict[str, bytes]) -> None:
    data = built["data/results.csv"]
    assert data.count(b"\r\n") == 5  # header + 4 results, CRLF line ends
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))
    assert [r["label"] for r in rows] == ['Run "A", first', "Run B", "Shared C1", "Shared C4"]
    assert b'"Run ""A"", first"' in data  # quoted, quotes doubled
    assert rows[2]["value"] == "22.50" and rows[2]["page"] == "/guides/a/"
    assert rows[0]["conditions.kv_dtype"] == ""  # null is an empty cell
    assert rows[1]["conditions.kv_dtype"] == "fp8"
    assert rows[3]["conditions.concurrency"] == "4"
    assert list(rows[0])[:5] == ["page", "source_record_id", "result_id", "label", "metric"]


def test_results_json_keeps_null_and_the_literal(built: dict[str, bytes]) -> None:
    document = json.loads(built["data/results.json"])
    assert document["columns"][0] == "page"
    assert len(document["results"]) == 4
    assert document["results"][0]["conditions.kv_dtype"] is None
    assert b'"value": 22.50' in built["data/results.json"]


def test_results_js_carries_the_same_rows_for_the_explorer(built: dict[str, bytes]) -> None:
    script = text(built, "data/results.js")
    assert script.startswith("window.EVIDENCEPRESS_RESULTS = {") and script.endswith("};\n")
    document = json.loads(script[len("window.EVIDENCEPRESS_RESULTS = "):-2])
    assert document["count"] == 4 and document["format"] == 2  # by column: texts, and each row's position
    value = document["columns"].index("value")
    width, digits = document["widths"][value], document["code_digits"]
    position = 0
    for digit in document["codes"][value][2 * width:3 * width]:
        position = position * 64 + digits.index(digit)
    assert document["dictionaries"][value][position] == "22.50"  # the literal as text, not 22.5
    assert document["pages"]["/guides/a/"] == "Article A"
    assert document["records"] == {"example-record": "m with vLLM on 1 x DGX Spark, from example",
                                   "shared-record": "m with vLLM on 1 x DGX Spark, from example"}


def test_every_article_has_an_index_csv_with_the_same_columns(built: dict[str, bytes]) -> None:
    header = built["data/results.csv"].split(b"\r\n")[0]
    for folder in ("guides/a/", "guides/b/", "about/"):
        assert built[folder + "index.csv"].split(b"\r\n")[0] == header
    assert built["about/index.csv"] == header + b"\r\n"
    assert built["guides/b/index.csv"].count(b"\r\n") == 2


def test_catalog_lists_every_page_with_its_urls(built: dict[str, bytes]) -> None:
    catalog = json.loads(built["data/catalog.json"])
    assert catalog["site"]["base_url"] == "https://example.org/sub/"
    assert catalog["site"]["license"] == {"name": "CC BY 4.0", "url": "https://creativecommons.org/licenses/by/4.0/"}
    by_url = {page["url"]: page for page in catalog["pages"]}
    article_a = by_url["/guides/a/"]
    assert article_a == {"kind": "article", "title": "Article A", "summary": "What the test article shows.",
                         "url": "/guides/a/", "json_url": "/guides/a/index.json", "md_url": "/guides/a/index.md",
                         "csv_url": "/guides/a/index.csv",
                         "charts": [{"id": "decode", "title": "Decode rate", "svg_url": "/guides/a/decode.svg",
                                     "csv_url": "/guides/a/decode.csv", "json_url": "/guides/a/decode.json"}],
                         "section": "guides", "checked": "2026-10-18", "modified": "2026-10-18"}
    assert by_url["/community/shared-record/"]["kind"] == "record"
    assert {"/", "/guides/", "/community/", "/explore/", "/schema/", "/search/"} <= set(by_url)
    for page in catalog["pages"]:
        assert page["json_url"].lstrip("/") in built and page["md_url"].lstrip("/") in built


def test_article_dataset_jsonld_names_only_what_the_page_shows(built: dict[str, bytes]) -> None:
    html = text(built, "guides/a/index.html")
    found = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html)
    assert len(found) == 1
    dataset = json.loads(found[0])
    assert dataset == {
        "@context": "https://schema.org",
        "@type": "Dataset",
        "name": "Article A",
        "description": "What the test article shows.",
        "url": "https://example.org/sub/guides/a/",
        "license": "https://creativecommons.org/licenses/by/4.0/",
        "distribution": [
            {"@type": "DataDownload", "encodingFormat": "application/json",
             "contentUrl": "https://example.org/sub/guides/a/index.json"},
            {"@type": "DataDownload", "encodingFormat": "text/csv",
             "contentUrl": "https://example.org/sub/guides/a/index.csv"},
        ],
        "variableMeasured": [{"@type": "PropertyValue", "name": "decode_rate", "unitText": "tokens/s"}],
        "isBasedOn": ["https://github.com/example/bench/blob/0123456789abcdef0123456789abcdef01234567/README.md"],
        "dateModified": "2026-10-18",
    }
    # ... and the page shows each of those facts
    assert '<a href="index.csv" download>CSV</a>' in html and "<td>Decode rate <code class=\"key\">decode_rate</code></td>" in html
    assert 'rel="license">CC BY 4.0</a>' in html
    assert "application/ld+json" not in text(built, "about/index.html")  # no results, no Dataset


def test_jsonld_cannot_close_its_script_element(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A </script><b>x</b> & y", "Text.", export(result()))})
    assert build(root)[0] == 0
    html = (root / "_site/guides/a/index.html").read_text()
    script = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.DOTALL)
    assert len(script) == 1
    assert json.loads(script[0])["name"] == "A </script><b>x</b> & y"
    assert "\\u003c/script\\u003e" in script[0]


def test_home_lists_the_most_recently_checked_first_with_key_figures(built: dict[str, bytes]) -> None:
    html = text(built, "index.html")
    assert html.index("Article B") < html.index("Article A")  # checked 2026-11-02 before 2026-10-18
    entry = html[html.index("Article A"):].split("</li>\n", 1)[0] + html[html.index("Article A"):].split(
        '<ul class="entry-figures">', 1)[1].split("</ul>", 1)[0]
    assert "<strong>3</strong> results" in entry and "<strong>2</strong> records" in entry
    assert "<strong>1</strong> chart" in entry and "<strong>1</strong> source" in entry
    assert 'datetime="2026-10-18"' in entry
    assert '<span class="figure-number">4</span> reported results' in html
    listed = html[html.index('id="recent-title"'):]
    assert listed.index("Article A") < listed.index("About")  # top-level pages after the sections


def test_sitemap_and_feed_parse_and_take_their_dates_from_the_content(built: dict[str, bytes]) -> None:
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "a": "http://www.w3.org/2005/Atom"}
    sitemap = ET.fromstring(built["sitemap.xml"])
    urls = {u.findtext("s:loc", namespaces=ns): u.findtext("s:lastmod", namespaces=ns)
            for u in sitemap.findall("s:url", ns)}
    assert urls["https://example.org/sub/guides/b/"] == "2026-11-02"
    assert urls["https://example.org/sub/"] == "2026-11-02"
    assert urls["https://example.org/sub/community/shared-record/"] == "2026-11-02"
    assert "https://example.org/sub/search/" not in urls
    feed = ET.fromstring(built["feed.xml"])
    assert feed.findtext("a:updated", namespaces=ns) == "2026-11-02T00:00:00Z"
    entries = feed.findall("a:entry", ns)
    assert [e.findtext("a:title", namespaces=ns) for e in entries] == ["Article B", "About", "Article A"]
    first = entries[0]
    assert first.findtext("a:id", namespaces=ns) == "https://example.org/sub/guides/b/"
    assert first.findtext("a:updated", namespaces=ns) == "2026-11-02T00:00:00Z"
    assert feed.find("a:link[@rel='self']", ns).get("href") == "https://example.org/sub/feed.xml"  # type: ignore[union-attr]


def test_robots_names_the_sitemap_and_llms_txt_lists_every_page(built: dict[str, bytes]) -> None:
    assert text(built, "robots.txt") == "User-agent: *\nAllow: /\n\nSitemap: https://example.org/sub/sitemap.xml\n"
    llms = text(built, "llms.txt")
    assert llms.startswith("# Test Evidence\n\n> A site built by the tests.\n")
    for folder in ("guides/a/", "guides/b/", "about/", "community/shared-record/"):
        url = "https://example.org/sub/" + folder
        assert f"]({url}index.md)" in llms and f"JSON: {url}index.json" in llms
    assert "## Guides" in llms and "## Source records" in llms and "## Optional" in llms


def test_404_links_start_at_the_base_path(built: dict[str, bytes]) -> None:
    html = text(built, "404.html")
    assert '<link rel="stylesheet" href="/sub/static/style.css">' in html
    assert '<a class="brand" href="/sub/">' in html and '<a href="/sub/guides/">Guides</a>' in html
    assert 'action="/sub/search/"' in html
    assert 'href="index.json"' not in html and "canonical" not in html
    hrefs = re.findall(r'(?:href|src|action)="([^"]+)"', html)
    assert all(h.startswith(("/sub/", "https://", "#")) for h in hrefs), hrefs


def test_schema_index_lists_the_published_schemas(built: dict[str, bytes]) -> None:
    html = text(built, "schema/index.html")
    for name in ("export.schema.json", "conditions.schema.json", "community.schema.json", "units.json"):
        assert f'<a href="{name}">' in html and f"schema/{name}" in built


def test_every_generated_page_links_only_to_files_that_exist(built: dict[str, bytes]) -> None:
    for name, data in built.items():
        if not name.endswith(".html") or name == "404.html" or name.startswith("pagefind/"):
            continue
        folder = name.rsplit("/", 1)[0] + "/" if "/" in name else ""
        for href in re.findall(r'(?:href|src)="([^"#?]+)', data.decode("utf-8")):
            if "://" in href or href.startswith("mailto:"):
                continue
            target = _join(folder, href)
            assert target in built or target + "index.html" in built, f"{name}: {href}"


def _join(folder: str, href: str) -> str:
    parts: list[str] = [p for p in folder.split("/") if p]
    for part in href.split("/"):
        if part == "..":
            parts.pop()
        elif part and part != ".":
            parts.append(part)
    return "/".join(parts) + ("/" if href.endswith("/") and parts else "")


def test_internal_links_to_generated_paths_are_checked(tmp_path: Path) -> None:
    body = "See [the data](/data/results.csv), [records](/community/example-record/) and [explore](/explore/)."
    root = make_site(tmp_path, {"guides/a.md": article("A", body, export(result()))})
    assert build(root)[0] == 0
    (root / "content/guides/a.md").write_text(article("A", "A [bad](/community/no-such-record/) link.",
                                                      export(result())))
    code, output = build(root)
    assert code == 1
    assert "broken internal link /community/no-such-record/" in output


def test_links_to_a_page_with_errors_are_not_errors_as_well(tmp_path: Path) -> None:
    """A broken export linked from three pages is one error, in its own file (issue 29): the links
    were fine, and the newcomer fixed the wrong files."""
    bad = result()
    bad["conditions"]["concurrency"] = "lots"
    body = ("See [it](/guides/broken/), [its data](/guides/broken/index.json), [a part](../broken/#first-part) "
            "and [nothing](/guides/absent/).")
    pages = {"guides/broken.md": article("Broken", export_doc=export(bad))}
    pages |= {f"guides/l{n}.md": article(f"L{n}", body) for n in range(3)}
    code, output = build(make_site(tmp_path, pages))
    assert code == 1
    errors = [line for line in output.splitlines() if ": error: " in line]
    assert errors[0] == ('content/guides/broken.md:32:9: error: reported_results[0].conditions.concurrency: '
                         'expected integer >= 1 or null, got "lots" [schema]')
    assert [line.split(": error: ")[1] for line in errors[1:]] == [
        "broken internal link /guides/absent/: no page or file at /guides/absent/ [link]"] * 3


@pytest.mark.parametrize("rel, url", [("explore.md", "/explore/"), ("community.md", "/community/"),
                                      ("search.md", "/search/"), ("schema.md", "/schema/")])
def test_an_article_may_not_take_a_generated_url(tmp_path: Path, rel: str, url: str) -> None:
    root = make_site(tmp_path, {rel: article("Clash")})
    code, output = build(root)
    assert code == 1
    assert output.startswith(f"content/{rel}: error: {url} is generated by the site [path]\n")


def test_license_in_site_toml_is_validated(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"about.md": article()}, SITE_TOML + '\n[license]\nname = "CC BY 4.0"\nlink = "x"\n')
    code, output = build(root)
    assert code == 1
    assert "site.toml:13:1: error: license.link: unknown key in license 'link' [config]" in output
    assert "site.toml:11:2: error: license.url: missing required key 'url' [config]" in output


def test_the_same_site_builds_the_same_site_wide_files_under_another_base_url(tmp_path: Path) -> None:
    root = data_site(tmp_path / "site")
    assert build(root, "--out", str(tmp_path / "one"))[0] == 0
    assert build(root, "--out", str(tmp_path / "two"), "--base-url", "https://other.example/x/")[0] == 0
    one, two = tree(tmp_path / "one"), tree(tmp_path / "two")
    for name in ("data/results.csv", "data/results.json", "data/results.js", "guides/a/index.csv"):
        assert one[name] == two[name]  # site paths inside, never the base URL


def test_a_site_without_sections_lists_its_pages_everywhere(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"a.md": article("Page A", "Text.", export(result())), "b.md": article("Page B")})
    assert build(root)[0] == 0
    files = tree(root / "_site")
    llms = text(files, "llms.txt")
    assert "## Pages" in llms and "(https://example.org/sub/a/index.md)" in llms and "/b/index.md)" in llms
    home = text(files, "index.html")
    assert "Page A" in home[home.index('id="recent-title"'):] and "Page B" in home[home.index('id="recent-title"'):]


def test_conditions_are_shared_only_when_written_the_same() -> None:
    """22.5 and 22.50, 1 and 1.0, true and 1, -0 and 0, a missing key and null: each pair varies."""
    from evidencepress.core.export import ReportedResult
    from evidencepress.core.jsontext import parse_float, parse_int
    from evidencepress.site.records import split_conditions

    pairs = {"a": (22.5, parse_float("22.50")), "b": (1, 1.0), "c": (True, 1), "d": (0, parse_int("-0")),
             "e": (None, "missing"), "f": ("x", "x"), "g": (parse_float("22.50"), parse_float("22.50")),
             "h": ({"k": [1, None]}, {"k": [1, None]}), "i": (0.0, -0.0)}
    first = {key: one for key, (one, _) in pairs.items()}
    second = {key: two for key, (_, two) in pairs.items() if two != "missing"}
    shared, varying = split_conditions([ReportedResult({"conditions": first}), ReportedResult({"conditions": second})],
                                      core=("f",))
    assert [key for key, _ in shared] == ["f", "g", "h"]
    assert varying == ("a", "b", "c", "d", "e", "i")


def test_the_site_index_from_page_facts_equals_the_one_it_finds_itself(tmp_path: Path) -> None:
    """The facts a validating worker finds with each page (kept in the page cache) give the same
    index as the pages alone; facts found for other core conditions are not used."""
    from dataclasses import replace

    from evidencepress.build.recipe import BuildOptions, plan_site
    from evidencepress.build.validating import validate_source
    from evidencepress.content.read import read_content
    from evidencepress.site.dataset import table_spec
    from evidencepress.site.index import SiteIndex, index_site

    root = data_site(tmp_path / "site")
    plan, _ = plan_site(BuildOptions(root, use_cache=False))
    assert plan is not None
    spec = table_spec(plan.schemas)
    sources = {source.url: source for source in read_content(root)[0].pages}
    outcomes = [validate_source(sources[page.url], plan.schemas) for page in plan.pages]
    facts = {page.url: outcome.facts for page, outcome in zip(plan.pages, outcomes, strict=True)
             if outcome.facts is not None}
    assert len(facts) == len(plan.pages) and [o.page for o in outcomes] == list(plan.pages)

    def seen(index: SiteIndex) -> object:
        return (index.results, index.catalog, index.totals,
                [(e.page.url, e.figures, e.records, e.metrics, e.facets) for e in index.entries],
                [(r.id, [(c.page.url, c.results, c.shared, c.varying, c.mentions, c.sources) for c in r.citations])
                 for r in index.records])

    with_facts = index_site(plan.pages, [], plan.config, spec, facts)
    assert seen(index_site(plan.pages, [], plan.config, spec)) == seen(with_facts)
    assert any(citation.shared for record in with_facts.records for citation in record.citations)
    other = index_site(plan.pages, [], plan.config, replace(spec, conditions=spec.conditions[:-1]), facts)
    assert other.results.columns == with_facts.results.columns[:-2] + ("verification",)
    assert all(len(row.values) == len(other.results.columns) for row in other.results.rows)
