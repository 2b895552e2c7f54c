"""`evidencepress serve`: in-memory builds served on 127.0.0.1, rebuilt on save, last good site kept."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sitekit import article, make_site, tree

from evidencepress.core.diagnostics import Location, error
from evidencepress.serve.server import LiveSite, inject, resolve

PATIENCE = 60.0  # seconds a poll may wait on a loaded machine; a bound on the loop, not a timing assert


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _poll(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)


def _event(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url + "__evidencepress/events", timeout=10) as response:
        line = response.readline().decode()
    assert line.startswith("data: ")
    state: dict[str, object] = json.loads(line[len("data: "):])
    return state


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = make_site(tmp_path / "site", {"guides/a.md": article("First title"), "guides/b.md": article("Other")})
    process = subprocess.Popen([sys.executable, "-m", "evidencepress.cli", "serve", "--root", str(root),
                                "--port", "0", "--jobs", "1"], stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    assert process.stderr is not None
    threading.Thread(target=lambda: [lines.put(line) for line in process.stderr], daemon=True).start()  # type: ignore[union-attr]
    try:
        url = ""
        while not url:
            line = lines.get(timeout=PATIENCE)
            if line.startswith("serving "):
                url = line.split()[1]
        yield url, root
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_an_edit_is_served_and_a_broken_edit_keeps_the_last_good_page(served: tuple[str, Path]) -> None:
    url, root = served
    status, page = _get(url + "guides/a/")
    assert status == 200 and "First title" in page and '<script src="/__evidencepress/live.js">' in page
    assert _event(url)["failed"] is False
    source = root / "content" / "guides" / "a.md"
    source.write_text(article("Second title"))
    _poll(lambda: "Second title" in _get(url + "guides/a/")[1], "the edited title")

    source.write_text(article("Broken").replace("checked: 2026-10-18", "checked: someday"))
    _poll(lambda: _event(url)["failed"] is True, "the failed build to be reported")
    state = _event(url)
    assert "content/guides/a.md:4:1: error: checked: expected a date written YYYY-MM-DD" in str(state["report"])
    assert "Second title" in _get(url + "guides/a/")[1]  # the last good site is still served

    source.write_text(article("Third title"))
    _poll(lambda: "Third title" in _get(url + "guides/a/")[1], "the fixed page")
    assert _event(url)["failed"] is False
    assert _get(url + "nowhere/")[0] == 404
    assert not (root / "_site").exists() and not (root / "exports").exists()  # serve writes nothing


def test_a_published_build_has_no_reload_script(tmp_path: Path) -> None:
    from evidencepress.build.recipe import build_site
    from evidencepress.core.options import BuildOptions

    root = make_site(tmp_path, {"guides/a.md": article("A")})
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    assert not [name for name, data in tree(root / "_site").items() if b"__evidencepress" in data]


def test_paths_resolve_to_files_and_folder_indexes() -> None:
    files = {"index.html": b"home", "guides/a/index.html": b"a", "static/style.css": b"css"}
    assert resolve(files, "/") == ("index.html", b"home")
    assert resolve(files, "/guides/a/") == ("guides/a/index.html", b"a")
    assert resolve(files, "/guides/a") == ("guides/a/index.html", b"a")
    assert resolve(files, "/static/style.css") == ("static/style.css", b"css")
    assert resolve(files, "/../etc/passwd") is None and resolve(files, "/missing") is None
    assert inject(b"<html><body>x</body></html>").endswith(b'live.js"></script></body></html>')


def test_a_failed_build_keeps_the_files_and_counts_a_generation() -> None:
    site = LiveSite()
    good = site.publish({"index.html": b"good"}, [])
    failed = site.publish(None, [error(Location("content/a.md", 3, 1), "broken", "yaml")])
    assert failed.files == {"index.html": b"good"} and failed.failed and failed.generation == good.generation + 1
    assert b'"failed": true' in failed.event() and b"content/a.md:3:1: error: broken [yaml]" in failed.event()
    assert site.wait(good.generation, timeout=0.01) is failed


def test_a_save_during_a_rebuild_is_not_lost(tmp_path: Path) -> None:
    """The watcher keeps running across rebuilds: an edit made while one runs triggers the next."""
    from evidencepress.serve.server import watch_and_rebuild

    (tmp_path / "content").mkdir()
    (tmp_path / "site.toml").write_text("title = 'x'\n")
    calls: list[int] = []

    def rebuild() -> tuple[dict[str, bytes] | None, list[object]]:
        calls.append(len(calls))
        if len(calls) == 1:
            (tmp_path / "content" / "b.md").write_text("saved while the first rebuild ran")
        return {"index.html": str(len(calls)).encode()}, []

    site, stop = LiveSite(), threading.Event()
    watcher = threading.Thread(target=watch_and_rebuild,
                               args=(tmp_path, site, rebuild, lambda snapshot, seconds: None, stop), daemon=True)
    watcher.start()
    time.sleep(1)  # let the watcher start before the first save
    (tmp_path / "content" / "a.md").write_text("first save")
    _poll(lambda: len(calls) >= 2, "the save made during a rebuild")
    (tmp_path / "site.toml").write_text("title = 'y'\n")
    _poll(lambda: len(calls) >= 3, "the site.toml edit")
    stop.set()
    watcher.join(timeout=10)


def test_serve_refreshes_the_search_index_in_the_background(monkeypatch: pytest.MonkeyPatch) -> None:
    from evidencepress.output.search import SearchIndex
    from evidencepress.serve import server as serve

    built: list[int] = []

    def index(pages: dict[str, bytes], language: str) -> SearchIndex:
        built.append(len(pages))
        return SearchIndex({"pagefind-entry.json": str(len(pages)).encode()}, ())

    monkeypatch.setattr(serve, "build_search_index", index)
    site = LiveSite()
    search = serve.BackgroundSearch(site)
    try:
        assert search({"a.html": b"a"}, "en").files == {"pagefind-entry.json": b"1"}  # the first: at once
        site.publish({"a.html": b"a", "b.html": b"b", "pagefind/pagefind-entry.json": b"1"}, [])
        generation = site.snapshot.generation
        assert search({"a.html": b"a", "b.html": b"b"}, "en").files == {"pagefind-entry.json": b"1"}  # the last
        _poll(lambda: site.snapshot.files.get("pagefind/pagefind-entry.json") == b"2", "the refreshed index")
        assert site.snapshot.generation == generation  # swapped in without a reload
    finally:
        search.close()
