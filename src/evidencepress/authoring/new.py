"""``evidencepress new SECTION/SLUG``: an article skeleton that passes ``check`` as it stands.

The skeleton is a draft (so its placeholder source is never published by
accident) with front matter, prose that shows an inline value, one chart and
an export with two complete reported results: every required and recommended
condition present, ``null`` where the example "source" reports nothing.
Comments say what to replace; ``evidencepress schema export --reference``
lists every field.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..checks.placeholders import PUBLISHER as PLACEHOLDER_PUBLISHER
from ..checks.placeholders import REVISION as PLACEHOLDER_REVISION
from ..checks.placeholders import SHA256 as PLACEHOLDER_SHA256
from ..checks.placeholders import SUMMARY as PLACEHOLDER_SUMMARY
from ..checks.placeholders import URL as PLACEHOLDER_URL
from ..content.read import ASSETS, SLUG
from ..schemas.load import SchemaSet

MAX_SLUG = 100  # characters of one segment: a file name stays far below the 255 bytes of most file systems
LABEL = "Decode rate, one request"
SECOND_LABEL = "Decode rate per request, four requests"


@dataclass(frozen=True)
class Target:
    rel: str  # under content/: guides/my-article.md
    slug: str  # the last segment: my-article


def parse_target(text: str) -> Target | str:
    """``guides/my-article`` (a ``.md`` suffix and a leading ``content/`` are accepted), or why not."""
    path = text.strip().strip("/")
    path = path.removeprefix("content/")
    path = path.removesuffix(".md")
    segments = path.split("/")
    bad = next((s for s in segments if not SLUG.fullmatch(s)), None)
    if not path or bad is not None:
        shown = bad if bad is not None else text
        return (f"{shown!r} is not a slug: use lowercase letters, digits and hyphens, e.g. "
                f"guides/{_slugged(shown) or 'my-article'}")
    if segments[0] == ASSETS:
        return "content/assets/ holds static files, not articles; choose a section such as guides/"
    long = next((s for s in segments if len(s) > MAX_SLUG), None)
    if long is not None:
        return f"{long[:20]}… is {len(long)} characters; a slug has at most {MAX_SLUG} (it names a folder and a URL)"
    return Target(path + ".md", segments[-1])


def placement_problem(root: Path, target: Target) -> str | None:
    """Why the file of ``target`` would be written outside ``root/content/`` (a symlinked content
    folder, section folder or file, dangling or not), else None."""
    content = root / "content"
    real_root = root.resolve()
    if not content.resolve().is_relative_to(real_root):
        return f"content is a symlink to {content.resolve()}, outside the site root: new writes only inside it"
    real_content = content.resolve()
    path = content
    for segment in target.rel.split("/"):
        path = path / segment
        if path.is_symlink() and not path.resolve().is_relative_to(real_content):
            return (f"content/{path.relative_to(content).as_posix()} is a symlink to {path.resolve()}, outside "
                    "content/: new writes only inside it (remove the link, or choose another path)")
    return None


def title_problem(title: str | None) -> str | None:
    """Why ``title`` cannot be written into a page (not UTF-8 text, or more than one line), else None."""
    if title is None:
        return None
    try:
        title.encode("utf-8")
    except UnicodeEncodeError:
        return "the title is not UTF-8 text (a byte of the terminal's input could not be read as a character)"
    if any(mark in title for mark in "\r\n\x0b\x0c\x85\u2028\u2029"):
        return "the title is one line: it holds a line break"
    return None


def _slugged(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def article_skeleton(target: Target, schemas: SchemaSet, checked: dt.date, title: str | None = None) -> str:
    """The text of a new article at ``target``."""
    title = title or target.slug.replace("-", " ").capitalize()
    record = target.slug
    return "\n".join([
        _front_matter(title, checked),
        _body(record),
        "```json export",
        json.dumps(_export(record, schemas), indent=2, ensure_ascii=False),
        "```",
        "",
    ])


def _front_matter(title: str, checked: dt.date) -> str:
    return "\n".join([
        "---",
        "# A new article: replace every example value below. `evidencepress schema frontmatter --reference`",
        "# lists the front matter keys.",
        f"title: {json.dumps(title, ensure_ascii=False)}",
        f"summary: {json.dumps(PLACEHOLDER_SUMMARY)}",
        f"checked: {checked.isoformat()}  # the day you checked the sources",
        "draft: true  # a draft is built only with --drafts; remove this line to publish",
        "tags: [example]",
        "sources:",
        "  # Every document the export cites. Pinned: the revision is a commit that appears in the URL.",
        f"  - publisher: {PLACEHOLDER_PUBLISHER}",
        f'    url: "{PLACEHOLDER_URL}"',
        f'    revision: "{PLACEHOLDER_REVISION}"',
        f'    sha256: "{PLACEHOLDER_SHA256}"  # SHA-256 of the document as you read it',
        "---",
        "",
    ])


def _body(record: str) -> str:
    return "\n".join([
        "Say in one paragraph what the source measured, on which machine and under which conditions, and",
        "what it does not show.",
        "",
        "## What the source measured",
        "",
        f"The source reports a decode rate of {{value}}`{record}/{LABEL}` for one request at a time.",
        "Write every number of the export as a reference like this one: the page shows the value exactly as",
        "the export holds it, linked to its evidence, with its conditions as a tooltip. Derived numbers go",
        "through {ratio}, {sum}, {difference} or {round}.",
        "",
        "```chart",
        "# Charts hold no numbers: they select values from the export. `evidencepress schema chart --reference`",
        f"id: {record}",
        "kind: bar",
        "title: Decode rate per request as reported",
        "alt: Two bars, the decode rate of each request with one and with four requests at a time.",
        "caption: One reported run each; the source gives no dispersion.",
        "panels:",
        "  - select:",
        f"      where: {{source_record_id: {record}}}",
        "    x: conditions.concurrency",
        "```",
        "",
        "## What it does not show",
        "",
        "Name the conditions the source leaves unreported (they are null in the export) and what a reader",
        "should not conclude from the value.",
        "",
        ('[//]: # "The export below holds every value the article discusses, each with its conditions: a condition'
        ' the source does not report is null, never guessed. `evidencepress schema export --reference` lists'
        ' every field."'),
        "",
    ])


def _export(record: str, schemas: SchemaSet) -> dict[str, object]:
    results = [_result(record, schemas, LABEL, 1, 42.5), _result(record, schemas, SECOND_LABEL, 4, 31.0)]
    return {"facts": [], "reported_results": results, "conditions": {}}


def _result(record: str, schemas: SchemaSet, label: str, concurrency: int, value: float) -> dict[str, object]:
    """A complete result: every required and recommended condition, null where the source is silent."""
    conditions: dict[str, object] = {key: None for key in schemas.core_conditions}
    conditions["concurrency"] = concurrency
    return {
        "label": label,
        "metric": "decode_rate",
        "value": value,
        "unit": "tokens/s",
        "statistic": "one reported run; no dispersion",
        "uncertainty": None,
        "conditions": conditions,
        "evidence_state": "source_reported",
        "site_reproduced": False,
        "evidence_url": f"{PLACEHOLDER_URL}#L{concurrency}",
        "source_document_sha256": PLACEHOLDER_SHA256,
        "source_record_id": record,
    }
