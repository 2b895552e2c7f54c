"""The 22 real exports of shared/seed validate with zero errors (SPEC §4, seed/README.md).

Each export is placed, as it is, in an article whose front matter lists the
sources that the published page lists in its "Original sources and
conditions" section of shared/seed/site-dump.txt (each URL once). Warnings
are allowed: recommended conditions absent, unpinned sources and a condition key
that differs from a known one in case only (KV_dtype) are true of
the data. Skipped when shared/ is not beside the repository.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from sitekit import example_site_toml

from evidencepress.cli import main

REPO = Path(__file__).resolve().parents[1]
SEED = REPO.parent / "shared" / "seed"

pytestmark = pytest.mark.skipif(not (SEED / "site-dump.txt").is_file(),
                                reason="shared/seed is not beside the repository")

SOURCES_HEADING = "## Original sources and conditions"
ENTRY = re.compile(r"-\s+(?P<publisher>[^:]+?):\s+(?P<url>https?://\S+)\s+-\s+Document revision:\s+(?P<revision>\S+)"
                   r"\s+-\s+SHA-256:\s+(?P<sha256>[0-9a-f]{64})")
CHECKED = re.compile(r"Checked (\d{4}-\d{2}-\d{2})\.")
NUMBERS = [f"{n:02d}" for n in range(1, 23)]


@dataclass(frozen=True)
class Source:
    publisher: str
    url: str
    revision: str
    sha256: str


@dataclass(frozen=True)
class SeedArticle:
    number: str
    checked: str
    sources: tuple[Source, ...]


def read_dump() -> list[SeedArticle]:
    """The articles of site-dump.txt in NN order, each with its listed sources (each URL once)."""
    articles = (SEED / "site-dump.txt").read_text(encoding="utf-8").split(" --- ")
    parsed: list[SeedArticle] = []
    for number, text in zip(NUMBERS, articles, strict=True):
        start = text.index(SOURCES_HEADING)
        checked = CHECKED.search(text, start)
        assert checked is not None, number
        sources: dict[str, Source] = {}
        for entry in ENTRY.finditer(text, start, checked.start()):
            sources.setdefault(entry["url"], Source(entry["publisher"].strip(), entry["url"], entry["revision"],
                                                    entry["sha256"]))
        parsed.append(SeedArticle(number, checked.group(1), tuple(sources.values())))
    return parsed


def article_text(seed: SeedArticle, export: str) -> str:
    """A source article around the export, as it stands in seed/exports/NN.json."""
    front = [f'title: "Seed article {seed.number}"', 'summary: "One of the published exports, validated as it is."',
             f"checked: {seed.checked}", "sources:"]
    for source in seed.sources:
        front += [f"  - publisher: {json.dumps(source.publisher)}", f"    url: {json.dumps(source.url)}",
                  f"    revision: {json.dumps(source.revision)}", f"    sha256: {json.dumps(source.sha256)}"]
    body = "The export of this page is one of the site's published exports.\n"
    return "---\n" + "\n".join(front) + "\n---\n\n" + body + "\n```json export\n" + export.rstrip("\n") + "\n```\n"


@pytest.fixture(scope="module")
def seed_problems(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, object]]]:
    """Build one site holding all 22 articles; its problems by article number."""
    root = tmp_path_factory.mktemp("seed-site")
    (root / "site.toml").write_text(example_site_toml(), encoding="utf-8")
    guides = root / "content" / "guides"
    guides.mkdir(parents=True)
    for seed in read_dump():
        export = (SEED / "exports" / f"{seed.number}.json").read_text(encoding="utf-8")
        (guides / f"seed-{seed.number}.md").write_text(article_text(seed, export), encoding="utf-8")
    result = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", "--format", "json"])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(result.output) from result.exception
    problems = json.loads(result.stdout)
    by_number: dict[str, list[dict[str, object]]] = {number: [] for number in NUMBERS}
    for problem in problems:
        match = re.fullmatch(r"content/guides/seed-(\d\d)\.md", str(problem["file"]))
        assert match, problem  # nothing outside the articles
        by_number[match.group(1)].append(problem)
    by_number["exit"] = [{"code": result.exit_code}]
    return by_number


def test_the_dump_lists_sources_for_every_article() -> None:
    articles = read_dump()
    assert [a.number for a in articles] == NUMBERS
    assert all(a.sources for a in articles)
    assert sum(len(a.sources) for a in articles) == len({(a.number, s.url) for a in articles for s in a.sources})


@pytest.mark.parametrize("number", NUMBERS)
def test_seed_export_validates_without_errors(seed_problems: dict[str, list[dict[str, object]]], number: str) -> None:
    errors = [f"{p['line']}:{p['column']}: {p['path']}: {p['message']} [{p['rule']}]"
              for p in seed_problems[number] if p["severity"] == "error"]
    assert errors == []
    allowed = {"recommended", "unpinned", "checked", "unit", "duplicate-source", "condition-key"}
    assert {str(p["rule"]) for p in seed_problems[number]} <= allowed


def test_the_seed_site_builds(seed_problems: dict[str, list[dict[str, object]]]) -> None:
    assert seed_problems["exit"] == [{"code": 0}]
