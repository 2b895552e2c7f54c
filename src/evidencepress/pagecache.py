"""Validated pages in the page cache: stored without the text they can get back from their source.

A page's outcome (the validated Page, or None, and its problems) depends only
on the file's bytes, the schemas and this package's code, which make its key.
The file's text is dropped before the page is stored (the key guarantees that
the source read now is the same file) and put back on load, which keeps an
entry a fraction of the page's full size.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any

from .cache import Store, code_fingerprint, key_of
from .diagnostics import Problem
from .model import Page, SourceFile


def article_key(page: Page, schema_fingerprint: str, entry: Any, context: str, svgs: Mapping[str, bytes]) -> str:
    """What an article's rendered files depend on: the page (its source, the schemas, the code),
    its entry in the site index (record titles, counts, section: every field but the page), the
    site context and templates (``context``), and its drawn charts."""
    about = [(field.name, getattr(entry, field.name)) for field in fields(entry) if field.name != "page"]
    drawn = sorted((name, hashlib.sha256(data).hexdigest()) for name, data in svgs.items())
    return key_of(page_key(page.source, schema_fingerprint), repr(about), context, repr(drawn))


def page_key(source: SourceFile, schema_fingerprint: str) -> str:
    return key_of(code_fingerprint(), schema_fingerprint, source.path, source.rel, source.text)


def load_page(store: Store, key: str, source: SourceFile) -> tuple[Page | None, list[Problem]] | None:
    """The cached outcome of validating ``source``, or None on a miss."""
    cached = store.load(key)
    if not (isinstance(cached, tuple) and len(cached) == 2):
        return None
    page, problems = cached
    if page is not None:
        if not isinstance(page, Page):
            return None
        page = _restored(page, source)
    return page, list(problems)


def save_page(store: Store, key: str, page: Page | None, problems: list[Problem]) -> None:
    store.save(key, (_slim(page) if page is not None else None, tuple(problems)))


def _slim(page: Page) -> Page:
    return replace(page, source=replace(page.source, text=""))


def _restored(page: Page, source: SourceFile) -> Page:
    return replace(page, source=source)
