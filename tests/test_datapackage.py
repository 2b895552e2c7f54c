"""/data/datapackage.json: the site's tables as a Frictionless Data Package that `frictionless validate`
accepts, with a Table Schema from the schemas and each file's size and SHA-256."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sitekit import REPO, REV, SHA, SITE_TOML, SOURCE_URL, article, export, make_site, result
from test_build import copy_project

from evidencepress.cli import main

FRICTIONLESS = Path(sys.executable).parent / "frictionless"
BASE_PATH = "/site/"
NOT_REPORTED = {"value": "", "label": "not reported"}
NOT_CONSIDERED = {"value": "not considered", "label": "not considered"}


class _Host(SimpleHTTPRequestHandler):
    """The built site under BASE_PATH, where its base_url says it is."""

    def translate_path(self, path: str) -> str:
        if not path.startswith(BASE_PATH):
            return str(Path(self.directory) / "no-such-file")
        return super().translate_path("/" + path[len(BASE_PATH):])

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The example site, built for and served at a local base URL: (its output folder, the base URL)."""
    root = copy_project(tmp_path_factory.mktemp("example") / "project")
    out = root / "_site"
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Host, directory=str(out)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}{BASE_PATH}"
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--base-url", base, "-q"])
    assert outcome.exit_code == 0, outcome.output
    yield out, base
    httpd.shutdown()
    httpd.server_close()


def validate(package: Path, *args: str) -> dict[str, Any]:
    """`frictionless validate --json` of ``package``: its report. Only the local host is reachable
    (any other address goes to a proxy that is not there): nothing is fetched from the network."""
    env = {**os.environ, "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
           "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
    env = {key: value for key, value in env.items() if key not in ("http_proxy", "https_proxy", "all_proxy",
                                                                   "ALL_PROXY")}
    done = subprocess.run([str(FRICTIONLESS), "validate", "--json", *args, str(package)], capture_output=True,
                          text=True, env=env, cwd=package.parent, check=False, timeout=600)
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def errors_of(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(task.get("name", ""), error["type"], error.get("note", "")) for task in report["tasks"]
            for error in task["errors"]] + [("", error["type"], error.get("note", "")) for error in report["errors"]]


def test_the_example_site_is_a_valid_data_package(example: tuple[Path, str]) -> None:
    out, _ = example
    report = validate(out / "data/datapackage.json")
    assert errors_of(report) == [] and report["valid"] is True
    articles = list(out.rglob("index.csv"))
    assert len(report["tasks"]) == 2 + len(articles) and len(articles) >= 20
    rows = {task["name"]: task["stats"].get("rows", 0) for task in report["tasks"]}  # none: a header only
    in_articles = sum(count for name, count in rows.items() if name.startswith("page."))
    assert rows["results-csv"] == rows["results-json"] == in_articles >= 100


def test_every_declared_size_and_hash_is_its_files(example: tuple[Path, str]) -> None:
    """Each resource names a file of the site; its bytes and hash are that file's (results.json
    declares no size: frictionless 5.21 counts none for a JSON table, so any fails its validation)."""
    out, base = example
    package = json.loads((out / "data/datapackage.json").read_bytes())
    described = []
    for resource in package["resources"]:
        path = resource["path"]
        local = out / path[len(base):] if path.startswith(base) else out / "data" / path
        data = local.read_bytes()
        assert resource["hash"] == "sha256:" + hashlib.sha256(data).hexdigest(), path
        assert resource.get("bytes", len(data)) == len(data), path
        assert ("bytes" in resource) == (path != "results.json")
        described.append(local.relative_to(out).as_posix())
    articles = sorted(path.relative_to(out).as_posix() for path in out.rglob("index.csv"))
    assert described == ["data/results.csv", "data/results.json", *articles]
    assert json.loads((out / "data/catalog.json").read_bytes())["data"]["datapackage.json"] == "/data/datapackage.json"


def _small_site(root: Path) -> Path:
    """Two articles citing one source; a result without the recommended engine (not considered) and
    with kv_dtype null (not reported); a site schema with a condition of its own (gpu_clock_mhz)."""
    absent = result("Run A", 22.5)
    del absent["conditions"]["engine"]
    site_toml = SITE_TOML + '\n[license]\nname = "CC BY 4.0"\nurl = "https://creativecommons.org/licenses/by/4.0/"\n'
    make_site(root, {"guides/a.md": article("A", export_doc=export(absent)),
                     "guides/b.md": article("B", export_doc=export(result("Run B", 3, conditions={
                         **result()["conditions"], "gpu_clock_mhz": 2400})))}, site_toml)
    shutil.copytree(REPO / "schema", root / "schema")
    vocabulary = json.loads((root / "schema/conditions.schema.json").read_text(encoding="utf-8"))
    vocabulary["$defs"]["known"]["properties"]["gpu_clock_mhz"] = {
        "description": "GPU clock in MHz.", "type": ["integer", "null"], "x-message": "expected an integer or null"}
    vocabulary["$defs"]["result_conditions"]["x-recommended"].append("gpu_clock_mhz")
    (root / "schema/conditions.schema.json").write_text(json.dumps(vocabulary, indent=2), encoding="utf-8")
    return root


def test_the_table_schema_takes_types_descriptions_and_units_from_the_schemas(tmp_path: Path) -> None:
    root = _small_site(tmp_path / "site")
    assert CliRunner().invoke(main, ["build", "--root", str(root), "-q"]).exit_code == 0
    schema = json.loads((root / "_site/data/tableschema.json").read_bytes())
    assert schema["$schema"] == "https://datapackage.org/profiles/2.0/tableschema.json"
    assert schema["missingValues"] == [NOT_REPORTED]
    assert schema["primaryKey"] == ["page", "source_record_id", "result_id"]
    fields = {field["name"]: field for field in schema["fields"]}
    assert list(fields)[:6] == ["page", "source_record_id", "result_id", "label", "metric", "value"]
    assert list(fields)[-2:] == ["conditions.gpu_clock_mhz", "verification"]
    assert fields["value"] == {
        "name": "value", "type": "number", "constraints": {"required": True},
        "description": "The number as the source reports it: finite, never rounded or converted. "
                       "Its unit is the row's `unit`."}
    assert fields["unit"]["x-units"]["tokens/s"] == "tokens per second"
    assert fields["uncertainty_kind"] == {
        "name": "uncertainty_kind", "type": "string",
        "description": "Which dispersion the source reports: standard_deviation, observed_range, ci95, "
                       "spread_ratio, approximate; empty when it reports none.",
        "constraints": {"enum": ["standard_deviation", "observed_range", "ci95", "spread_ratio", "approximate"]}}
    assert fields["conditions.concurrency"] == {
        "name": "conditions.concurrency", "type": "integer", "description": "Concurrent requests during the measurement.",
        "missingValues": [NOT_REPORTED, NOT_CONSIDERED]}
    assert fields["conditions.model_revision"] == {
        "name": "conditions.model_revision", "type": "string",
        "description": "A 7-40 character lowercase hex commit or digest prefix, or null.",
        "missingValues": [NOT_REPORTED, NOT_CONSIDERED]}
    assert fields["conditions.input_tokens"]["type"] == "any"  # an integer, a string or a list
    assert fields["conditions.gpu_clock_mhz"] == {
        "name": "conditions.gpu_clock_mhz", "type": "integer", "description": "GPU clock in MHz.",
        "missingValues": [NOT_REPORTED, NOT_CONSIDERED]}
    assert fields["verification"]["missingValues"] == [{"value": "", "label": "not checked"}]


def test_the_package_names_the_site_its_license_sources_and_tables(tmp_path: Path) -> None:
    root = _small_site(tmp_path / "site")
    assert CliRunner().invoke(main, ["build", "--root", str(root), "-q"]).exit_code == 0
    data = root / "_site/data"
    package = json.loads((data / "datapackage.json").read_bytes())
    assert {key: value for key, value in package.items() if key != "resources"} == {
        "$schema": "https://datapackage.org/profiles/2.0/datapackage.json",
        "profile": "tabular-data-package",
        "title": "Test Evidence",
        "description": "A site built by the tests.",
        "homepage": "https://example.org/sub/",
        "licenses": [{"title": "CC BY 4.0", "path": "https://creativecommons.org/licenses/by/4.0/"}],
        "sources": [{"title": "example: README.md", "path": SOURCE_URL, "version": REV, "hash": f"sha256:{SHA}"}],
    }
    resources = package["resources"]
    assert [(r["name"], r["path"], r["format"], r["schema"]) for r in resources] == [
        ("results-csv", "results.csv", "csv", "tableschema.json"),
        ("results-json", "results.json", "json", "tableschema.json"),
        ("page.guides.a", "https://example.org/sub/guides/a/index.csv", "csv", "tableschema.json"),
        ("page.guides.b", "https://example.org/sub/guides/b/index.csv", "csv", "tableschema.json"),
    ]
    assert resources[1]["dialect"]["json"] == {"property": "results", "keys": resources[1]["dialect"]["itemKeys"]}
    assert resources[1]["dialect"]["itemKeys"] == json.loads((data / "results.json").read_bytes())["columns"]
    for name in ("results-csv", "results-json"):  # the article CSVs are at the base URL: not reachable here
        report = validate(data / "datapackage.json", "--resource-name", name)
        assert errors_of(report) == [] and report["valid"] is True and len(report["tasks"]) == 1


def test_not_reported_and_not_considered_stay_apart_and_the_hashes_hold_from_the_cache(tmp_path: Path) -> None:
    """An empty cell is null (cache_state), ``not considered`` a key the result lacks (engine; gpu_clock_mhz
    on the first article); a build whose pages come from the rendered cache declares the same digests,
    those of its files."""
    root = _small_site(tmp_path / "site")
    assert CliRunner().invoke(main, ["build", "--root", str(root), "-q"]).exit_code == 0
    first = (root / "_site/data/datapackage.json").read_bytes()
    header, row_a, row_b = (root / "_site/data/results.csv").read_text(encoding="utf-8").splitlines()
    cells = dict(zip(header.split(","), row_a.split(","), strict=True))
    assert cells["conditions.cache_state"] == "" and cells["conditions.engine"] == "not considered"
    assert cells["conditions.gpu_clock_mhz"] == "not considered"
    assert dict(zip(header.split(","), row_b.split(","), strict=True))["conditions.gpu_clock_mhz"] == "2400"
    rows = json.loads((root / "_site/data/results.json").read_bytes())["results"]
    assert rows[0]["conditions.cache_state"] is None and "conditions.engine" not in rows[0]
    (root / "content/guides/b.md").write_text(
        (root / "content/guides/b.md").read_text(encoding="utf-8").replace("Run B", "Run B2"), encoding="utf-8")
    assert CliRunner().invoke(main, ["build", "--root", str(root), "-q"]).exit_code == 0
    package = json.loads((root / "_site/data/datapackage.json").read_bytes())
    assert package != json.loads(first)
    for resource in package["resources"]:
        path = str(resource["path"]).replace("https://example.org/sub/", "")
        data = (root / "_site" / (path if "/" in path else "data/" + path)).read_bytes()
        assert resource["hash"] == "sha256:" + hashlib.sha256(data).hexdigest()
        assert resource.get("bytes", len(data)) == len(data)


def test_a_site_without_results_is_a_valid_package_of_its_csv_headers(tmp_path: Path) -> None:
    """Each CSV is its header; results.json, which frictionless cannot read without a row, is left out."""
    root = make_site(tmp_path / "site", {"guides/a.md": article("A")})
    assert CliRunner().invoke(main, ["build", "--root", str(root), "-q"]).exit_code == 0
    package = json.loads((root / "_site/data/datapackage.json").read_bytes())
    assert [resource["name"] for resource in package["resources"]] == ["results-csv", "page.guides.a"]
    assert package["sources"] == [] and "licenses" not in package
    report = validate(root / "_site/data/datapackage.json", "--resource-name", "results-csv")
    assert errors_of(report) == [] and report["valid"] is True
