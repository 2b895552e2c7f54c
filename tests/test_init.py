"""``evidencepress init``: a new site that builds and passes check at once, from a wheel alone (issue 29)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import sysconfig
import urllib.request
from pathlib import Path

import pytest
import yaml
from sitekit import REPO, tree
from test_scaffold import run

from evidencepress import __version__

SITE_FILES = ["site.toml", "content/guides/first-article.md", ".gitignore", ".github/workflows/site.yml"]


def test_init_writes_a_site_that_checks_and_builds_at_once(tmp_path: Path) -> None:
    site = tmp_path / "my-site"
    created = run("init", str(site))
    assert created.exit_code == 0, created.output
    assert created.stdout.startswith(f"created a site in {site}: {', '.join(SITE_FILES)}, exports/\n")
    assert all((site / rel).is_file() for rel in SITE_FILES)
    checked = run("check", "--root", str(site))
    assert checked.exit_code == 0 and "0 errors, 0 warnings" in checked.stderr, checked.stderr
    exports = tree(site / "exports")
    assert sorted(exports) == ["guides/first-article.json", "results.csv"]
    built = run("build", "--root", str(site), "--jobs", "1")
    assert built.exit_code == 0 and "0 errors, 0 warnings" in built.stderr, built.stderr
    assert tree(site / "exports") == exports, "init's exports/ are not what the build writes"
    page = (site / "_site/guides/first-article/index.html").read_text(encoding="utf-8")
    assert "One Recipe, One and Two Requests" in page and "throughput-by-concurrency.svg" in page
    assert run("check", "--root", str(site)).exit_code == 0


def test_every_key_of_site_toml_is_explained() -> None:
    """Each key of the site schema appears in the new site.toml (set or commented out) under a comment."""
    import json

    schema = json.loads((REPO / "schema/site.schema.json").read_text())
    text = (REPO / "src/evidencepress/defaults/init/site.toml").read_text()
    for key in schema["properties"]:
        assert re.search(rf"^(# )?\[?\[?{key}\b", text, re.MULTILINE), f"site.toml does not show {key}"
    lines = text.splitlines()
    top = lines[:next(number for number, line in enumerate(lines) if line.startswith("[["))]
    for number, line in enumerate(top):  # each top-level key, set or commented out, under its comment
        if re.match(r"^(# )?[a-z_]+ = ", line):
            assert top[number - 1].startswith("#"), f"{line} has no comment above it"


def test_the_new_site_ignores_its_outputs_and_its_workflow_installs_this_version(tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert run("init", str(site)).exit_code == 0
    assert (site / ".gitignore").read_text().splitlines()[-3:] == ["_site/", ".cache/", "sources/"]
    workflow = yaml.safe_load((site / ".github/workflows/site.yml").read_text())
    steps = workflow["jobs"]["build"]["steps"]
    assert {"run": f'python -m pip install "evidencepress=={__version__}"', "name": "Install evidencepress"} in steps
    assert [step.get("run") for step in steps if "check" in str(step.get("run"))] == ["evidencepress check"]
    assert workflow["jobs"]["deploy"]["steps"][0]["uses"] == "actions/deploy-pages@v5"


def test_init_never_overwrites_and_writes_nothing_when_a_file_is_there(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("mine\n")
    refused = run("init", str(tmp_path))
    assert refused.exit_code == 2
    assert (f"Error: {tmp_path}/.gitignore already exists: init writes a new site only where none of its files is "
            "(choose an empty folder, e.g. evidencepress init my-site)") in refused.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == [".gitignore"]
    assert (tmp_path / ".gitignore").read_text() == "mine\n"


def test_a_bare_command_shows_the_commands_and_a_missing_root_says_so(tmp_path: Path) -> None:
    bare = run()
    assert bare.exit_code == 0 and "Commands:" in bare.stdout and "init" in bare.stdout
    missing = tmp_path / "nowhere"
    outcome = run("build", "--root", str(missing))
    assert outcome.exit_code == 2
    assert outcome.stderr.startswith(f"{missing}: error: no such folder: --root names the folder of a site [config]\n"
                                     "  hint: pass the folder that holds site.toml, or start a site there with "
                                     f"`evidencepress init {missing}`\n")


@pytest.fixture(scope="module")
def wheel_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment holding the package only as its wheel: the dependencies are the test
    environment's (a path file), the package's own files only what the wheel carries."""
    folder = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder), str(REPO)],
                   check=True, capture_output=True)
    wheel = next(folder.glob("evidencepress-*.whl"))
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", purelib, str(wheel)],
                   check=True, capture_output=True)
    # The dependencies, from the test environment; its editable evidencepress is not seen (a path
    # file's folder is added to the path, its own path files are not read).
    (Path(purelib) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def in_wheel(python: Path, *arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "import sys; from evidencepress.cli import main; sys.argv[0] = 'evidencepress'; main()"
    return subprocess.run([str(python), "-c", code, *arguments], cwd=cwd, capture_output=True, text=True,
                          check=False, env={**os.environ, "PYTHONPATH": ""})


def test_a_wheel_alone_can_init_build_and_serve(wheel_python: Path, tmp_path: Path) -> None:
    where = subprocess.run([str(wheel_python), "-c", "import evidencepress; print(evidencepress.__file__)"],
                           capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(wheel_python.parents[1])), f"evidencepress imported from {where}"
    assert in_wheel(wheel_python, "init", "site", cwd=tmp_path).returncode == 0
    site = tmp_path / "site"
    built = in_wheel(wheel_python, "build", "--jobs", "1", cwd=site)
    assert built.returncode == 0 and "0 errors, 0 warnings" in built.stderr, built.stderr
    assert (site / "_site/guides/first-article/throughput-by-concurrency.svg").is_file()
    assert in_wheel(wheel_python, "check", cwd=site).returncode == 0
    code = "import sys; from evidencepress.cli import main; sys.argv[0] = 'evidencepress'; main()"
    server = subprocess.Popen([str(wheel_python), "-c", code, "serve", "--port", "0", "--jobs", "1"], cwd=site,
                              stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": ""})
    try:
        assert server.stderr is not None
        url = ""
        for line in server.stderr:  # bounded by the build: the line comes once the site is served
            found = re.search(r"serving (http://\S+)", line)
            if found:
                url = found.group(1)
                break
        assert url, "serve never said where it serves"
        with urllib.request.urlopen(url + "guides/first-article/", timeout=30) as response:
            assert response.status == 200 and b"One Recipe, One and Two Requests" in response.read()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
