"""Record pages read like articles: a human title, a summary, numbers for reading, cards on phones."""

from __future__ import annotations

import json
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
    summary = "2 reported results of decode_rate from documents published by example, cited by 1 article."
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
