""".github/workflows/site.yml: its structure, its review step run for real, its sticky comment against a fake GitHub."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from sitekit import REPO, REV, SHA, SOURCE_URL, article, export, make_site, result
from test_review import commit, first_article, git, second_revision
from test_source_verification import cited, site

WORKFLOW = REPO / ".github/workflows/site.yml"
MARKER = "<!-- evidencepress-diff -->"


def load() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return document


def steps(job: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = load()["jobs"][job]["steps"]
    return found


def step(job: str, uses: str = "", run: str = "", name: str = "") -> dict[str, Any]:
    for item in steps(job):
        if (uses and str(item.get("uses", "")).startswith(uses + "@")) or (run and run in item.get("run", "")) \
                or (name and item.get("name") == name):
            return item
    raise AssertionError(f"{job}: no step {uses or run or name}")


def test_triggers_permissions_and_concurrency() -> None:
    document = load()
    triggers = document.get("on", document.get(True))  # YAML 1.1 reads a bare `on` as true
    assert set(triggers) == {"pull_request", "push", "workflow_dispatch"}
    assert triggers["push"] == {"branches": ["main"]}
    assert document["permissions"] == {"contents": "read"}
    assert "github.event.pull_request.number" in document["concurrency"]["group"]
    jobs = document["jobs"]
    assert jobs["pull-request"]["permissions"] == {"contents": "read", "pull-requests": "write"}
    assert jobs["deploy"]["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    assert jobs["deploy"]["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    assert jobs["deploy"]["environment"]["name"] == "github-pages"
    assert jobs["pull-request"]["if"] == "github.event_name == 'pull_request'"
    assert "refs/heads/main" in jobs["deploy"]["if"]


def test_the_tests_run_on_python_3_11_3_12_and_3_13_before_either_job() -> None:
    jobs = load()["jobs"]
    assert jobs["tests"]["strategy"]["matrix"]["python"] == ["3.11", "3.12", "3.13"]
    assert "if" not in jobs["tests"]  # pull requests and main alike
    assert step("tests", uses="actions/setup-python")["with"]["python-version"] == "${{ matrix.python }}"
    assert "constraints.txt" in step("tests", uses="actions/setup-python")["with"]["cache-dependency-path"]
    test = step("tests", run="make test PYTHON=python")
    assert test["env"]["EVIDENCEPRESS_REQUIRE_BROWSER"] == "1"
    assert jobs["pull-request"]["needs"] == jobs["deploy"]["needs"] == "tests"


def test_pull_request_job_tests_checks_builds_uploads_and_reviews() -> None:
    names = [item.get("uses", item.get("run", "")).split("@")[0] for item in steps("pull-request")]
    assert names.index("actions/checkout") < names.index("make setup PYTHON=python") < names.index(".venv/bin/evidencepress check") \
        < names.index(".venv/bin/evidencepress build") < names.index("actions/upload-artifact")
    assert names.index("actions/upload-artifact") < names.index("actions/github-script") < len(names) - 1
    assert step("pull-request", uses="actions/checkout")["with"]["fetch-depth"] == 0
    assert step("pull-request", uses="actions/setup-python")["with"]["python-version"] == "3.11"
    site = step("pull-request", uses="actions/upload-artifact")
    assert (site["with"]["name"], site["with"]["path"]) == ("site", "_site/")
    review = step("pull-request", name="Review of the published data")
    assert 'diff "origin/$BASE_REF" HEAD --charts-dir' in review["run"]
    assert review["env"]["BASE_REF"] == "${{ github.base_ref }}"
    charts = step("pull-request", name="Upload old and new pictures of changed charts")
    assert charts["with"]["name"] == "chart-changes" and charts["if"] == "steps.review.outputs.charts == 'true'"
    comment = step("pull-request", uses="actions/github-script")
    assert MARKER in comment["with"]["script"] and "updateComment" in comment["with"]["script"]


def test_deploy_job_builds_for_pages_with_nojekyll() -> None:
    uses = [item.get("uses", "").split("@")[0] for item in steps("deploy")]
    assert uses.index("actions/configure-pages") < uses.index("actions/upload-pages-artifact") \
        < uses.index("actions/deploy-pages")
    build = step("deploy", name="Build for the Pages URL")
    assert '--base-url "$PAGES_URL/"' in build["run"] and "touch _site/.nojekyll" in build["run"]
    assert build["env"]["PAGES_URL"] == "${{ steps.pages.outputs.base_url }}"
    upload = step("deploy", uses="actions/upload-pages-artifact")
    assert upload["with"] == {"path": "_site/", "include-hidden-files": True}  # .nojekyll, .well-known/
    assert step("deploy", uses="actions/deploy-pages")["id"] == "deployment"
    assert any(item.get("run") == "make setup PYTHON=python" for item in steps("deploy"))


VAULT_STEPS = ("List the cited documents (the vault's cache key)", "Restore the vault", "Fetch the cited documents",
               "Save the vault", "Check content, links and exports/")


@pytest.mark.parametrize("job", ["pull-request", "deploy"])
def test_both_jobs_fill_the_vault_before_check_and_keep_it_in_the_cache(job: str) -> None:
    names = [item.get("name") for item in steps(job)]
    assert names.index("Install (the tests job ran the tests)") < names.index(VAULT_STEPS[0])
    assert [names.index(name) for name in VAULT_STEPS] == list(range(names.index(VAULT_STEPS[0]),
                                                                      names.index(VAULT_STEPS[0]) + 5))
    key = "${{ steps.cited.outputs.key }}"
    restore = step(job, uses="actions/cache/restore")
    assert (restore["id"], restore["with"]) == ("vault", {"path": "sources/", "key": key, "restore-keys": "vault-"})
    assert step(job, name="Fetch the cited documents")["run"] == ".venv/bin/evidencepress sources fetch"
    save = step(job, uses="actions/cache/save")
    assert save["with"] == {"path": "sources/", "key": key}
    assert save["if"] == "steps.vault.outputs.cache-hit != 'true' && hashFiles('sources/*') != ''"
    assert step(job, name="Fetch the cited documents")["continue-on-error"] is True  # a missing document is a note


def test_an_error_of_check_fails_the_pull_request_after_the_review_is_posted() -> None:
    check = step("pull-request", name="Check content, links and exports/")
    assert (check["id"], check["continue-on-error"]) == ("check", True)
    assert step("pull-request", name="Fetch the cited documents")["continue-on-error"] is True
    for name in ("Build", "Upload the built site"):
        assert step("pull-request", name=name)["if"] == "steps.check.outcome == 'success'"
    assert "if" not in step("pull-request", name="Review of the published data")
    last = steps("pull-request")[-1]
    assert last["if"] == "steps.check.outcome == 'failure' || steps.fetch.outcome == 'failure'"
    def last_step(check: str, fetch: str) -> tuple[int, str]:
        env = {"PATH": "/usr/bin:/bin", "CHECK": check, "FETCH": fetch}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", last["run"]], env=env,
                              capture_output=True, text=True, check=False)
        return done.returncode, done.stdout

    assert last_step("failure", "success") == (1, "::error::check found errors: see its step\n")
    # a document that cannot be fetched is not verified: a warning, not a failed pull request
    warning = ("::warning::some cited documents could not be fetched: their values are not verified "
               "(see the fetch step)\n")
    assert last_step("success", "failure") == (0, warning)
    assert "continue-on-error" not in step("deploy", name="Check content, links and exports/")


def cache_key(root: Path, tmp_path: Path) -> str:
    """The key the vault's cache step writes for the site at ``root``."""
    temp = tmp_path / "runner"
    temp.mkdir(exist_ok=True)
    (temp / "output").unlink(missing_ok=True)
    python = root / ".venv/bin/python"
    if not python.exists():
        python.parent.mkdir(parents=True, exist_ok=True)
        python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
        python.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "RUNNER_TEMP": str(temp),
           "GITHUB_OUTPUT": str(temp / "output")}
    script = step("pull-request", name="List the cited documents (the vault's cache key)")["run"]
    assert script == step("deploy", name="List the cited documents (the vault's cache key)")["run"]
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=root, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    output = (temp / "output").read_text()
    assert output.startswith("key=") and output.endswith("\n")
    return output[len("key="):-1]


def test_the_vault_is_cached_under_the_digests_it_holds(tmp_path: Path) -> None:
    digests = ["c" * 64, "b" * 64]
    text = first_article().replace(f'sha256: "{SHA}"', f'sha256: "{digests[0]}"\n  - publisher: other\n'
                                   f'    url: "{SOURCE_URL.replace("bench", "other")}"\n    revision: "{REV}"\n'
                                   f'    sha256: "{digests[1]}"')
    root = make_site(tmp_path / "site", {"guides/a.md": text.replace(SHA, digests[0]),
                                          "guides/b.md": article("Article B")})
    listed = "".join(digest + "\n" for digest in sorted(digests))
    key = cache_key(root, tmp_path)
    assert key == "vault-" + hashlib.sha256(listed.encode()).hexdigest()
    (root / "content/guides/b.md").write_text(article("Article B", "Other text."))  # an edit cites no new document
    assert cache_key(root, tmp_path) == key
    (root / "content/guides/b.md").write_text(article("Article B", "Text.", export(result("Run", 1))))
    assert cache_key(root, tmp_path) != key  # it cites SHA too


@pytest.fixture
def pull_request(tmp_path: Path) -> Path:
    """A repository whose HEAD changes a chart and whose origin/main is the revision before."""
    root = make_site(tmp_path / "repo", {"guides/a.md": first_article(), "guides/b.md": article("Article B")})
    git(root, "init", "-q", "-b", "main")
    git(root, "update-ref", "refs/remotes/origin/main", commit(root, "first"))
    second_revision(root)
    commit(root, "second")
    (root / ".venv/bin").mkdir(parents=True)
    (root / ".venv/bin/evidencepress").symlink_to(Path(sys.executable).parent / "evidencepress")
    return root


def test_the_review_step_writes_the_report_and_the_chart_pictures(pull_request: Path, tmp_path: Path) -> None:
    temp = tmp_path / "runner"
    temp.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "BASE_REF": "main", "SITE_URL": "https://site.example.org/",
           "RUNNER_TEMP": str(temp), "GITHUB_OUTPUT": str(temp / "output"), "GITHUB_STEP_SUMMARY": str(temp / "summary")}
    script = step("pull-request", name="Review of the published data")["run"]
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=pull_request, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    report = (temp / "review.md").read_text()
    assert report.startswith("### Published data: `origin/main (")
    assert "[old](<https://site.example.org/guides/a/decode.svg>)" in report
    assert (temp / "summary").read_text() == report
    assert (temp / "output").read_text() == "charts=true\n"
    pictures = sorted(p.relative_to(temp / "chart-changes").as_posix() for p in (temp / "chart-changes").rglob("*.svg"))
    assert (temp / "chart-changes/index.html").is_file()
    assert pictures == ["new/guides/a/decode.narrow.svg", "new/guides/a/decode.svg", "old/guides/a/decode.narrow.svg",
                        "old/guides/a/decode.svg"]


def test_the_review_step_reports_a_value_that_became_absent(tmp_path: Path) -> None:
    """HEAD changes a value away from its cited line: check fails, while the review is written and marks it
    (both revisions are checked against the vault the job fetched into the working tree)."""
    root = site(tmp_path / "repo", cited("Decode at C1", "42.5", 3))
    (root / ".gitignore").write_text("/sources/\n/.venv/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "update-ref", "refs/remotes/origin/main", commit(root, "first"))
    page = root / "content/guides/a.md"
    page.write_text(page.read_text().replace('"value": 42.5', '"value": 42.6'))
    commit(root, "second")
    (root / ".venv/bin").mkdir(parents=True)
    (root / ".venv/bin/evidencepress").symlink_to(Path(sys.executable).parent / "evidencepress")
    temp = tmp_path / "runner"
    temp.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "BASE_REF": "main", "SITE_URL": "", "RUNNER_TEMP": str(temp),
           "GITHUB_OUTPUT": str(temp / "output"), "GITHUB_STEP_SUMMARY": str(temp / "summary")}
    check = subprocess.run(["bash", "-c", step("pull-request", name="Check content, links and exports/")["run"]],
                           cwd=root, env=env, capture_output=True, text=True, check=False)
    assert check.returncode == 1 and "[source-absent]" in check.stdout + check.stderr
    script = step("pull-request", name="Review of the published data")["run"]
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=root, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    report = (temp / "review.md").read_text()
    assert "· results: 1 changed · source checks: **1 absent**\n" in report
    assert ("\n- ⚠ **Decode at C1** · `example-record`: verified → **absent** (not on its line), line 3: "
            "“Decode at C1 reached 42.5 tokens/s over 3 runs.”\n") in report


FAKE_GITHUB = """
const fs = require('fs');
const [scriptPath, statePath] = process.argv.slice(2);
const state = JSON.parse(fs.readFileSync(statePath, 'utf8'));
let nextId = 100 + state.comments.length;
const issues = {
  listComments: async () => ({ data: state.comments }),
  updateComment: async ({ comment_id, body }) => { state.comments.find((c) => c.id === comment_id).body = body; },
  createComment: async ({ body }) => { state.comments.push({ id: nextId++, body, user: { type: 'Bot' } }); },
};
const github = { rest: { issues }, paginate: async (method, params) => (await method(params)).data };
const context = { repo: { owner: 'o', repo: 'r' }, issue: { number: 7 } };
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
new AsyncFunction('require', 'github', 'context', 'process', fs.readFileSync(scriptPath, 'utf8'))(
  require, github, context, process,
).then(() => fs.writeFileSync(statePath, JSON.stringify(state)));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the github-script step")
def test_the_comment_is_created_once_then_updated(tmp_path: Path) -> None:
    (tmp_path / "script.js").write_text(step("pull-request", uses="actions/github-script")["with"]["script"])
    (tmp_path / "fake.js").write_text(FAKE_GITHUB)
    human = {"id": 1, "body": f"{MARKER} quoted by a person", "user": {"type": "User"}}
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"comments": [human]}))
    for number, charts_url in ((1, ""), (2, "https://github.com/o/r/actions/runs/1/artifacts/2")):
        (tmp_path / "review.md").write_text(f"report {number}\n")
        env = {"PATH": "/usr/bin:/bin", "REPORT": str(tmp_path / "review.md"), "CHARTS_URL": charts_url}
        done = subprocess.run(["node", str(tmp_path / "fake.js"), str(tmp_path / "script.js"), str(state)], env=env,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
    comments = json.loads(state.read_text())["comments"]
    assert comments[0] == human
    assert comments[1:] == [{"id": 101, "user": {"type": "Bot"}, "body": f"{MARKER}\nreport 2\n\nOld and new pictures of "
                             "the changed charts: [chart-changes](https://github.com/o/r/actions/runs/1/artifacts/2)\n"}]
