"""Content-addressed caches: right or absent, never stale; bounded in size."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from sitekit import article, export, make_site, many_pages, result, tree

from evidencepress.build.recipe import build_site, plan_site
from evidencepress.cache.caches import Store, key_of, prune, prune_caches, prune_store
from evidencepress.cli import main
from evidencepress.core.options import BuildOptions
from evidencepress.core.seal import SEAL_BYTES


def _outcome(root: Path) -> tuple[list[str], list[str]]:
    plan, problems = plan_site(BuildOptions(root=root, jobs=1))
    titles = [page.front.title for page in plan.pages] if plan else []
    return titles, [p.format() for p in problems]


def test_a_cached_page_is_the_page_and_an_edit_is_seen(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("First", export_doc=export(result(unit="tps")))})
    cold = _outcome(root)
    assert not (root / ".cache" / "pages.sqlite").exists(), "planning alone wrote the cache"
    build_site(BuildOptions(root=root, jobs=1))
    assert _pages(root / ".cache" / "pages.sqlite") == 1, "the page cache was not written"
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
    path = tmp_path / "store.sqlite"
    store = Store(path)
    key, other = key_of("x"), key_of("y")
    store.save(key, {"value": 1})
    store.save(other, {"value": 2})
    store.commit()
    assert Store(path).load(key) == {"value": 1}
    with _database(path) as db:
        db.execute("UPDATE blobs SET data = ? WHERE key = ?", (b"\x80\x05garbage", key))
    assert Store(path).load(key) is None
    assert Store(path).load(other) == {"value": 2}
    assert Store(None).load(key) is None


def test_a_damaged_database_is_a_miss_and_the_next_commit_replaces_it(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    store = Store(path)
    store.save(key_of("x"), {"value": 1})
    store.commit()
    path.write_bytes(b"not a database, " * 5_000)
    damaged = Store(path)
    assert not damaged.has(key_of("x")) and damaged.load(key_of("x")) is None
    assert path.read_bytes() == b"not a database, " * 5_000, "reading changed the file"
    damaged.save(key_of("y"), {"value": 2})
    damaged.commit()
    assert Store(path).load(key_of("y")) == {"value": 2} and _entries(path) == 1
    damaged.save(key_of("z"), {"value": 3})  # the same store goes on with the new database
    damaged.commit()
    assert _entries(path) == 2


def test_a_build_over_damaged_databases_succeeds_and_caches_again(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from evidencepress.build import render as outputs

    rendered: list[str] = []
    render_article, render_record = outputs.render_article, outputs.render_record
    monkeypatch.setattr(outputs, "render_article", lambda env, page, *rest: rendered.append(page.url)
                        or render_article(env, page, *rest))
    monkeypatch.setattr(outputs, "render_record", lambda env, record, ctx: rendered.append(record.id)
                        or render_record(env, record, ctx))
    root = many_pages(tmp_path / "site", 3)  # 3 articles citing 3 records
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    built = tree(root / "_site")
    for name in ("pages.sqlite", "rendered.sqlite"):
        (root / ".cache" / name).write_bytes(b"\x00garbage" * 30_000)
    rendered.clear()
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    assert len(rendered) == 6, "the damaged cache was read as if it held entries"
    assert tree(root / "_site") == built
    assert (_pages(root / ".cache/pages.sqlite"), _rendered_pages(root / ".cache/rendered.sqlite")) == (3, 6)
    rendered.clear()
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    assert rendered == [], "the new databases were not read back"
    assert tree(root / "_site") == built


def test_check_and_a_failed_build_write_no_cache(tmp_path: Path) -> None:
    """``check`` never writes the caches; a build writes them when it succeeds, or a batch at a
    time once BATCH_BYTES are held (never in a site this small)."""
    from click.testing import CliRunner

    from evidencepress.cli import main

    root = make_site(tmp_path, {"guides/a.md": article("A"), "guides/b.md": article("B", "[x](/nowhere/)")})
    assert CliRunner().invoke(main, ["check", "--root", str(root)]).exit_code == 1
    assert CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"]).exit_code == 1
    assert sorted(p.name for p in root.iterdir()) == ["content", "site.toml"]
    (root / ".cache").mkdir()  # as the chart cache leaves it: reading the caches creates no database there
    assert CliRunner().invoke(main, ["check", "--root", str(root)]).exit_code == 1
    assert list((root / ".cache").iterdir()) == []
    (root / "content/guides/b.md").write_text(article("B"))
    assert CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"]).exit_code == 0
    cache = {path.name: (path.read_bytes(), path.stat().st_mtime_ns) for path in (root / ".cache").glob("*.sqlite")}
    assert sorted(cache) == ["pages.sqlite", "rendered.sqlite"] and _pages(root / ".cache/pages.sqlite") == 2
    (root / "content/guides/c.md").write_text(article("C"))  # a new entry, and entries read back: nothing written
    (root / "content/guides/b.md").write_text(article("B", "[x](/nowhere/)"))
    assert CliRunner().invoke(main, ["check", "--root", str(root)]).exit_code == 1
    assert CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"]).exit_code == 1
    assert {path.name: (path.read_bytes(), path.stat().st_mtime_ns)
            for path in (root / ".cache").glob("*.sqlite*")} == cache


def test_prune_keeps_the_most_recently_used_within_the_bound(tmp_path: Path) -> None:
    for index in range(10):
        path = tmp_path / f"entry-{index}"
        path.write_bytes(b"x" * 100)
        os.utime(path, (1_000_000 + index, 1_000_000 + index))
    assert prune(tmp_path, 2_000) == 0
    removed = prune(tmp_path, 500)
    assert removed == 7 and sorted(p.name for p in tmp_path.iterdir()) == ["entry-7", "entry-8", "entry-9"]


def test_prune_store_removes_the_least_recently_used_of_the_entries_the_build_did_not_use(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    store = Store(path)
    for index in range(10):
        store.save_pickled(f"entry-{index}", b"x" * (1_000 - SEAL_BYTES))  # 1,000 bytes sealed
    store.save_pickled("big", b"x" * (2_000_000 - SEAL_BYTES))
    store.commit()
    with _database(path) as db:
        db.executemany("UPDATE entries SET used = ? WHERE key = ?",
                       [(1_000_000 + index, f"entry-{index}") for index in range(10)] + [(1_000_020, "big")])
    size = path.stat().st_size
    assert prune_store(path, 3_000_000) == 0 and prune_store(path, 2_000_000, used_since=1_000_020) == 0
    assert prune_store(path, 4_000, used_since=1_000_005) == 2  # 5,000 old bytes pruned to 3,000: the used stay
    assert _keys(path) == ["big"] + [f"entry-{index}" for index in range(2, 10)] and _entries(path) == 9
    assert prune_store(path, 1_000_000) == 9  # the big one used last: the others go first, then it
    assert _entries(path) == 0 and path.stat().st_size < size - 1_900_000, "the file did not shrink"
    assert prune_store(tmp_path / "missing.sqlite", 0) == 0 and not (tmp_path / "missing.sqlite").exists()


def test_an_entry_read_back_is_marked_used_when_the_build_commits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evidencepress.cache import store as cachestore

    path = tmp_path / "store.sqlite"
    store = Store(path)
    for name in ("read", "not read"):
        store.save(name, name)
    store.commit()
    with _database(path) as db:
        db.execute("UPDATE entries SET used = 1000")
    monkeypatch.setattr(cachestore.time, "time", lambda: 2000.0)  # the commit's clock
    store = Store(path)
    assert store.load("read") == "read" and store.has("not read")
    assert _used(path) == {"read": 1000, "not read": 1000}, "reading wrote"
    store.commit()
    assert _used(path) == {"read": 2000, "not read": 1000}


def test_a_store_kept_across_rebuilds_writes_an_entrys_use_once(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A dev server's store marked every entry its rebuild read as used again at each commit: 5,000
    updates, 0.1 s of each rebuild at 5,000 articles (issue 27). Written once; the values it keeps
    (``kept``) are given back without reading the database."""
    from evidencepress.cache import store as cachestore

    path = tmp_path / "rendered.sqlite"
    store = Store(path)
    store.kept = {}
    store.save("read", "read")
    assert store.kept == {"read": "read"}  # what the server saves, it has (the first rebuild read every page back)
    store.commit()
    clock = iter([1000.0, 2000.0, 3000.0])
    monkeypatch.setattr(cachestore.time, "time", lambda: next(clock))
    served = Store(path)
    served.kept = {}
    for _ in range(3):
        assert served.load("read") == "read"
        served.commit()
    assert _used(path) == {"read": 1000.0} and served.kept == {"read": "read"}


def test_an_entry_the_store_wrote_is_not_marked_used_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dev server that started on a new base URL rendered and wrote every page; its first rebuild
    then marked all those entries used again, though writing them had just set their use (issue 27)."""
    from evidencepress.cache import store as cachestore

    clock = iter([1000.0, 2000.0, 3000.0])
    monkeypatch.setattr(cachestore.time, "time", lambda: next(clock))
    path = tmp_path / "rendered.sqlite"
    served = Store(path)
    served.kept = {}
    served.save("written", "value")
    served.save_later("later", lambda: "value")
    served.commit()  # at 1000
    assert served.load("written") == "value" and served.load("later") == "value"
    served.commit()  # at 2000: nothing to write
    assert _used(path) == {"written": 1000.0, "later": 1000.0}


def test_load_many_gives_what_load_gives_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries read LOAD_BATCH to a query: misses, damaged entries and entries held in memory keep
    their places, and one query is made per batch."""
    from evidencepress.cache import store as cachestore

    monkeypatch.setattr(cachestore, "LOAD_BATCH", 3)
    path = tmp_path / "store.sqlite"
    store = Store(path)
    for number in range(7):
        store.save(f"entry-{number}", number)
    store.commit()
    with _database(path) as db:
        db.execute("UPDATE blobs SET data = X'00' WHERE key = 'entry-4'")
    store = Store(path)
    store.save("held", "in memory")
    queries: list[str] = []
    rows = store._rows
    monkeypatch.setattr(store, "_rows", lambda sql, params: queries.append(sql) or rows(sql, params))
    keys = ["entry-0", "missing", "held", "entry-4", "entry-5", "entry-6", "entry-0"]
    assert list(store.load_many(keys)) == [0, None, "in memory", None, 5, 6, 0]
    assert len(queries) == 3 and store.discarded == 1
    assert list(store.load_many_pickled(["entry-1", "none"]))[1] is None
    assert _used(path).keys() >= {"entry-0", "entry-5"}


def _used(path: Path) -> dict[str, float]:
    with _database(path) as db:
        return dict(db.execute("SELECT key, used FROM entries"))


def _keys(path: Path) -> list[str]:
    with _database(path) as db:
        return [key for key, in db.execute("SELECT key FROM entries ORDER BY key")]


def test_prune_caches_removes_the_folders_of_earlier_versions(tmp_path: Path) -> None:
    for name in ("pages", "rendered", "charts"):
        (tmp_path / name / "ab").mkdir(parents=True)
        (tmp_path / name / "ab" / "abcd").write_bytes(b"entry")
    store = Store(tmp_path / "pages.sqlite")
    store.save("key", "value")
    store.commit()
    prune_caches(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["charts", "pages.sqlite"]
    assert (tmp_path / "charts/ab/abcd").is_file() and Store(tmp_path / "pages.sqlite").load("key") == "value"


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

    from evidencepress.cache import caches as cache
    from evidencepress.cli import main

    monkeypatch.setattr(cache, "BOUNDS", dict.fromkeys(cache.BOUNDS, 1_000))  # far below one build's entries
    root = many_pages(tmp_path / "site", 12)
    assert CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"]).exit_code == 0
    assert _rendered_pages(root / ".cache/rendered.sqlite") == 12 + 7  # the articles and their 7 record pages
    assert _pages(root / ".cache/pages.sqlite") == 12


def _entries(path: Path) -> int:
    """The number of entries in the cache database at ``path`` (each a value, its size and use time)."""
    with _database(path) as db:
        (values, entries), = db.execute("SELECT (SELECT count(*) FROM blobs), (SELECT count(*) FROM entries)")
    assert values == entries
    return int(values)


def _pages(path: Path) -> int:
    """The number of validated pages in the page cache at ``path`` (each page's verification against
    the vault is an entry of its own)."""
    with _database(path) as db:
        (pages,), = db.execute("SELECT count(*) FROM entries WHERE key NOT LIKE 'verified %'")
    return int(pages)


def _rendered_pages(path: Path) -> int:
    """The number of pages in the rendered cache at ``path`` (each file's bytes, each search shard and
    the data files are entries of their own)."""
    with _database(path) as db:
        (pages,), = db.execute("SELECT count(*) FROM entries WHERE key NOT LIKE 'file %' AND key NOT LIKE 'search %'"
                               " AND key NOT LIKE 'data %' AND key NOT LIKE 'gaps %'"
                               " AND key NOT LIKE 'listing %' AND key NOT LIKE 'community %' AND key NOT LIKE 'feeds %'"
                               " AND key NOT LIKE 'exports table %'")
    return int(pages)


@contextlib.contextmanager
def _database(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection to the cache database at ``path``, committed and closed on leaving (sqlite3's own
    context manager leaves it open)."""
    assert path.is_file(), f"{path} does not exist"
    db = sqlite3.connect(path)
    try:
        yield db
        db.commit()
    finally:
        db.close()


def test_a_schema_edit_invalidates_cached_pages(tmp_path: Path) -> None:
    import json
    import shutil

    from sitekit import REPO

    root = make_site(tmp_path, {"guides/a.md": article("A", export_doc=export(result(unit="tps")))})
    shutil.copytree(REPO / "schema", root / "schema")
    assert any("unit 'tps' is not in the unit vocabulary" in p for p in _outcome(root)[1])
    units = json.loads((root / "schema/units.json").read_text())
    units["units"]["tps"] = {"description": "tokens per second, as some sources write it"}
    (root / "schema/units.json").write_text(json.dumps(units))
    assert not any("tps" in p for p in _outcome(root)[1])


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
    root = make_site(tmp_path, {"guides/a.md": article("A", export_doc=export(result(unit="tps")))})
    status, report = _build_in_new_process(root)
    assert status == "0 True True" and "unit 'tps' is not in the unit vocabulary" in report
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
    assert _rendered_pages(root / ".cache" / "rendered.sqlite") == 2 + 1, "rendered articles were not cached"
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


def test_a_process_compiles_a_template_again_only_when_it_changed(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A dev server makes an environment per rebuild: it compiled every template each time (0.05 s
    of a rebuild of 5,000 articles, issue 27). An edited template is compiled and shown."""
    import jinja2
    from sitekit import REPO

    from evidencepress.build.recipe import site_files

    root = make_site(tmp_path, {"guides/a.md": article("A", export_doc=export(result()))})
    shutil.copytree(REPO / "templates", root / "templates")
    compiled: list[str | None] = []
    real = jinja2.Environment.compile
    monkeypatch.setattr(jinja2.Environment, "compile",
                        lambda env, source, name=None, *rest, **kw: compiled.append(name) or real(env, source, name, *rest, **kw))
    options = BuildOptions(root=root, jobs=1, use_cache=False)
    first, _ = site_files(options)
    assert first is not None and "page.html" in compiled
    compiled.clear()
    assert site_files(options)[0] == first and compiled == []
    page = root / "templates" / "page.html"
    page.write_text(page.read_text().replace("{% block main %}", "{% block main %}<p>TEMPLATE-EDIT</p>", 1))
    edited, _ = site_files(options)
    assert compiled == ["page.html"]
    assert edited is not None and b"TEMPLATE-EDIT" in edited["guides/a/index.html"]


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
    path = tmp_path / "store.sqlite"
    store = Store(path)
    inserted_when_asked: list[int] = []

    def value(number: int) -> dict[str, int]:
        assert store._db is not None
        (count,), = store._db.execute("SELECT count(*) FROM blobs").fetchall()  # in the commit's transaction
        inserted_when_asked.append(count)
        return {"number": number}

    keys = [key_of(f"entry {number}") for number in range(3)]
    for number, key in enumerate(keys):
        store.save_later(key, lambda number=number: value(number))
    store.commit()
    assert inserted_when_asked == [0, 1, 2]
    assert [Store(path).load(key) for key in keys] == [{"number": 0}, {"number": 1}, {"number": 2}]
    assert _entries(path) == 3


def test_a_commit_that_fails_midway_leaves_the_database_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    store = Store(path)
    store.save(key_of("old"), "old value")
    store.commit()
    before = path.read_bytes()

    def fails() -> bytes:
        raise ValueError("the output went away")

    store.save(key_of("new"), "new value")
    store.save_later(key_of("a"), lambda: b"a" * 100_000)
    store.save_later(key_of("b"), fails)
    with pytest.raises(ValueError, match="went away"):
        store.commit()
    assert path.read_bytes() == before and _entries(path) == 1
    store.save(key_of("next"), "next value")  # the store goes on
    store.commit()
    assert [Store(path).load(key_of(name)) for name in ("old", "new", "a", "next")] == [
        "old value", None, None, "next value"]


def test_a_database_locked_by_another_process_only_costs_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A serve and a build of one site: one waits for the other's commit, and past BUSY_SECONDS
    gives up (a miss, a commit not written), then goes on once the lock is gone."""
    from evidencepress.cache import store as cachestore

    monkeypatch.setattr(cachestore, "BUSY_SECONDS", 0.05)
    path = tmp_path / "store.sqlite"
    store = Store(path)
    store.save("old", "old value")
    store.commit()
    store.close()
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")
        store.save("new", "new value")
        assert store.load("old") is None  # waited, then missed
        store.commit()  # waited, then gave up
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert Store(path).load("new") is None and store.load("old") == "old value"
    store.save("new", "new value")
    store.commit()
    assert Store(path).load("new") == "new value"


KILLED_MIDWAY = """
import os, signal, sys
from pathlib import Path
from evidencepress.cache.caches import Store

store = Store(Path(sys.argv[1]))
for number in range(8):  # 32 MB: past SQLite's page cache, so that pages are written before the end
    store.save_later(f"{number:02d}", lambda number=number: os.urandom(4 << 20))
store.save_later("99", lambda: os.kill(os.getpid(), signal.SIGKILL))
store.commit()
"""


def test_a_build_killed_while_it_commits_leaves_the_previous_database(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "store.sqlite"
    store = Store(path)
    store.save("old", "old value")
    store.commit()
    store.close()
    done = subprocess.run([sys.executable, "-c", KILLED_MIDWAY, str(path)], capture_output=True, check=False)
    assert done.returncode == -9, done.stderr
    assert Path(f"{path}-journal").is_file() and path.stat().st_size > 30 << 20, "nothing was half written"
    assert Store(path).load("old") == "old value"  # the journal is played back
    assert _entries(path) == 1 and not Path(f"{path}-journal").exists()


def test_record_pages_are_rendered_again_only_when_what_they_show_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit of an article's data renders again the records it cites, an edit of its prose none
    (a record of 20,000 results was rendered again for a sentence, issue 27); a record's prose or a
    template edit, that record or all; each cached build equals a build without the cache."""
    import shutil

    from sitekit import REPO

    from evidencepress.build import render as outputs

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
    assert build_and_compare(root) == []
    page.write_text(page.read_text().replace('"value": 43.5', '"value": 43.75', 1))
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


def test_a_build_after_a_missed_replay_hashes_its_inputs_once_more_only_at_the_end(tmp_path: Path,
                                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The digest the look for a recorded build computed is the build's starting digest; the one
    at the end (did an input change while it ran?) is computed again."""
    import evidencepress.build.recipe
    import evidencepress.cache.buildrecord

    root = make_site(tmp_path, {"guides/a.md": article("A", export_doc=export(result()))})
    calls: list[Path] = []
    real = evidencepress.cache.buildrecord.inputs_digest

    def counted(options: BuildOptions, out: Path) -> str | None:
        calls.append(out)
        return real(options, out)

    monkeypatch.setattr(evidencepress.cache.buildrecord, "inputs_digest", counted)
    monkeypatch.setattr(evidencepress.build.recipe, "inputs_digest", counted)
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    assert outcome.exit_code == 0, outcome.output
    assert calls == [root / "_site", root / "_site"]  # the replay's, then the end's
    calls.clear()
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", "--out", str(tmp_path / "o")])
    assert outcome.exit_code == 0, outcome.output
    assert len(calls) == 2  # replayed for another folder: still not twice at the start


@pytest.mark.parametrize("edited", [False, True])
def test_a_build_during_which_an_input_changed_is_not_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               edited: bool) -> None:
    """The record says which output the inputs make: an article saved while the build ran (after
    it was read) leaves no record, so the next build makes the site again; otherwise the next
    build finds the output in place, its exports/ digest (taken as the files were written)
    equal to that of the folder."""
    from evidencepress.build import recipe
    from evidencepress.cache.buildrecord import replay

    root = make_site(tmp_path, {"guides/a.md": article("A", export_doc=export(result())), "guides/b.md": article("B")})
    render_generated = recipe.render_generated

    def saved_meanwhile(*args: object) -> None:
        if edited:
            (root / "content/guides/b.md").write_text(article("B, saved during the build"))
        render_generated(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(recipe, "render_generated", saved_meanwhile)
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    assert outcome.exit_code == 0, outcome.output
    assert b"B, saved during" not in (root / "_site/guides/b/index.html").read_bytes()
    recorded = replay(BuildOptions(root)).problems is not None
    assert recorded is not edited


def test_a_folder_digest_taken_as_written_is_that_of_the_folder(tmp_path: Path) -> None:
    """Paths sort as a folder's Paths do ("a/b" before "a-c", unlike the strings)."""
    from evidencepress.cache.buildrecord import files_digest, tree_digest
    from evidencepress.output.writer import staged_folders

    target = tmp_path / "exports"
    files = {"a-c.json": b"1", "a/b.json": b"2", "a/b/c.json": b"", "z.csv": b"x" * 5000, "A.json": b"3"}
    with staged_folders([target], tmp_path / "journal.json", hashed=[target]) as folders:
        for rel, data in files.items():
            folders[target].put(rel, data)
        folders[target].put_chunks("chunks.csv", iter([b"a,b\r\n", b"1,2\r\n"]))
    hashes = folders[target].hashes
    assert hashes is not None and set(hashes) == set(files) | {"chunks.csv"}
    assert files_digest(hashes) == tree_digest(target)


READ_ELSEWHERE = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=0)  # a lock held by the build fails at once: never a wait
(count,), = db.execute("SELECT count(*) FROM entries").fetchall()
print(count)
"""


def _read_elsewhere(path: Path) -> int:
    """The entries another process sees without waiting for a lock (else "database is locked")."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", READ_ELSEWHERE, str(path)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_after_begin_values_are_written_in_batches_that_never_keep_other_processes_waiting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build writes what it saved once BATCH_BYTES are held, each batch in a transaction of
    its own: it holds neither every page nor the write lock until its end, so a dev server of
    the same site reads the cache meanwhile without waiting."""
    from evidencepress.cache import store as cachestore

    monkeypatch.setattr(cachestore, "BATCH_BYTES", 3 << 20)
    path = tmp_path / "cache" / "store.sqlite"
    store = Store(path)
    store.begin()
    assert store.writes_as_it_goes
    store.save_pickled("a", os.urandom(2 << 20))
    assert not path.exists(), "written before a batch was full"
    store.save_pickled("b", os.urandom(2 << 20))  # 4 MB held: a batch
    assert _entries(path) == 2 and store.has("a") and store.load_pickled("b") is not None
    store.save_pickled("c", os.urandom(2 << 20))
    assert _read_elsewhere(path) == 2
    store.save("d", "value d")
    store.commit()
    assert not store.writes_as_it_goes and _entries(path) == 4
    assert Store(path).load("d") == "value d"


def test_rollback_drops_what_no_batch_wrote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed build keeps the batches it wrote (each entry is right for its key) and nothing
    else; one that wrote no batch leaves no database at all."""
    from evidencepress.cache import store as cachestore

    monkeypatch.setattr(cachestore, "BATCH_BYTES", 3 << 20)
    path = tmp_path / "cache" / "store.sqlite"
    store = Store(path)
    store.begin()
    store.save("small", "small value")
    store.rollback()
    assert not path.parent.exists()
    store.begin()
    store.save_pickled("a", os.urandom(2 << 20))
    store.save_pickled("b", os.urandom(2 << 20))  # written: a batch
    store.save("c", "value c")
    store.rollback()
    assert not store.writes_as_it_goes
    store.commit()
    assert _entries(path) == 2 and Store(path).load("c") is None


def test_a_batch_that_cannot_be_written_only_costs_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk, say, while a build writes a batch: that batch is lost (a cache only saves
    time), the build goes on, and what it saves afterwards is written."""
    from evidencepress.cache import store as cachestore

    monkeypatch.setattr(cachestore, "BATCH_BYTES", 3 << 20)
    path = tmp_path / "store.sqlite"
    store = Store(path)
    store.begin()
    insert = cachestore._insert
    failed: list[str] = []

    def full_disk(db: sqlite3.Connection, key: str, data: bytes, now: float) -> None:
        if not failed:  # once: space is freed by the next batch
            failed.append(key)
            raise sqlite3.OperationalError("database or disk is full")
        insert(db, key, data, now)

    monkeypatch.setattr(cachestore, "_insert", full_disk)
    store.save_pickled("a", os.urandom(2 << 20))
    store.save_pickled("b", os.urandom(2 << 20))  # this batch fails
    store.save("c", "value c")
    store.commit()
    assert [Store(path).has(key) for key in ("a", "b", "c")] == [False, False, True]


def test_a_build_with_a_template_error_leaves_the_caches_of_a_small_site_as_they_were(tmp_path: Path) -> None:
    """Below BATCH_BYTES nothing is written before the commit, which a failed build never reaches."""
    from sitekit import REPO

    root = make_site(tmp_path, {"guides/a.md": article("A", export_doc=export(result())), "guides/b.md": article("B")})
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    cache = {path.name: path.read_bytes() for path in (root / ".cache").glob("*.sqlite*")}
    assert sorted(cache) == ["pages.sqlite", "rendered.sqlite"]
    (root / "content/guides/c.md").write_text(article("C"))
    shutil.copytree(REPO / "templates", root / "templates")
    (root / "templates/page.html").write_text("{% extends 'base.html' %}{% block main %}{{ page.nope() }}{% endblock %}")
    problems = build_site(BuildOptions(root=root, jobs=1))  # C is validated (and saved), then rendering fails
    assert [p.rule for p in problems if p.is_error] == ["template"]
    assert {path.name: path.read_bytes() for path in (root / ".cache").glob("*.sqlite*")} == cache


def test_an_edited_alt_text_reaches_the_cached_chart(tmp_path: Path) -> None:
    """The SVG's description is the chart's alt text: a drawing read from the cache must not keep
    the old one (it did: the chart cache's key left ``alt`` out)."""
    from sitekit import CHART

    two = export(result(), result("Decode at C16", 60.1))
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.\n" + CHART, two)})
    assert CliRunner().invoke(main, ["build", "--root", str(root)]).exit_code == 0
    text = (root / "content/guides/a.md").read_text(encoding="utf-8")
    (root / "content/guides/a.md").write_text(text.replace("Decode rate of two runs.", "Two decode rates."))
    assert CliRunner().invoke(main, ["build", "--root", str(root)]).exit_code == 0
    for name in ("decode.svg", "index.html"):
        built = (root / "_site/guides/a" / name).read_text(encoding="utf-8")
        assert "Two decode rates." in built and "Decode rate of two runs." not in built, name
