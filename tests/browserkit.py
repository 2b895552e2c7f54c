"""Debian's Chromium, driven by Playwright, against a built site served the way a static host serves it.

The ``browser`` and ``visit`` fixtures (conftest.py) use these. Without Chromium (or Playwright) the
browser tests skip and say why; with EVIDENCEPRESS_REQUIRE_BROWSER=1 (set by .ci/run) that is a
failure instead.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("EVIDENCEPRESS_CHROMIUM", "/usr/bin/chromium")
REQUIRED = os.environ.get("EVIDENCEPRESS_REQUIRE_BROWSER") == "1"
BASE_PATH = "/site/"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def missing_browser() -> str:
    """Why the browser tests cannot run here, or "" when they can."""
    if not Path(CHROMIUM).is_file():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -e '.[test]')"
    return ""


class StaticHost(SimpleHTTPRequestHandler):
    """A static host: the site under BASE_PATH, /404.html for anything missing."""

    def translate_path(self, path: str) -> str:
        clean = path.split("?", 1)[0].split("#", 1)[0]
        if not clean.startswith(BASE_PATH):
            return str(Path(self.directory) / "no-such-file")
        return super().translate_path("/" + clean[len(BASE_PATH):])

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    """``folder`` served on 127.0.0.1 under BASE_PATH: its URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(StaticHost, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}{BASE_PATH}"
    finally:
        httpd.shutdown()
        httpd.server_close()


class Visit:
    """A page with every console error, page error and failed request it met."""

    def __init__(self, browser: Any, width: int = 1280, scheme: str = "light") -> None:
        self.context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("console", lambda m: self.problems.append(f"console: {m.text}") if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed", self._failed)
        self.page.on("response", lambda r: self.problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)

    def _failed(self, request: Any) -> None:
        # ERR_ABORTED: the page moved on (a click, the next page) before a request ended; a missing
        # file is an HTTP 404 when served and ERR_FILE_NOT_FOUND from disk, and both are problems
        if request.failure != "net::ERR_ABORTED":
            self.problems.append(f"failed: {request.url} {request.failure}")

    def open(self, url: str, wait_until: str = "networkidle") -> Any:
        self.page.goto(url, wait_until=wait_until)
        return self.page

    def close(self) -> None:
        self.context.close()
