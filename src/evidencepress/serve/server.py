"""``evidencepress serve``: build in memory, serve on 127.0.0.1, rebuild on save, reload the browser.

The site is rendered into memory (nothing is written to ``_site/`` or
``exports/``) and served from there. A watcher rebuilds when a file of
``content/``, ``templates/``, ``schema/``, ``static/`` or ``site.toml`` changes;
the page caches make a rebuild cost about what the change affects. Every HTML
page served gets a small script (never part of a published build) that listens
on ``/__evidencepress/events`` and reloads the page after a good rebuild, or
shows the problems in an overlay after a failed one, while the last good site
keeps being served.
"""

from __future__ import annotations

import errno
import functools
import gc
import hashlib
import json
import mimetypes
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ..core.diagnostics import Problem, format_text, has_errors, shown_path, sort_problems
from ..core.forking import collector
from ..output.generated import PAGEFIND_FOLDER
from ..output.search import SearchIndex
from ..output.searchshards import index_in_shards
from .report import RebuildReport

Files = Mapping[str, bytes]
Rebuild = Callable[[], tuple[Files | None, list[Problem]]]

EVENTS = "/__evidencepress/events"
CLIENT = "/__evidencepress/live.js"
WATCHED_FOLDERS = ("content", "templates", "schema", "static")  # and site.toml
_CLIENT_TAG = b'<script src="/__evidencepress/live.js"></script>'
BUILDING = (b'<!doctype html><html lang="en"><meta charset="utf-8"><title>Building\xe2\x80\xa6</title>'
            b'<body style="font:1.1rem system-ui,sans-serif;margin:3rem"><p>Building the site\xe2\x80\xa6 '
            b"this page reloads when it is ready.</p></body></html>")
PORTS_TRIED = 20  # a busy --port: the next free one of this many is taken
COLLECT_AFTER = 2.0  # seconds after a rebuild is published that its garbage is collected (if no save came)


@dataclass(frozen=True)
class Snapshot:
    """What the server shows: the last good files and the outcome of the latest build."""

    generation: int
    files: Files
    problems: tuple[Problem, ...] = ()

    @property
    def failed(self) -> bool:
        return has_errors(self.problems)

    def event(self) -> bytes:
        errors = [p for p in sort_problems(self.problems) if p.is_error]
        payload = {"generation": self.generation, "failed": self.failed,
                   "report": format_text(errors) if errors else ""}
        return f"data: {json.dumps(payload)}\n\n".encode()


class LiveSite:
    """The current snapshot, shared by the watcher (which publishes) and the request threads."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._snapshot = Snapshot(0, {})

    @property
    def snapshot(self) -> Snapshot:
        with self._changed:
            return self._snapshot

    def publish(self, files: Files | None, problems: Iterable[Problem]) -> Snapshot:
        """A good build replaces the files; a failed one keeps the last good files."""
        with self._changed:
            current = self._snapshot
            self._snapshot = Snapshot(current.generation + 1, current.files if files is None else files,
                                      tuple(problems))
            self._changed.notify_all()
            return self._snapshot

    def replace_folder(self, folder: str, files: Mapping[str, bytes]) -> None:
        """Swap the files under ``folder`` (e.g. a new search index) without a new generation:
        open pages are not reloaded for it."""
        with self._changed:
            current = self._snapshot
            kept = {name: data for name, data in current.files.items() if not name.startswith(folder)}
            kept.update({folder + name: data for name, data in files.items()})
            self._snapshot = Snapshot(current.generation, kept, current.problems)

    def wait(self, generation: int, timeout: float) -> Snapshot:
        """The snapshot after ``generation``, or the current one when ``timeout`` passes first."""
        with self._changed:
            self._changed.wait_for(lambda: self._snapshot.generation != generation, timeout)
            return self._snapshot


def handler_for(site: LiveSite, client_script: bytes, stop: threading.Event,
                hosts: frozenset[str] = frozenset(), home: str = "") -> type[BaseHTTPRequestHandler]:
    """Request handlers over ``site``; event streams end once ``stop`` is set. ``hosts``: the
    ``Host`` headers answered (``allowed_hosts``; empty: any), others are sent to ``home``."""
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self._answer(with_body=True)

        def do_HEAD(self) -> None:
            self._answer(with_body=False)

        def _answer(self, with_body: bool) -> None:
            host = self.headers.get("Host")
            if hosts and host is not None and host.lower() not in hosts:
                text = f"{host} is not this server: open {home} (evidencepress serve)\n"
                self._send(421, "text/plain; charset=utf-8", text.encode(), with_body)
                return
            path = unquote(urlsplit(self.path).path)
            if path == EVENTS:
                self._events(with_body)
            elif path == CLIENT:
                self._send(200, "text/javascript; charset=utf-8", client_script, with_body)
            else:
                self._file(path, with_body)

        def _file(self, path: str, with_body: bool) -> None:
            snapshot = site.snapshot
            if snapshot.generation == 0:  # the first build runs: a page that reloads once it is done
                self._send(503, "text/html; charset=utf-8", inject(BUILDING), with_body)
                return
            found = resolve(snapshot.files, path)
            if found is None:
                body = snapshot.files.get("404.html", b"<!doctype html><title>Not found</title><p>Not found</p>")
                self._send(404, "text/html; charset=utf-8", inject(body), with_body)
                return
            name, body = found
            kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
            if kind == "text/html":
                body = inject(body)
            if kind.startswith("text/") or kind in ("application/json", "application/xml", "image/svg+xml"):
                kind += "; charset=utf-8"
            self._send(200, kind, body, with_body)

        def _events(self, with_body: bool) -> None:
            """Server-sent events: one at once, then one per rebuild; a comment keeps the line open."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if not with_body:
                self.close_connection = True  # a stream has no length: nothing more can follow it
                return
            snapshot = site.snapshot
            try:
                self.wfile.write(snapshot.event())
                self.wfile.flush()
                while not stop.is_set():
                    newer = site.wait(snapshot.generation, timeout=10)
                    self.wfile.write(newer.event() if newer.generation != snapshot.generation else b": ping\n\n")
                    self.wfile.flush()
                    snapshot = newer
            except ConnectionError:
                self.close_connection = True

        def _send(self, status: int, kind: str, body: bytes, with_body: bool = True) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if with_body:
                self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return  # the terminal shows builds, not requests

    return Handler


def allowed_hosts(address: str, port: int) -> frozenset[str]:
    """The ``Host`` headers of requests to this server: its own names, with the port (and without
    it on port 80). Any other (a name of the attacker's pointed at 127.0.0.1: DNS rebinding) would
    let a page of another site read this one's answers."""
    names = {"localhost", "127.0.0.1", "[::1]", f"[{address}]" if ":" in address else address}
    with_port = {f"{name}:{port}" for name in names}
    return frozenset(with_port | names if port == 80 else with_port)


class QuietServer(ThreadingHTTPServer):
    """A client that leaves mid-answer (a closed tab, a cancelled download, a reload while the
    event stream is open) is no error: the traceback socketserver prints for it is not shown."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def resolve(files: Files, path: str) -> tuple[str, bytes] | None:
    """The file a URL path names: the file itself, or a folder's index.html."""
    rel = path.lstrip("/")
    if ".." in rel.split("/"):
        return None
    for name in (rel, rel + "index.html" if rel.endswith("/") or not rel else rel + "/index.html"):
        if name in files:
            return name, files[name]
    return None


def inject(html: bytes) -> bytes:
    """The page with the live-reload script before ``</body>`` (or at the end)."""
    at = html.rfind(b"</body>")
    return html + _CLIENT_TAG if at < 0 else html[:at] + _CLIENT_TAG + html[at:]


def start_server(site: LiveSite, port: int, client_script: bytes, stop: threading.Event,
                 address: str = "127.0.0.1") -> ThreadingHTTPServer:
    server = QuietServer((address, port), BaseHTTPRequestHandler)  # no request is read before the thread starts
    bound = server.server_address[1]  # the port chosen, for port 0
    server.RequestHandlerClass = handler_for(site, client_script, stop, allowed_hosts(address, bound),
                                             f"http://{address}:{bound}/")
    threading.Thread(target=server.serve_forever, name="evidencepress-serve", daemon=True).start()
    return server


def watch_and_rebuild(root: Path, site: LiveSite, rebuild: Rebuild,
                      report: Callable[[Snapshot, float, list[str]], None],
                      stop: threading.Event, ready: Callable[[], None] | None = None) -> None:
    """Rebuild after every batch of changes until ``stop`` is set.

    One watcher runs across rebuilds, so a save made while a rebuild runs is the next batch,
    never lost. The watched folders are recursive; ``site.toml`` is compared by content at
    every tick instead (an editor that replaces the file would end a watch on the file
    itself), and a watched folder created or removed starts the watcher afresh. ``ready`` is
    called once the watcher's first tick has come, i.e. once every later save is seen."""
    import watchfiles

    config = _fingerprint(root / "site.toml")
    due = 0.0  # when the garbage of the last rebuild is collected (0: none waits)
    while not stop.is_set():
        folders = [root / name for name in WATCHED_FOLDERS if (root / name).is_dir()]
        for changes in watchfiles.watch(*folders, stop_event=stop, debounce=100, step=20, rust_timeout=500,
                                        yield_on_timeout=True, raise_interrupt=True):
            if ready is not None:
                ready()
                ready = None
            now = _fingerprint(root / "site.toml")
            if changes or now != config:
                changed = changed_names(root, [path for _, path in changes]) + (["site.toml"] if now != config else [])
                config = now
                started = time.perf_counter()
                files, problems = rebuild()
                report(site.publish(files, problems), time.perf_counter() - started, changed)
                due = time.monotonic() + COLLECT_AFTER
            elif due and time.monotonic() >= due:
                gc.collect()  # the rebuilds run without the collector (see run_server); the page is long served
                due = 0.0
            if [root / name for name in WATCHED_FOLDERS if (root / name).is_dir()] != folders:
                break


def changed_names(root: Path, paths: Iterable[str]) -> list[str]:
    """The changed files as the site names them (``content/guides/a.md``), sorted."""
    return sorted({shown_path(Path(path), root) for path in paths})


def _fingerprint(path: Path) -> bytes | None:
    try:
        return hashlib.sha256(path.read_bytes()).digest()
    except OSError:
        return None


def _free_server(site: LiveSite, port: int, stop: threading.Event, echo: Callable[..., None]) -> ThreadingHTTPServer:
    """The server on ``port``, or on the next free one when it is busy (saying so), as Hugo and Astro do."""
    tried = [port] if port == 0 else list(range(port, min(port + PORTS_TRIED, 65536)))
    for number in tried:
        try:
            server = start_server(site, number, client_script(), stop)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE or number == tried[-1]:
                raise PortUnavailable(f"cannot serve on 127.0.0.1:{number}: {exc.strerror or exc}") from exc
            continue
        if number != port:
            echo(f"port {port} is busy: serving on {number} instead", err=True)
        return server
    raise AssertionError("unreachable")  # the last port either serves or raises


def client_script() -> bytes:
    return (Path(__file__).resolve().parent / "live.js").read_bytes()


class BackgroundSearch:
    """Serve's search index. The first is built before the site is served; after that a rebuild
    is published with the previous index at once, and the index of the new pages is built in a
    thread and swapped into the served files when done (search is briefly behind an edit; the
    page is never held up by it, and no reload follows)."""

    def __init__(self, site: LiveSite) -> None:
        self.site = site
        self.last: SearchIndex | None = None
        self._shards: dict[str, Mapping[str, bytes]] = {}  # the bundle of each shard of the last index
        self._wanted = threading.Condition()
        self._next: tuple[dict[str, bytes], str] | None = None
        self._closed = False
        self._worker = threading.Thread(target=self._work, name="evidencepress-search", daemon=True)
        self._worker.start()

    def __call__(self, html_pages: Mapping[str, bytes], language: str) -> SearchIndex:
        if self.last is None:
            self.last = index_in_shards(html_pages, language, self._shards)
            return self.last
        with self._wanted:
            self._next = (dict(html_pages), language)  # only the newest request matters
            self._wanted.notify()
        return self.last

    def close(self) -> None:
        with self._wanted:
            self._closed = True
            self._wanted.notify()

    def _work(self) -> None:
        while True:
            with self._wanted:
                self._wanted.wait_for(lambda: self._next is not None or self._closed)
                if self._closed:
                    return
                assert self._next is not None
                pages, language = self._next
                self._next = None
            index = index_in_shards(pages, language, self._shards)  # only the shards of changed pages
            if index.available:
                self.last = index
                self.site.replace_folder(PAGEFIND_FOLDER, index.files)


class PortUnavailable(Exception):
    """The port cannot be bound (in use, or not allowed)."""


def run_server(root: Path, port: int, drafts: bool, jobs: int, echo: Callable[..., None],
               all_problems: bool = False) -> list[Problem]:
    """Build, serve and rebuild until interrupted (Ctrl-C). Returns no problems: they are shown live.
    A page asked for during the first build is a "building…" page that reloads when it is done."""
    with collector(enabled=False):
        return _serve(root, port, drafts, jobs, echo, all_problems)


def _serve(root: Path, port: int, drafts: bool, jobs: int, echo: Callable[..., None],
           all_problems: bool = False) -> list[Problem]:
    """``run_server`` without the cyclic garbage collector: a rebuild of 5,000 pages makes objects
    enough for it to walk the whole site several times (15 % of the rebuild); the watcher collects
    once the rebuild is served and the site is idle."""
    from ..build.recipe import site_caches, site_files
    from ..core.options import BuildOptions, ConfigError
    from ..output.writer import MemoryFiles

    site, stop = LiveSite(), threading.Event()
    server = _free_server(site, port, stop, echo)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    options = BuildOptions(root=root, drafts=drafts, jobs=jobs, base_url=url)
    caches = site_caches(options)  # kept across rebuilds: an edit reads, validates and renders again only its page
    caches.rendered.kept = {}
    search = BackgroundSearch(site)
    report = RebuildReport(echo, all_problems)

    last: list[MemoryFiles] = []  # the files of the last good rebuild: its unchanged files are taken over

    def rebuild() -> tuple[Files | None, list[Problem]]:
        """A site.toml that is gone for a moment (an editor's save, a branch switch) fails this
        rebuild like any error: the last good site stays served, and the next change rebuilds."""
        try:
            files, problems = site_files(options, caches, indexer=search, previous=last[-1] if last else None)
        except ConfigError as exc:
            return None, exc.problems
        if files is not None:
            last[:] = [files]
        return files, problems

    started = time.perf_counter()
    files, problems = site_files(options, caches, indexer=search)  # no site at all: a usage error
    if files is not None:
        last.append(files)
    report(site.publish(files, problems), time.perf_counter() - started)
    # "serving" is said once the watcher runs: a save made right after it is never missed.
    ready = functools.partial(echo, f"serving {url} (Ctrl-C to stop)", err=True)
    try:
        watch_and_rebuild(root, site, rebuild, report, stop, ready)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM (core.signals), in the watch or in a rebuild
        pass
    finally:
        stop.set()
        search.close()
        server.shutdown()
        server.server_close()
    return []
