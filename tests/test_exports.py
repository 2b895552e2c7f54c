"""exports/ (SPEC §7.4, §10): the committed review snapshot and `check`'s comparison with it."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sitekit import REPO, SOURCE_URL, article, export, make_site, result, tree

from evidencepress.cli import main


def run(root: Path, *args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(main, [args[0], "--root", str(root), *args[1:]])
    return outcome.exit_code, outcome.output


def small_site(root: Path) -> Path:
    data = export(result("Run A", 42.5), result("Run B", 40.0, conditions={**result()["conditions"], "kv_dtype": "fp8"}))
    return make_site(root, {
        "guides/a.md": article("Article A", "Some text.", data),
        "guides/b.md": article("Article B", "More text."),
    })


def test_exports_bytes_do_not_depend_on_base_url_out_or_location(tmp_path: Path) -> None:
    root = small_site(tmp_path / "site")
    assert run(root, "build", "--jobs", "1")[0] == 0
    first = tree(root / "exports")
    code, output = run(root, "build", "--jobs", "1", "--base-url", "https://user.github.io/deep/path", "--out",
                       str(tmp_path / "public"))
    assert code == 0, output
    assert tree(root / "exports") == first
    assert json.loads((tmp_path / "public/guides/a/index.json").read_text())["page"]["url"] == \
        "https://user.github.io/deep/path/guides/a/"
    moved = shutil.copytree(root / "content", tmp_path / "elsewhere/content")
    shutil.copy(root / "site.toml", moved.parent / "site.toml")
    assert run(moved.parent, "build", "--jobs", "1")[0] == 0
    assert tree(moved.parent / "exports") == first


def test_export_json_is_the_page_document_with_site_paths(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    assert run(root, "build", "--jobs", "1")[0] == 0
    published = json.loads((root / "_site/guides/a/index.json").read_text())
    exported = json.loads((root / "exports/guides/a.json").read_text())
    assert exported["page"]["url"] == "/guides/a/"
    assert exported["page"]["md_url"] == "/guides/a/index.md"
    assert published["page"]["url"] == "https://example.org/sub/guides/a/"
    # the schema is the site's own published one, under the base URL (a site path in exports/)
    assert exported["page"]["schema"] == "/schema/export.schema.json"
    assert published["page"]["schema"] == "https://example.org/sub/schema/export.schema.json"
    for document in (published, exported):
        del document["page"]["url"], document["page"]["md_url"], document["page"]["schema"]
    # the verification states come from the vault, not the content: the snapshot leaves them out
    assert {entry["state"] for entry in published["page"].pop("verification")} == {"source-missing"}
    assert published["page"].pop("facts_verification") == []
    assert exported == published


def test_results_csv_has_one_row_per_result_with_conditions_as_authored(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.", export(result("Run A", 22.50)))})
    (root / "content/guides/a.md").write_text(
        (root / "content/guides/a.md").read_text().replace('"value": 22.5', '"value": 22.50'))
    assert run(root, "build", "--jobs", "1")[0] == 0
    lines = (root / "exports/results.csv").read_bytes().split(b"\r\n")
    assert lines[0].startswith(b"page,source_record_id,result_id,label,metric,value,unit,statistic,uncertainty_kind,")
    assert lines[0].endswith(b",conditions.system,conditions.experiment_date,conditions.concurrency,conditions.node_count"
                             b",conditions.model,conditions.model_artifact,conditions.model_revision,conditions.engine,"
                             b"conditions.runtime_execution_revision,conditions.weight_precision,conditions.kv_dtype,"
                             b"conditions.input_tokens,conditions.output_tokens,conditions.temperature,"
                             b"conditions.thinking,conditions.cache_state,conditions.repetitions,"
                             b"conditions.context_limit_tokens")
    start = f"/guides/a/,example-record,run-a,Run A,decode_rate,22.50,tokens/s,one run,,,,,{SOURCE_URL}#L10,".encode()
    key, rest = lines[1].removeprefix(start).split(b",", 1)
    assert lines[1].startswith(start) and re.fullmatch(rb"[0-9a-f]{16}", key)  # every key condition is known
    assert rest == b"1 x DGX Spark,2026-10-01,1,1,m,,,vLLM,,bf16,bf16,128,256,0,false,,1,"
    assert lines[2:] == [b""]
    assert '"value": 22.50' in (root / "exports/guides/a.json").read_text()


def test_drafts_never_reach_exports(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    (root / "content/guides/d.md").write_text(article("Draft", "Text.", export(result("Draft run")),
                                                      extra_front="draft: true\n"))
    assert run(root, "build", "--jobs", "1")[0] == 0
    published = (root / "exports/results.csv").read_bytes()
    site_csv = (root / "_site/data/results.csv").read_bytes()
    # the same rows but for the site's verification column (the states come from the vault, not the content)
    assert published == site_csv.replace(b",source-missing\r\n", b"\r\n").replace(b",verification\r\n", b"\r\n", 1)
    assert run(root, "build", "--jobs", "1", "--drafts")[0] == 0
    assert (root / "_site/guides/d/index.html").is_file()
    assert sorted(tree(root / "exports")) == ["guides/a.json", "guides/b.json", "results.csv"]
    assert b"Draft run" in (root / "_site/data/results.csv").read_bytes()
    assert (root / "exports/results.csv").read_bytes() == published  # without the draft's rows
    assert run(root, "check")[0] == 0 and run(root, "check", "--drafts")[0] == 0


HINT = "  hint: exports/ is the committed copy of the published data, for review; run `{}` and commit exports/"


def test_check_names_each_stale_missing_and_extra_file(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    assert run(root, "build", "--jobs", "1")[0] == 0
    assert run(root, "check") == (0, "")
    (root / "content/guides/a.md").write_text((root / "content/guides/a.md").read_text().replace("42.5", "43.5"))
    (root / "exports/guides/b.json").unlink()
    (root / "exports/guides/old.json").write_text("{}\n")
    code, output = run(root, "check")
    assert code == 1
    command = "evidencepress build"
    assert output == "\n".join([
        ("exports/guides/a.json: error: exports/ is stale: differs from what the build writes from "
        f"content/guides/a.md; run `{command}` [exports]"), HINT.format(command),
        ("exports/guides/b.json: error: exports/ is stale: missing, the build writes it from content/guides/b.md; "
        f"run `{command}` [exports]"), HINT.format(command),
        (f"exports/guides/old.json: error: exports/ is stale: no page publishes this file any more; run `{command}` "
        "to remove it [exports]"), HINT.format(command),
        ("exports/results.csv: error: exports/ is stale: differs from what the build writes from content/; "
        f"run `{command}` [exports]"), HINT.format(command),
        "by rule:", "  exports  4 errors",
        "by file:", "  exports/guides/a.json    1 error", "  exports/guides/b.json    1 error",
        "  exports/guides/old.json  1 error", "  exports/results.csv      1 error",
        "4 errors, 0 warnings", ""])
    assert not (root / "_site/guides/a/index.json").read_text().count("43.5")  # check wrote nothing
    assert run(root, "build", "--jobs", "1")[0] == 0
    assert run(root, "check") == (0, "")


def test_check_reads_no_page_back_and_reports_an_unreadable_export_never_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`check` lets go of the page texts once validated, as a build does, and makes and reads
    exports/ one file at a time (issue 27: 1.03 GB at 5,000 articles); the exports come from the
    pages as validated (an edit meanwhile is for the next run), and a file it cannot read is an error."""
    from evidencepress.build import recipe

    root = small_site(tmp_path)
    assert run(root, "build", "--jobs", "1")[0] == 0
    real = recipe.exports_current

    def edited_first(*args: Any) -> dict[str, bool]:
        page = root / "content/guides/a.md"
        page.write_text(page.read_text().replace("42.5", "43.5"))
        return real(*args)

    monkeypatch.setattr(recipe, "exports_current", edited_first)
    assert run(root, "check") == (0, "")
    assert run(root, "check")[0] == 1  # the next run sees the edit

    listed = recipe.FilesOnDisk

    def removed_once_listed(folder: Path) -> Mapping[str, bytes]:
        found = listed(folder)
        (folder / "guides/a.json").unlink()
        return found

    monkeypatch.setattr(recipe, "exports_current", real)
    monkeypatch.setattr(recipe, "FilesOnDisk", removed_once_listed)
    code, output = run(root, "check")
    assert code == 1 and output.startswith(
        "exports/guides/a.json: error: cannot check exports/: No such file or directory [exports]\n"
        "  hint: make the file readable (or leave it unchanged while check runs), then check again\n")


def test_check_says_make_build_when_the_site_has_that_target(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    (root / "Makefile").write_text("build := nothing\n")
    assert "run `evidencepress build` [exports]" in run(root, "check")[1]
    (root / "Makefile").write_text(".PHONY: build\nbuild: .venv\n\tevidencepress build\n")
    code, output = run(root, "check")
    assert code == 1
    assert f"run `make build` [exports]\n{HINT.format('make build')}\nby rule:\n" in output
    assert output.endswith("\n3 errors, 0 warnings\n")


def test_a_deploy_build_keeps_exports_current(tmp_path: Path) -> None:
    """Observed in issue 9: `build --base-url …` rewrote exports/, and `check` then failed."""
    root = small_site(tmp_path)
    assert run(root, "build", "--jobs", "1")[0] == 0
    assert run(root, "build", "--jobs", "1", "--base-url", "https://user.github.io/site/")[0] == 0
    assert run(root, "check") == (0, "")


def test_the_example_site_exports_are_committed_and_current(tmp_path: Path) -> None:
    target = tmp_path / "project"
    for name in ("content", "schema", "templates", "exports"):
        shutil.copytree(REPO / name, target / name)
    shutil.copy(REPO / "site.toml", target / "site.toml")
    shutil.copy(REPO / "Makefile", target / "Makefile")
    outcome = CliRunner().invoke(main, ["check", "--root", str(target)])
    assert "[exports]" not in outcome.output
    assert outcome.exit_code == 0
