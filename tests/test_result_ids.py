"""Stable result ids: the authored id, else the label as a slug; one per record and export."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from click.testing import CliRunner
from sitekit import article, export, make_site, result

from evidencepress.cli import main
from evidencepress.core.export import result_id

PAGE = "content/guides/a.md"
ID_KEY = '"id": "decode"'
LOWER_LABEL = '"label": "prefill"'
BANG_LABEL = '"label": "!!!"'


def test_the_id_is_the_authored_one_else_the_label_as_a_slug() -> None:
    assert result_id({"id": "decode-8k", "label": "Decode"}) == "decode-8k"
    assert result_id({"label": "Decode at C1 (8k), TP=2"}) == "decode-at-c1-8k-tp-2"
    assert result_id({"label": "Débit_à 8k"}) == "débit-à-8k"
    assert result_id({"label": "!!!"}) is None


def key_line(root: Path, text: str, nth: int = 0) -> str:
    lines = (root / PAGE).read_text().split("\n")
    spots = [(n, line.index(text)) for n, line in enumerate(lines, start=1) if text in line]
    number, col = spots[nth]
    return f"{PAGE}:{number}:{col + 1}"


def check(root: Path) -> list[str]:
    outcome = CliRunner().invoke(main, ["check", "--root", str(root)])
    return [line for line in outcome.stderr.split("\n") if "[result-id]" in line]


def test_two_results_of_a_record_with_one_id_are_an_error(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.", export(
        result("Decode at C1", id="decode"), result("Decode at C2", id="decode"),
        result("Prefill", 8.2), result("prefill", 8.3)))})
    assert check(root) == [
        (f"{key_line(root, ID_KEY, 1)}: error: reported_results[1].id: result id 'decode' of record "
         "'example-record' is also the id of reported_results[0] [result-id]"),
        (f"{key_line(root, LOWER_LABEL)}: error: reported_results[3].label: result id 'prefill' of record "
         "'example-record' is also the id of reported_results[2] [result-id]"),
    ]


def test_a_label_without_a_slug_needs_an_id(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.", export(result("!!!")))})
    assert check(root) == [
        (f"{key_line(root, BANG_LABEL)}: error: reported_results[0].label: the result has no id: its label "
         "gives no slug [result-id]")]


def test_the_same_result_cited_by_two_articles_is_one_id(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.", export(result("Run"))),
                                "guides/b.md": article("B", "Text.", export(result("Run")))})
    assert check(root) == []


def test_the_id_is_a_column_of_every_table(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.", export(result("Decode at C1"),
                                                                          result("Other", id="own-id")))})
    assert CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"]).exit_code == 0
    for name in ("_site/guides/a/index.csv", "_site/data/results.csv", "exports/results.csv"):
        rows = list(csv.DictReader(io.StringIO((root / name).read_text(), newline="")))
        assert [row["result_id"] for row in rows] == ["decode-at-c1", "own-id"]
    table = json.loads((root / "_site/data/results.json").read_text())
    assert [row["result_id"] for row in table["results"]] == ["decode-at-c1", "own-id"]


def test_record_rows_are_anchored_and_chart_labels_link_to_them(tmp_path: Path) -> None:
    from sitekit import CHART

    root = make_site(tmp_path, {
        "guides/a.md": article("A", "Text." + CHART, export(result("Run one", 42.5), result("Main", 40.1))),
        "guides/b.md": article("B", "Text.", export(result("Run one", 42.5)))})
    assert CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"]).exit_code == 0
    record = (root / "_site/community/example-record/index.html").read_text()
    assert record.count('<tr id="run-one">') == 1  # cited by both articles: anchored once
    assert '<tr id="main">' not in record  # the page's own id
    html = (root / "_site/guides/a/index.html").read_text()
    assert ('<td><a href="../../community/example-record/#run-one">Run one'
            '</a></td>') in html


def test_diff_matches_results_on_their_id() -> None:
    from evidencepress.review.compare import compare_results

    old = [result("Decode at C1", 42.5, id="decode-c1"), result("Prefill", 8.2)]
    new = [result("Prefill", 8.2), result("Decode at one request", 42.5, id="decode-c1")]
    changes = compare_results(old, new)
    assert [(c.status, c.label, [f.field for f in c.changes]) for c in changes] == [
        ("changed", "Decode at one request", ["label"])]
