"""The README's complete article example builds without a problem (documentation that cannot rot)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner
from sitekit import REPO, SITE_TOML

from evidencepress.cli import main


def readme_article() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^````markdown\n(---\n.*?)^````$", readme, re.MULTILINE | re.DOTALL)
    assert match is not None, "the README has no complete article example"
    return match.group(1)


def test_the_readme_article_builds_without_errors_or_warnings(tmp_path: Path) -> None:
    (tmp_path / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    page = tmp_path / "content/guides/example.md"
    page.parent.mkdir(parents=True)
    page.write_text(readme_article(), encoding="utf-8")
    linked = '---\ntitle: "Speed metrics"\nsummary: "The page the example links to."\nchecked: 2026-10-18\n---\n\nText.\n'
    (tmp_path / "content/guides/llm-speed-metrics.md").write_text(linked, encoding="utf-8")
    outcome = CliRunner().invoke(main, ["build", "--root", str(tmp_path), "--jobs", "1", "--strict"])
    assert outcome.exit_code == 0 and outcome.stderr.startswith("built in "), outcome.stderr
    html = (tmp_path / "_site/guides/example/index.html").read_text(encoding="utf-8")
    assert ">231.294 tokens/s</a>" in html and ">4.91 tokens/s</a>" in html
    exported = json.loads((tmp_path / "_site/guides/example/index.json").read_bytes())
    seed = REPO.parent / "shared/seed/exports/13.json"
    if seed.is_file():  # the example's values are the seed's, as authored
        for result in exported["reported_results"]:
            original = next(r for r in json.loads(seed.read_bytes())["reported_results"] if r["label"] == result["label"])
            for key, value in result.items():
                if key != "conditions":
                    assert original[key] == value, key
            for key, value in result["conditions"].items():
                assert original["conditions"][key] == value, key
