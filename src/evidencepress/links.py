"""Link checks over the whole site: refused schemes and internal targets.

Internal links are site paths (``/guides/x/``) or relative paths; each must
name a page or file the build produces. Runs after every page is validated,
because a link may point at any page.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Any, Protocol

from .diagnostics import Location, Problem, error
from .markdown import links
from .model import SourceFile
from .urls import is_site_path, strip_fragment

REFUSED = ("javascript:", "data:", "vbscript:", "file:")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


class Linking(Protocol):
    """A page whose Markdown body holds links: an article, or a record's prose."""

    @property
    def source(self) -> SourceFile: ...
    @property
    def body(self) -> str: ...
    @property
    def body_line(self) -> int: ...
    @property
    def tokens(self) -> tuple[Any, ...]: ...
    @property
    def url(self) -> str: ...


def check_links(pages: Iterable[Linking], produced: AbstractSet[str]) -> list[Problem]:
    problems: list[Problem] = []
    for page in pages:
        body_lines = page.body.split("\n")
        for link in links(page.tokens, body_lines):
            where = Location(page.source.path, page.body_line + link.line, link.col)
            problem = _check(link.href, page.url, produced, where)
            if problem is not None:
                problems.append(problem)
    return problems


def _check(href: str, page_url: str, produced: AbstractSet[str], where: Location) -> Problem | None:
    lowered = re.sub(r"[\s\x00-\x1f]", "", href).lower()
    if lowered.startswith(REFUSED):
        scheme = lowered.split(":", 1)[0]
        return error(where, f"{scheme}: links are refused", "link-scheme",
                     hint="link to an http(s) URL or a site path")
    if _SCHEME.match(href) or href.startswith(("//", "#")) or not href:
        return None
    target = strip_fragment(href)
    if not is_site_path(target):
        target = posixpath.normpath(posixpath.join(page_url, target)) + ("/" if target.endswith("/") else "")
    if target in produced:
        return None
    hint = "internal links are site paths such as /guides/llm-speed-metrics/"
    if target + "/" in produced:
        hint = f"did you mean {target}/ ?"
    return error(where, f"broken internal link {href}: no page or file at {target}", "link", hint=hint)
