"""`evidencepress diff` on two revisions of a small site in a temporary git repository (issue 9)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sitekit import CHART, REV, SHA, SOURCE_URL, article, export, group_members, make_site, result, tree, wait_until

from evidencepress.cli import main

REV2 = "89abcdef0123456789abcdef0123456789abcdef"
SHA2 = "b" * 64
PATIENCE = 60.0  # seconds before a wait is a hang
SOURCE_URL2 = SOURCE_URL.replace(REV, REV2)
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.org",
    "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.org",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], env={**os.environ, **GIT_ENV}, check=True,
                          capture_output=True, text=True)
    return done.stdout.strip()


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def diff(repo: Path, *args: str) -> Result:
    outcome = CliRunner().invoke(main, ["diff", "--root", str(repo), "--jobs", "1", *args])
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise AssertionError(outcome.output) from outcome.exception
    return outcome


def first_article() -> str:
    run_b = result("Run B", 40.0)
    del run_b["conditions"]["cache_state"]  # a warning in both revisions, on different lines
    body = "Intro.\n\n## Results\n" + CHART
    return article("Article A", body, export(result("Run A", 42.5), run_b))


def second_article() -> str:
    """Value change, condition null -> value, a result added, the source at a new revision, the chart redrawn."""
    run_a = result("Run A", 45.0, evidence_url=SOURCE_URL2 + "#L10", source_document_sha256=SHA2)
    run_b = result("Run B", 40.0, evidence_url=SOURCE_URL2 + "#L10", source_document_sha256=SHA2)
    del run_b["conditions"]["cache_state"]
    run_b["conditions"]["kv_dtype"] = "fp8"
    run_c = result("Run C", 50, evidence_url=SOURCE_URL2 + "#L12", source_document_sha256=SHA2)
    del run_c["conditions"]["repetitions"]  # a new warning
    body = "Intro, with a new first paragraph.\n\nMore.\n\n## Results\n" + CHART
    text = article("Article A", body, export(run_a, run_b, run_c))
    front = text.replace(SOURCE_URL, SOURCE_URL2).replace(f'revision: "{REV}"', f'revision: "{REV2}"')
    return front.replace(f'sha256: "{SHA}"', f'sha256: "{SHA2}"')


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_site(tmp_path / "repo", {
        "guides/a.md": first_article(),
        "guides/b.md": article("Article B", "Text of B."),
    })
    git(root, "init", "-q", "-b", "main")
    commit(root, "first")
    return root


def second_revision(root: Path) -> None:
    (root / "content/guides/a.md").write_text(second_article())
    (root / "content/guides/b.md").unlink()
    (root / "content/guides/c.md").write_text(article("Article C", "A new page."))


EXPECTED = """\
### Published data: `{base}` → `{head}`

Pages: **1 changed, 1 added, 1 removed** · results: 2 changed, 1 added · sources: 1 changed · charts: 1 changed

Also changed with these results: record pages `/community/example-record/`; data files `/data/results.csv`, \
`/data/results.json`, `/data/catalog.json`, `/data/gaps.json`, `/explore/`.

New warnings: **1** (listed below the table).

| Page | Change | Results | Sources | Charts | Text |
| --- | --- | --- | --- | --- | --- |
| Article A<br>`/guides/a/` | changed | 2 changed, 1 added | 1 changed | 1 changed | changed |
| Article B<br>`/guides/b/` | removed | — | — | — | — |
| Article C<br>`/guides/c/` | added | — | — | — | — |

<details>
<summary><strong>Article A</strong> · <code>/guides/a/</code> · changed</summary>

**Page**

- text changed: the introduction

**Results (matched by source record and label)**

- changed **Run A** · `example-record`
  - value: `42.5` → `45.0` tokens/s (+5.9 %)
- changed **Run B** · `example-record`
  - condition `kv_dtype`: `"bf16"` → `"fp8"`
- added **Run C** · `example-record`: `50` tokens/s · one run
  - conditions: `{{"system": "1 x DGX Spark", "experiment_date": "2026-10-01", "concurrency": 1, "node_count": 1, \
"model": "m", "model_artifact": null, "model_revision": null, "engine": "vLLM", "runtime_execution_revision": null, \
"weight_precision": "bf16", "kv_dtype": "bf16", "input_tokens": 128, "output_tokens": 256, "temperature": 0, \
"thinking": false, "cache_state": null, "context_limit_tokens": null}}`

**Sources**

- changed **example**: `{url2}`
  - revision: `"{rev}"` → `"{rev2}"`
  - sha256: `"{sha}"` → `"{sha2}"`
  - url: `"{url}"` → `"{url2}"`

**Charts**

- changed chart `decode`: `decode.svg`, `decode.narrow.svg`

</details>

<details>
<summary><strong>Article B</strong> · <code>/guides/b/</code> · removed</summary>

**Page**

- page removed (it was checked `2026-10-18`)

</details>

<details>
<summary><strong>Article C</strong> · <code>/guides/c/</code> · added</summary>

**Page**

- new page, checked `2026-10-18`

</details>
"""

WARNINGS = """
<details>
<summary><strong>New warnings</strong> (1)</summary>

- `content/guides/a.md:{line}: warning: reported_results[2].conditions: recommended condition absent: repetitions \
[recommended]`
  - hint: write null for a condition the source does not report

</details>
"""


def expected(base: str, head: str, warnings: bool = True) -> str:
    text = EXPECTED.format(base=base, head=head, url=SOURCE_URL, url2=SOURCE_URL2, sha=SHA, sha2=SHA2, rev=REV,
                           rev2=REV2)
    if not warnings:
        return text
    table_end = text.index("\n\n<details>") + 1
    return text[:table_end] + WARNINGS.format(line=WARNING_AT) + text[table_end:]


WARNING_AT = "104:7"  # the `conditions` key of Run C in the second article


def test_two_revisions_report_each_change_exactly(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD")
    second_revision(repo)
    second = commit(repo, "second")
    outcome = diff(repo, first, second)
    assert (outcome.exit_code, outcome.stderr) == (0, "")
    assert outcome.stdout == expected(first[:7], second[:7])
    assert diff(repo, first, second, "--exit-code").exit_code == 1
    named = diff(repo, "main~1", "main")
    assert named.stdout.startswith(f"### Published data: `main~1 ({first[:7]})` → `main ({second[:7]})`\n")
    assert worktrees(repo) == [str(repo)]


def worktrees(repo: Path) -> list[str]:
    listing = git(repo, "worktree", "list", "--porcelain")
    return [line.split(" ", 1)[1] for line in listing.splitlines() if line.startswith("worktree ")]


def worktree_count(repo: Path) -> int | None:
    """How many worktrees git lists, or None while it cannot say: under load, ``git worktree list``
    exited 128 now and then while the diff was adding its worktree (2 runs in 80)."""
    try:
        return len(worktrees(repo))
    except subprocess.CalledProcessError:
        return None


def test_identical_revisions_report_no_change(repo: Path) -> None:
    for args in (("HEAD", "HEAD"), ("HEAD",), ("main", "HEAD", "--exit-code"), ("HEAD", "--format", "json")):
        outcome = diff(repo, *args)
        assert (outcome.exit_code, outcome.stderr) == (0, ""), args
        if "json" not in args:
            assert outcome.stdout == "no changes to published data\n"
    data = json.loads(diff(repo, "HEAD", "--format", "json").stdout)
    assert data == {"base": f"HEAD ({git(repo, 'rev-parse', '--short=7', 'HEAD')})", "head": "working tree",
                    "changed": False, "data_changed": False, "text_changed": False, "pages": [],
                    "record_pages": [], "data_files": [], "new_warnings": [], "resolved_warnings": 0}


def test_a_dirty_working_tree_is_head_and_nothing_is_written_into_the_repository(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD")
    second_revision(repo)  # uncommitted; c.md is untracked
    assert CliRunner().invoke(main, ["build", "--root", str(repo), "--jobs", "1"]).exit_code == 0  # fills .cache/
    assert (repo / ".cache/charts").is_dir() and (repo / ".cache/pages.sqlite").is_file()
    before = everything(repo)
    status = git(repo, "status", "--porcelain", "--ignored", "--untracked-files=all")
    outcome = diff(repo, "HEAD")
    assert (outcome.exit_code, outcome.stderr) == (0, "")
    assert outcome.stdout == expected(f"HEAD ({first[:7]})", "working tree")
    assert everything(repo) == before
    assert git(repo, "status", "--porcelain", "--ignored", "--untracked-files=all") == status
    assert worktrees(repo) == [str(repo)]


def everything(repo: Path) -> dict[str, tuple[bytes, int]]:
    """Every file of the working tree and of .git (bytes and modification time), except the index git
    refreshes on `status`."""
    return {path.relative_to(repo).as_posix(): (path.read_bytes(), path.stat().st_mtime_ns)
            for path in sorted(repo.rglob("*")) if path.is_file() and path.name != "index"}


def test_two_built_folders_give_the_same_report_whatever_their_base_url(repo: Path, tmp_path: Path) -> None:
    build(repo, tmp_path / "old", "https://old.example.org/")
    second_revision(repo)
    build(repo, tmp_path / "new", "https://user.github.io/preview/")
    outcome = diff(repo, str(tmp_path / "old"), str(tmp_path / "new"))
    assert (outcome.exit_code, outcome.stderr) == (0, "")
    report = expected(str(tmp_path / "old"), str(tmp_path / "new"), warnings=False)
    report = report.replace("New warnings: **1** (listed below the table).",
                            "Warnings: not compared (a built folder does not record them).")
    assert outcome.stdout == report
    same = diff(repo, str(tmp_path / "old"), str(tmp_path / "old"), "--exit-code")
    assert (same.exit_code, same.stdout) == (0, "no changes to published data\n")


def build(root: Path, out: Path, base_url: str) -> None:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", "--out", str(out),
                                        "--base-url", base_url])
    assert outcome.exit_code == 0, outcome.output


def test_json_report_holds_the_same_data_with_literals_as_authored(repo: Path) -> None:
    (repo / "content/guides/a.md").write_text(first_article().replace('"value": 42.5', '"value": 42.50'))
    outcome = diff(repo, "HEAD", "--format", "json", "--exit-code")
    assert outcome.exit_code == 1
    assert '"new": 42.50,' in outcome.stdout
    data = json.loads(outcome.stdout)
    page = data["pages"][0]
    assert (page["status"], page["path"], page["title"], page["checked"]) == ("changed", "/guides/a/", "Article A",
                                                                              "2026-10-18")
    assert page["results"] == [{"status": "changed", "source_record_id": "example-record", "label": "Run A",
                                "changes": [{"field": "value", "old": 42.5, "new": 42.5, "percent": 0.0,
                                             "note": "same number, written differently"}]}]
    # The chart prints each value as written, so its label now reads 42.50: both drawings changed.
    assert [(c["id"], [f["name"] for f in c["files"]]) for c in page["charts"]] == [
        ("decode", ["decode.svg", "decode.narrow.svg"])
    ]
    assert page["sources"] == [] and not page["text_changed"]


def test_value_change_from_zero_and_a_condition_that_appears(repo: Path) -> None:
    text = first_article().replace('"value": 42.5', '"value": 0')
    commit_text(repo, text)
    changed = text.replace('"value": 0', '"value": 3', 1).replace('"concurrency": 1,', '"concurrency": 1, "top_p": null,', 1)
    (repo / "content/guides/a.md").write_text(changed)
    lines = diff(repo, "HEAD").stdout.splitlines()
    assert "  - value: `0` → `3` tokens/s (old value is 0: no percentage)" in lines
    assert "  - condition `top_p`: (absent) → `null`" in lines


def commit_text(repo: Path, text: str) -> None:
    (repo / "content/guides/a.md").write_text(text)
    commit(repo, "edit")


def test_a_revision_that_does_not_build_is_reported_with_its_errors(repo: Path) -> None:
    (repo / "content/guides/b.md").write_text(article("Article B", "A [broken](/guides/missing/) link."))
    broken = commit(repo, "broken link")
    outcome = diff(repo, "HEAD~1", "HEAD")
    assert outcome.exit_code == 1 and outcome.stdout == ""
    assert ("\ncontent/guides/b.md:7:12: error: broken internal link /guides/missing/: no page or file at "
            "/guides/missing/ [link]\n") in outcome.stderr
    assert outcome.stderr.endswith(f"1 error, 1 warning\ndiff failed: the HEAD side, HEAD ({broken[:7]}), does not "
                                   "build: 1 error\n")
    assert worktrees(repo) == [str(repo)]


def test_a_committed_content_link_leaving_the_site_is_refused_by_diff(repo: Path, tmp_path: Path) -> None:
    """A committed ``content -> /outside`` was followed by the checkout diff renders (issue 25)."""
    outside = tmp_path / "outside"
    (repo / "content").rename(outside)
    (repo / "content").symlink_to(outside)
    linked = commit(repo, "content linked outside")
    outcome = diff(repo, "HEAD~1", "HEAD")
    assert outcome.exit_code == 1 and outcome.stdout == ""
    assert outcome.stderr == (f"content: error: content/ is a symlink to {outside}, outside the site root [path]\n"
                              "  hint: move the folder into the site, or link content to a folder inside it\n"
                              "1 error, 0 warnings\n"
                              f"diff failed: the HEAD side, HEAD ({linked[:7]}), does not build: 1 error\n")
    assert worktrees(repo) == [str(repo)]


def test_usage_errors_exit_2(repo: Path, tmp_path: Path) -> None:
    outcome = diff(repo, "no-such-branch")
    assert outcome.exit_code == 2
    assert outcome.stderr == f"error: 'no-such-branch' is neither a folder nor a commit of the git repository at {repo}\n"
    (tmp_path / "empty").mkdir()
    outcome = diff(repo, str(tmp_path / "empty"), str(tmp_path / "empty"))
    assert outcome.exit_code == 2
    assert "is neither a site (no site.toml) nor a built site (no index.json)" in outcome.stderr
    plain = make_site(tmp_path / "plain", {"guides/a.md": article("A")})
    outcome = diff(plain, "HEAD")
    assert outcome.exit_code == 2
    assert outcome.stderr.startswith(f"error: {plain} is not in a git repository")
    bare = tmp_path / "no-site"
    bare.mkdir()
    git(bare, "init", "-q")
    git(bare, "commit", "-q", "--allow-empty", "-m", "empty")
    outcome = diff(bare, "HEAD")
    assert outcome.exit_code == 2
    assert outcome.stderr == (f"error: the BASE side, HEAD ({git(bare, 'rev-parse', '--short=7', 'HEAD')}), is not a "
                              "site: site.toml not found (run evidencepress from the site root, pass --root DIR, or start a site "
                              "here with `evidencepress init`)\n")


def test_a_name_that_is_both_a_folder_and_a_revision_is_refused(repo: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    build(repo, tmp_path / "main", "https://example.org/")
    monkeypatch.chdir(tmp_path)
    outcome = diff(repo, "main")
    assert outcome.exit_code == 2
    assert outcome.stderr == "error: 'main' is both a folder and a git revision: write ./main for the folder, or " \
                             "main^{commit} for the revision\n"
    assert diff(repo, "./main").stdout == "no changes to published data\n"
    assert diff(repo, "main^{commit}").stdout == "no changes to published data\n"


def test_a_name_no_file_system_holds_and_the_file_system_root_are_usage_errors(repo: Path, tmp_path: Path) -> None:
    """A 10,000-character revision raised ENAMETOOLONG; ``diff / HEAD`` walked the whole file system (issue 25)."""
    outcome = diff(repo, "a" * 10_000)
    assert outcome.exit_code == 2
    assert outcome.stderr == f"error: {'a' * 80 + '…'!r} is neither a folder nor a commit of the git repository at {repo}\n"
    outcome = diff(repo, "/", "HEAD")
    assert outcome.exit_code == 2
    assert outcome.stderr == "error: / is neither a site (no site.toml) nor a built site (no index.json)\n"


def test_worktrees_are_removed_when_the_diff_is_interrupted(repo: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from evidencepress.review import trees

    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))

    def interrupted(*args: object, **kwargs: object) -> None:
        assert len(worktrees(repo)) == 2  # the BASE worktree exists while it is rendered
        raise KeyboardInterrupt

    monkeypatch.setattr(trees, "render_site", interrupted)
    outcome = diff(repo, "HEAD", "HEAD")
    assert outcome.exit_code == 130 and outcome.stderr == "diff interrupted by SIGINT\n"
    assert worktrees(repo) == [str(repo)]
    assert list(temp.iterdir()) == []


SIGTERM_DURING_RENDER = """
import os, signal, sys
from evidencepress.review import trees
def render(*args, **kwargs):
    print(len(os.listdir(os.path.join(sys.argv[1], ".git", "worktrees"))), flush=True)
    os.kill(os.getpid(), signal.SIGTERM)
    raise AssertionError("SIGTERM did not interrupt")
trees.render_site = render
from evidencepress.cli import main
main(["diff", "--root", sys.argv[1], "HEAD", "HEAD"])
"""


def test_worktrees_are_removed_on_sigterm(repo: Path) -> None:
    done = subprocess.run([sys.executable, "-c", SIGTERM_DURING_RENDER, str(repo)], capture_output=True, text=True,
                          check=False)
    assert done.stdout == "1\n", done.stderr
    assert done.returncode == 143 and done.stderr == "diff interrupted by SIGTERM\n"
    assert worktrees(repo) == [str(repo)]


def test_charts_dir_holds_old_and_new_pictures_and_links_use_the_urls(repo: Path, tmp_path: Path) -> None:
    second_revision(repo)
    pictures = tmp_path / "pictures"
    outcome = diff(repo, "HEAD", "--charts-dir", str(pictures), "--old-url", "https://site.example.org/")
    assert outcome.exit_code == 0, outcome.output
    files = tree(pictures)
    assert sorted(files) == ["index.html", "new/guides/a/decode.narrow.svg", "new/guides/a/decode.svg",
                             "old/guides/a/decode.narrow.svg", "old/guides/a/decode.svg"]
    page = files["index.html"].decode()
    assert '<img src="old/guides/a/decode.svg"' in page and '<img src="new/guides/a/decode.narrow.svg"' in page
    old_svg = files["old/guides/a/decode.svg"]
    assert old_svg != files["new/guides/a/decode.svg"] and old_svg.startswith(b"<?xml")
    assert ("  - `decode.svg`: [old](<https://site.example.org/guides/a/decode.svg>) → "
            "`new/guides/a/decode.svg`") in outcome.stdout.splitlines()
    assert "| [Article B](<https://site.example.org/guides/b/>)<br>`/guides/b/` | removed |" in outcome.stdout
    again = diff(repo, "HEAD", "--charts-dir", str(pictures))
    assert again.exit_code == 2 and "is not empty" in again.stderr


def test_a_site_in_a_subfolder_of_the_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    site = make_site(repo / "docs" / "site", {"guides/a.md": first_article()})
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "first")
    (site / "content/guides/a.md").write_text(first_article().replace('"value": 42.5', '"value": 43'))
    commit(repo, "second")
    lines = diff(site, "HEAD~1", "HEAD").stdout.splitlines()
    assert "  - value: `42.5` → `43` tokens/s (+1.2 %)" in lines


def test_a_large_change_is_truncated_to_the_comment_limit(tmp_path: Path) -> None:
    many = {f"guides/p{i:03d}.md": article(f"Page {i}", "Text.") for i in range(120)}
    old = make_site(tmp_path / "old", many)
    new = make_site(tmp_path / "new", {name: text.replace("Text.", "Other text.") for name, text in many.items()})
    outcome = diff(old, str(old), str(new), "--max-chars", "6000")
    report = outcome.stdout
    assert outcome.exit_code == 0 and len(report) <= 6000
    assert report.count("<details>") == report.count("</details>")
    last = report.rstrip("\n").splitlines()[-1]
    assert last.startswith("**Report truncated** to 6,000 characters (a GitHub comment holds at most 65,536): ")
    full = diff(old, str(old), str(new), "--max-chars", "1000000").stdout
    assert full.count("<details>") == 120 and "truncated" not in full
    shown = report.count("<details>")
    assert f": {120 - shown} page sections and " in last


def test_a_prose_only_change_is_no_change_to_published_data(repo: Path) -> None:
    """The text changed, not the data (issue 29): it said data_changed and --exit-code exited 1."""
    (repo / "content/guides/b.md").write_text(article("Article B", "Text of B, reworded.\n\n## First part\n\nNew.\n"))
    report = diff(repo, "HEAD")
    assert report.exit_code == 0, report.output
    assert "No changes to published data: only the text of 1 page changed.\n" in report.stdout
    assert "- text changed: the introduction, section “First part”\n" in report.stdout
    data = json.loads(diff(repo, "HEAD", "--format", "json").stdout)
    assert (data["changed"], data["data_changed"], data["text_changed"]) == (False, False, True)
    assert data["pages"][0]["text_sections"] == ["the introduction", "section “First part”"]
    assert diff(repo, "HEAD", "--exit-code").exit_code == 0
    assert diff(repo, "HEAD", "--exit-code", "--text-changes").exit_code == 1


def test_a_chart_change_is_not_a_text_change_and_a_tag_is_named(repo: Path) -> None:
    """A chart's spec is written into index.md, but changing it is the chart's change (issue 29)."""
    path = repo / "content/guides/a.md"
    path.write_text(path.read_text().replace("title: Decode rate", "title: Decode rate per run"))
    data = json.loads(diff(repo, "HEAD", "--format", "json").stdout)
    page = data["pages"][0]
    assert (page["text_changed"], page["text_sections"], len(page["charts"])) == (False, [], 1), page
    path.write_text(path.read_text().replace("checked: 2026-10-18", "checked: 2026-10-18\ntags: [decode]"))
    page = json.loads(diff(repo, "HEAD", "--format", "json").stdout)["pages"][0]
    assert page["text_sections"] == ["the tags"]
    path.write_text(path.read_text().replace("What the test article shows.", "What it shows, reworded."))
    page = json.loads(diff(repo, "HEAD", "--format", "json").stdout)["pages"][0]
    assert page["text_sections"] == ["the summary", "the tags"]


def test_a_re_pinned_source_is_reported_once_under_sources(repo: Path) -> None:
    """Its SHA-256 and URL were repeated under every result citing it (issue 29)."""
    path = repo / "content/guides/a.md"
    text = path.read_text().replace(SOURCE_URL, SOURCE_URL2).replace(f'revision: "{REV}"', f'revision: "{REV2}"')
    path.write_text(text.replace(SHA, SHA2))
    page = json.loads(diff(repo, "HEAD", "--format", "json").stdout)["pages"][0]
    assert page["results"] == []
    assert [(change["status"], [field["field"] for field in change["changes"]]) for change in page["sources"]] == [
        ("changed", ["revision", "sha256", "url"])]


NEEDS_WORKERS = pytest.mark.skipif(not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2,
                                   reason="reads /proc; drawing workers are started on 2 cores or more")


def drawing_diff(repo: Path, temp: Path) -> subprocess.Popen[str]:
    """A diff of a revision with 30 charts, in a process group of its own, once it draws the BASE
    side's charts in its worktree (temporary files under ``temp``)."""
    for number in range(30):
        text = article(f"Charted {number}", "Text.\n" + CHART, export(result("Run A", 40 + number + 0.5)))
        (repo / "content" / "guides" / f"c{number}.md").write_text(text)
    commit(repo, "charts")
    temp.mkdir()
    process = subprocess.Popen([sys.executable, "-m", "evidencepress.cli", "diff", "--root", str(repo), "--jobs", "2",
                                "HEAD", "HEAD"], env={**os.environ, "TMPDIR": str(temp)}, text=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    wait_until(lambda: worktree_count(repo) == 2 and len(group_members(process.pid)) >= 3,
               "the diff draws the BASE side's charts in its worktree")
    return process


@pytest.mark.skipif(shutil.which("git") is None or not os.path.isdir("/proc/self/task"), reason="needs git and /proc")
def test_a_diff_killed_while_git_adds_its_worktree_leaves_neither_behind(repo: Path, tmp_path: Path) -> None:
    """Killed while `git worktree add` ran, a diff left that git running: it made the worktree once
    the guard had removed the folder (a flaky failure of the test above under load). The guard
    now waits for the git too."""
    tools, mark, temp = tmp_path / "bin", tmp_path / "adding", tmp_path / "temp"
    tools.mkdir()
    temp.mkdir()
    (tools / "git").write_text(f"""#!/bin/sh
case " $* " in *" worktree add "*) : > "{mark}"; sleep 2;; esac
exec "{shutil.which("git")}" "$@"
""")
    (tools / "git").chmod(0o755)
    env = {**os.environ, "TMPDIR": str(temp), "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    process = subprocess.Popen([sys.executable, "-m", "evidencepress.cli", "diff", "--root", str(repo), "HEAD", "HEAD"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_until(mark.exists, "the diff adds its worktree")
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait(timeout=PATIENCE) == -signal.SIGKILL
        wait_until(lambda: not list(temp.glob("evidencepress-diff-*")) and worktrees(repo) == [str(repo)]
                   and group_members(process.pid) == [], "the git ends, then the guard cleans up")
    finally:
        for pid in group_members(process.pid):
            os.kill(pid, signal.SIGKILL)


@NEEDS_WORKERS
@pytest.mark.parametrize(("signum", "to_group", "code"), [(signal.SIGINT, True, 130), (signal.SIGTERM, False, 143)])
def test_a_signal_stops_a_diff_and_removes_its_worktree(repo: Path, tmp_path: Path, signum: int, to_group: bool,
                                                        code: int) -> None:
    process = drawing_diff(repo, tmp_path / "temp")
    try:
        (os.killpg if to_group else os.kill)(process.pid, signum)
        assert process.wait(timeout=PATIENCE) == code
        assert process.stderr is not None and process.stderr.read() == f"diff interrupted by {signal.Signals(signum).name}\n"
        assert worktrees(repo) == [str(repo)]
        assert not list((tmp_path / "temp").glob("evidencepress-diff-*"))
        wait_until(lambda: group_members(process.pid) == [], "no process of the diff left")
    finally:
        for pid in group_members(process.pid):
            os.kill(pid, signal.SIGKILL)


@NEEDS_WORKERS
def test_a_diff_killed_with_sigkill_leaves_no_worktree_checkout_or_worker(repo: Path, tmp_path: Path) -> None:
    """A killed diff left its workers, a registered worktree and its checkout in the temporary folder
    (issue 25): its guard removes the folder and forgets the worktree; the workers die with it."""
    process = drawing_diff(repo, tmp_path / "temp")
    try:
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait(timeout=PATIENCE) == -signal.SIGKILL
        wait_until(lambda: worktrees(repo) == [str(repo)], "the worktree is forgotten")
        wait_until(lambda: not list((tmp_path / "temp").glob("evidencepress-diff-*")), "the checkout is removed")
        wait_until(lambda: group_members(process.pid) == [], "the workers died with the diff")
    finally:
        for pid in group_members(process.pid):
            os.kill(pid, signal.SIGKILL)
