"""Read stage: the only walker of ``content/`` and ``static/``.

Returns every Markdown file decoded (BOM removed, line endings normalised),
every file under ``content/assets/`` and every file of the site's ``static/``
folder (copied as-is into the output root: ``CNAME``, ``.nojekyll``,
``.well-known/``) as bytes, in sorted order so that the file system's listing
order never reaches the output. A file that cannot be read is a problem at
its path, never a traceback.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from ..core.diagnostics import Location, Problem, error, warning
from ..core.filestate import DigestBook, Signature, signature_of, vouchable
from ..core.model import Asset, SourceFile, page_text

SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_PAGE_BYTES = 12_000_000  # above the 10 MB export the tests build; a 20 MB article took minutes to parse
ASSETS = "assets"
STATIC_DIR = "static"
# The pages a dev server read last, by file path, each with its file's signature then: a page whose
# file has it still is taken over unread (each rebuild of 5,000 articles read and decoded 137 MB).
ReadPages = dict[str, tuple[Signature, SourceFile]]


@dataclass(frozen=True)
class Content:
    pages: tuple[SourceFile, ...]
    assets: tuple[Asset, ...]
    static: tuple[Asset, ...] = ()  # rel is the path in the output root


def read_content(root: Path, content_dir: str = "content", known: ReadPages | None = None,
                 book: DigestBook | None = None) -> tuple[Content, list[Problem]]:
    """``known``: the pages read by the last run of a dev server (see ReadPages), left holding this one's.
    ``book``: the digests of the pages' texts as the last build read them, kept between builds: a
    page whose file's signature is the one recorded is not read (``SourceFile.unread``; an edit of
    one article of 5,000 read and decoded all 130 MB)."""
    base = root / content_dir
    problems: list[Problem] = []
    if not base.is_dir():
        where = Location(content_dir)
        return Content((), ()), [error(where, "content folder not found", "read", hint="create it, or pass --root")]
    static, static_problems = read_static(root)
    escaped = _outside_root(base, root, content_dir)
    if escaped is not None:
        return Content((), (), static), [escaped, *static_problems]
    pages: list[SourceFile] = []
    assets: list[Asset] = []
    real_base = base.resolve()
    taken = time.time_ns()  # before any file's signature is taken (``core.filestate.vouchable``)
    seen: set[str] = set()  # the pages' files, for ``known``
    for path in _walk(base):
        rel = path.relative_to(base).as_posix()
        shown = f"{content_dir}/{rel}"
        status = _lstat(path)
        refused = _refused(path, real_base, shown, mode=status.st_mode if status is not None else 0)
        if refused is not None:
            problems.append(refused)
            continue
        if rel.startswith(ASSETS + "/"):
            data = _read_bytes(path, shown, problems)
            if data is not None:
                assets.append(Asset(rel, data))
        elif path.suffix == ".md":
            page, page_problems = (_read_page(path, rel, shown) if status is None
                                   else _read_known(path, rel, shown, status, taken, known, book))
            seen.add(str(path))
            problems.extend(page_problems)
            if page is not None:
                pages.append(page)
        else:
            problems.append(warning(Location(shown), "not published: only .md files and content/assets/ are",
                                    "path", hint="move static files to content/assets/"))
    unique, clashes = _one_page_per_url(pages)
    if known is not None:
        for gone in known.keys() - seen:
            del known[gone]
    return Content(unique, tuple(assets), static), problems + clashes + static_problems


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None  # gone since the folder was listed: not a regular file


def _read_known(path: Path, rel: str, shown: str, status: os.stat_result, taken: int, known: ReadPages | None,
                book: DigestBook | None) -> tuple[SourceFile | None, list[Problem]]:
    """``_read_page``, or the page read last time when its file's signature is the one it had then
    (``status``: taken before the file is read, after ``taken``; recorded only when not racy then,
    ``core.filestate``). A link's own signature says nothing of its target's bytes: a linked page is
    read every time."""
    key = str(path)
    signature = signature_of(status)
    found = known.get(key) if known is not None else None
    if found is not None and found[0] == signature and found[1].path == shown:
        return found[1], []
    regular = stat.S_ISREG(status.st_mode)
    digest = book.vouched(key, signature) if book is not None and regular else None
    page: SourceFile | None
    problems: list[Problem] = []
    if digest is not None and _bad_slug(rel) is None:
        page = SourceFile.unread(shown, rel, key, digest.hex())
    else:
        page, problems = _read_page(path, rel, shown)
        if page is not None and regular and book is not None:
            book.record(key, bytes.fromhex(page.digest), signature, taken)
    if known is None:
        return page, problems
    if page is not None and regular and vouchable(signature, taken):
        known[key] = (signature, page)
    else:
        known.pop(key, None)
    return page, problems


def read_static(root: Path) -> tuple[tuple[Asset, ...], list[Problem]]:
    """Every file of ``static/``, for the output root; symlinks must stay inside the folder."""
    base = root / STATIC_DIR
    if not base.is_dir():
        return (), []
    escaped = _outside_root(base, root, STATIC_DIR)
    if escaped is not None:
        return (), [escaped]
    problems: list[Problem] = []
    files: list[Asset] = []
    real_base = base.resolve()
    for path in _walk(base):
        shown = f"{STATIC_DIR}/{path.relative_to(base).as_posix()}"
        refused = _refused(path, real_base, shown, STATIC_DIR)
        if refused is not None:
            problems.append(refused)
            continue
        data = _read_bytes(path, shown, problems)
        if data is not None:
            files.append(Asset(path.relative_to(base).as_posix(), data))
    return tuple(files), problems


def _outside_root(folder: Path, root: Path, shown: str) -> Problem | None:
    """``content`` or ``static`` linked to a folder outside the site: its files would be published."""
    target = folder.resolve()
    if target.is_relative_to(root.resolve()):
        return None
    return error(Location(shown), f"{shown}/ is a symlink to {target}, outside the site root", "path",
                 hint=f"move the folder into the site, or link {shown} to a folder inside it")


def _read_bytes(path: Path, shown: str, problems: list[Problem], limit: int | None = None) -> bytes | None:
    """The file's bytes; with ``limit``, never more than that many (a larger file is a problem, unread)."""
    try:
        if limit is None:
            return path.read_bytes()
        with path.open("rb") as file:
            size = os.fstat(file.fileno()).st_size
            data = file.read(limit + 1)
    except OSError as exc:
        problems.append(error(Location(shown), f"cannot be read: {exc.strerror or exc}", "read",
                              hint="check the file exists and is readable, then build again"))
        return None
    if len(data) > limit:
        problems.append(error(Location(shown), f"{max(size, len(data)):,} bytes; a page holds at most {limit:,}",
                              "file-size", hint="split the article into several pages, each with the results its "
                                                "prose discusses"))
        return None
    return data


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


def _refused(path: Path, real_base: Path, shown: str, folder: str = "content", mode: int | None = None) -> Problem | None:
    """A symlink leaving the folder, a broken or looping one, or anything that is not a regular file.
    (One ``lstat`` answers for a regular file, as nearly every one is: a site of 5,000 pages asked three.)
    ``mode``: the file's, when the caller has it."""
    if mode is None:
        status = _lstat(path)
        mode = status.st_mode if status is not None else 0
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        try:
            target = path.resolve(strict=True)
        except (RuntimeError, OSError) as exc:  # a loop: RuntimeError up to Python 3.12, OSError(ELOOP) from 3.13
            if isinstance(exc, OSError) and exc.errno != errno.ELOOP:
                target = None
            else:
                return error(Location(shown), "symlink loop: the link points (through others) at itself", "path",
                             hint="remove the link, or point it at a file")
        if target is not None and not _inside(target, real_base):
            return error(Location(shown), f"symlink points outside {folder}/, to {target}", "path",
                         hint=f"copy the file into {folder}/ instead of linking to it")
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
    problems: list[Problem] = []
    data = _read_bytes(path, shown, problems, MAX_PAGE_BYTES)
    if data is None:
        return None, problems
    try:
        text = page_text(data)
    except UnicodeDecodeError as exc:
        data = data.removeprefix(b"\xef\xbb\xbf")  # where its offsets count from
        line = data.count(b"\n", 0, exc.start) + 1
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        col = len(data[line_start:exc.start].decode("utf-8", errors="replace")) + 1  # in characters, as editors count
        message = f"not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded"
        return None, [error(Location(shown, line, col), message, "encoding", hint="save the file as UTF-8")]
    if b"\x00" in data:
        offset = text.index("\x00")
        line = text.count("\n", 0, offset) + 1
        col = offset - (text.rfind("\n", 0, offset) + 1) + 1
        return None, [error(Location(shown, line, col), "NUL character (U+0000) in the text", "encoding",
                            hint="the file is damaged or not text: remove the NUL byte")]
    return SourceFile(shown, rel, text, str(path)), []


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
