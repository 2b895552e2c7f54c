"""No value from content ever becomes markup, in any page a reader can open (issue 25).

One small site holds, in every text field that reaches a page (site title and footer, front matter,
headings, body text, link text, image alt, table cells, footnotes, chart title/alt/caption/panel
titles, result labels and series, every condition value, statistics, uncertainty kinds, facts, other
export sections, sources, record prose, the changes between two commits of ``exports/``), strings
that would run script if they were inserted as HTML, broke out of an attribute, a ``<script>`` or a
URL, or were read as a template or a JavaScript object key. It is built once for the browser (after
two commits of its exports, before and after its values changed, for ``/changes/``) and every kind of
page is opened in Chromium, its disclosures, tips and filters used: no payload runs and none becomes
an element or an attribute. Every feed, sitemap and SVG must be well-formed
XML and every JSON file must parse.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from browserkit import Visit, served
from click.testing import CliRunner
from sitekit import REV, SHA, SOURCE_URL, result

from evidencepress.cli import main

PAYLOADS = (
    "<img src=x onerror=window.__pwned=1>",
    '"><svg onload=window.__pwned=1>',
    "'><svg onload=window.__pwned=1>",
    "</script><script>window.__pwned=1</script>",
    "javascript:window.__pwned=1",
    "{{7*7}}",
    "${7*7}",
    "__proto__",
    "constructor",
)
HOSTILE = " ".join(PAYLOADS)
SHORT = "".join(PAYLOADS[:4]) + " {{7*7}} ${7*7}"  # for chart text (at most 200 characters)
# no whitespace, so that it fits a URL; a second, unpinned source
HOSTILE_URL = SOURCE_URL + "?q=%22%3E%3Csvg/onload=window.__pwned=1%3E&x=\"><svg/onload=window.__pwned=1>"
# The cited document, in the vault: its lines are the tips of the source-check badges.
DOCUMENT = "\n".join(
    ["Benchmark notes " + HOSTILE, "", "Value " + HOSTILE, "Case " + HOSTILE] + [""] * 5
    + ["Decode 42.5 ± 1.5 (first 41.5 ± 1.5), then 40.5 and 7.5 tokens/s " + HOSTILE, ""]).encode()
DIGEST = hashlib.sha256(DOCUMENT).hexdigest()
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.org", "GIT_AUTHOR_DATE": "2026-10-01T09:00:00Z",
    "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.org",
    "GIT_COMMITTER_DATE": "2026-10-01T09:00:00Z", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def _toml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a TOML basic string


SITE_TOML = f"""\
title = {_toml("Site " + HOSTILE)}
description = {_toml("Description " + HOSTILE)}
base_url = "https://example.org/site/"
language = "en"
footer = {_toml("Footer " + HOSTILE)}

[[sections]]
id = "guides"
title = {_toml("Guides " + HOSTILE)}
"""

CHART = f"""
```chart
id: decode
kind: bar
title: {json.dumps("Chart " + SHORT)}
alt: {json.dumps("Alt " + HOSTILE)}
caption: {json.dumps("Caption " + HOSTILE)}
panels:
  - title: {json.dumps("Panel " + SHORT)}
    select:
      where: {{metric: decode_rate}}
    series: conditions.engine
names: {{"Decode B constructor": {json.dumps("Named " + SHORT)}}}
```
"""

BODY = f"""\
Decode text {HOSTILE} and `code {HOSTILE}`, at {{value}}`Decode A {SHORT}`.

## Heading {HOSTILE}

A [link {HOSTILE}](/guides/plain/) and an image ![alt {HOSTILE}](/assets/pic.svg).

| Column {HOSTILE} | Other |
|---|---|
| Cell {HOSTILE} | `{HOSTILE}` |

A footnote.[^one]

[^one]: Note {HOSTILE}
{CHART}
"""


def _conditions(model: str, engine: str, kv_dtype: str) -> dict[str, Any]:
    return {"system": "System " + HOSTILE, "experiment_date": "2026-10-01 " + HOSTILE, "model": model,
            "engine": engine, "weight_precision": "Precision " + HOSTILE, "kv_dtype": kv_dtype,
            "cache_state": "Cache " + HOSTILE, "thinking": "Thinking " + HOSTILE, "quant": "Quant " + HOSTILE,
            "constructor": "Key " + HOSTILE}


def _results(later: bool) -> list[dict[str, Any]]:
    first = result("Decode A " + SHORT, 42.5 if later else 41.5, statistic="Statistic " + HOSTILE,
                   uncertainty={"standard_deviation": 1.5, "kind": "Kind " + HOSTILE},
                   source_document_id="Document " + HOSTILE, evidence_url=HOSTILE_URL + "#L10")
    first["conditions"].update(_conditions("__proto__", "Engine " + SHORT, ("KV " + HOSTILE) if later else "bf16"))
    second = result("Decode B constructor", 40.5)
    second["conditions"].update(_conditions("constructor", "__proto__", "bf16"))
    other = result("Other " + HOSTILE, 7.5, metric="constructor", unit="Unit " + HOSTILE,
                   source_record_id="constructor")
    other["conditions"]["input_tokens"] = None  # no comparison key: the explorer says why in a tip
    return [first, second] + ([other] if later else [])


def _export(later: bool) -> dict[str, Any]:
    fact = {"label": "Fact " + HOSTILE, "value": "Value " + HOSTILE, "classification": "setting",
            "unit": "Unit " + HOSTILE, "evidence_url": SOURCE_URL + "#L3", "source_document_sha256": SHA}
    case = {"label": "Case " + HOSTILE, "symptom": "Symptom " + HOSTILE, "evidence_url": SOURCE_URL + "#L4",
            "source_document_sha256": SHA}
    return {"facts": [fact], "reported_results": _results(later),
            "conditions": {"note": "Note " + HOSTILE, "constructor": HOSTILE}, "case_reports": [case]}


def _front(title: str, summary: str, sources: bool) -> str:
    lines = ["---", f"title: {json.dumps(title)}", f"summary: {json.dumps(summary)}", "checked: 2026-10-18",
             "tags: [constructor, proto]"]
    if sources:
        lines += ["sources:",
                  f"  - publisher: {json.dumps('Publisher ' + HOSTILE)}", f"    url: {json.dumps(SOURCE_URL)}",
                  f'    revision: "{REV}"', f'    sha256: "{SHA}"',
                  f"  - publisher: {json.dumps('Second ' + HOSTILE)}", f"    url: {json.dumps(HOSTILE_URL)}",
                  f"    revision: {json.dumps('Revision ' + HOSTILE)}", f'    sha256: "{SHA}"']
    return "\n".join(lines + ["---", ""])


def _article(later: bool) -> str:
    export_fence = "\n```json export\n" + json.dumps(_export(later), indent=2) + "\n```\n"
    return _front("Decode " + HOSTILE, "Summary " + HOSTILE, sources=True) + "\n" + BODY + export_fence


def _write(root: Path, later: bool) -> None:
    files = {
        "site.toml": SITE_TOML,
        "content/guides/hostile.md": _article(later).replace(SHA, DIGEST),
        f"sources/{DIGEST}": DOCUMENT.decode(),
        "content/guides/plain.md": _front("Plain " + HOSTILE, "Plain " + HOSTILE, sources=False) + "\nPlain text.\n",
        "content/community/example-record.md": (
            f"---\ntitle: {json.dumps('Record ' + HOSTILE)}\nsummary: {json.dumps('Record summary ' + HOSTILE)}\n"
            f"---\n\nRecord prose {HOSTILE}.\n\n## Record heading {HOSTILE}\n"),
        "content/assets/pic.svg": '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>\n',
        ".gitignore": "_site/\n.cache/\npublic/\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], env={**os.environ, **GIT_ENV}, check=True, capture_output=True)


def _build(root: Path, out: Path) -> None:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--out", str(out), "--jobs", "1"])
    assert outcome.exit_code == 0, outcome.output


def build_hostile_site(root: Path) -> Path:
    """The hostile site, its exports committed before and after its values changed: the output folder."""
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    for later in (False, True):
        _write(root, later)
        _build(root, root / "_site")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", "exports")
    out = root.parent / "public"
    _build(root, out)
    return out


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_hostile_site(tmp_path_factory.mktemp("hostile-everywhere") / "site")


@pytest.fixture(scope="module")
def hostile_server(hostile_site: Path) -> Iterator[str]:
    with served(hostile_site) as url:
        yield url


# Anything a payload would have made: the flag it sets, an element or attribute it would have added.
INJECTED = """() => {
  const found = [];
  for (const element of document.querySelectorAll("*")) {
    for (const attribute of element.attributes) {
      if (/^on/i.test(attribute.name)) {
        found.push(element.localName + "[" + attribute.name + "]");
      }
      if (/^\\s*javascript:/i.test(attribute.value) && attribute.value.includes("__pwned")) {
        found.push(element.localName + "[" + attribute.name + "=javascript:]");
      }
    }
    if (element.localName === "script" && element.textContent.includes("__pwned")) {
      if (element.type !== "application/ld+json") {
        found.push("script with a payload");
      } else {
        try { JSON.parse(element.textContent); } catch (error) { found.push("JSON-LD broken"); }
      }
    }
    if (element.localName === "img" && element.getAttribute("src") === "x") {
      found.push("img[src=x]");
    }
  }
  return {pwned: typeof window.__pwned, found: found};
}"""


def assert_inert(page: Any, where: str) -> None:
    assert page.evaluate(INJECTED) == {"pwned": "undefined", "found": []}, where


def open_disclosures(page: Any) -> None:
    """Every <details> opened and every hover or focus tip shown, so that what they hold is in the DOM."""
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    for tip in page.locator("[data-tip], [title]").all():
        if tip.is_visible():
            tip.hover()
            tip.focus()


def page_paths(site: Path) -> list[str]:
    folders = (p.parent.relative_to(site).as_posix() for p in site.rglob("index.html") if "pagefind" not in p.parts)
    return sorted("" if folder == "." else folder + "/" for folder in folders)


def test_every_feed_sitemap_svg_and_json_file_is_well_formed(hostile_site: Path) -> None:
    xml_files = sorted(p for p in hostile_site.rglob("*") if p.suffix in {".xml", ".svg"})
    assert {p.name for p in xml_files} >= {"feed.xml", "changes.xml", "sitemap.xml", "decode.svg", "decode.narrow.svg"}
    for path in xml_files:
        ET.parse(path)
    json_files = sorted(hostile_site.rglob("*.json"))
    assert len(json_files) >= 20
    for path in json_files:
        json.loads(path.read_text(encoding="utf-8"))
    atom = "{http://www.w3.org/2005/Atom}"
    feed = ET.parse(hostile_site / "feed.xml").getroot()
    titles = [entry.findtext(atom + "title") for entry in feed.findall(atom + "entry")]
    assert "Decode " + HOSTILE in titles  # the feed holds the title as text, whole


def test_no_page_runs_or_grows_markup_from_content(visit: Visit, hostile_server: str, hostile_site: Path) -> None:
    paths = page_paths(hostile_site)
    assert {"", "guides/", "guides/hostile/", "guides/plain/", "community/", "community/example-record/",
            "community/constructor/", "explore/", "search/", "gaps/", "changes/", "schema/"} <= set(paths)
    for path in paths:
        page = visit.open(hostile_server + path)
        open_disclosures(page)
        assert_inert(page, path)
    for path in ("guides/hostile/", "explore/", "community/example-record/"):  # from disk, links rewritten
        from_disk = visit.open((hostile_site / path / "index.html").as_uri())
        open_disclosures(from_disk)
        assert_inert(from_disk, "file: " + path)
    article = visit.open(hostile_server + "guides/hostile/")
    assert article.locator("h1").inner_text() == "Decode " + HOSTILE
    assert "Caption " + HOSTILE in article.locator("figure.chart figcaption").first.inner_text()
    assert visit.problems == []


def test_charts_feeds_and_the_missing_page_are_inert_on_their_own(visit: Visit, hostile_server: str,
                                                                  hostile_site: Path) -> None:
    files = sorted(p.relative_to(hostile_site).as_posix() for p in hostile_site.rglob("*")
                   if p.suffix in {".svg", ".xml"} and "static" not in p.parts)
    assert "guides/hostile/decode.svg" in files and "feed.xml" in files
    for name in files:
        assert_inert(visit.open(hostile_server + name), name)
    # Chromium asks for /favicon.ico, outside the site, for a document that is not HTML (no request event)
    favicon = "console: Failed to load resource: the server responded with a status of 404 (Not Found)"
    assert set(visit.problems) <= {favicon}
    visit.problems.clear()
    missing = visit.open(hostile_server + "no/such/page/")
    assert_inert(missing, "404")
    assert sorted(visit.problems) == [
        "HTTP 404: " + hostile_server + "no/such/page/",
        "console: Failed to load resource: the server responded with a status of 404 (Not Found)",
    ]


def test_the_explorer_shows_every_value_as_text_with_its_filters(visit: Visit, hostile_server: str) -> None:
    page = visit.open(hostile_server + "explore/")
    rows = "#explore-table tbody tr:not(.group-head)"
    assert page.locator(rows).count() == 3
    models = page.eval_on_selector_all("#filter-model option", "found => found.map(o => o.textContent)")
    assert models[1:] == ["__proto__ (1)", "constructor (1)", "m (1)"]
    for model in ("__proto__", "constructor"):
        page.select_option("#filter-model", model)
        assert page.locator(rows).count() == 1
        assert_inert(page, "model " + model)
    page.select_option("#filter-model", "")
    page.select_option("#filter-system", "System " + HOSTILE)
    assert page.locator(rows).count() == 2
    page.fill("#filter-q", PAYLOADS[0])
    assert page.locator(rows).count() == 2
    page.get_by_role("button", name="Clear filters").click()
    page.check("#explore-group")
    open_disclosures(page)
    assert_inert(page, "explorer grouped")
    page.locator("td.compare-cell a").first.click()
    assert_inert(page, "explorer comparable")
    # an address can hold anything too
    state = {name: HOSTILE for name in ("q", "model", "system", "sort", "comparable", "row", "record")}
    shared = visit.open(hostile_server + "explore/?" + urlencode(state))
    open_disclosures(shared)
    assert_inert(shared, "explorer address")
    assert shared.input_value("#filter-q") == HOSTILE
    assert visit.problems == []


@pytest.mark.parametrize("query", ["decode", "heading", PAYLOADS[0], PAYLOADS[3]])
def test_search_shows_results_filters_and_the_query_as_text(visit: Visit, hostile_server: str, query: str) -> None:
    page = visit.open(hostile_server + "search/?q=" + quote(query))
    page.wait_for_selector(".pagefind-ui__result-link, .pagefind-ui__message")
    page.wait_for_selector(".pagefind-ui__filter-value", state="attached")
    open_disclosures(page)
    for group in page.locator(".pagefind-ui__filter-name").all():
        group.click()
    assert_inert(page, "search " + query)
    assert page.input_value(".pagefind-ui__search-input") == query
    if query == "decode":
        titles = page.eval_on_selector_all(".pagefind-ui__result-link", "found => found.map(e => e.textContent)")
        assert "Decode " + HOSTILE in titles
    assert visit.problems == []
