"""Record pages read like articles: a human title, a summary, numbers for reading, cards on phones."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner
from sitekit import article, export, make_site, result

from evidencepress.cli import main

TITLE = "m with vLLM on 1 x DGX Spark, from example"


def built(tmp_path: Path) -> Path:
    big = result("Run big", value=113556639424, source_record_id="big-record")
    big["conditions"]["prompt_mix"] = {"chat": 9, "code": 1200}
    other = result("Run small", value=-0.5, source_record_id="big-record")
    other["conditions"]["concurrency"] = 4
    root = make_site(tmp_path, {"guides/a.md": article("Article A", "Text.", export(big, other))})
    outcome = CliRunner().invoke(main, ["build", "--root", str(root)])
    assert outcome.exit_code == 0, outcome.output
    return root / "_site"


def test_a_record_without_prose_is_titled_from_its_results_never_by_its_id(tmp_path: Path) -> None:
    site = built(tmp_path)
    html = (site / "community/big-record/index.html").read_text()
    assert f"<title>{TITLE} — " in html and f"<h1>{TITLE}</h1>" in html
    summary = "2 reported results of decode rate from documents published by example, cited by 1 article."
    assert f'<p class="summary">{summary}</p>' in html
    assert f'<meta name="description" content="{summary}">' in html
    assert json.loads((site / "community/big-record/index.json").read_text())["page"]["title"] == TITLE
    assert (site / "community/big-record/index.md").read_text().startswith(f"# {TITLE}\n\n> {summary}\n")
    assert "data-pagefind-body" in html  # Pagefind titles a hit by the page's h1: the human title


def test_record_numbers_are_formatted_for_reading_with_the_authored_digits(tmp_path: Path) -> None:
    site = built(tmp_path)
    html = (site / "community/big-record/index.html").read_text()
    assert '<td class="num" data-label="Value">113,556,639,424</td>' in html
    assert '<td class="num" data-label="Value">\u22120.5</td>' in html
    assert "113556639424" not in html.split("<main", 1)[1]
    assert '{"chat"' not in html and "chat: 9; code: 1,200" in html  # an object condition in words
    markdown = (site / "community/big-record/index.md").read_text()
    assert "| Run big | 113,556,639,424 |" in markdown


def test_record_rows_carry_labels_for_phone_cards(tmp_path: Path) -> None:
    site = built(tmp_path)
    html = (site / "community/big-record/index.html").read_text()
    for label in ("Result", "Value", "Unit", "Statistic", "Uncertainty", "Concurrency", "Evidence"):
        assert f'data-label="{label}"' in html
    assert '<th scope="col">Concurrency</th>' in html  # the varying condition, in words
    assert "<dt>Engine</dt>" in html  # a shared one, listed once
    css = (site / "assets/style.css").read_text() if (site / "assets/style.css").exists() else ""
    css = css or next(site.rglob("style*.css")).read_text()
    block = css.split("/* ---- record pages and /data/ (records) ---- */", 1)[1]
    assert "@media (max-width: 600px)" in block and "attr(data-label)" in block


def test_a_derived_title_keeps_the_head_of_long_condition_texts() -> None:
    from evidencepress.site.records import _short

    assert _short("two DGX Spark GB10, 128 GB unified memory each, TP2", 5) == "two DGX Spark GB10"
    assert _short("vLLM + EXL3 overlay on top", 3) == "vLLM + EXL3"
    assert _short("patched SGLang with Marlin W4A16", 3) == "patched SGLang"


def shared_and_varying(tmp_path: Path) -> Path:
    """A record of two metrics: conditions shared by all, within one metric, and varying."""
    def run(label: str, metric: str, concurrency: int, kv: object, **extra: object) -> dict[str, object]:
        entry = result(label, source_record_id="mixed-record", metric=metric)
        entry["conditions"].update(concurrency=concurrency, kv_dtype=kv, **extra)
        return entry

    results = (run("Decode C1", "decode_rate", 1, "fp8"), run("Decode C4", "decode_rate", 4, "fp8"),
               run("Prefill chat", "prefill_rate", 8, None, prompt_style="chat"),
               run("Prefill plain", "prefill_rate", 8, None))
    root = make_site(tmp_path, {"guides/a.md": article("Article A", "Text.", export(*results))})
    outcome = CliRunner().invoke(main, ["build", "--root", str(root)])
    assert outcome.exit_code == 0, outcome.output
    return root / "_site/community/mixed-record"


def _tables(html: str) -> list[tuple[list[str], str]]:
    """Each results table's column names and the dl of conditions just above it ("" if none)."""
    found = []
    for before, table in zip(html.split("<table")[:-1], html.split("<table")[1:], strict=True):
        head = table.split("</thead>", 1)[0]
        last = before.rsplit("</table>", 1)[-1]
        found.append((re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', head),
                      last.rsplit("<dl", 1)[1] if "<dl" in last else ""))
    return found


def test_conditions_shared_by_every_result_of_a_record_are_listed_once_above_its_tables(tmp_path: Path) -> None:
    html = (shared_and_varying(tmp_path) / "index.html").read_text()
    top = html.split('class="shared-conditions record-conditions"', 1)[1].split("</details>", 1)[0]
    assert "Conditions shared by all 4 results of this record" in top
    assert "<div><dt>Engine</dt><dd class=\"cell-value\">vLLM</dd></div>" in top
    assert html.count("<dt>Engine</dt>") == 1  # not again in a table's list
    assert "<dt>Concurrency</dt>" not in top and "<dt>KV cache data type</dt>" not in top  # differ between metrics


def test_a_record_has_one_table_per_metric_with_only_the_conditions_varying_in_it(tmp_path: Path) -> None:
    site = shared_and_varying(tmp_path)
    html = (site / "index.html").read_text()
    # the metric in words, its id beside it
    assert '<h3 class="record-metric">Decode rate <span class="meta">· <code>decode_rate</code> · 2 results' in html
    assert '<h3 class="record-metric">Prefill rate <span class="meta">· <code>prefill_rate</code>' in html
    assert 'aria-label="Decode rate results reported in' in html
    fixed = ["Result", "Value", "Unit", "Statistic", "Uncertainty"]
    (decode, decode_dl), (prefill, prefill_dl) = _tables(html)
    assert decode == [*fixed, "Concurrency", "Evidence"]
    assert '<dt>KV cache data type</dt><dd class="cell-value">fp8</dd>' in decode_dl
    assert prefill == [*fixed, "Prompt style", "Evidence"]
    assert '<dt>Concurrency</dt><dd class="cell-value">8</dd>' in prefill_dl
    assert '<dt>KV cache data type</dt><dd class="cell-null">not reported</dd>' in prefill_dl  # null: shared, not reported
    # a condition one result lacks is "—" (not part of it), unlike null ("not reported")
    assert '<td class="cell-absent" data-label="Prompt style">—</td>' in html
    assert '<td class="cell-value" data-label="Prompt style">chat</td>' in html
    markdown = (site / "index.md").read_text()
    top, decode_md, prefill_md = markdown.split("### ")[0], *markdown.split("### ")[1:]
    assert "Conditions of every result of this record:" in top and "- Engine: vLLM" in top
    assert decode_md.startswith("Decode rate (`decode_rate`)\n") and "- KV cache data type: fp8" in decode_md
    assert "| Label | Value | Unit | Statistic | Uncertainty | Concurrency |" in decode_md
    assert "| Label | Value | Unit | Statistic | Uncertainty | Prompt style |" in prefill_md
    assert "| Prefill plain | 42.5 | tokens/s | one run | not reported | — |" in prefill_md
    assert "- Engine" not in decode_md + prefill_md
    data = json.loads((site / "index.json").read_text())
    assert [r["label"] for r in data["reported_results"]] == ["Decode C1", "Decode C4", "Prefill chat", "Prefill plain"]


def test_a_condition_is_named_by_its_schema_title_where_the_schema_gives_one() -> None:
    from evidencepress.core.words import key_name as condition_name

    assert condition_name("kv_dtype", {"kv_dtype": "KV cache data type"}) == "KV cache data type"
    assert condition_name("prompt_style", {"kv_dtype": "KV cache data type"}) == "Prompt style"
    assert condition_name("kv_dtype") == "KV dtype" and condition_name("median_ttft") == "Median TTFT"
    assert condition_name("GPU_memory_utilization") == "GPU memory utilization" and condition_name("_") == "_"
