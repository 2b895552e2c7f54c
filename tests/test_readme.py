"""The README is the front door: its two commands come first, and its tour works as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner
from markdown_it import MarkdownIt
from sitekit import REPO

from evidencepress.cli import main

README = REPO / "README.md"


def readme() -> str:
    return README.read_text(encoding="utf-8")


def fenced(text: str, info: str) -> list[str]:
    """The bodies of the top-level fences whose info string is ``info``, in order."""
    return [token.content for token in MarkdownIt("commonmark").parse(text) if token.type == "fence"
            and token.info.strip() == info]


def commands(block: str) -> list[str]:
    """The commands of a shell block: each line without its comment."""
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.split("#", 1)[0].strip()]


def test_the_first_two_commands_are_make_build_and_make_test() -> None:
    text = readme()
    first = next(token for token in MarkdownIt("commonmark").parse(text) if token.type in ("fence", "code_block"))
    assert first.info.strip() == "sh", "the README's first code block is its commands"
    assert commands(first.content)[:2] == ["make build", "make test"]


def test_the_readme_stays_a_front_door() -> None:
    size = len(readme().encode("utf-8"))
    assert 3_000 < size < 8_000, f"README.md is {size} bytes; the guide and the reference belong in docs/"


def tour_site(root: Path) -> Path:
    """The tour's site.toml and article, written as the README shows them."""
    text = readme()
    (site_toml,) = fenced(text, "toml")
    (article,) = fenced(text, "markdown")
    root.mkdir(parents=True, exist_ok=True)
    (root / "site.toml").write_text(site_toml, encoding="utf-8")
    page = root / "content/guides/first-look.md"
    page.parent.mkdir(parents=True)
    page.write_text(article, encoding="utf-8")
    return page


def test_the_tour_builds_without_a_problem_and_publishes_its_twins(tmp_path: Path) -> None:
    page = tour_site(tmp_path)
    outcome = CliRunner().invoke(main, ["build", "--root", str(tmp_path), "--jobs", "1", "--strict"])
    assert outcome.exit_code == 0 and outcome.stderr.startswith("built in "), outcome.stderr
    folder = tmp_path / "_site/guides/first-look"
    published = json.loads((folder / "index.json").read_bytes())
    authored = json.loads(page.read_text(encoding="utf-8").split("```json export\n", 1)[1].split("\n```", 1)[0])
    assert next(iter(published)) == "page" and {k: v for k, v in published.items() if k != "page"} == authored
    assert (folder / "index.md").is_file() and (folder / "decode.svg").is_file()
    assert (tmp_path / "exports/guides/first-look.json").read_bytes() != b""
    assert ">39.75 tokens/s</a>" in (folder / "index.html").read_text(encoding="utf-8")
    checked = CliRunner().invoke(main, ["check", "--root", str(tmp_path)])
    assert checked.exit_code == 0, checked.stderr


def test_the_tours_broken_value_gives_the_diagnostic_it_shows(tmp_path: Path) -> None:
    text = readme()
    edit = re.search(r"Change `(.+?)` to `(.+?)` and `check`", text)
    assert edit is not None, "the tour says which value to break"
    (shown,) = [block for block in fenced(text, "") if block.startswith("content/guides/first-look.md:")]
    page = tour_site(tmp_path)
    article = page.read_text(encoding="utf-8")
    assert article.count(edit.group(1)) == 1
    page.write_text(article.replace(edit.group(1), edit.group(2)), encoding="utf-8")
    outcome = CliRunner().invoke(main, ["check", "--root", str(tmp_path)])
    assert outcome.exit_code == 1
    assert outcome.stderr == shown
