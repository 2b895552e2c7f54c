"""Every relative URL in the built HTML resolves to a file of the output folder.

This is what a browser would fetch from a static host or from the file system:
stylesheets, chart images (both variants), pages, index.json and index.md.
"""

from __future__ import annotations

import posixpath
from html.parser import HTMLParser
from pathlib import Path

from click.testing import CliRunner
from test_build import copy_project

from evidencepress.cli import main


class _Targets(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("href", "src"):
                self.urls.append(value)
            elif name == "srcset":
                self.urls += [part.split()[0] for part in value.split(",")]
            elif name == "id":
                self.ids.add(value)


def _parse(path: Path) -> _Targets:
    targets = _Targets()
    targets.feed(path.read_text(encoding="utf-8"))
    return targets


def _missing(site: Path, base_path: str) -> list[str]:
    """Relative URLs resolve from their page; /404.html's URLs start with the base path (a host
    serves it at any address), and resolve from the site root after it."""
    missing: list[str] = []
    for page in sorted(site.rglob("*.html")):
        targets = _parse(page)
        folder = page.parent.relative_to(site).as_posix()
        for url in targets.urls:
            if "://" in url or url.startswith(("mailto:", "//")):
                continue
            start = folder
            if url.startswith("/"):
                if not url.startswith(base_path):
                    missing.append(f"{page.relative_to(site)}: {url} (outside the base path)")
                    continue
                start, url = ".", url[len(base_path):] or "./"
            path, _, fragment = url.partition("#")
            path = path.split("?", 1)[0]  # a query (the explorer's filters) names no other file
            if not path:
                if fragment and fragment not in targets.ids:
                    missing.append(f"{page.relative_to(site)}: #{fragment}")
                continue
            target = site / posixpath.normpath(posixpath.join(start, path))
            if path.endswith("/"):
                target = target / "index.html"
            if not target.is_file():
                missing.append(f"{page.relative_to(site)}: {url}")
            elif fragment and target.suffix == ".html" and fragment not in _parse(target).ids:
                missing.append(f"{page.relative_to(site)}: {url} (no such anchor)")
    return missing


def test_every_relative_url_of_the_example_site_resolves(tmp_path: Path) -> None:
    root = copy_project(tmp_path / "project")
    out = tmp_path / "public"
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--out", str(out),
                                        "--base-url", "https://user.github.io/sub/path/"])
    assert outcome.exit_code == 0, outcome.output
    assert len(list(out.rglob("*.html"))) >= 26
    assert _missing(out, "/sub/path/") == []
