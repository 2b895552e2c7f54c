"""``evidencepress import``: a published index.md back into a source article.

The inverse of output.article_md.article_markdown: the title, the metadata
comment, the sources list and the Checked line become front matter; chart
images with their spec comment become ``chart`` fences again; the ``json``
block after the Checked line becomes the ``json export`` fence. The file is
read from its ends inward (the first line, the first comment, the last Checked
line, the sources list just before it), so a body may hold ``json`` blocks,
comments or a heading named like the sources list. Building the import gives
the page's index.json and index.md again, and importing that index.md gives
the same source byte for byte.
"""

from __future__ import annotations

import datetime as dt
import json
import re

import yaml

from ..core.jsonsyntax import problem_of
from ..output.article_md import (
    CHART_OPEN,
    CHECKED_TAIL,
    COMMENT_CLOSE,
    META_OPEN,
    SOURCES_HEADING,
    VALUE_CLOSE,
    VALUE_OPEN,
)

_SOURCE = re.compile(
    r"^- (?P<publisher>.+?): (?P<url>\S+)\n  - Document revision: (?P<revision>.+)\n  - SHA-256: (?P<sha256>\S+)$",
    re.MULTILINE,
)
_CHECKED = re.compile(r"^Checked (\d{4}-\d{2}-\d{2})\. .*" + re.escape(CHECKED_TAIL) + "$", re.MULTILINE)
_CHART = re.compile(
    r"^!\[(?:[^\]\\\n]|\\.)*\]\([a-z0-9-]+\.svg\)\n\n(?:\*[^\n]*\*\n\n)?" + re.escape(CHART_OPEN) + r"\n(?P<spec>.*?)\n"
    + re.escape(COMMENT_CLOSE) + "$",
    re.MULTILINE | re.DOTALL,
)


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_VALUE = re.compile(re.escape(VALUE_OPEN) + r"(?P<role>.*?)-->.*?" + re.escape(VALUE_CLOSE) + r"\n*-->", re.DOTALL)


class ImportError_(ValueError):
    """The file is not a published index.md; ``line`` is where the problem shows (1-based)."""

    def __init__(self, message: str, line: int = 1, near: str = "") -> None:
        super().__init__(message)
        self.line = line
        self.near = near  # text at the problem, for import_markdown to find its line

    def located(self, text: str) -> ImportError_:
        found = text.find(self.near) if self.near else -1
        return ImportError_(str(self), text.count("\n", 0, found) + 1 if found >= 0 else self.line)


def import_markdown(text: str) -> str:
    """The source article of a published index.md; ImportError_ says why a file is not one."""
    text = text.replace("\r\n", "\n")
    try:
        return _import(text)
    except ImportError_ as exc:
        raise exc.located(text) from None


def _import(text: str) -> str:
    title, rest = _title(text)
    meta, rest = _meta(rest)
    rest, checked, tail = _checked(rest)
    export = _export(tail)
    body, sources = _sources(rest)
    front: dict[str, object] = {"title": title, "summary": meta.pop("summary", title), "checked": checked}
    for key in ("updated", "draft", "tags"):
        if key in meta:
            front[key] = meta[key]
    if sources:
        front["sources"] = sources
    written = meta.get("front_matter")
    parts = [_front_matter(front, written if isinstance(written, str) else None), _charts(_values(body))]
    if export is not None:
        parts.append("```json export\n" + export + "\n```")
    return "\n\n".join(p for p in parts if p.strip()) + "\n"


def _front_matter(front: dict[str, object], written: str | None) -> str:
    """The front matter as the editor wrote it (kept in the metadata comment) while it says what the
    page shows; else written anew from what the page shows (an index.md edited by hand)."""
    if written is not None:
        try:
            kept = yaml.safe_load(written)
        except yaml.YAMLError:
            kept = None
        if isinstance(kept, dict) and _same(kept, front):
            return "---\n" + written + "---"
    return "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1000) + "---"


def _same(kept: dict[object, object], front: dict[str, object]) -> bool:
    """The kept front matter and the page's own say the same (a date and its ISO text alike); a key
    only the kept one has may hold no more than a default (draft: false)."""
    def plain(value: object) -> str:
        return json.dumps(value, default=str, sort_keys=True, ensure_ascii=False)

    return all(plain(kept.get(key)) == plain(value) for key, value in front.items()) and \
        not any(value for key, value in kept.items() if key not in front)


def _title(text: str) -> tuple[str, str]:
    first, _, rest = text.partition("\n")
    if not first.startswith("# "):
        raise ImportError_("the file does not start with `# Title`")
    return first[2:], rest


def _meta(text: str) -> tuple[dict[str, object], str]:
    start = text.find(META_OPEN)
    if start < 0:
        return {}, text
    end = text.find(COMMENT_CLOSE, start)
    if end < 0:
        raise ImportError_("the evidencepress comment is not closed with -->", near=META_OPEN)
    meta = _meta_object(text[start + len(META_OPEN) : end])
    before = text[:start]
    summary = meta.get("summary")
    if summary is not None:
        before = before.replace(f"> {summary}\n", "", 1)
    return meta, before + text[end + len(COMMENT_CLOSE) :]


def _meta_object(comment: str) -> dict[str, object]:
    """The comment's JSON object, of the keys and types article_markdown writes."""
    if _depth(comment) > 2:  # the deepest is the tags list in the object; a deeper one is no page of ours
        raise ImportError_("the evidencepress comment nests deeper than a list in an object", near=META_OPEN)
    try:
        meta = json.loads(comment)
    except json.JSONDecodeError as exc:
        problem = problem_of(comment, exc).message  # the same words on every Python version
        raise ImportError_(f"the evidencepress comment is not valid JSON: {problem}", near=META_OPEN) from exc
    if not isinstance(meta, dict):
        raise ImportError_("the evidencepress comment must hold a JSON object", near=META_OPEN)
    for key, value in meta.items():
        expected = _META_TYPES.get(key)
        if expected is None or not _is_a(value, expected):
            what = f"`{key}` must be {expected[1]}" if expected else f"`{key}` is not a key of it"
            raise ImportError_(f"the evidencepress comment's {what}", near=META_OPEN)
    return meta


_META_TYPES: dict[str, tuple[type, str]] = {
    "summary": (str, "a string"), "updated": (str, "a date string"), "draft": (bool, "true or false"),
    "tags": (list, "a list of strings"), "front_matter": (str, "a string"),
}


def _is_a(value: object, expected: tuple[type, str]) -> bool:
    if isinstance(value, list):
        return expected[0] is list and all(isinstance(item, str) for item in value)
    return isinstance(value, expected[0])


def _depth(comment: str) -> int:
    """How deep the JSON text's objects and arrays nest (brackets inside strings do not count)."""
    depth = deepest = 0
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]', comment):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in ("]", "}"):
            depth -= 1
    return deepest


def _export(tail: str) -> str | None:
    """The export: the ``json`` block after the Checked line (a body may hold ``json`` blocks of its own)."""
    if not tail.strip():
        return None
    match = re.fullmatch(r"\n*```json\n(.*)\n```\s*", tail, re.DOTALL)
    if not match:
        raise ImportError_("after the Checked line only the export's ```json block may follow", near=tail.strip()[:40])
    return match.group(1)


def _checked(text: str) -> tuple[str, object, str]:
    """What stands before the last Checked line, its date, and what follows it (the export)."""
    matches = list(_CHECKED.finditer(text))
    if not matches:
        raise ImportError_("no `Checked YYYY-MM-DD.` line: is this a published index.md?")
    last = matches[-1]
    try:
        checked = dt.date.fromisoformat(last.group(1))
    except ValueError as exc:
        raise ImportError_(f"the Checked date {last.group(1)} is not a date: {exc}", near=last.group(0)) from exc
    return text[: last.start()], checked, text[last.end() :]


def _sources(text: str) -> tuple[str, list[dict[str, str]]]:
    """The body and the sources list that ends it; a heading of that name followed by anything but
    source items is the body's own."""
    heading = text.rfind("\n" + SOURCES_HEADING + "\n")
    if heading < 0:
        return text, []
    listing = text[heading + len(SOURCES_HEADING) + 2 :].strip("\n")
    items = list(_SOURCE.finditer(listing))
    if not items or "\n".join(m.group(0) for m in items) != listing:
        return text, []
    return text[:heading], [m.groupdict() for m in items]


def _values(body: str) -> str:
    """Each inline value as the role it was written as (the comments values_as_text wrote around it)."""
    return _VALUE.sub(lambda found: _ESCAPE.sub(r"\1", found.group("role")), body)


def _charts(body: str) -> str:
    def fence(match: re.Match[str]) -> str:
        spec = _ESCAPE.sub(r"\1", match.group("spec"))  # article_markdown's comment_text undone
        return "```chart\n" + spec + "\n```"

    return _CHART.sub(fence, body).strip("\n")
