"""Fixes the audit of issue 26 found: the schema a page names, and a null uncertainty in tables."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from sitekit import CHART, article, export, make_site, result

from evidencepress.cli import main


def built(root: Path) -> Path:
    make_site(root, {"guides/a.md": article("A", "Text." + CHART, export(
        result("Run one", 42.5), result("Run two", 40.1, uncertainty={"standard_deviation": 0.4})))})
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    assert outcome.exit_code == 0, outcome.output
    return root / "_site"


def test_every_page_names_the_schema_the_site_publishes(tmp_path: Path) -> None:
    site = built(tmp_path)
    for page in ("guides/a/", "community/example-record/", "", "explore/"):
        document = json.loads((site / page / "index.json").read_text())
        assert document["page"]["schema"] == "https://example.org/sub/schema/export.schema.json"
    assert (site / "schema/export.schema.json").is_file()


def test_a_null_uncertainty_reads_not_reported_in_every_table(tmp_path: Path) -> None:
    site = built(tmp_path)
    record = (site / "community/example-record/index.html").read_text()
    assert '<td class="wrap cell-null" data-label="Uncertainty">not reported</td>' in record
    assert "| Run one | 42.5 | tokens/s | one run | not reported |" in (site / "community/example-record/index.md").read_text()
    article_html = (site / "guides/a/index.html").read_text()
    assert "<td>not reported</td>" in article_html  # the chart's data table
    assert "<td>±0.4 (1 SD as reported)</td>" in article_html
