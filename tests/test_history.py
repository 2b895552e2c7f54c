"""The history of the published data: from three commits of exports/ to each article's "Changes to the
data", the copies at /history/, /changes/ and /changes.xml."""

from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from sitekit import REV, SOURCE_URL, article, export, make_site, result, tree

from evidencepress.cli import main

REV2 = "89abcdef0123456789abcdef0123456789abcdef"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.org",
    "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.org",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}
DATES = ("2026-10-01T09:00:00+02:00", "2026-10-05T12:30:00+00:00", "2026-10-09T08:15:00-04:00")
ATOM = "{http://www.w3.org/2005/Atom}"


def git(repo: Path, *args: str, date: str = DATES[0]) -> str:
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def build(root: Path, *args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", *args])
    return outcome.exit_code, outcome.output


def page(value: object, kv_dtype: object, *, extra: bool = False, rev: str = REV) -> str:
    first = result("Decode at C1", value)
    first["conditions"]["kv_dtype"] = kv_dtype
    second = result("Decode at C4", 61.5)
    second["conditions"]["concurrency"] = 4
    results = [first] + ([second] if extra else [])
    text = article("Article A", "Some text.\n", export(*results))
    return text.replace(REV, rev)


def committed_site(root: Path) -> list[str]:
    """A site in a git repository with three commits of exports/: the commit ids, oldest first."""
    make_site(root, {"guides/a.md": page(245.72, None)})
    (root / ".gitignore").write_text("_site/\n.cache/\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    commits = []
    for number, text in enumerate((page(245.72, None), page(250.1, "fp8"), page(250.1, "fp8", extra=True, rev=REV2))):
        (root / "content/guides/a.md").write_text(text, encoding="utf-8")
        code, output = build(root)
        assert code == 0, output
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"change {number}", date=DATES[number])
        commits.append(git(root, "rev-parse", "HEAD"))
    return commits


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], str]:
    root = tmp_path_factory.mktemp("history") / "site"
    commits = committed_site(root)
    code, output = build(root)
    assert code == 0, output
    return root, commits, output


URL0 = SOURCE_URL.replace(REV, REV) + "#L10"
URL2 = SOURCE_URL.replace(REV, REV2)
CONDITIONS = ('{"system": "1 x DGX Spark", "experiment_date": "2026-10-01", "concurrency": 4, "node_count": 1, '
              '"model": "m", "model_artifact": null, "model_revision": null, "engine": "vLLM", '
              '"runtime_execution_revision": null, "weight_precision": "bf16", "kv_dtype": "bf16", "input_tokens": 128, '
              '"output_tokens": 256, "temperature": 0, "thinking": false, "cache_state": null, "repetitions": 1, '
              '"context_limit_tokens": null}')


def expected_lines() -> list[list[str]]:
    """What each commit changed, newest first, in the words of diff."""
    return [
        ["- changed **Decode at C1** · `example-record`",
         f'  - evidence\\_url: `"{URL0}"` → `"{URL2}#L10"`',
         "- added **Decode at C4** · `example-record`: `61.5` tokens/s · one run",
         f"  - conditions: `{CONDITIONS}`",
         f"- changed **example**: `{URL2}`",
         f'  - revision: `"{REV}"` → `"{REV2}"`',
         f'  - url: `"{SOURCE_URL}"` → `"{URL2}"`'],
        ["- changed **Decode at C1** · `example-record`",
         "  - value: `245.72` → `250.1` tokens/s (+1.8 %)",
         '  - condition `kv_dtype`: `null` → `"fp8"`'],
        ["- first published, with 1 reported result"],
    ]


def test_changes_page_lists_every_commit_newest_first_in_the_words_of_diff(site: tuple[Path, list[str], str]) -> None:
    root, commits, _ = site
    blocks = []
    for commit, date, lines in zip(reversed(commits), reversed(DATES), expected_lines(), strict=True):
        blocks.append(f"## {date[:10]} · [Article A](/guides/a/) · `{commit[:7]}` · "
                      f"[JSON at this commit](/history/guides/a/{commit}.json)\n\n" + "\n".join(lines))
    expected = ("# Changes to the data\n\nEvery change to the published data of the articles, newest first, from "
                "the history of exports/.\n\n" + "\n\n".join(blocks) + "\n")
    assert (root / "_site/changes/index.md").read_text(encoding="utf-8") == expected
    document = json.loads((root / "_site/changes/index.json").read_bytes())
    assert [(c["commit"], c["date"], c["kind"], c["changes"]) for c in document["page"]["changes"]] == [
        (commit, date, kind, lines) for commit, date, kind, lines
        in zip(reversed(commits), reversed(DATES), ("changed", "changed", "published"), expected_lines(), strict=True)]
    assert document["page"]["complete"] is True
    html = (root / "_site/changes/index.html").read_text(encoding="utf-8")
    assert '<a href="../changes.xml">Atom feed</a>' in html
    assert f'<a href="../history/guides/a/{commits[0]}.json">JSON at this commit</a>' in html


def test_article_section_shows_each_change_with_its_commit_and_date(site: tuple[Path, list[str], str]) -> None:
    root, commits, _ = site
    html = (root / "_site/guides/a/index.html").read_text(encoding="utf-8")
    start = html.index('<section class="data-history"')
    section = html[start:html.index("</section>", start)]
    metas = [line.strip() for line in section.split("\n") if 'class="history-meta"' in line]
    assert metas == [
        f'<p class="history-meta"><time datetime="{date}">{date[:10]}</time> · commit <code>{commit[:7]}</code> · '
        f'<a href="../../history/guides/a/{commit}.json">JSON at this commit</a></p>'
        for commit, date in zip(reversed(commits), reversed(DATES), strict=True)]
    middle = section[section.index(metas[1]) + len(metas[1]):section.index(metas[2])]
    assert middle.strip() == (
        "<ul>\n<li>changed <strong>Decode at C1</strong> · <code>example-record</code>\n<ul>\n"
        "<li>value: <code>245.72</code> → <code>250.1</code> tokens/s (+1.8 %)</li>\n"
        "<li>condition <code>kv_dtype</code>: <code>null</code> → <code>&quot;fp8&quot;</code></li>\n"
        "</ul>\n</li>\n</ul>\n\n      </li>\n      <li>")
    assert '<a href="#changes-to-the-data">Changes to the data</a>' not in html  # no table of contents here
    assert '<p class="history-all"><a href="../../changes/">Every change to the site\'s data</a></p>' in section


def test_history_copies_are_the_bytes_of_exports_at_each_commit(site: tuple[Path, list[str], str]) -> None:
    root, commits, _ = site
    copies = {name: data for name, data in tree(root / "_site").items() if name.startswith("history/")}
    expected = {}
    for commit in commits:
        shown = subprocess.run(["git", "-C", str(root), "show", f"{commit}:exports/guides/a.json"],
                               capture_output=True, check=True).stdout
        expected[f"history/guides/a/{commit}.json"] = shown
    assert copies == expected
    assert len(set(copies.values())) == 3


def test_changes_feed_is_atom_with_commit_dates(site: tuple[Path, list[str], str]) -> None:
    root, commits, _ = site
    feed = ET.fromstring((root / "_site/changes.xml").read_bytes())
    assert feed.findtext(f"{ATOM}updated") == DATES[2]
    entries = feed.findall(f"{ATOM}entry")
    assert [(e.findtext(f"{ATOM}title"), e.findtext(f"{ATOM}updated"), e.findtext(f"{ATOM}id")) for e in entries] == [
        (f"Article A: {kind} ({commit[:7]})", date, f"https://example.org/sub/guides/a/#data-{commit}")
        for commit, date, kind in zip(reversed(commits), reversed(DATES), ("data changed", "data changed",
                                                                         "first published"), strict=True)]
    assert entries[1].findtext(f"{ATOM}content") == "\n".join(expected_lines()[1])


def test_build_is_byte_identical_whatever_the_clock_and_time_zone(site: tuple[Path, list[str], str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root, _, _ = site
    before = tree(root / "_site")
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")
    code, output = build(root, "--no-cache")
    assert code == 0, output
    assert tree(root / "_site") == before


def test_a_new_commit_is_a_new_input_of_the_build(site: tuple[Path, list[str], str]) -> None:
    from evidencepress.cache.buildrecord import inputs_digest
    from evidencepress.core.options import BuildOptions

    root, _, _ = site
    options = BuildOptions(root=root)
    before = inputs_digest(options, root / "_site")
    git(root, "commit", "-q", "--allow-empty", "-m", "empty", date=DATES[2])
    try:
        assert inputs_digest(options, root / "_site") != before
    finally:
        git(root, "reset", "-q", "--hard", "HEAD~1")


def test_uncommitted_exports_are_not_history(site: tuple[Path, list[str], str], tmp_path: Path) -> None:
    root, commits, _ = site
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    (clone / "content/guides/a.md").write_text(page(251.0, "fp8", extra=True, rev=REV2), encoding="utf-8")
    code, output = build(clone)
    assert code == 0, output
    assert "251.0" in (clone / "exports/guides/a.json").read_text(encoding="utf-8")
    changes = json.loads((clone / "_site/changes/index.json").read_bytes())["page"]["changes"]
    assert [change["commit"] for change in changes] == list(reversed(commits))


def test_a_repository_without_git_says_once_there_is_no_history(site: tuple[Path, list[str], str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root, _, _ = site
    monkeypatch.setenv("PATH", str(root / "no-such-folder"))
    code, output = build(root, "--no-cache")
    assert code == 0, output
    assert output.count("exports/: note: no history of the published data: git is not installed") == 1


def test_shallow_clone_says_once_that_history_is_incomplete(site: tuple[Path, list[str], str], tmp_path: Path) -> None:
    root, commits, _ = site
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{root}", str(clone))
    code, output = build(clone)
    assert code == 0, output
    assert output.count("shallow clone") == 1
    assert "exports/: note: the repository is a shallow clone: the history of the published data is incomplete" \
        in output
    text = (clone / "_site/changes/index.md").read_text(encoding="utf-8")
    assert "The history is incomplete: the site was built from a shallow clone of its repository." in text
    assert json.loads((clone / "_site/changes/index.json").read_bytes())["page"]["changes"][0]["commit"] == commits[2]


def test_outside_git_the_site_builds_without_history_and_says_so_on_its_changes_page(tmp_path: Path) -> None:
    root = make_site(tmp_path / "plain", {"guides/a.md": page(245.72, None)})
    code, output = build(root)
    assert code == 0, output
    assert "history" not in output  # a site never put in git has no history to miss: no note on every build
    assert 'class="data-history"' not in (root / "_site/guides/a/index.html").read_text(encoding="utf-8")
    text = (root / "_site/changes/index.md").read_text(encoding="utf-8")
    assert text.endswith("No history: the site was not built from a git repository.\n\nNo change to the published "
                         "data yet.\n")


def test_a_commit_that_only_rewrites_the_file_is_archived_but_not_listed(site: tuple[Path, list[str], str],
                                                                         tmp_path: Path) -> None:
    root, commits, _ = site
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    exported = clone / "exports/guides/a.json"
    exported.write_text(json.dumps(json.loads(exported.read_text(encoding="utf-8")), indent=4) + "\n", encoding="utf-8")
    git(clone, "commit", "-q", "-am", "reformat", date=DATES[2])
    rewritten = git(clone, "rev-parse", "HEAD")
    code, output = build(clone)
    assert code == 0, output
    changes = json.loads((clone / "_site/changes/index.json").read_bytes())["page"]["changes"]
    assert [change["commit"] for change in changes] == list(reversed(commits))
    assert (clone / f"_site/history/guides/a/{rewritten}.json").is_file()
