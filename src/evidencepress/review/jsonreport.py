"""The review as data (`diff --format json`): the same content as the Markdown report, unabridged.

Values are written as authored (``22.50`` stays ``22.50``); a field one side
does not have is left out of that side (``old`` or ``new`` missing), which
is not the same as ``null``.
"""

from __future__ import annotations

from typing import Any

from ..core import jsontext
from .model import ABSENT, ChartChange, FieldChange, PageChange, ResultChange, Review, SourceChange, VerificationChange


def json_report(review: Review, old_url: str | None = None, new_url: str | None = None) -> str:
    document = {
        "base": review.base,
        "head": review.head,
        "changed": review.changed,
        "data_changed": review.data_changed,
        "text_changed": review.text_changed,
        "pages": [_page(page, old_url, new_url) for page in review.pages],
        "record_pages": list(review.record_pages),
        "data_files": list(review.data_files),
        "new_warnings": None if review.new_warnings is None else [p.as_dict() for p in review.new_warnings],
        "resolved_warnings": review.resolved_warnings,
    }
    return jsontext.dumps(document) + "\n"


def _page(page: PageChange, old_url: str | None, new_url: str | None) -> dict[str, Any]:
    return {
        "status": page.status,
        "path": page.path,
        "title": page.title,
        "checked": page.checked,
        "fields": [_field(change) for change in page.fields],
        "text_changed": page.text_changed,
        "text_sections": list(page.text_sections),
        "data_changed": page.data_changed,
        "results": [_result(change) for change in page.results],
        "sources": [_source(change) for change in page.sources],
        "charts": [_chart(page.path, change, old_url, new_url) for change in page.charts],
        "other": [_field(change) for change in page.other],
        "verification": [_verification(change) for change in page.verification],
    }


def _field(change: FieldChange) -> dict[str, Any]:
    item: dict[str, Any] = {"field": change.field}
    if change.old is not ABSENT:
        item["old"] = change.old
    if change.new is not ABSENT:
        item["new"] = change.new
    if change.percent is not None:
        item["percent"] = change.percent
    if change.note:
        item["note"] = change.note
    return item


def _result(change: ResultChange) -> dict[str, Any]:
    item: dict[str, Any] = {"status": change.status, "source_record_id": change.source_record_id,
                            "label": change.label}
    if change.status == "changed":
        item["changes"] = [_field(field) for field in change.changes]
    else:
        item["result"] = change.result
    return item


def _verification(change: VerificationChange) -> dict[str, Any]:
    item: dict[str, Any] = {"section": change.section, "source_record_id": change.source_record_id,
                            "label": change.label}
    if change.old is not None:
        item["old"] = change.old
    item.update(new=change.new, line=change.line, excerpt=change.excerpt, found_line=change.found_line)
    return item


def _source(change: SourceChange) -> dict[str, Any]:
    item: dict[str, Any] = {"status": change.status, "url": change.url, "publisher": change.publisher,
                            "revision": change.revision}
    if change.status == "changed":
        item["changes"] = [_field(field) for field in change.changes]
    return item


def _chart(path: str, change: ChartChange, old_url: str | None, new_url: str | None) -> dict[str, Any]:
    files = []
    for file in change.files:
        item: dict[str, Any] = {"name": file.name, "status": file.status, "path": path + file.name}
        if old_url and file.old_svg is not None:
            item["old_url"] = old_url.rstrip("/") + path + file.name
        if new_url and file.new_svg is not None:
            item["new_url"] = new_url.rstrip("/") + path + file.name
        files.append(item)
    return {"status": change.status, "id": change.chart_id, "files": files}
