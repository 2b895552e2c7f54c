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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

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


def iter_export_files(pages: Sequence[Page], ctx: SiteContext) -> Iterator[tuple[str, Iterable[bytes]]]:
    """(POSIX path relative to exports/, its bytes in chunks) of every file, one at a time (a
    build writes each at once rather than holding the snapshot of a large site). results.csv is
    the site's table of the published pages, made of the CSV lines each page's facts hold."""
    # A base URL of "/" turns every absolute URL of the page envelope into a site path. The
    # verification states come from the vault, not the content: the snapshot leaves them out.
    site_paths = replace(ctx, config=replace(ctx.config, base_url="/"), verification=None)
    published = [page for page in pages if not page.front.draft]
    for page in published:
        yield export_name(page), (article_json(page, site_paths),)
    table = ctx.index.results
    yield RESULTS_FILE, dataset.csv_chunks(table if len(published) == len(pages) else
                                           table.only({page.url for page in published}), verified=False)


def export_name(page: Page) -> str:
    """``/guides/a/`` -> ``guides/a.json``."""
    return page.url.strip("/") + ".json"


def stale_exports(expected: Mapping[str, bytes], found: Mapping[str, bytes], pages: Sequence[Page],
                  root: Path) -> list[Problem]:
    """One error per file of exports/ that differs from ``expected``, is missing or is extra."""
    command = refresh_command(root)
    sources = {export_name(page): page.source.path for page in pages}
    hint = f"exports/ is the committed copy of the published data, for review; run `{command}` and commit exports/"
    problems: list[Problem] = []
    for name in sorted(expected.keys() | found.keys()):
        where = Location(f"{EXPORTS_DIR}/{name}")
        origin = sources.get(name, "content/")
        if name not in found:
            message = f"exports/ is stale: missing, the build writes it from {origin}; run `{command}`"
        elif name not in expected:
            message = f"exports/ is stale: no page publishes this file any more; run `{command}` to remove it"
        elif found[name] != expected[name]:
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
