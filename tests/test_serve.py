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
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Self

import pytest
from sitekit import article, group_members, make_site, tree

from evidencepress.core.diagnostics import Location, error
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
    watcher = threading.Thread(target=watch_and_rebuild, args=(tmp_path, site, rebuild, lambda snapshot, seconds: None,
                                                               stop, watching.set), daemon=True)
    watcher.start()
    assert watching.wait(timeout=PATIENCE)  # the watcher runs: every later save is seen
    (tmp_path / "content" / "a.md").write_text("first save")
    rebuilt(2, "the save made during a rebuild")
    (tmp_path / "site.toml").write_text("title = 'y'\n")
    rebuilt(3, "the site.toml edit")
    stop.set()
    watcher.join()


def test_serve_refreshes_the_search_index_in_the_background(monkeypatch: pytest.MonkeyPatch) -> None:
    from evidencepress.output.search import SearchIndex
    from evidencepress.serve import server as serve

    built: list[int] = []

    def index(pages: dict[str, bytes], language: str) -> SearchIndex:
        built.append(len(pages))
        return SearchIndex({"pagefind-entry.json": str(len(pages)).encode()}, ())

    monkeypatch.setattr(serve, "build_search_index", index)
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
    assert [line for line in printed if "site.toml" in line] == ["site.toml: error: site.toml not found [config]\n"]


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
