"""Site paths and the relative links between them.

Pages link to each other with relative URLs, so the output works under any
base path (``https://user.github.io/site/``) and from the file system.
Absolute URLs (feeds, index.json) are the base URL plus the site path.
"""

from __future__ import annotations

import posixpath


def relative(from_page: str, target: str) -> str:
    """Link from the page at site path ``from_page`` (ending in /) to ``target``.

    ``relative("/guides/a/", "/guides/b/#x") == "../b/#x"``.
    """
    path, sep, fragment = target.partition("#")
    if not path:
        return target
    rel = posixpath.relpath(path, from_page)
    if path.endswith("/"):
        rel = "./" if rel == "." else rel + "/"
    return rel + sep + fragment


def absolute(base_url: str, site_path: str) -> str:
    return base_url.rstrip("/") + site_path


def is_site_path(href: str) -> bool:
    return href.startswith("/") and not href.startswith("//")


def strip_fragment(href: str) -> str:
    return href.split("#", 1)[0].split("?", 1)[0]
