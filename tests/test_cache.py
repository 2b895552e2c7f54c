"""Content-addressed caches: right or absent, never stale; bounded in size."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sitekit import article, export, make_site, many_pages, result, tree

from evidencepress.build import build_site, plan_site
from evidencepress.cache import Store, key_of, prune
from evidencepress.options import BuildOptions


def _outcome(root: Path) -> tuple[list[str], list[str]]:
    plan, problems = plan_site(BuildOptions(root=root, jobs=1))
    titles = [page.front.title for page in plan.pages] if plan else []
    return titles, [p.format() for p in problems]


def test_a_cached_page_is_the_page_and_an_edit_is_seen(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("First", export_doc=export(result(unit="tok/s")))})
    cold = _outcome(root)
    assert not (root / ".cache" / "pages").exists(), "planning alone wrote the cache"
    build_site(BuildOptions(root=root, jobs=1))
    assert list((root / ".cache" / "pages").rglob("*")), "the page cache was not written"
    assert _outcome(root) == cold  # read back: same page, same warnings
    (root / "content/guides/a.md").write_text(article("Second", export_doc=export(result())))
    titles, problems = _outcome(root)
    assert titles == ["Second"] and problems == []


def test_cached_and_uncached_builds_are_byte_identical(tmp_path: Path) -> None:
    root = make_site(tmp_path / "a", {"guides/a.md": article("A", export_doc=export(result(value=22.5)))})
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    first = tree(root / "_site")
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    assert tree(root / "_site") == first
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1, use_cache=False)) if p.is_error]
    assert tree(root / "_site") == first


def test_a_damaged_entry_is_a_miss(tmp_path: Path) -> None:
    store = Store(tmp_path)
    key = key_of("x")
    store.save(key, {"value": 1})
    store.commit()
    assert Store(tmp_path).load(key) == {"value": 1}
    (tmp_path / key[:2] / key).write_bytes(b"\x80\x05garbage")
    assert Store(tmp_path).load(key) is None
    assert Store(None).load(key) is None


def test_check_and_a_failed_build_write_no_cache(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from evidencepress.cli import main

    root = make_site(tmp_path, {"guides/a.md": article("A"), "guides/b.md": article("B", "[x](/nowhere/)")})
    assert CliRunner().invoke(main, ["check", "--root", str(root)]).exit_code == 1
    assert CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"]).exit_code == 1
    assert sorted(p.name for p in root.iterdir()) == ["content", "site.toml"]


def test_prune_keeps_the_most_recently_used_within_the_bound(tmp_path: Path) -> None:
    for index in range(10):
        path = tmp_path / f"entry-{index}"
        path.write_bytes(b"x" * 100)
        os.utime(path, (1_000_000 + index, 1_000_000 + index))
    assert prune(tmp_path, 2_000) == 0
    removed = prune(tmp_path, 500)
    assert removed == 7 and sorted(p.name for p in tmp_path.iterdir()) == ["entry-7", "entry-8", "entry-9"]


def test_prune_never_removes_what_the_build_used(tmp_path: Path) -> None:
    for index in range(10):
        path = tmp_path / f"entry-{index}"
        path.write_bytes(b"x" * 100)
        os.utime(path, (1_000_000 + index, 1_000_000 + index))
    assert prune(tmp_path, 200, used_since=1_000_005) == 4  # 500 old bytes pruned to 150: the 5 used stay
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"entry-{index}" for index in range(4, 10)]


def test_a_site_larger_than_the_cache_bound_keeps_every_page_it_rendered(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A 256 MB bound cut into a 5,000-article site's own entries, so that each edit re-rendered
    most of its pages; the bound now applies to entries the build did not use."""
    from click.testing import CliRunner

    from evidencepress import cache
    from evidencepress.cli import main

    monkeypatch.setattr(cache, "BOUNDS", dict.fromkeys(cache.BOUNDS, 1_000))  # far below one build's entries
    root = many_pages(tmp_path / "site", 12)
    assert CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"]).exit_code == 0
    assert _entries(root / ".cache/rendered") == 12 + 7  # the articles and their 7 record pages
    assert _entries(root / ".cache/pages") == 12


def _entries(folder: Path) -> int:
    return len([path for path in folder.rglob("*") if path.is_file()])


def test_a_schema_edit_invalidates_cached_pages(tmp_path: Path) -> None:
    import json
    import shutil

    from sitekit import REPO

    root = make_site(tmp_path, {"guides/a.md": article("A", export_doc=export(result(unit="tok/s")))})
    shutil.copytree(REPO / "schema", root / "schema")
    assert any("unit 'tok/s' is not in the unit vocabulary" in p for p in _outcome(root)[1])
    units = json.loads((root / "schema/units.json").read_text())
    units["units"]["tok/s"] = {"description": "tokens per second, as some sources write it"}
    (root / "schema/units.json").write_text(json.dumps(units))
    assert not any("tok/s" in p for p in _outcome(root)[1])


REPLAY_PROBE = """
import sys
from click.testing import CliRunner
from evidencepress.cli import main
result = CliRunner().invoke(main, ["build", "--root", sys.argv[1], "--jobs", "1"])
print(result.exit_code, "markdown_it" in sys.modules, "jinja2" in sys.modules)
print(result.stderr)
"""


def _build_in_new_process(root: Path) -> tuple[str, str]:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", REPLAY_PROBE, str(root)], capture_output=True, text=True, check=True)
    first, _, rest = done.stdout.partition("\n")
    return first, rest


def test_an_unchanged_build_replays_its_record_without_the_pipeline(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", export_doc=export(result(unit="tok/s")))})
    status, report = _build_in_new_process(root)
    assert status == "0 True True" and "unit 'tok/s' is not in the unit vocabulary" in report
    built = tree(root / "_site"), tree(root / "exports")
    status, replayed = _build_in_new_process(root)
    assert status == "0 False False", "a no-change build imported the pipeline"
    assert replayed.split("built in")[0] == report.split("built in")[0]
    assert (tree(root / "_site"), tree(root / "exports")) == built


def test_a_change_anywhere_makes_a_full_build(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A"), "guides/b.md": article("B")})
    assert _build_in_new_process(root)[0] == "0 True True"
    (root / "content/guides/b.md").write_text(article("B changed"))
    assert _build_in_new_process(root)[0] == "0 True True"
    assert b"B changed" in (root / "_site/guides/b/index.html").read_bytes()
    assert _build_in_new_process(root)[0] == "0 False False"
    (root / "_site/guides/a/index.html").unlink()  # the output was touched: it is written again
    assert _build_in_new_process(root)[0] == "0 True True"
    assert (root / "_site/guides/a/index.html").is_file()
    (root / "exports/guides/a.json").write_text("{}")
    assert _build_in_new_process(root)[0] == "0 True True"
    assert (root / "exports/guides/a.json").read_text() != "{}"
    (root / "static").mkdir()
    (root / "static/CNAME").write_text("example.org\n")
    assert _build_in_new_process(root)[0] == "0 True True"
    assert (root / "_site/CNAME").is_file()


def test_rendered_articles_follow_their_record_prose_and_the_templates(tmp_path: Path) -> None:
    """An article's files come back from the cache only while everything they show is unchanged."""
    import shutil

    from sitekit import REPO

    root = make_site(tmp_path, {"guides/a.md": article("A", export_doc=export(result())), "guides/b.md": article("B")})
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    assert list((root / ".cache" / "rendered").rglob("*")), "rendered articles were not cached"
    prose = root / "content" / "community" / "example-record.md"
    prose.parent.mkdir()
    prose.write_text('---\ntitle: "A record with a name"\n---\n\nWhat the record is.\n')
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    assert b"A record with a name" in (root / "_site/guides/a/index.html").read_bytes()
    shutil.copytree(REPO / "templates", root / "templates")
    page = root / "templates" / "page.html"
    page.write_text(page.read_text().replace("{% block main %}", "{% block main %}<p>TEMPLATE-EDIT</p>", 1))
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    for name in ("guides/a/index.html", "guides/b/index.html"):
        assert b"TEMPLATE-EDIT" in (root / "_site" / name).read_bytes(), name


def test_a_cached_build_equals_a_fresh_one_after_an_edit(tmp_path: Path) -> None:
    pages = {f"guides/p{i}.md": article(f"P{i}", export_doc=export(result(value=40.0 + i))) for i in range(4)}
    root = make_site(tmp_path / "cached", pages)
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    (root / "content/guides/p2.md").write_text(article("P2 edited", export_doc=export(result(value=99.5))))
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    fresh = make_site(tmp_path / "fresh", {**pages, "guides/p2.md": article("P2 edited",
                                                                           export_doc=export(result(value=99.5)))})
    assert not [p for p in build_site(BuildOptions(root=fresh, jobs=1, use_cache=False)) if p.is_error]
    assert tree(root / "_site") == tree(fresh / "_site") and tree(root / "exports") == tree(fresh / "exports")


def test_commit_writes_each_later_value_before_it_asks_for_the_next(tmp_path: Path) -> None:
    """A build's rendered files are saved at commit: one at a time, never all held pickled."""
    store = Store(tmp_path)
    on_disk_when_asked: list[int] = []

    def value(number: int) -> dict[str, int]:
        on_disk_when_asked.append(sum(1 for p in tmp_path.rglob("*") if p.is_file()))
        return {"number": number}

    keys = [key_of(f"entry {number}") for number in range(3)]
    for number, key in enumerate(keys):
        store.save_later(key, lambda number=number: value(number))
    store.commit()
    assert on_disk_when_asked == [0, 1, 2]
    assert [Store(tmp_path).load(key) for key in keys] == [{"number": 0}, {"number": 1}, {"number": 2}]


def test_record_pages_are_rendered_again_only_when_what_they_show_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit renders again the records its article cites; a record's prose or a template edit,
    that record or all; each cached build equals a build without the cache."""
    import shutil

    from sitekit import REPO

    from evidencepress import outputs

    rendered: list[str] = []
    render_record = outputs.render_record
    monkeypatch.setattr(outputs, "render_record", lambda env, record, ctx: rendered.append(record.id)
                        or render_record(env, record, ctx))

    def build_and_compare(root: Path) -> list[str]:
        rendered.clear()
        assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
        fresh = tmp_path / "fresh"
        shutil.rmtree(fresh, ignore_errors=True)
        shutil.copytree(root, fresh, ignore=shutil.ignore_patterns(".cache", "_site", "exports"))
        done = sorted(rendered)
        assert not [p for p in build_site(BuildOptions(root=fresh, jobs=1, use_cache=False)) if p.is_error]
        assert tree(root / "_site") == tree(fresh / "_site")
        return done

    root = many_pages(tmp_path / "site", 14)  # page n cites record-(n % 7)
    assert build_and_compare(root) == [f"record-{n}" for n in range(7)]
    assert build_and_compare(root) == []  # nothing changed: every record page is read back from the cache
    page = root / "content/guides/p003.md"
    page.write_text(page.read_text().replace("Text of page 3.", "Text of page 3, edited."))
    assert build_and_compare(root) == ["record-3"]
    prose = root / "content/community/record-5.md"
    prose.parent.mkdir()
    prose.write_text('---\ntitle: "Record five"\n---\n\nWhat record five is.\n')
    assert build_and_compare(root) == ["record-5"]
    shutil.copytree(REPO / "templates", root / "templates")
    template = root / "templates/record.html"
    template.write_text(template.read_text().replace("{% block main %}", "{% block main %}<p>EDIT</p>", 1))
    assert build_and_compare(root) == [f"record-{n}" for n in range(7)]
    assert b"<p>EDIT</p>" in (root / "_site/community/record-2/index.html").read_bytes()
