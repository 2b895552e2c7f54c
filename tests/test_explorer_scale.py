"""The explorer at 20,000 results, in Chromium (issue 27 item 5): filters, sort, paging and the
address work on a table far larger than a page, only one page of rows is in the document, and the
count is announced. Speed is measured by bench/explorer.py, never asserted here.

The site is small (one article) and built once; its ``data/results.js`` is then written by the
build's own writer (``output.data.results_script``) of 20,000 synthetic rows, which takes about a
second where building 20,000 results would take minutes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from browserkit import Visit, served
from click.testing import CliRunner

from evidencepress.cli import main
from evidencepress.core import jsontext
from evidencepress.core.numbers import for_reading
from evidencepress.output.data import results_script
from evidencepress.site.dataset import ResultRow

RESULTS = 20_000
PAGE_ROWS = 50
ENGINES = ("vLLM", "SGLang", "llama.cpp", None)
ROW = "#explore-table tbody tr"


def _rows(template: dict[str, Any], columns: tuple[str, ...]) -> list[ResultRow]:
    rows = []
    for number in range(RESULTS):
        cells = dict(template)
        literal = f"{(number * 7919) % 200_000 - 100_000}.{number % 100:02d}"  # negatives, 4-6 digit whole parts
        cells.update({
            "label": f"Trial {number} {'odd' if number % 2 else 'even'}",
            "result_id": f"trial-{number}",
            "value": jsontext.parse_float(literal),
            "conditions.engine": ENGINES[(number // 3) % 4],
            "conditions.concurrency": None if number % 7 == 0 else 1 + number % 16,
            "comparison_key": None,
        })
        rows.append(ResultRow(cells["page"], columns, tuple(cells.get(column) for column in columns)))
    return rows


@pytest.fixture(scope="module")
def large_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[ResultRow]]]:
    from sitekit import article, export, make_site, result

    root = tmp_path_factory.mktemp("large") / "site"
    make_site(root, {"guides/a.md": article("Many runs", "Text.", export(result("Run A", 40.5)))})
    out = root.parent / "public"
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--out", str(out)])
    assert outcome.exit_code == 0, outcome.output
    table = json.loads((out / "data/results.json").read_bytes(), parse_float=jsontext.parse_float)
    columns = tuple(table["columns"])
    rows = _rows(table["results"][0], columns)
    index = SimpleNamespace(
        results=SimpleNamespace(columns=columns, rows=tuple(rows)),
        entries=[SimpleNamespace(page=SimpleNamespace(url="/guides/a/", front=SimpleNamespace(title="Many runs")))],
        records=[])
    rules = SimpleNamespace(keys_of=lambda metric: ())
    (out / "data/results.js").write_bytes(b"".join(results_script(index, rules)))  # type: ignore[arg-type]
    with served(out) as url:
        yield url + "explore/", rows


def _text(row: ResultRow, column: str) -> str | None:
    return row.texts[row.columns.index(column)]


def _count(page: Any) -> str:
    return str(page.locator("#explore-count").inner_text())


def test_the_explorer_filters_sorts_and_pages_twenty_thousand_results(
        visit: Visit, large_site: tuple[str, list[ResultRow]]) -> None:
    url, rows = large_site
    page = visit.open(url)
    assert _count(page) == "All 20,000 reported results"
    assert page.locator(ROW).count() == PAGE_ROWS  # one page in the document, not 20,000 rows
    assert page.get_attribute("#explore-table", "aria-rowcount") == str(RESULTS + 1)
    assert page.locator(ROW).first.get_attribute("aria-rowindex") == "2"
    assert page.locator("#explore-pages .pages-text").inner_text() == "Rows 1\u201350 of 20,000 (page 1 of 400)"
    page.wait_for_function("document.getElementById('explore-status').textContent === 'All 20,000 reported results'")

    page.select_option("#filter-engine", "vLLM")
    page.fill("#filter-q", "odd")
    chosen = [row for row in rows if _text(row, "conditions.engine") == "vLLM" and "odd" in str(_text(row, "label"))]
    said = f"Showing {len(chosen):,} of 20,000 reported results"
    assert _count(page) == said and page.locator(ROW).count() == PAGE_ROWS
    assert set(page.locator(f"{ROW} td:nth-child(8)").all_inner_texts()) == {"vLLM"}
    page.wait_for_function(f"document.getElementById('explore-status').textContent === {said!r}")
    assert "engine=vLLM" in page.url and "q=odd" in page.url

    page.click("th[data-column='value'] button")  # numbers: highest first, as the literal reads
    assert page.get_attribute("th[data-column='value']", "aria-sort") == "descending"
    ranked = sorted(enumerate(chosen), key=lambda pair: (-float(str(_text(pair[1], "value"))), pair[0]))
    expected = [for_reading(str(_text(row, "value"))) for _, row in ranked]
    assert page.locator(f"{ROW} td.num:nth-child(3)").all_inner_texts() == expected[:PAGE_ROWS]

    page.get_by_role("button", name="Next page").click()
    assert page.locator(ROW).first.get_attribute("aria-rowindex") == str(PAGE_ROWS + 2)
    assert page.locator(f"{ROW} td.num:nth-child(3)").all_inner_texts() == expected[PAGE_ROWS:2 * PAGE_ROWS]
    assert "page=2" in page.url and "sort=value" in page.url

    again = visit.open(page.url)  # the address keeps the whole view
    assert again.input_value("#filter-engine") == "vLLM" and again.input_value("#filter-q") == "odd"
    assert again.get_attribute("th[data-column='value']", "aria-sort") == "descending"
    assert again.locator(f"{ROW} td.num:nth-child(3)").all_inner_texts() == expected[PAGE_ROWS:2 * PAGE_ROWS]
    assert _count(again) == said and again.locator(ROW).count() == PAGE_ROWS
    assert visit.problems == []


def test_not_reported_sorts_last_either_way(visit: Visit, large_site: tuple[str, list[ResultRow]]) -> None:
    url, rows = large_site
    nulls = sum(1 for row in rows if _text(row, "conditions.concurrency") is None)
    last = -(-RESULTS // PAGE_ROWS)
    for direction in ("asc", "desc"):
        page = visit.open(f"{url}?sort=conditions.concurrency&dir={direction}&page={last}")
        cells = page.locator(f"{ROW} td:nth-child(9)").all_inner_texts()
        assert cells[-1] == "not reported" and nulls > PAGE_ROWS
        first = visit.open(f"{url}?sort=conditions.concurrency&dir={direction}")
        top = first.locator(f"{ROW} td:nth-child(9)").all_inner_texts()
        assert top == [("1" if direction == "asc" else "16")] * PAGE_ROWS
    assert visit.problems == []


SHIFTS = """
window.__shifts = 0;
new PerformanceObserver(list => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shifts += e.value; })
  .observe({type: 'layout-shift', buffered: true});
"""


def test_on_a_phone_the_explorer_loads_without_layout_shift_and_breaks_no_label_mid_word(
        browser: Any, large_site: tuple[str, list[ResultRow]]) -> None:
    url, _ = large_site
    context = browser.new_context(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True)
    context.add_init_script(SHIFTS)
    try:
        page = context.new_page()
        page.goto(url, wait_until="networkidle")
        page.wait_for_function("document.getElementById('explore-count').textContent !== ''")
        page.wait_for_timeout(500)
        assert page.evaluate("window.__shifts") < 0.05
        for selector in ("#explore-table tbody th", ".filter label", ".explore .meta"):
            style = page.eval_on_selector(selector, "e => [getComputedStyle(e).overflowWrap, getComputedStyle(e).hyphens]")
            assert style[0] != "anywhere" and style[1] != "auto", (selector, style)
        assert page.eval_on_selector("#explore-filter-box", "box => box.open") is False  # folded on a phone
    finally:
        context.close()
