"""Like with like (issue 24): schema/comparability.json, the notes under unlike panels, --strict.

The example site's panels are checked against a recomputation written here
from the published files alone (the chart fences' YAML, exports/ and the
chart's <id>.json), not with the build's code.
"""

from __future__ import annotations

import decimal
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from sitekit import CHART, REPO, article, export, make_site, result

from evidencepress.cli import main
from evidencepress.core import jsontext
from evidencepress.schemas import comparability

FILE = "content/guides/a.md"
NOTE_HINT = ("the note under the panel names each difference; to compare like with like, select results that agree, "
             "or put the condition on x or series")


def run(root: Path, *arguments: str) -> Result:
    outcome = CliRunner().invoke(main, [*arguments, "--root", str(root)])
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise AssertionError(outcome.output) from outcome.exception
    return outcome


def two_runs(tmp_path: Path, panel_extra: str = "", second: dict[str, Any] | None = None) -> Path:
    """Two results identical but for kv_dtype (fp8, bf16)."""
    first = result("Run A", 42.5)
    other = result("Run B", 40.1)
    other["conditions"] = {**other["conditions"], **(second if second is not None else {"kv_dtype": "fp8"})}
    chart = CHART.removesuffix("```\n") + panel_extra + "```\n"  # the panel's own keys added
    return make_site(tmp_path, {"guides/a.md": article("A", "Text.\n" + chart, export(first, other))})


def test_a_panel_differing_on_kv_dtype_says_so_everywhere_it_is_drawn(tmp_path: Path) -> None:
    root = two_runs(tmp_path)
    outcome = run(root, "build")
    assert outcome.exit_code == 0, outcome.stderr
    line = (root / FILE).read_text(encoding="utf-8").split("\n").index("  - select:") + 1
    assert (f"{FILE}:{line}:5: note: panels[0].select: the panel compares results that differ on or do not report "
            f"kv_dtype [chart-comparability]\n  hint: {NOTE_HINT}\n") in outcome.stderr
    note = "Not like with like \u2014 KV cache data type: bf16 / fp8"
    svg = (root / "_site/guides/a/decode.svg").read_text(encoding="utf-8")
    assert f"<desc id=\"ep-decode-w-desc\">Decode rate of two runs. {note}.</desc>" in svg
    assert "KV cache data type: bf16 / fp8" in svg.split("</desc>", 1)[1]  # drawn as text under the panel
    html = (root / "_site/guides/a/index.html").read_text(encoding="utf-8")
    assert f'<span class="chart-note">{note}</span>' not in html  # drawn already: not said twice
    assert ('<tr class="chart-data-note"><td colspan="5">Not like with like \u2014 KV cache data type: bf16 (Run A); '
            'fp8 (Run B)</td></tr>') in html
    assert json.loads((root / "_site/guides/a/decode.json").read_bytes())["notes"] == [note]


def test_strict_refuses_an_unlike_panel(tmp_path: Path) -> None:
    outcome = run(two_runs(tmp_path), "build", "--strict")
    assert outcome.exit_code == 1
    assert "error: panels[0].select: the panel compares results that differ on or do not report kv_dtype" in \
        outcome.stderr
    assert not (tmp_path / "_site").exists()


def test_the_varying_condition_on_series_or_x_is_not_a_difference(tmp_path: Path) -> None:
    for extra in ("    series: conditions.kv_dtype\n", "    x: conditions.kv_dtype\n"):
        root = two_runs(tmp_path / extra.split(":")[0].strip(), extra)
        outcome = run(root, "build", "--strict")
        assert outcome.exit_code == 0, outcome.stderr
        assert "chart-comparability" not in outcome.stderr
        assert json.loads((root / "_site/guides/a/decode.json").read_bytes())["notes"] == []
        assert "Not like with like" not in (root / "_site/guides/a/index.html").read_text(encoding="utf-8")


def test_null_equals_nothing_and_absent_is_not_null(tmp_path: Path) -> None:
    both_null = two_runs(tmp_path / "null", second={"kv_dtype": None})
    text = (both_null / FILE).read_text(encoding="utf-8").replace('"kv_dtype": "bf16"', '"kv_dtype": null')
    (both_null / FILE).write_text(text, encoding="utf-8")
    assert run(both_null, "build").exit_code == 0
    chart = json.loads((both_null / "_site/guides/a/decode.json").read_bytes())
    assert chart["notes"] == ["Not like with like \u2014 KV cache data type: not reported"]
    assert "KV cache data type: not reported (both)" in (both_null / "_site/guides/a/index.html").read_text(encoding="utf-8")

    absent = two_runs(tmp_path / "absent", second={"kv_dtype": None})
    document = (absent / FILE).read_text(encoding="utf-8")
    (absent / FILE).write_text(document.replace('"kv_dtype": "bf16",', "", 1), encoding="utf-8")
    assert run(absent, "build").exit_code == 0
    chart = json.loads((absent / "_site/guides/a/decode.json").read_bytes())
    assert chart["notes"] == ["Not like with like \u2014 KV cache data type: not considered / not reported"]


def test_a_key_without_a_title_is_named_in_words_as_record_pages_name_it(tmp_path: Path) -> None:
    """The notes printed raw keys (``kv_dtype: not reported``, issue 28); a key the schema gives no
    title is put in words, as on a record page."""
    root = two_runs(tmp_path, second={"GPU_memory_utilization": 0.9})
    shutil_copy_schemas(root)
    rules = json.loads((root / "schema/comparability.json").read_text(encoding="utf-8"))
    rules["default"]["keys"] = ["GPU_memory_utilization"]
    (root / "schema/comparability.json").write_text(json.dumps(rules, indent=2), encoding="utf-8")
    document = (root / FILE).read_text(encoding="utf-8")
    (root / FILE).write_text(document.replace('"kv_dtype": "bf16",', '"kv_dtype": "bf16", "GPU_memory_utilization": 0.6,', 1),
                             encoding="utf-8")
    assert run(root, "build").exit_code == 0
    chart = json.loads((root / "_site/guides/a/decode.json").read_bytes())
    assert chart["notes"] == ["Not like with like \u2014 GPU memory utilization: 0.6 / 0.9"]


def test_the_charts_name_every_condition_as_the_record_pages_do() -> None:
    """Three copies of the naming drifted apart (issue 28): charts, record pages and the sources
    section now call the one ``core.words.key_name``."""
    from evidencepress.charts import comparison
    from evidencepress.core import words
    from evidencepress.output import generated, views
    from evidencepress.schemas.load import DEFAULT_FOLDER, load_schemas

    assert comparison.key_name is views.key_name is generated.key_name is words.key_name
    titles = dict(load_schemas(DEFAULT_FOLDER).condition_titles)
    assert titles["kv_dtype"] == "KV cache data type"
    keys = ["kv_dtype", "GPU_memory_utilization", "max_kv_tokens", "prefix_cache", "TTFT_seconds", "x"]
    assert [words.key_name(key, titles) for key in keys] == [
        "KV cache data type", "GPU memory utilization", "Max KV tokens", "Prefix cache", "TTFT seconds", "X"]


def test_the_rules_are_the_sites_own_and_published(tmp_path: Path) -> None:
    """A site that extends its schemas decides what must agree; its file is published under /schema/."""
    root = two_runs(tmp_path)
    shutil_copy_schemas(root)
    rules = json.loads((root / "schema/comparability.json").read_text(encoding="utf-8"))
    rules["default"]["keys"].remove("kv_dtype")
    (root / "schema/comparability.json").write_text(json.dumps(rules, indent=2), encoding="utf-8")
    assert run(root, "build", "--strict").exit_code == 0
    published = json.loads((root / "_site/schema/comparability.json").read_bytes())
    assert "kv_dtype" not in published["default"]["keys"]
    rules["default"]["keys"].append("kv_dtype")  # the edit is seen by the next build (caches included)
    (root / "schema/comparability.json").write_text(json.dumps(rules, indent=2), encoding="utf-8")
    assert run(root, "build", "--strict").exit_code == 1


def test_a_malformed_rules_file_is_one_clear_error(tmp_path: Path) -> None:
    root = two_runs(tmp_path)
    shutil_copy_schemas(root)
    (root / "schema/comparability.json").write_text('{"default": {"keys": "concurrency"}}', encoding="utf-8")
    outcome = run(root, "check")
    assert outcome.exit_code == 1
    assert ("schema/comparability.json: error: the comparability rules cannot be read: /default/keys: expected a "
            "list of names [schema-file]\n  hint: each of default and families.<name> names its condition keys as "
            "a list of strings\n") in outcome.stderr


def shutil_copy_schemas(root: Path) -> None:
    """The site gets a schema/ folder of its own: the default schemas, to edit."""
    shutil.copytree(REPO / "schema", root / "schema")


def test_comparison_keys_are_published_with_each_result(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.", export(
        result("Run A", 42.5), result("Run B", 40.1), result("Run C", 39.0, conditions={
            **result()["conditions"], "input_tokens": None})))})
    assert run(root, "build").exit_code == 0
    page = json.loads((root / "_site/guides/a/index.json").read_bytes())["page"]
    first, second, third = page["comparison"]
    assert first["comparison_key"] == second["comparison_key"] and re.fullmatch(r"[0-9a-f]{16}", first["comparison_key"])
    assert third == {"pointer": "/reported_results/2", "result_id": "run-c", "comparison_key": None,
                     "unknown": ["input_tokens"]}
    rows = json.loads((root / "_site/data/results.json").read_bytes())["results"]
    assert [row["comparison_key"] for row in rows] == [first["comparison_key"]] * 2 + [None]
    header, *lines = (root / "_site/guides/a/index.csv").read_text(encoding="utf-8").splitlines()
    column = header.split(",").index("comparison_key")
    assert [line.split(",")[column] for line in lines] == [first["comparison_key"]] * 2 + [""]


# --- the example site, recomputed from its published files ---------------------------------------

def _canonical(value: Any) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return str(decimal.Decimal(str(value)).normalize())
    return json.dumps(value, sort_keys=True)


def _keys_of(rules: dict[str, Any], metric: str) -> list[str]:
    for family in rules["families"].values():
        if metric in family["metrics"]:
            return list(family["keys"])
    return list(rules["default"]["keys"])


def _differing(results: list[dict[str, Any]], keys: list[str]) -> set[str]:
    if len(results) < 2:
        return set()
    found = set()
    for key in keys:
        states = {"absent" if key not in r["conditions"] else "null" if r["conditions"][key] is None
                  else _canonical(r["conditions"][key]) for r in results}
        if len(states) > 1 or states & {"absent", "null"}:
            found.add(key)
    return found


def _chart_fences(markdown: str) -> list[dict[str, Any]]:
    return [yaml.safe_load(block) for block in re.findall(r"^```chart\n(.*?)^```$", markdown, re.MULTILINE | re.DOTALL)]


def _condition_keys() -> dict[str, str]:
    """Each condition key by the name a note gives it: its title in the published conditions schema."""
    known = json.loads((REPO / "schema/conditions.schema.json").read_text(encoding="utf-8"))["$defs"]["known"]
    return {entry["title"]: key for key, entry in known["properties"].items() if "title" in entry}


def _noted_keys(notes: list[str], titles: list[str | None]) -> dict[str | None, set[str]]:
    """Each panel's keys as the notes name them (the notes' own grammar: " in “A”, “B” — Name: v · Name: v")."""
    found: dict[str | None, set[str]] = {title: set() for title in titles}
    by_name = _condition_keys()
    for note in notes:
        if not note.startswith("Not like with like"):
            continue
        head, _, body = note.partition(" \u2014 ")
        names = [part.split(":", 1)[0] for part in body.split(" \u00b7 ")]
        keys = {by_name.get(name, f"unnamed {name!r}") for name in names}
        if head == "Not like with like" or head.endswith(" in every panel"):
            named = titles
        else:
            named = [t for t in titles if t is not None and f"\u201c{t}\u201d" in head]
        for title in named:
            found[title] |= keys
    return found


def test_every_panel_of_the_example_site_names_exactly_the_keys_its_results_do_not_share(example_site: Path) -> None:
    rules = json.loads((REPO / "schema/comparability.json").read_text(encoding="utf-8"))
    checked = unlike = 0
    for source in sorted((example_site / "content").rglob("*.md")):
        page = source.relative_to(example_site / "content").with_suffix("")
        published = example_site / "exports" / f"{page}.json"
        if not published.is_file():
            continue
        document = json.loads(published.read_bytes())
        for fence in _chart_fences(source.read_text(encoding="utf-8")):
            chart = json.loads((example_site / "_site" / page / f"{fence['id']}.json").read_bytes())
            titles = [panel.get("title") for panel in fence["panels"]]
            expected: dict[str | None, set[str]] = {}
            for panel in fence["panels"]:
                title = panel.get("title")
                values = [v for v in chart["values"] if v["panel"] in (title, None)]
                if panel.get("kind", fence["kind"]) == "status" or panel.get("columns") or \
                        any(v["state"] for v in values):
                    expected[title] = set()
                    continue
                pointers = dict.fromkeys(v["pointer"] for v in values if v["pointer"].startswith("/reported_results/"))
                results = [document["reported_results"][int(p.split("/")[2])] for p in pointers]
                varying = {str(panel.get(f, "")).removeprefix("conditions.") for f in ("x", "series")}
                keys = [k for m in dict.fromkeys(r["metric"] for r in results) for k in _keys_of(rules, m)
                        if k not in varying]
                expected[title] = _differing(results, list(dict.fromkeys(keys)))
                checked += 1
                unlike += bool(expected[title])
            assert _noted_keys(chart["notes"], titles) == expected, f"{page}#{fence['id']}"
    assert checked >= 60 and unlike >= 1, (checked, unlike)


def test_a_metric_that_is_not_text_is_a_schema_error_not_a_traceback(tmp_path: Path) -> None:
    """Found by the property test: a list as metric made the differences of a panel raise TypeError."""
    root = two_runs(tmp_path)
    text = (root / FILE).read_text(encoding="utf-8")
    (root / FILE).write_text(text.replace('"metric": "decode_rate"', '"metric": ["decode_rate"]', 1), encoding="utf-8")
    outcome = run(root, "check")
    assert outcome.exit_code == 1 and "Traceback" not in outcome.stderr
    assert "reported_results[0].metric: " in outcome.stderr


@pytest.mark.parametrize(("first", "second"), [
    ("1", "true"),  # equal keys of a dict, not equal conditions
    ("1.0", "true"),
    ("0.1", "0.10000000000000000001"),  # one float, two decimal values
    ("0.10", "0.10000000000000000001"),  # the same, both written with more digits than repr
    ("8192", "8193"),
    ('"a"', "null"),
])
def test_results_whose_key_conditions_differ_never_share_a_key_however_often_asked(first: str, second: str) -> None:
    """Keys are worked out once per combination of key conditions: values that Python holds equal
    but the contract does not (1 and true, two literals of one float) stay apart, in either order."""
    rules = comparability.Rules(("concurrency",))

    def key_of(literal: str) -> tuple[str | None, tuple[str, ...]]:
        result = json.loads(f'{{"metric": "m", "conditions": {{"concurrency": {literal}}}}}',
                            parse_float=jsontext.parse_float, parse_int=jsontext.parse_int)
        return comparability.comparison(result, rules)

    for order in ((first, second), (second, first)):
        keys = [key_of(literal) for literal in order]
        assert keys[0] != keys[1]
        assert keys == [comparability._comparison("m", [("concurrency", comparability.state(
            json.loads(f'{{"concurrency": {literal}}}', parse_float=jsontext.parse_float,
                       parse_int=jsontext.parse_int), "concurrency"))]) for literal in order]
