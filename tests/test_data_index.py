"""/data/ has an index page (issue 28): index.html, index.json and index.md listing every file of
the folder with its format and its size in bytes as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from sitekit import SITE_TOML, article, export, make_site, result, tree

from evidencepress.cli import main
from evidencepress.core.numbers import for_reading

OWN = {"data/index.html", "data/index.json", "data/index.md"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    root = tmp_path_factory.mktemp("site")
    big = result("Decode at C1", 22.50)
    a = article("Article A", "Intro.", export(big, result("Decode at C4", 1234.5, source_record_id="other")))
    root = make_site(root, {"guides/a.md": a}, SITE_TOML)
    (root / "static/data").mkdir(parents=True)
    (root / "static/data/README.txt").write_bytes(b"copied as-is\n")
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    assert outcome.exit_code == 0, outcome.output
    return root, tree(root / "_site")


def data_folder(files: dict[str, bytes]) -> dict[str, bytes]:
    return {rel: data for rel, data in files.items() if rel.startswith("data/") and rel not in OWN}


def test_data_has_an_index_page_with_json_and_markdown(site: tuple[Path, dict[str, bytes]]) -> None:
    _, files = site
    assert set(files) >= OWN
    html = files["data/index.html"].decode()
    assert "<h1>Data files</h1>" in html and 'href="index.json"' in html and 'href="index.md"' in html


def test_the_index_lists_every_file_of_data_with_its_exact_size(site: tuple[Path, dict[str, bytes]]) -> None:
    root, files = site
    html = files["data/index.html"].decode()
    rows = dict(re.findall(r'<tr data-file="([^"]+)" data-bytes="(\d+)">', html))
    on_disk = {path.name: path.stat().st_size for path in (root / "_site/data").iterdir()
               if "data/" + path.name not in OWN}
    assert {name: int(size) for name, size in rows.items()} == on_disk
    assert {"results.json", "results.csv", "results.js", "catalog.json", "tableschema.json", "datapackage.json",
            "gaps.json", "README.txt"} == set(on_disk)
    for name, size in on_disk.items():
        assert f'href="{name}"' in html
        assert f'<td class="num">{for_reading(str(size))}</td>' in html
    assert len(data_folder(files)) == len(on_disk)


def test_index_json_and_index_md_agree_with_the_html(site: tuple[Path, dict[str, bytes]]) -> None:
    _, files = site
    page = json.loads(files["data/index.json"])["page"]
    assert page["title"] == "Data files" and page["url"].endswith("/data/")
    listed = {item["name"]: item for item in page["files"]}
    data = data_folder(files)
    assert {name: item["bytes"] for name, item in listed.items()} == {rel[5:]: len(b) for rel, b in data.items()}
    for item in listed.values():
        assert item["url"].endswith("/data/" + item["name"]) and item["format"] and item["description"]
    markdown = files["data/index.md"].decode()
    assert markdown.startswith("# Data files\n")
    for name, item in listed.items():
        line = next(line for line in markdown.splitlines() if line.startswith(f"- [{name}](/data/{name})"))
        assert item["description"] in line and item["format"] in line
        assert f"{for_reading(str(item['bytes']))} bytes." in line


def test_the_data_index_is_listed_like_the_other_tool_pages(site: tuple[Path, dict[str, bytes]]) -> None:
    _, files = site
    catalog = json.loads(files["data/catalog.json"])
    assert any(p["url"] == "/data/" and p["kind"] == "tool" for p in catalog["pages"])
    assert "/data/</loc>" in files["sitemap.xml"].decode()
    assert "/data/index.md" in files["llms.txt"].decode()


def test_check_accepts_a_link_to_the_data_index(tmp_path: Path) -> None:
    """A broken internal link is an error (non-zero exit); links to /data/ and its twin are not."""
    a = article("Article A", "See [the data files](/data/) and [their list](/data/index.json).",
                export(result("Decode at C1", 22.5)))
    root = make_site(tmp_path, {"guides/a.md": a}, SITE_TOML)
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    assert outcome.exit_code == 0, outcome.output
    checked = CliRunner().invoke(main, ["check", "--root", str(root)])
    assert checked.exit_code == 0, checked.output


def test_the_data_index_is_deterministic(site: tuple[Path, dict[str, bytes]], tmp_path: Path) -> None:
    root, files = site
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "2", "--out", str(tmp_path / "out")])
    assert outcome.exit_code == 0, outcome.output
    again = tree(tmp_path / "out")
    for rel in OWN:
        assert again[rel] == files[rel]
