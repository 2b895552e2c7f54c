"""exports/: the committed review snapshot of the site's published data (SPEC §7.4, §10).

``exports/<url path>.json`` holds each article's page document (the export
with its leading ``page`` envelope) and ``exports/results.csv`` every reported
result of the site. URLs in them are site paths (``/guides/a/``), never
absolute: their bytes depend only on the content, not on ``--base-url``,
``--out``, drafts or the machine, so a deploy build leaves the repository
clean. ``_site/<page>/index.json`` keeps the absolute URLs of the deployed
site. Drafts are not published, so they are never part of the snapshot.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..checks.page import Page
from ..core.diagnostics import Location, Problem, error
from ..site import dataset
from .article import SiteContext, article_json

EXPORTS_DIR = "exports"
RESULTS_FILE = "results.csv"
_MAKE_BUILD = re.compile(r"^build\s*::?(?!=)", re.MULTILINE)  # a rule, not `build := …`


def export_files(pages: Sequence[Page], ctx: SiteContext) -> dict[str, bytes]:
    """Every file of exports/ by POSIX path relative to it."""
    return {name: b"".join(chunks) for name, chunks in iter_export_files(pages, ctx)}


def exports_current(pages: Sequence[Page], ctx: SiteContext, found: Mapping[str, bytes]) -> dict[str, bool]:
    """Each file of exports/ the build writes, by POSIX path relative to it, and whether ``found``
    (the files exports/ holds, ``writer.FilesOnDisk``) has it with those bytes; made and compared one
    file at a time (`check` of 5,000 articles held the 164 MB made and the 164 MB found at once)."""
    return {name: name in found and found[name] == b"".join(chunks) for name, chunks in iter_export_files(pages, ctx)}


def iter_export_files(pages: Sequence[Page], ctx: SiteContext) -> Iterator[tuple[str, Iterable[bytes]]]:
    """(POSIX path relative to exports/, its bytes in chunks) of every file, one at a time (a
    build writes each at once rather than holding the snapshot of a large site)."""
    snapshot = snapshot_context(ctx)
    for page in pages:
        if not page.front.draft:
            yield export_name(page), (article_json(page, snapshot),)
    yield RESULTS_FILE, results_chunks(pages, ctx)


def snapshot_context(ctx: SiteContext) -> SiteContext:
    """The context an article's snapshot file is made in: a base URL of "/" turns every absolute URL
    of the page envelope into a site path; the verification states come from the vault, not the
    content, and the snapshot leaves them out."""
    return replace(ctx, config=replace(ctx.config, base_url="/"), verification=None)


def snapshot_json(page: Page, snapshot: SiteContext, members: list[dict[str, Any]] | None = None) -> bytes | None:
    """The bytes of the page's file of exports/ (``snapshot``: from ``snapshot_context``; ``members``:
    the page's ``comparison_members``, when they are made already); None for a draft."""
    return None if page.front.draft else article_json(page, snapshot, members)


def results_chunks(pages: Sequence[Page], ctx: SiteContext) -> Iterable[bytes]:
    """exports/results.csv: the site's table of the published pages, made of the CSV lines each
    page's facts hold."""
    published = {page.url for page in pages if not page.front.draft}
    table = ctx.index.results
    return dataset.csv_chunks(table if len(published) == len(pages) else table.only(published), verified=False)


def export_name(page: Page) -> str:
    return export_name_of(page.url)


def export_name_of(url: str) -> str:
    """``/guides/a/`` -> ``guides/a.json``."""
    return url.strip("/") + ".json"


def stale_exports(current: Mapping[str, bool], found: Collection[str], pages: Sequence[Page],
                  root: Path) -> list[Problem]:
    """One error per file of exports/ that differs from what the build writes, is missing or is extra.
    ``current``: each file the build writes and whether exports/ holds it (``exports_current``);
    ``found``: the files exports/ holds."""
    command = refresh_command(root)
    sources = {export_name(page): page.source.path for page in pages}
    hint = f"exports/ is the committed copy of the published data, for review; run `{command}` and commit exports/"
    problems: list[Problem] = []
    for name in sorted(current.keys() | set(found)):
        where = Location(f"{EXPORTS_DIR}/{name}")
        origin = sources.get(name, "content/")
        if name not in found:
            message = f"exports/ is stale: missing, the build writes it from {origin}; run `{command}`"
        elif name not in current:
            message = f"exports/ is stale: no page publishes this file any more; run `{command}` to remove it"
        elif not current[name]:
            message = f"exports/ is stale: differs from what the build writes from {origin}; run `{command}`"
        else:
            continue
        problems.append(error(where, message, "exports", hint=hint))
    return problems


def refresh_command(root: Path) -> str:
    """The command that rewrites exports/: the site's own `make build` when it has one."""
    makefile = root / "Makefile"
    try:
        text = makefile.read_text(encoding="utf-8", errors="replace") if makefile.is_file() else ""
    except OSError:
        text = ""
    return "make build" if _MAKE_BUILD.search(text) else "evidencepress build"
