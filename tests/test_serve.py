"""`evidencepress serve`: in-memory builds served on 127.0.0.1, rebuilt on save, last good site kept."""

from __future__ import annotations

import http.client
import json
import os
import queue
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Self

import pytest
from sitekit import article, group_members, make_site, tree

from evidencepress.core.diagnostics import Location, error
from evidencepress.core.forking import collector
from evidencepress.serve.server import LiveSite, allowed_hosts, inject, resolve, start_server

PATIENCE = 60.0  # seconds before a wait is a hang: it ends a stuck test, no result depends on it


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _event(url: str) -> dict[str, object]:
    with Events(url) as events:
        return events.current


class Events:
    """The server's event stream: one event at once (the current build), then one per rebuild."""

    def __init__(self, url: str) -> None:
        self.response = urllib.request.urlopen(url + "__evidencepress/events", timeout=PATIENCE)
        self.current = self.next()

    def next(self) -> dict[str, object]:
        """The next event (a rebuild), waited for; keep-alive comments (every 10 s) are skipped,
        up to PATIENCE seconds' worth of them."""
        pings = 0
        while not (line := self.response.readline().decode()).startswith("data: "):
            assert line, "the event stream ended"
            pings += line.startswith(":")
            if pings > PATIENCE / 10:
                raise TimeoutError("no event")
        state: dict[str, object] = json.loads(line[len("data: "):])
        return state

    def until(self, condition: Callable[[], bool], what: str) -> None:
        """Every rebuild until ``condition`` holds (it is checked after each, and before the first)."""
        while not condition():
            try:
                self.current = self.next()
            except TimeoutError as exc:
                raise AssertionError(f"no rebuild brought {what}") from exc

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.response.close()


class Served:
    """`evidencepress serve` on a free port, in a process group of its own; its stderr lines as they come."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.process = subprocess.Popen([sys.executable, "-m", "evidencepress.cli", "serve", "--root", str(root),
                                         "--port", "0", "--jobs", "1"], stderr=subprocess.PIPE, text=True,
                                        start_new_session=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        assert self.process.stderr is not None
        self._reader = threading.Thread(target=self._read, args=(self.process.stderr,), daemon=True)
        self._reader.start()
        self.url = ""
        while not self.url:
            line = self.lines.get(timeout=PATIENCE)
            if line.startswith("serving "):
                self.url = line.split()[1]

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.seen.append(line)
            self.lines.put(line)

    def lines_until(self, prefix: str) -> list[str]:
        """The lines it prints from now until one that starts with ``prefix`` (that one included)."""
        lines = [self.lines.get(timeout=PATIENCE)]
        while not lines[-1].startswith(prefix):
            lines.append(self.lines.get(timeout=PATIENCE))
        return lines

    def stderr(self) -> str:
        """Everything it printed, once it has exited."""
        self._reader.join(timeout=PATIENCE)
        return "".join(self.seen)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(timeout=30)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    root = make_site(tmp_path / "site", {"guides/a.md": article("First title"), "guides/b.md": article("Other")})
    served = Served(root)
    try:
        yield served
    finally:
        served.stop()


@pytest.fixture
def served(server: Served) -> tuple[str, Path]:
    return server.url, server.root


def test_an_edit_is_served_and_a_broken_edit_keeps_the_last_good_page(served: tuple[str, Path]) -> None:
    url, root = served
    status, page = _get(url + "guides/a/")
    assert status == 200 and "First title" in page and '<script src="/__evidencepress/live.js">' in page
    assert _event(url)["failed"] is False
    source = root / "content" / "guides" / "a.md"
    with Events(url) as events:  # opened before each save: no rebuild after it is missed
        source.write_text(article("Second title"))
        events.until(lambda: "Second title" in _get(url + "guides/a/")[1], "the edited title")

    with Events(url) as events:
        source.write_text(article("Broken").replace("checked: 2026-10-18", "checked: someday"))
        events.until(lambda: events.current["failed"] is True, "the failed build to be reported")
    state = _event(url)
    assert "content/guides/a.md:4:1: error: checked: expected a date written YYYY-MM-DD" in str(state["report"])
    assert "Second title" in _get(url + "guides/a/")[1]  # the last good site is still served

    with Events(url) as events:
        source.write_text(article("Third title"))
        events.until(lambda: "Third title" in _get(url + "guides/a/")[1], "the fixed page")
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
    counted = threading.Condition()

    def rebuild() -> tuple[dict[str, bytes] | None, list[object]]:
        with counted:
            calls.append(len(calls))
            counted.notify_all()
        if len(calls) == 1:
            (tmp_path / "content" / "b.md").write_text("saved while the first rebuild ran")
        return {"index.html": str(len(calls)).encode()}, []

    def rebuilt(times: int, what: str) -> None:
        with counted:
            assert counted.wait_for(lambda: len(calls) >= times, timeout=PATIENCE), f"no rebuild for {what}"

    site, stop, watching = LiveSite(), threading.Event(), threading.Event()
    watcher = threading.Thread(target=watch_and_rebuild, args=(tmp_path, site, rebuild, lambda snapshot, seconds, changed: None,
                                                               stop, watching.set), daemon=True)
    watcher.start()
    assert watching.wait(timeout=PATIENCE)  # the watcher runs: every later save is seen
    (tmp_path / "content" / "a.md").write_text("first save")
    rebuilt(2, "the save made during a rebuild")
    (tmp_path / "site.toml").write_text("title = 'y'\n")
    rebuilt(3, "the site.toml edit")
    stop.set()
    watcher.join()


def test_the_garbage_of_a_rebuild_is_collected_once_the_site_is_idle(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Rebuilds run without the cyclic collector (it walked a 5,000-page site several times per
    rebuild: 15 % of it); the watcher collects once after each rebuild, when no save has come for
    COLLECT_AFTER seconds, never during one."""
    import gc

    from evidencepress.serve import server

    monkeypatch.setattr(server, "COLLECT_AFTER", 0.3)
    collected: list[float] = []
    rebuilt: list[float] = []
    monkeypatch.setattr(server.gc, "collect", lambda *args: collected.append(time.monotonic()) or 0)
    (tmp_path / "content").mkdir()
    (tmp_path / "site.toml").write_text("title = 'x'\n")

    def rebuild() -> tuple[dict[str, bytes] | None, list[object]]:
        assert not gc.isenabled()
        rebuilt.append(time.monotonic())
        return {"index.html": b"x"}, []

    site, stop, watching = LiveSite(), threading.Event(), threading.Event()
    with collector(enabled=False):
        watcher = threading.Thread(target=server.watch_and_rebuild, daemon=True,
                                   args=(tmp_path, site, rebuild, lambda *args: None, stop, watching.set))
        watcher.start()
        assert watching.wait(timeout=PATIENCE)
        time.sleep(1.0)
        assert collected == []  # nothing rebuilt, nothing to collect
        (tmp_path / "content" / "a.md").write_text("a save")
        deadline = time.monotonic() + PATIENCE
        while not collected and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.2)
        stop.set()
        watcher.join()
    assert len(rebuilt) == 1 and len(collected) == 1 and collected[0] >= rebuilt[0] + 0.3
    # run_server runs the builds and the watcher without the collector, and turns it back on after
    seen: list[bool] = []
    monkeypatch.setattr(server, "_serve", lambda *args: seen.append(gc.isenabled()) or [])
    assert gc.isenabled() and server.run_server(tmp_path, 0, False, 1, print) == [] and seen == [False]
    assert gc.isenabled()


def test_serve_refreshes_the_search_index_in_the_background(monkeypatch: pytest.MonkeyPatch) -> None:
    from evidencepress.output.search import SearchIndex
    from evidencepress.serve import server as serve

    built: list[int] = []

    def index(pages: dict[str, bytes], language: str, kept: dict[str, object]) -> SearchIndex:
        built.append(len(pages))
        return SearchIndex({"pagefind-entry.json": str(len(pages)).encode()}, ())

    monkeypatch.setattr(serve, "index_in_shards", index)
    site, swapped = LiveSite(), threading.Event()
    replace_folder = site.replace_folder

    def replace_and_tell(folder: str, files: dict[str, bytes]) -> None:
        replace_folder(folder, files)
        swapped.set()

    monkeypatch.setattr(site, "replace_folder", replace_and_tell)
    search = serve.BackgroundSearch(site)
    try:
        assert search({"a.html": b"a"}, "en").files == {"pagefind-entry.json": b"1"}  # the first: at once
        site.publish({"a.html": b"a", "b.html": b"b", "pagefind/pagefind-entry.json": b"1"}, [])
        generation = site.snapshot.generation
        assert search({"a.html": b"a", "b.html": b"b"}, "en").files == {"pagefind-entry.json": b"1"}  # the last
        assert swapped.wait(timeout=PATIENCE), "the refreshed index was never swapped in"
        assert site.snapshot.files.get("pagefind/pagefind-entry.json") == b"2"
        assert site.snapshot.generation == generation  # swapped in without a reload
    finally:
        search.close()


@pytest.mark.parametrize(("signum", "to_group"), [(signal.SIGINT, True), (signal.SIGTERM, False)])
def test_the_first_ctrl_c_or_sigterm_stops_serve(server: Served, signum: int, to_group: bool) -> None:
    """Ctrl-C printed "KeyboardInterrupt caught, stopping watch" and a new watch began (issue 25)."""
    (os.killpg if to_group else os.kill)(server.process.pid, signum)
    assert server.process.wait(timeout=PATIENCE) == 0
    assert group_members(server.process.pid) == []
    assert "KeyboardInterrupt" not in server.stderr() and "Traceback" not in server.stderr()


def _request(url: str, method: str, path: str, host: str | None = None) -> tuple[http.client.HTTPResponse, bytes]:
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=PATIENCE)
    headers = {} if host is None else {"Host": host}
    connection.request(method, path, headers=headers)
    response = connection.getresponse()
    return response, response.read()


def test_head_answers_the_headers_of_get_without_the_body(served: tuple[str, Path]) -> None:
    url, _ = served
    got, page = _request(url, "GET", "/guides/a/")
    head, nothing = _request(url, "HEAD", "/guides/a/")
    assert head.status == 200 and nothing == b""  # it answered 501
    assert head.getheader("Content-Length") == str(len(page)) == got.getheader("Content-Length")
    assert head.getheader("Content-Type") == got.getheader("Content-Type") == "text/html; charset=utf-8"
    assert _request(url, "HEAD", "/nowhere/")[0].status == 404


def test_a_request_for_another_host_name_is_refused(served: tuple[str, Path]) -> None:
    """DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 must not read the site."""
    url, _ = served
    port = urllib.parse.urlsplit(url).port
    refused, text = _request(url, "GET", "/guides/a/", host=f"evil.example:{port}")
    assert refused.status == 421
    assert text.decode() == f"evil.example:{port} is not this server: open {url} (evidencepress serve)\n"
    assert _request(url, "GET", "/", host="evil.example")[0].status == 421
    for name in ("localhost", "127.0.0.1", "LOCALHOST", "[::1]"):
        assert _request(url, "GET", "/guides/a/", host=f"{name}:{port}")[0].status == 200, name
    assert allowed_hosts("127.0.0.1", 80) >= {"localhost", "127.0.0.1:80"}


def test_serve_keeps_serving_while_site_toml_is_gone_for_a_moment(server: Served) -> None:
    """An editor's save or a branch switch removes site.toml for a moment: serve exited 2 (issue 25)."""
    config = server.root / "site.toml"
    text = config.read_text()
    with Events(server.url) as events:
        config.unlink()
        events.until(lambda: events.current["failed"] is True, "the missing site.toml to be reported")
        assert "site.toml: error: site.toml not found [config]" in str(events.current["report"])
    assert server.process.poll() is None
    assert "First title" in _get(server.url + "guides/a/")[1]  # the last good site
    with Events(server.url) as events:
        config.write_text(text.replace("Test Evidence", "Back Again"))
        events.until(lambda: events.current["failed"] is False, "the rebuild once site.toml is back")
    assert "Back Again" in _get(server.url)[1]
    printed = server.lines_until("rebuilt in")  # the good rebuild is reported after the failed one
    assert [line for line in printed if "[config]" in line] == ["site.toml: error: site.toml not found [config]\n"]
    assert printed[-1].startswith("rebuilt in ") and printed[-1].endswith(" after site.toml: 0 errors, 0 warnings\n")


def _reset(connection: socket.socket) -> None:
    """Close with a reset (RST), as a browser that drops a transfer may."""
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()


def test_a_dropped_connection_prints_no_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    """BrokenPipe and ConnectionReset printed a traceback in serve's terminal (issue 25): a client that
    leaves in the middle of a large file, and one that leaves the event stream."""
    site, stop = LiveSite(), threading.Event()
    site.publish({"big.bin": b"x" * (64 * 2**20), "index.html": b"<p>home</p>"}, [])
    server = start_server(site, 0, b"", stop)
    ended: queue.Queue[object] = queue.Queue()
    shutdown_request = server.shutdown_request

    def tell_when_done(request: object) -> None:
        shutdown_request(request)  # type: ignore[arg-type]
        ended.put(request)

    server.shutdown_request = tell_when_done  # type: ignore[method-assign]
    port = server.server_address[1]
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE) as transfer:
            transfer.sendall(f"GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            assert transfer.recv(1024).startswith(b"HTTP/1.1 200")
            _reset(transfer)
        ended.get(timeout=PATIENCE)
        with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE) as stream:
            stream.sendall(f"GET /__evidencepress/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            received = b""
            while b"data: " not in received:
                received += stream.recv(1024)
            _reset(stream)
        site.publish({"index.html": b"<p>again</p>"}, [])  # the stream writes the event to a closed connection
        ended.get(timeout=PATIENCE)
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
    assert capsys.readouterr().err == ""


# --- what serve prints, a busy port, the first build (issue 29) ----------------------------------------

def test_each_build_is_one_line_and_only_new_warnings_are_listed() -> None:
    """serve reprinted the whole report on every save, burying 'rebuilt in'; the first build said 'rebuilt'."""
    from evidencepress.core.diagnostics import warning
    from evidencepress.serve.report import RebuildReport
    from evidencepress.serve.server import Snapshot

    printed: list[str] = []
    report = RebuildReport(lambda text, nl=True, err=False: printed.append(text + ("\n" if nl else "")))
    old = [warning(Location("content/guides/a.md", 3, 1), "an old warning", "unit"),
           warning(Location("content/guides/b.md", 3, 1), "another", "unit")]
    report(Snapshot(1, {}, tuple(old)), 1.234)
    assert printed == ["built in 1.23 s: 0 errors, 2 warnings (evidencepress check lists them)\n"]
    printed.clear()
    new = warning(Location("content/guides/a.md", 9, 1), "a new warning", "unit")
    report(Snapshot(2, {}, (*old, new)), 0.391, ["content/guides/a.md"])
    assert printed == ["content/guides/a.md:9:1: warning: a new warning [unit]\n",
                       "rebuilt in 0.39 s after content/guides/a.md: 0 errors, 3 warnings, 1 listed above\n"]
    printed.clear()
    broken = error(Location("content/guides/a.md", 2, 1), "a broken thing", "schema")
    report(Snapshot(3, {}, (broken, *old, new)), 0.2, ["content/guides/a.md", "content/guides/b.md", "site.toml",
                                                        "static/x.css"])
    assert printed == ["content/guides/a.md:2:1: error: a broken thing [schema]\n",
                       ("build failed in 0.20 s after content/guides/a.md, content/guides/b.md, site.toml and 1 more: "
                       "1 error, 3 warnings, 1 listed above; still serving the last good build\n")]


def test_a_busy_port_serves_on_the_next_free_one_and_says_so() -> None:
    from evidencepress.serve.server import _free_server

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    said: list[str] = []
    site, stop = LiveSite(), threading.Event()
    try:
        server = _free_server(site, port, stop, lambda text, err=False: said.append(text))
        try:
            assert server.server_address[1] != port
            assert said == [f"port {port} is busy: serving on {server.server_address[1]} instead"]
        finally:
            stop.set()
            server.shutdown()
            server.server_close()
    finally:
        taken.close()


def test_a_page_asked_for_during_the_first_build_is_a_building_page() -> None:
    """The server answered 404 until the first build ended."""
    site, stop = LiveSite(), threading.Event()
    server = start_server(site, 0, b"", stop)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with pytest.raises(urllib.error.HTTPError) as building:
            urllib.request.urlopen(url + "guides/a/", timeout=PATIENCE)
        assert building.value.code == 503
        page = building.value.read().decode()
        assert "Building the site" in page and "/__evidencepress/live.js" in page, "it reloads when the site is there"
        site.publish({"guides/a/index.html": b"<p>A</p>"}, [])
        assert "<p>A</p>" in _get(url + "guides/a/")[1]
    finally:
        stop.set()
        server.shutdown()
        server.server_close()


def test_a_rebuild_takes_the_unchanged_files_over_from_the_last_one(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The dev server read every page's files back from the cache for each edit (issue 27)."""
    from evidencepress.build.recipe import site_caches, site_files
    from evidencepress.cache.store import Store
    from evidencepress.core.options import BuildOptions

    root = make_site(tmp_path / "site", {"guides/a.md": article("A", "Text of A."), "guides/b.md": article("B")})
    options = BuildOptions(root=root, jobs=1)
    caches = site_caches(options)
    first, _ = site_files(options, caches)
    assert first is not None
    read: list[str] = []
    real = Store.load_pickled
    monkeypatch.setattr(Store, "load_pickled", lambda store, key: read.append(key) or real(store, key))
    page = root / "content/guides/a.md"
    page.write_text(page.read_text().replace("Text of A.", "Text of A, edited."))
    second, _ = site_files(options, caches, previous=first)
    assert second is not None and not [key for key in read if key.startswith("file ")]  # no file read back
    assert second["guides/b/index.json"] is first["guides/b/index.json"]  # taken over, not read
    fresh, _ = site_files(BuildOptions(root=root, jobs=1, use_cache=False))
    assert fresh is not None and dict(second) == dict(fresh)
