"""Read stage: the only walker of ``content/``.

Returns every Markdown file decoded (BOM removed, line endings normalised)
and every file under ``content/assets/`` as bytes, in sorted order so that
the file system's listing order never reaches the output.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import Location, Problem, error, warning
from .model import Asset, SourceFile

SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
ASSETS = "assets"


@dataclass(frozen=True)
class Content:
    pages: tuple[SourceFile, ...]
    assets: tuple[Asset, ...]


def read_content(root: Path, content_dir: str = "content") -> tuple[Content, list[Problem]]:
    base = root / content_dir
    problems: list[Problem] = []
    if not base.is_dir():
        where = Location(content_dir)
        return Content((), ()), [error(where, "content folder not found", "read", hint="create it, or pass --root")]
    pages: list[SourceFile] = []
    assets: list[Asset] = []
    real_base = base.resolve()
    for path in _walk(base):
        rel = path.relative_to(base).as_posix()
        shown = f"{content_dir}/{rel}"
        refused = _refused(path, real_base, shown)
        if refused is not None:
            problems.append(refused)
            continue
        if rel.startswith(ASSETS + "/"):
            assets.append(Asset(rel, path.read_bytes()))
        elif path.suffix == ".md":
            page, page_problems = _read_page(path, rel, shown)
            problems.extend(page_problems)
            if page is not None:
                pages.append(page)
        else:
            problems.append(warning(Location(shown), "not published: only .md files and content/assets/ are",
                                    "path", hint="move static files to content/assets/"))
    unique, clashes = _one_page_per_url(pages)
    return Content(unique, tuple(assets)), problems + clashes


def _one_page_per_url(pages: list[SourceFile]) -> tuple[tuple[SourceFile, ...], list[Problem]]:
    """``guides/a.md`` and ``guides/a/index.md`` would both be /guides/a/: the second is an error."""
    first: dict[str, SourceFile] = {}
    problems: list[Problem] = []
    for page in pages:
        if page.url in first:
            problems.append(error(Location(page.path), f"{page.url} is already the URL of {first[page.url].path}",
                                  "path", hint="rename or remove one of the two files"))
        else:
            first[page.url] = page
    return tuple(first.values()), problems


def _walk(base: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, files in os.walk(base, followlinks=False):
        dirs.sort()
        here = Path(folder)
        for name in sorted(files + [d for d in dirs if (here / d).is_symlink()]):
            found.append(here / name)
    return sorted(found, key=lambda p: p.as_posix())


def _inside(path: Path, base: Path) -> bool:
    return path == base or base in path.parents


def _refused(path: Path, real_base: Path, shown: str) -> Problem | None:
    """A symlink leaving content/, a broken one, or anything that is not a regular file."""
    if path.is_symlink() and not _inside(path.resolve(), real_base):
        return error(Location(shown), "symlink points outside content/", "path",
                     hint="copy the file into content/ instead of linking to it")
    if path.is_symlink() and not path.exists():
        return error(Location(shown), "broken symlink: its target does not exist", "path",
                     hint="remove the link, or point it at a file inside content/")
    if not path.is_file():
        return warning(Location(shown), "not published: not a regular file", "path",
                       hint="content/ holds Markdown files and content/assets/ static files")
    return None


def _read_page(path: Path, rel: str, shown: str) -> tuple[SourceFile | None, list[Problem]]:
    bad = _bad_slug(rel)
    if bad is not None:
        hint = "use lowercase letters, digits and hyphens, e.g. " + _suggest(bad)
        return None, [error(Location(shown), f"{bad!r} is not a slug", "slug", hint=hint)]
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        col = len(data[line_start:exc.start].decode("utf-8", errors="replace")) + 1  # in characters, as editors count
        message = f"not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded"
        return None, [error(Location(shown, line, col), message, "encoding", hint="save the file as UTF-8")]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return SourceFile(shown, rel, text), []


def _bad_slug(rel: str) -> str | None:
    """The first path segment that is not a slug, or None."""
    *folders, name = rel.split("/")
    for segment in folders + [name[: -len(".md")]]:
        if not SLUG.fullmatch(segment):
            return segment
    return None


def _suggest(segment: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", segment.lower()).strip("-")
    return repr(slug or "my-article")
