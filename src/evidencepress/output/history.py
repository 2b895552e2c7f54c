"""The history of the published data as pages: an article's "Changes to the data" section,
/changes/ (index.html, index.json, index.md), the Atom feed /changes.xml and the copies of
every published version at /history/<url path>/<commit>.json.

What changed is written in ``diff``'s words (Markdown list items, see ``datadiff.words``):
index.md holds them as they are, the HTML renders them with CommonMark (raw HTML off: every
word from the content is escaped). Dates are the commits', so two builds write the same bytes.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import jinja2

from ..core.urls import absolute
from ..site.history import CHANGES_FEED, CHANGES_SUMMARY, CHANGES_TITLE, CHANGES_URL, DataHistory
from .article import SiteContext, generated_envelope, page_context
from .changewords import change_views
from .generated import page_files

ATOM_NS = "http://www.w3.org/2005/Atom"
INCOMPLETE = "The history is incomplete: the site was built from a shallow clone of its repository."
NO_HISTORY = "No history: the site was not built from a git repository."
KIND_WORDS = {"published": "first published", "changed": "data changed", "removed": "removed"}


def history_note(history: DataHistory) -> str:
    """What a reader must know about the history: "" when it is all there."""
    if history.complete:
        return ""
    return INCOMPLETE if history.head else NO_HISTORY


def history_files(env: jinja2.Environment, ctx: SiteContext) -> dict[str, bytes]:
    """Every file of the history by site path relative to the root: /changes/, the feed, the copies."""
    files = {CHANGES_URL.lstrip("/") + name: data for name, data in render_changes(env, ctx).items()}
    files[CHANGES_FEED] = changes_feed(ctx)
    files.update({path.lstrip("/"): data for path, data in ctx.history.copies.items()})
    return files


def render_changes(env: jinja2.Environment, ctx: SiteContext) -> dict[str, bytes]:
    history = ctx.history
    changes = history.changes
    html = env.get_template("changes.html").render(
        **page_context(ctx, CHANGES_URL), title=CHANGES_TITLE, summary=CHANGES_SUMMARY,
        changes=change_views(changes), note=history_note(history), feed_url="/" + CHANGES_FEED,
    )
    envelope = generated_envelope(ctx, CHANGES_URL, CHANGES_TITLE, changes[0].day if changes else None)
    base = ctx.config.base_url
    envelope["changes"] = [
        {"date": c.date, "commit": c.commit, "kind": c.kind, "title": c.title, "url": absolute(base, c.url),
         "json_url": absolute(base, c.copy_url) if c.copy_url else None, "changes": list(c.lines)}
        for c in changes
    ]
    envelope["complete"] = history.complete
    return page_files(html, envelope, changes_markdown(history))


def changes_markdown(history: DataHistory) -> str:
    parts = [f"# {CHANGES_TITLE}", CHANGES_SUMMARY]
    note = history_note(history)
    if note:
        parts.append(note)
    for change in history.changes:
        copy = f" · [JSON at this commit]({change.copy_url})" if change.copy_url else ""
        parts.append(f"## {change.day} · [{_link_text(change.title)}]({change.url}) · `{change.short}`{copy}\n\n"
                     + "\n".join(change.lines))
    if not history.changes:
        parts.append("No change to the published data yet.")
    return "\n\n".join(parts) + "\n"


def _link_text(title: str) -> str:
    return title.replace("[", "\\[").replace("]", "\\]")


def changes_feed(ctx: SiteContext) -> bytes:
    """/changes.xml: one Atom entry per change to an article's published data, newest first."""
    config, changes = ctx.config, ctx.history.changes
    feed = ET.Element("feed", xmlns=ATOM_NS)
    feed.set("xml:lang", config.language)
    ET.SubElement(feed, "title").text = f"{config.title}: {CHANGES_TITLE.lower()}"
    ET.SubElement(feed, "link", rel="alternate", type="text/html", href=absolute(config.base_url, CHANGES_URL))
    ET.SubElement(feed, "link", rel="self", type="application/atom+xml",
                  href=absolute(config.base_url, "/" + CHANGES_FEED))
    ET.SubElement(feed, "id").text = absolute(config.base_url, "/" + CHANGES_FEED)
    ET.SubElement(feed, "updated").text = changes[0].date if changes else "1970-01-01T00:00:00Z"
    author = ET.SubElement(feed, "author")
    ET.SubElement(author, "name").text = config.title
    for change in changes:
        url = absolute(config.base_url, change.url)
        item = ET.SubElement(feed, "entry")
        ET.SubElement(item, "title").text = f"{change.title}: {KIND_WORDS[change.kind]} ({change.short})"
        ET.SubElement(item, "link", rel="alternate", type="text/html", href=url)
        if change.copy_url:
            ET.SubElement(item, "link", rel="alternate", type="application/json",
                          href=absolute(config.base_url, change.copy_url))
        ET.SubElement(item, "id").text = f"{url}#data-{change.commit}"
        ET.SubElement(item, "updated").text = change.date
        ET.SubElement(item, "content", type="text").text = "\n".join(change.lines)
    ET.indent(feed, space="  ")
    body: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=False)
    return b"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n" + body + b"\n"
