"""Search: the Pagefind bundle is built with the site, byte-stable, with filters from the exports."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import cbor2
import pytest
from click.testing import CliRunner
from sitekit import CHART, SHA, SOURCE_URL, article, export, make_site, many_pages, result, running, tree

from evidencepress.cli import main
from evidencepress.output.article import DEFAULT_TEMPLATES
from evidencepress.output.search import _unpack, build_search_index, canonical_bundle, what_pagefind_reads


def build(root: Path, *args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", *args])
    return outcome.exit_code, outcome.output


def search_site(root: Path) -> Path:
    spark = result("Run on one Spark")
    pair = result("Run on two Sparks", source_record_id="pair-record")
    pair["conditions"].update({"system": "2 x DGX Spark", "engine": "SGLang", "model": "Qwen3.8-Flash-Next"})
    return make_site(root, {
        "guides/a.md": article("Decode on one Spark", "The unusual word zeppelin appears here.", export(spark)),
        "guides/b.md": article("Decode on two Sparks", "Another body.", export(pair)),
    })


def filters(files: dict[str, bytes]) -> dict[str, dict[str, list[int]]]:
    found: dict[str, dict[str, list[int]]] = {}
    for name, data in files.items():
        if name.startswith("pagefind/filter/"):
            filter_name, values = cbor2.loads(_unpack(data))
            found[filter_name] = {value: pages for value, pages in values}
    return found


def test_the_build_writes_a_search_bundle_with_filters_from_the_exports(tmp_path: Path) -> None:
    root = search_site(tmp_path)
    code, output = build(root)
    assert code == 0, output
    assert "[search]" not in output
    files = tree(root / "_site")
    entry = json.loads(files["pagefind/pagefind-entry.json"])
    assert entry["languages"]["en"]["page_count"] == 4  # two articles, two record pages
    assert {"pagefind/pagefind.js", "pagefind/pagefind-ui.js", "pagefind/pagefind-ui.css"} <= set(files)
    found = filters(files)
    assert sorted(found) == ["engine", "model", "system"]
    assert sorted(found["system"]) == ["1 x DGX Spark", "2 x DGX Spark"]
    assert sorted(found["engine"]) == ["SGLang", "vLLM"]
    html = files["search/index.html"].decode()
    assert 'data-bundle="../pagefind/"' in html and "static/search.js" in html
    assert "built without a search index" not in html
    article_html = files["guides/a/index.html"].decode()
    assert '<li>1 x DGX Spark<span hidden data-pagefind-filter="system">1 x DGX Spark</span></li>' in article_html


def test_filter_values_are_indexed_as_html_text(tmp_path: Path) -> None:
    """Pagefind's UI inserts filter values as HTML: the index holds them escaped once, whatever the
    pinned Pagefind decodes (the browser test sees them shown as text)."""
    hostile = result("Run")
    hostile["conditions"].update({"system": "<img src=x onerror=alert(1)>", "model": "A & B", "engine": "&lt;x&gt;"})
    root = make_site(tmp_path, {"guides/a.md": article("Decode", "Text.", export(hostile))})
    assert build(root)[0] == 0
    found = filters(tree(root / "_site"))
    assert (list(found["system"]), list(found["model"]), list(found["engine"])) == (
        ["&lt;img src=x onerror=alert(1)&gt;"], ["A &amp; B"], ["&amp;lt;x&amp;gt;"])
    html = (root / "_site/guides/a/index.html").read_text()
    assert "<li>&lt;img src=x onerror=alert(1)&gt;<span hidden" in html  # the page shows the value as it is


def test_the_bundle_is_byte_identical_from_run_to_run(tmp_path: Path) -> None:
    """Each run starts a new Pagefind process, whose hash maps order filter values differently."""
    root = search_site(tmp_path)
    assert build(root)[0] == 0
    site = root / "_site"
    pages = {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*.html")
             if b"data-pagefind-body" in p.read_bytes()}
    runs = [build_search_index(pages, "en") for _ in range(3)]
    assert all(not run.problems for run in runs)
    assert runs[0].files == runs[1].files == runs[2].files


def test_canonical_bundle_sorts_filter_values_and_renames_by_content_hash(tmp_path: Path) -> None:
    root = search_site(tmp_path)
    assert build(root)[0] == 0
    bundle = {p.relative_to(root / "_site/pagefind").as_posix(): p.read_bytes()
              for p in (root / "_site/pagefind").rglob("*") if p.is_file()}
    assert canonical_bundle(bundle) == bundle  # already canonical: a fixed point
    for name, data in bundle.items():
        if name.startswith("filter/"):
            _, values = cbor2.loads(_unpack(data))
            assert [v[0] for v in values] == sorted(v[0] for v in values)


def test_without_pagefind_the_build_succeeds_with_one_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(tmp_path / "no-such-pagefind"))
    root = search_site(tmp_path / "site")
    code, output = build(root)
    assert code == 0, output
    assert output.count("[search]") == 1
    assert output.startswith("pagefind: warning: search index not built: ")
    assert "  hint: install the pinned pagefind-bin package (make setup); the site is built without search" in output
    files = tree(root / "_site")
    assert not any(name.startswith("pagefind/") for name in files)
    html = files["search/index.html"].decode()
    assert "This copy of the site was built without a search index." in html
    assert "search.js" not in html
    code, output = build(root, "--strict")
    assert code == 1
    assert "pagefind: error: search index not built" in output


def fake_pagefind(folder: Path, script: str) -> Path:
    """An executable standing in for the Pagefind binary."""
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / "pagefind"
    binary.write_text("#!/bin/sh\n" + script)
    binary.chmod(0o755)
    return binary


def test_pagefind_is_started_before_the_rest_of_the_site_is_rendered(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages were handed over as they were rendered: the binary runs while listings are rendered."""
    from evidencepress.build import recipe
    from evidencepress.output import search

    events: list[str] = []
    popen, render_generated = subprocess.Popen, recipe.render_generated

    def spy_popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        if (args[0] if args else kwargs["args"])[0] != "git":  # git reads the history of exports/
            events.append("pagefind")
        return popen(*args, **kwargs)

    def spy_rest(*args: Any) -> None:
        events.append("rest")
        render_generated(*args)

    monkeypatch.setattr(search.subprocess, "Popen", spy_popen)
    monkeypatch.setattr(recipe, "render_generated", spy_rest)
    code, output = build(search_site(tmp_path / "site"))
    assert code == 0, output
    assert events == ["pagefind", "rest"]
    assert "[search]" not in output


def test_a_failed_pagefind_run_names_its_exit_code_and_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    binary = fake_pagefind(tmp_path / "bin", 'echo "Error: unreadable page" >&2; exit 3\n')
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(binary))
    code, output = build(search_site(tmp_path / "site"))
    assert code == 0, output
    assert "pagefind: warning: search index not built: Pagefind exited with 3: Error: unreadable page" in output


def test_a_pagefind_run_past_the_time_limit_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evidencepress.output import search

    pid_file = tmp_path / "pid"
    binary = fake_pagefind(tmp_path / "bin", f'echo $$ > "{pid_file}"; exec sleep 60\n')
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(binary))
    monkeypatch.setattr(search, "TIMEOUT_SECONDS", 1)
    code, output = build(search_site(tmp_path / "site"))
    assert code == 0, output
    assert "pagefind: warning: search index not built: Pagefind did not finish within 1 s" in output
    assert not running(int(pid_file.read_text()))


def test_a_build_that_fails_after_pagefind_started_stops_it_and_removes_its_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A template error in the 404 page, rendered while Pagefind runs: no process, no folder left."""
    pid_file = tmp_path / "pid"
    binary = fake_pagefind(tmp_path / "bin", f'echo $$ > "{pid_file}"; exec sleep 60\n')
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(binary))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    root = search_site(tmp_path / "site")
    (root / "templates").mkdir()
    shutil.copy(DEFAULT_TEMPLATES / "page.html", root / "templates/page.html")  # the site's own templates
    (root / "templates/404.html").write_text("{{ nothing }}\n")
    code, output = build(root)
    assert code == 1, output
    assert "templates/404.html:1:1: error: template error: 'nothing' is undefined [template]" in output
    # The build has stopped and reaped Pagefind: the shell wrote its pid as it started, or was
    # stopped before it could (and never will); either way nothing runs.
    pid = pid_file.read_text().strip() if pid_file.exists() else ""
    assert not pid or not running(int(pid))
    assert not any(scratch.iterdir())
    assert not (root / "_site").exists()


@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="needs a tmpfs to compare with")
def test_the_bundle_does_not_depend_on_the_file_system_of_the_temporary_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pagefind's command line numbered pages in the order a folder walk listed them: a tmpfs
    (newest first) and an ext4 (hash order) gave different bundles for the same pages."""
    root = many_pages(tmp_path / "site", 40)
    assert build(root)[0] == 0
    site = root / "_site"
    pages = {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*.html"))
             if b"data-pagefind-body" in p.read_bytes()}
    bundles = []
    for folder in (tmp_path, Path("/dev/shm")):
        monkeypatch.setattr(tempfile, "tempdir", str(folder))
        bundles.append(build_search_index(pages, "en").files)
    assert bundles[0] and bundles[0] == bundles[1]


def test_an_error_reply_of_the_pagefind_service_is_the_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reply = base64.b64encode(json.dumps({"message_id": 1, "payload": {
        "type": "Error", "original_message": None, "message": "Error parsing file"}}).encode()).decode()
    binary = fake_pagefind(tmp_path / "bin", f'printf "%s," "{reply}"; exec cat > /dev/null\n')
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(binary))
    code, output = build(search_site(tmp_path / "site"))
    assert code == 0, output
    assert "pagefind: warning: search index not built: Pagefind: Error parsing file [search]" in output


def test_drawings_and_ignored_tables_are_left_out_of_what_pagefind_reads_with_the_same_bundle(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pagefind excludes ``figure svg`` and ignores a record page's result tables; both are dropped
    before a page is sent instead, and the bundle is the one Pagefind makes of the whole pages."""
    document = b"Run one: 30.5 tokens/s\nRun two: 40.25 tokens/s\n"  # in the vault: source-line cells too
    digest = hashlib.sha256(document).hexdigest()
    results = [result(label, value, source_document_sha256=digest, source_line=line,
                      evidence_url=f"{SOURCE_URL}#L{line}")
               for line, (label, value) in enumerate((("Run one", 30.5), ("Run two", 40.25)), start=1)]
    root = make_site(tmp_path / "site", {"guides/a.md": article(
        "Decode on two runs", "The unusual word zeppelin appears here.\n" + CHART, export(*results)).replace(SHA, digest)})
    (root / "sources").mkdir()
    (root / "sources" / digest).write_bytes(document)
    code, output = build(root)
    assert code == 0, output
    html = (root / "_site/guides/a/index.html").read_bytes()
    stripped = what_pagefind_reads(html)
    assert html.count(b"<svg") == 2 and stripped.count(b"<svg") == 0
    assert stripped.count(b'<div class="chart-drawing') == 2 and b"Values plotted in this chart" in stripped
    record = next((root / "_site/community").glob("*/index.html")).read_bytes()
    assert b'class="wrap source-line"' in record
    assert record.count(b"<table") == 1 and what_pagefind_reads(record).count(b"<table") == 0
    assert b"Run one" in record and b"Run one" not in what_pagefind_reads(record)
    site = root / "_site"
    pages = {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*.html")
             if b"data-pagefind-body" in p.read_bytes()}
    from evidencepress.output import search

    monkeypatch.setattr(search, "what_pagefind_reads", lambda page: page)  # Pagefind reads everything
    assert tree(site / "pagefind") == build_search_index(pages, "en").files


def test_an_ignored_table_holding_a_pagefind_attribute_is_kept() -> None:
    table = (b'<div class="table-scroll" role="region" data-pagefind-ignore>\n<table><tr><td>1</td></tr></table>\n</div>')
    assert what_pagefind_reads(b"<main>" + table + b"</main>") == (
        b'<main><div class="table-scroll" role="region" data-pagefind-ignore></div></main>')
    tagged = table.replace(b"<td>1", b'<td data-pagefind-filter="engine">1')
    assert what_pagefind_reads(tagged) == tagged


def test_an_ignored_table_with_ignored_cells_is_left_out() -> None:
    """A record page's table of verified values marks its source-line cells data-pagefind-ignore
    too: the table was kept whole, and Pagefind read 4.8 MB of each record page cited by 200
    articles (issue 27)."""
    table = (b'<div class="table-scroll" role="region" data-pagefind-ignore>\n<table><tr><td>1</td>'
             b'<td class="source-line" data-pagefind-ignore>line 3</td></tr></table>\n</div>')
    assert what_pagefind_reads(b"<main>" + table + b"</main>") == (
        b'<main><div class="table-scroll" role="region" data-pagefind-ignore></div></main>')


def test_pages_are_not_queued_once_pagefind_has_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evidencepress.output.search import PagefindRun

    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(fake_pagefind(tmp_path / "bin", "exit 2\n")))
    with PagefindRun("en") as run:
        run.add("a/index.html", b"<html><body>a</body></html>")
        service = run._service
        assert service is not None
        with service._answered:  # notified when Pagefind's output ends or it answers with an error
            assert service._answered.wait_for(lambda: service.stopped, timeout=60)  # the timeout only ends a hang
        queued = service._outbox.qsize()
        for number in range(100):
            run.add(f"p{number}/index.html", b"<html><body>page</body></html>")
        assert service._outbox.qsize() == queued
        index = run.finish()
    assert not index.available and "Pagefind exited with 2" in index.problems[0].message


PAGE = (b'<!doctype html><html lang="en"><head><title>T</title></head><body class="b">'
        b'<header><a href="/">Site</a></header><main><article class="a" data-pagefind-body><h1>A</h1><p>Text</p>'
        b'</article></main><footer>Footer</footer></body></html>')


@pytest.mark.parametrize("around", [b'<span data-pagefind-filter="engine">x</span>', b"<H1>Site</H1>",
                                    b'<img src="logo.png" alt="">', b'<div data-pagefind-meta="image:/i.png"></div>'])
def test_pagefind_reads_the_indexed_element_alone_unless_something_around_it_counts(around: bytes) -> None:
    """Around the data-pagefind-body element Pagefind still reads filters, metadata, the first h1
    (the title) and an image: a page with any of these around it is sent whole."""
    assert what_pagefind_reads(PAGE) == (b'<!doctype html><html lang="en"><head><title>T</title></head><body class="b">'
                                         b'<article class="a" data-pagefind-body><h1>A</h1><p>Text</p></article>'
                                         b"</body></html>")
    with_it = PAGE.replace(b"<footer>Footer</footer>", b"<footer>" + around + b"</footer>")
    assert what_pagefind_reads(with_it) == with_it


def test_a_body_element_holding_one_of_its_own_kind_or_never_closed_is_sent_whole() -> None:
    nested = PAGE.replace(b"<p>Text</p>", b"<article><p>Text</p></article>")
    assert what_pagefind_reads(nested) == nested
    unclosed = PAGE.replace(b"</article>", b"")
    assert what_pagefind_reads(unclosed) == unclosed
    bodiless = PAGE.replace(b' class="b"', b"").replace(b"<body>", b"")
    assert what_pagefind_reads(bodiless) == bodiless


def test_repacked_pagefind_files_have_the_same_bytes_on_every_python() -> None:
    """gzip.compress writes OS 255 in the header from Python 3.13 on, 3 before: the repacked
    files of the bundle carried the Python version."""
    import gzip
    import sys

    from evidencepress.output import search

    body = b"pagefind filter " * 300
    packed = search._pack(body)
    assert packed[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03"  # no mtime, best compression, Unix
    assert search._unpack(packed) == body
    if sys.version_info < (3, 13):
        assert packed == gzip.compress(search.SIGNATURE + body, compresslevel=9, mtime=0)
    assert hashlib.sha256(packed).hexdigest() == hashlib.sha256(
        packed[:10] + gzip.compress(search.SIGNATURE + body, compresslevel=9, mtime=0)[10:]).hexdigest()


def sharded_site(root: Path, articles: int = 8) -> Path:
    """Articles on two systems, each with its own word (``wordN``), and their record pages."""
    pages = {}
    for number in range(articles):
        entry = result(f"Run {number}", source_record_id=f"record-{number % 3}")
        entry["conditions"]["system"] = f"{1 + number % 2} x DGX Spark"
        pages[f"guides/a{number}.md"] = article(f"Article {number}", f"The word word{number} is here.",
                                                export(entry))
    return make_site(root, pages)


@pytest.fixture
def small_shards(monkeypatch: pytest.MonkeyPatch) -> None:
    from evidencepress.output import searchshards

    monkeypatch.setattr(searchshards, "SHARD_PAGES", 3)


def shard_bundles(files: dict[str, bytes]) -> dict[str, int]:
    """The page count of each bundle of pagefind/ by its folder ("" for the first)."""
    return {name[len("pagefind/"):-len("pagefind-entry.json")]: json.loads(data)["languages"]["en"]["page_count"]
            for name, data in files.items() if name.startswith("pagefind/") and name.endswith("pagefind-entry.json")}


@pytest.mark.usefixtures("small_shards")
def test_a_large_index_is_made_in_shards_that_the_search_page_merges(tmp_path: Path) -> None:
    """Pagefind read every page of the site on every build (7 s for 5,000 articles, issue 27)."""
    root = sharded_site(tmp_path)
    code, output = build(root)
    assert code == 0, output
    files = tree(root / "_site")
    bundles = shard_bundles(files)
    assert len(bundles) == 4 and sum(bundles.values()) == 11  # 8 articles and 3 records, 11 // 3 + 1 shards
    merged = sorted(folder for folder in bundles if folder)
    html = files["search/index.html"].decode()
    assert f'data-merge="{" ".join("../pagefind/" + folder for folder in merged)}"' in html
    assert all(not name.endswith((".js", ".css", ".pagefind")) for name in files
               if name.startswith(tuple(f"pagefind/{folder}" for folder in merged)))
    assert {"pagefind/pagefind.js", "pagefind/pagefind-ui.js", "pagefind/wasm.en.pagefind"} <= set(files)


@pytest.mark.usefixtures("small_shards")
def test_shards_build_their_indexes_a_few_at_a_time_and_end_when_read(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Every shard's Pagefind process built its index at once and lived until the build ended: 11
    of them held 770 MB at 5,000 articles (issue 27). At most BUILDING build at once, each ends
    once its bundle is read, and the bundle is the one a single build of each shard gives. A
    process holds the pages it was fed (eleven fed at once held 280 MB during the pages): the
    shards past the first BUILDING wait in a spool file each, and at most BUILDING processes live."""
    from evidencepress.output import pagefind, search, searchshards

    root = sharded_site(tmp_path)
    code, output = build(root)
    assert code == 0, output
    expected = tree(root / "_site")
    shutil.rmtree(root / ".cache")
    monkeypatch.setattr(searchshards, "BUILDING", 2)
    building: set[int] = set()
    most: list[int] = []
    start, close = search.PagefindRun.start, search.PagefindRun.close

    def started(run: search.PagefindRun) -> None:
        if run._service is not None:
            building.add(id(run))
            most.append(len(building))
        start(run)

    def closed(run: search.PagefindRun) -> None:
        building.discard(id(run))
        close(run)

    living: set[int] = set()
    alive: list[int] = []  # how many Pagefind processes live, each time one starts
    opened, ended = pagefind.PagefindService.__init__, pagefind.PagefindService.close

    def opening(service: pagefind.PagefindService, *args: Any) -> None:
        opened(service, *args)
        living.add(id(service))
        alive.append(len(living))

    def ending(service: pagefind.PagefindService) -> None:
        living.discard(id(service))
        ended(service)

    monkeypatch.setattr(search.PagefindRun, "start", started)
    monkeypatch.setattr(search.PagefindRun, "close", closed)
    monkeypatch.setattr(pagefind.PagefindService, "__init__", opening)
    monkeypatch.setattr(pagefind.PagefindService, "close", ending)
    code, output = build(root)
    assert code == 0, output
    assert max(most) == 2 and len(set(most)) == 2 and not building
    assert len(alive) == 4 and max(alive) == 2 and not living  # four shards, two processes at a time
    assert tree(root / "_site") == expected


@pytest.mark.usefixtures("small_shards")
def test_a_spool_that_cannot_be_written_leaves_the_site_without_search_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    from evidencepress.output import searchshards

    def full(spool: object, rel: str, content: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(searchshards, "BUILDING", 1)
    monkeypatch.setattr(searchshards._Spool, "add", full)
    root = sharded_site(tmp_path)
    code, output = build(root)
    assert code == 0, output
    assert "pagefind: warning: search index not built: [Errno 28] No space left on device" in output
    assert (root / "_site/search/index.html").is_file() and not (root / "_site/pagefind").exists()


@pytest.mark.usefixtures("small_shards")
def test_an_edit_indexes_only_its_shard_again_and_gives_the_bundle_a_new_build_gives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evidencepress.output import search

    root = sharded_site(tmp_path)
    assert build(root)[0] == 0
    indexed: list[str] = []
    real_add = search.PagefindRun.add_read
    monkeypatch.setattr(search.PagefindRun, "add_read", lambda run, rel, data: indexed.append(rel) or real_add(run, rel, data))
    assert build(root)[0] == 0  # nothing changed: a replay
    assert indexed == []
    path = root / "content/guides/a5.md"
    path.write_text(path.read_text().replace("word5", "wordfive"))
    assert build(root)[0] == 0
    from evidencepress.output.searchshards import shard_members

    pages = sorted(rel for rel in tree(root / "_site") if rel.endswith("index.html")
                   and b"data-pagefind-body" in (root / "_site" / rel).read_bytes())
    changed = {"guides/a5/index.html"}  # its record's page shows no prose: unchanged, and in a shard of records
    assert sorted(indexed) == sorted(rel for members in shard_members(pages) if changed & set(members)
                                     for rel in members)
    assert len(indexed) < len(pages)
    assert b"wordfive" in b"".join(data for name, data in tree(root / "_site").items() if "fragment/" in name
                                   for data in [gzip.decompress(data)])
    incremental = tree(root / "_site/pagefind")
    assert build(root, "--no-cache")[0] == 0
    assert tree(root / "_site/pagefind") == incremental


@pytest.mark.usefixtures("small_shards")
def test_an_edited_shards_index_is_built_while_the_pages_are_still_put(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pagefind built an edited page's shard only once every page of the site was put (880 real
    articles: the build then waited 1.6 s for it). The shard's unchanged pages are handed over
    first, and its index is built once the edited page is there, before the search is started."""
    from evidencepress.output import search, searchshards

    root = sharded_site(tmp_path)
    assert build(root)[0] == 0
    events: list[str] = []
    run_start, search_start = search.PagefindRun.start, searchshards.ShardedSearch.start
    monkeypatch.setattr(search.PagefindRun, "start", lambda run: events.append("shard") or run_start(run))
    monkeypatch.setattr(searchshards.ShardedSearch, "start",
                        lambda shards: events.append("every page put") or search_start(shards))
    path = root / "content/guides/a5.md"
    path.write_text(path.read_text().replace("word5", "wordfive"))
    assert build(root)[0] == 0
    assert events[:2] == ["shard", "every page put"]
    incremental = tree(root / "_site/pagefind")
    assert build(root, "--no-cache")[0] == 0
    assert tree(root / "_site/pagefind") == incremental


@pytest.mark.usefixtures("small_shards")
def test_pages_handed_over_in_any_order_give_the_bundle_of_the_planned_order(tmp_path: Path) -> None:
    """Pagefind's bundle depends on the order it reads the pages in: a page that comes before its
    turn waits, and a page with nothing to index lets the ones after it go."""
    from evidencepress.output.searchshards import ShardedSearch, shard_members

    root = sharded_site(tmp_path)
    assert build(root)[0] == 0
    site = root / "_site"
    pages = {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("index.html"))
             if b"data-pagefind-body" in p.read_bytes()}
    members = shard_members(sorted(pages))
    keys = [f"shard {number}" for number in range(len(members))]

    def bundle(order: list[str], passed: tuple[str, ...] = ()) -> dict[str, bytes]:
        with ShardedSearch("en") as shards:
            shards.plan([[*shard, *(rel for rel in passed if shard is members[0])] for shard in members], keys)
            for rel in order:
                if rel in passed:
                    shards.passed(rel)
                else:
                    shards.add(rel, pages[rel])
            shards.start()
            return dict(shards.finish().files)

    planned = bundle(sorted(pages))
    assert bundle(sorted(pages, reverse=True)) == planned
    assert bundle(["about/index.html", *sorted(pages, reverse=True)], passed=("about/index.html",)) == planned
    with ShardedSearch("en") as shards:
        shards.plan(members, keys)
        last = max(pages)
        shards.add(last, pages[last])
        assert not shards.wants(last) and shards.wants(min(pages))  # a page is handed over once
    with ShardedSearch("en") as shards:  # a page that comes after start is indexed, not kept waiting
        shards.plan(members, keys)
        first, *rest = sorted(pages)
        for rel in rest:
            shards.add(rel, pages[rel])
        shards.start()
        shards.add(first, pages[first])
        urls = {json.loads(gzip.decompress(data)[len(b"pagefind_dcd"):])["url"]
                for name, data in shards.finish().files.items() if "fragment/" in name}
    assert "/" + first.removesuffix("index.html") in urls


@pytest.mark.usefixtures("small_shards")
def test_the_dev_servers_index_makes_again_only_the_shards_of_changed_pages(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evidencepress.output import search
    from evidencepress.output.searchshards import index_in_shards

    root = sharded_site(tmp_path)
    assert build(root)[0] == 0
    site = root / "_site"
    pages = {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*.html")
             if b"data-pagefind-body" in p.read_bytes()}
    kept: dict[str, object] = {}
    first = index_in_shards(pages, "en", kept)  # type: ignore[arg-type]
    assert first.files and len(kept) == 4
    indexed: list[str] = []
    real_add = search.PagefindRun.add_read
    monkeypatch.setattr(search.PagefindRun, "add_read", lambda run, rel, data: indexed.append(rel) or real_add(run, rel, data))
    edited = {**pages, "guides/a5/index.html": pages["guides/a5/index.html"].replace(b"word5", b"wordfive")}
    again = index_in_shards(edited, "en", kept)  # type: ignore[arg-type]
    assert "guides/a5/index.html" in indexed and len(indexed) < len(pages)
    assert again.files == index_in_shards(edited, "en", {}).files and again.files != first.files
