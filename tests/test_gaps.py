"""The gap census: /gaps/ and /data/gaps.json count each recommended condition's states (reported,
null, absent) for the site and per metric, and name per source record the unreported conditions
that alone keep its results from being compared with another record's; record pages name the
conditions none of their results reports."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sitekit import REPO, article, export, make_site, result, tree
from test_build import copy_project

from evidencepress.cli import main
from evidencepress.schemas.comparability import comparable, state
from evidencepress.schemas.load import load_schemas, schema_folder

SEED_EXPORTS = Path("/work/shared/seed/exports")
KEYS = ("concurrency", "input_tokens", "output_tokens", "kv_dtype", "weight_precision", "engine", "node_count",
        "thinking")  # the default key conditions of schema/comparability.json (decode_rate has them)


def decode(label: str, record: str, **conditions: Any) -> dict[str, Any]:
    """A decode_rate result of ``record`` whose conditions are sitekit's, changed by ``conditions``
    (``None``: null; ``...``: the key left out)."""
    entry = result(label, 40.5, source_record_id=record)
    for key, value in conditions.items():
        if value is ...:
            del entry["conditions"][key]
        else:
            entry["conditions"][key] = value
    return entry


def synthetic_site(root: Path) -> Path:
    """Three articles, four records. Of decode_rate (keys: KEYS), with output_tokens unknown in one result only:
    rec-a's A1 (null) and A2 (absent), rec-b's B3 (null); knowing it with the other keys as theirs:
    rec-b's B1 and B2 (another value: it still counts) and rec-a's own C2. A3 lacks input_tokens too,
    B4 differs on concurrency. By hand: rec-a's output_tokens blocks (A1, B1), (A1, B2), (A2, B1),
    (A2, B2) = 4 pairs; rec-b's blocks (B3, C2) = 1. Not counted: (A1, B3) (neither knows it), (A1, C2)
    (one record), (A1, B4) (concurrency differs), (A3, B1) (input_tokens unknown too). C1 (ttft)
    and D1 (startup, every condition known) are alone in their metrics."""
    a = export(decode("A1", "rec-a", output_tokens=None),
               decode("A2", "rec-a", output_tokens=..., temperature=None),
               decode("A3", "rec-a", output_tokens=None, input_tokens=None))
    b = export(decode("B1", "rec-b"), decode("B2", "rec-b", output_tokens=512),
               decode("B3", "rec-b", output_tokens=None), decode("B4", "rec-b", concurrency=4))
    c1 = decode("C1", "rec-c", repetitions=...)
    c1.update(metric="ttft", unit="s", value=0.5)
    d1 = decode("D1", "rec-d", model_artifact="m-artifact", model_revision="abcdef1",
                runtime_execution_revision="1234567", cache_state="cold", context_limit_tokens=8192)
    d1["metric"] = "startup"
    c = export(c1, decode("C2", "rec-a"), d1)
    return make_site(root, {"guides/a.md": article("Article A", export_doc=a),
                            "guides/b.md": article("Article B", export_doc=b),
                            "guides/c.md": article("Article C", export_doc=c)})


def build(root: Path, *args: str) -> Path:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", "-q", *args])
    assert outcome.exit_code == 0, outcome.output
    return root / "_site"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(synthetic_site(tmp_path_factory.mktemp("gaps") / "site"))


def gaps_of(out: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((out / "data/gaps.json").read_bytes())
    return document


def states(counts: dict[str, Any], key: str) -> tuple[int, int, int]:
    found = counts["conditions"][key]
    return found["reported"], found["not_reported"], found["not_considered"]


def test_condition_states_are_counted_for_the_site_and_each_metric(site: Path) -> None:
    gaps = gaps_of(site)
    schemas = load_schemas(schema_folder(REPO))
    assert gaps["conditions"] == list(schemas.core_conditions)
    assert gaps["site"]["results"] == 10
    assert states(gaps["site"], "output_tokens") == (6, 3, 1)  # null: A1, A3, B3; absent: A2
    assert states(gaps["site"], "input_tokens") == (9, 1, 0)
    assert states(gaps["site"], "temperature") == (9, 1, 0)
    assert states(gaps["site"], "repetitions") == (9, 0, 1)
    assert states(gaps["site"], "cache_state") == (1, 9, 0)  # sitekit's results leave it null; D1 reports it
    assert states(gaps["site"], "system") == (10, 0, 0)
    for counts in [gaps["site"], *gaps["metrics"]]:
        assert list(counts["conditions"]) == gaps["conditions"]
        assert all(sum(states(counts, key)) == counts["results"] for key in gaps["conditions"])
    # the metrics with the most results first, ties by name
    assert [(m["metric"], m["results"]) for m in gaps["metrics"]] == [("decode_rate", 8), ("startup", 1), ("ttft", 1)]
    by_metric = {m["metric"]: m for m in gaps["metrics"]}
    assert states(by_metric["decode_rate"], "output_tokens") == (4, 3, 1)
    assert states(by_metric["ttft"], "repetitions") == (0, 0, 1)
    assert states(by_metric["startup"], "cache_state") == (1, 0, 0)


def test_blocking_pairs_count_only_what_one_answer_could_make_comparable(site: Path) -> None:
    gaps = gaps_of(site)
    assert load_schemas(schema_folder(REPO)).comparability.keys_of("decode_rate") == KEYS
    assert gaps["records"] == {"rec-a": [{"condition": "output_tokens", "pairs": 4}],
                               "rec-b": [{"condition": "output_tokens", "pairs": 1}], "rec-c": [], "rec-d": []}
    # decode_rate: 8 results, 4 of each record: 28 - 6 - 6 = 16 pairs across records; only (B1, C2) compares
    assert gaps["pairs"] == {"cross_record": 16, "comparable": 1, "one_answer": 5}
    rows = [r for page in ("a", "b", "c") for r in json.loads((site / f"guides/{page}/index.json").read_bytes())
            ["reported_results"]]
    assert blocked_by_hand(rows) == {("rec-a", "output_tokens"): 4, ("rec-b", "output_tokens"): 1}


def blocked_by_hand(rows: list[dict[str, Any]]) -> dict[tuple[str, str], int]:
    """The definition run pair by pair with the contract itself: r lacks k, s knows it, and r with s's
    value for k would compare with s."""
    rules = load_schemas(schema_folder(REPO)).comparability
    found: Counter[tuple[str, str]] = Counter()
    for first, second in itertools.permutations(rows, 2):
        if first["source_record_id"] == second["source_record_id"] or comparable(first, second, rules):
            continue
        for key in rules.keys_of(first["metric"]):
            unknown = state(first["conditions"], key) in ("not reported", "not considered")
            if unknown and state(second["conditions"], key) not in ("not reported", "not considered"):
                answered = {**first, "conditions": {**first["conditions"], key: second["conditions"][key]}}
                found[(first["source_record_id"], key)] += comparable(answered, second, rules)
    return {pair: count for pair, count in found.items() if count}


def test_the_gaps_page_shows_the_census_without_javascript(site: Path) -> None:
    html = (site / "gaps/index.html").read_text(encoding="utf-8")
    assert "{% extends" not in html and 'class="site-nav"' in html  # the site's frame (base.html)
    assert re.findall(r"<script[^>]*>", html) == ['<script src="../static/site.js" defer>']  # base.html's, for disk
    assert 'href="../schema/comparability.json"' in html and (site / "schema/comparability.json").is_file()
    assert 'href="../data/gaps.json"' in html
    assert "<h2 id=\"site\">Across the site</h2>" in html and "<h2 id=\"metrics\">By metric</h2>" in html
    row = re.search(r"<tr><th scope=\"row\"><code>output_<wbr>tokens</code></th>(.*?)</tr>", html)
    assert row is not None
    assert re.findall(r">(\d+)</td>", row.group(1)) == ["6", "3", "1"]  # the site's table comes first
    assert html.count('<details class="gap-metric">') == 3 and html.count('class="table-scroll"') == 4
    assert html.index("<code>decode_rate</code> · 8 results") < html.index("<code>startup</code> · 1 result<")
    assert "Ask the source for output_tokens: up to 4 more pairs become comparable." in html
    assert "Ask the source for output_tokens: up to 1 more pair becomes comparable." in html
    assert 'href="../community/rec-a/"' in html and 'href="../community/rec-d/"' in html
    assert "Of 16 pairs of results with the same metric from two source records, 1 is comparable now." in html
    markdown = (site / "gaps/index.md").read_text(encoding="utf-8")
    assert markdown.startswith("# Gaps in the reported conditions\n")
    assert "| output_tokens | 6 | 3 | 1 |" in markdown and "### decode_rate" in markdown
    assert "- Ask the source for output_tokens: up to 4 more pairs become comparable." in markdown
    envelope = json.loads((site / "gaps/index.json").read_bytes())
    assert envelope["page"]["data"] == "https://example.org/sub/data/gaps.json" and envelope["reported_results"] == []


def test_record_pages_name_the_conditions_none_of_their_results_reports(site: Path) -> None:
    # by their names in the condition schema, else the key in words
    nulls = "Model artifact, Model revision, Runtime execution revision, Cache state, Context limit (tokens)"
    rec_c = (site / "community/rec-c/index.html").read_text(encoding="utf-8")
    assert f"<p>Not reported by this source: {nulls}.</p>" in rec_c
    assert "<p>Not considered: Repetitions.</p>" in rec_c
    assert f"Not reported by this source: {nulls}.\n\nNot considered: Repetitions." in (
        site / "community/rec-c/index.md").read_text(encoding="utf-8")
    rec_a = (site / "community/rec-a/index.html").read_text(encoding="utf-8")
    # output_tokens is null in A1 and A3, absent from A2, reported in C2: in neither line
    assert f"<p>Not reported by this source: {nulls}.</p>" in rec_a and "Not considered:" not in rec_a
    rec_d = (site / "community/rec-d/index.html").read_text(encoding="utf-8")
    assert "Not reported by this source" not in rec_d and "record-unknown" not in rec_d


def test_gaps_is_in_the_catalog_the_sitemap_llms_txt_and_the_explorer(site: Path) -> None:
    catalog = json.loads((site / "data/catalog.json").read_bytes())
    (entry,) = [page for page in catalog["pages"] if page["url"] == "/gaps/"]
    assert entry["kind"] == "tool" and entry["title"] == "Gaps in the reported conditions"
    assert entry["json_url"] == "/gaps/index.json" and catalog["data"]["gaps.json"] == "/data/gaps.json"
    assert "<loc>https://example.org/sub/gaps/</loc>" in (site / "sitemap.xml").read_text(encoding="utf-8")
    llms = (site / "llms.txt").read_text(encoding="utf-8")
    assert "[Gaps in the reported conditions](https://example.org/sub/gaps/index.md)" in llms
    assert "https://example.org/sub/data/gaps.json" in llms
    assert 'href="../gaps/"' in (site / "explore/index.html").read_text(encoding="utf-8")
    assert "[gaps.json](/data/gaps.json)" in (site / "explore/index.md").read_text(encoding="utf-8")
    package = json.loads((site / "data/datapackage.json").read_bytes())
    assert "`not considered`" in package["resources"][0]["description"]


def test_the_census_bytes_are_the_same_from_build_to_build(site: Path, tmp_path: Path) -> None:
    other = build(synthetic_site(tmp_path / "again"), "--no-cache")
    first, second = tree(site), tree(other)
    census = [name for name in first if name.startswith("gaps/") or name == "data/gaps.json"]
    assert len(census) == 4 and all(first[name] == second[name] for name in census)
    assert [name for name in second if name.startswith("gaps/") or name == "data/gaps.json"] == census
    assert first["data/gaps.json"].endswith(b"}\n") and b"\r" not in first["data/gaps.json"]


# --- the example site's own exports -----------------------------------------------------------


def measured(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The counts the census must reproduce, computed pair by pair with no evidencepress code."""
    decode_rate = [r for r in results if r["metric"] == "decode_rate"]
    pairs = [(a, b) for a, b in itertools.combinations(decode_rate, 2) if a["source_record_id"] != b["source_record_id"]]

    def known(entry: dict[str, Any], key: str) -> bool:
        return entry["conditions"].get(key) is not None

    same_concurrency = [(a, b) for a, b in pairs if known(a, "concurrency") and known(b, "concurrency")
                        and a["conditions"]["concurrency"] == b["conditions"]["concurrency"]]
    with_tokens = [(a, b) for a, b in same_concurrency
                   if all(known(x, k) for x in (a, b) for k in ("input_tokens", "output_tokens"))]
    nulls = {key: sum(1 for r in results if key in r["conditions"] and r["conditions"][key] is None)
             for key in ("runtime_execution_revision", "output_tokens", "temperature", "input_tokens")}
    return {"results": len(results), "decode_rate": len(decode_rate), "pairs": len(pairs),
            "same_concurrency": len(same_concurrency), "with_tokens": len(with_tokens), "nulls": nulls}


MEASURED = {"results": 190, "decode_rate": 21, "pairs": 189, "same_concurrency": 170, "with_tokens": 0,
            "nulls": {"runtime_execution_revision": 153, "output_tokens": 116, "temperature": 93, "input_tokens": 93}}


def exported_results(folder: Path) -> list[dict[str, Any]]:
    return [entry for path in sorted(folder.rglob("*.json"))
            for entry in json.loads(path.read_text(encoding="utf-8"))["reported_results"]]


def test_the_example_exports_give_the_measured_counts() -> None:
    assert measured(exported_results(REPO / "exports")) == MEASURED
    if not SEED_EXPORTS.is_dir():
        pytest.skip(f"{SEED_EXPORTS} is not on this machine: the exports/ part passed")
    assert measured(exported_results(SEED_EXPORTS)) == MEASURED


def test_the_example_site_gaps_json_agrees_with_its_exports(tmp_path: Path) -> None:
    root = copy_project(tmp_path / "project")
    gaps = gaps_of(build(root))
    results = exported_results(REPO / "exports")
    assert gaps["site"]["results"] == len(results) == MEASURED["results"]
    for key, count in MEASURED["nulls"].items():
        assert gaps["site"]["conditions"][key]["not_reported"] == count, key
    for key in gaps["conditions"]:
        absent = sum(1 for r in results if key not in r["conditions"])
        null = sum(1 for r in results if key in r["conditions"] and r["conditions"][key] is None)
        assert states(gaps["site"], key) == (len(results) - absent - null, null, absent), key
    (decode_rate,) = [m for m in gaps["metrics"] if m["metric"] == "decode_rate"]
    assert decode_rate["results"] == MEASURED["decode_rate"] and gaps["metrics"][0] == decode_rate
    # pair by pair: no two results of two records compare, and no one record's answer for one key
    # would make a pair compare (the pairs one key apart differ on a weight_precision both report)
    assert blocked_by_hand(results) == {}
    assert gaps["pairs"]["comparable"] == 0 and gaps["pairs"]["one_answer"] == 0
    assert all(blockers == [] for blockers in gaps["records"].values()) and len(gaps["records"]) == 22


def test_a_record_s_unknown_conditions_are_those_every_result_leaves_null_or_out() -> None:
    """``unknowns_of`` stops at the first result that says otherwise; it says what the states of
    every result say, for every mix of a value, null and an absent key (and no conditions at all)."""
    from evidencepress.core.export import ReportedResult
    from evidencepress.schemas.comparability import NOT_CONSIDERED, NOT_REPORTED
    from evidencepress.site.gaps import unknowns_of

    kinds = ({"gpu": "GB10"}, {"gpu": None}, {}, {"gpu": "not reported"}, {"gpu": 0})
    for size in (1, 2, 3):
        for mix in itertools.product(kinds, repeat=size):
            results = [ReportedResult({"conditions": conditions}) for conditions in mix]
            if mix[0] == {}:
                results.append(ReportedResult({"conditions": None}))  # not an object: no key at all
            states = {state(result.conditions, "gpu") for result in results}
            expected = ((("gpu",) if states == {NOT_REPORTED} else ()), (("gpu",) if states == {NOT_CONSIDERED} else ()))
            found = unknowns_of(results, ("gpu",))
            assert (found.not_reported, found.not_considered) == expected, mix
    assert unknowns_of([], ("gpu",)) == unknowns_of([], ())
