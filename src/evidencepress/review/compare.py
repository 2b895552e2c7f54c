"""Compare two site snapshots: pages, reported results, sources, charts, source checks, warnings (SPEC §8)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.diagnostics import Problem, Severity, sort_problems
from ..datadiff.changes import FieldChange, ResultChange, SourceChange
from ..datadiff.entries import PAGE_FIELDS as PAGE_FIELDS  # noqa: PLC0414 - re-exported
from ..datadiff.entries import compare_results as compare_results  # noqa: PLC0414
from ..datadiff.entries import compare_sources as compare_sources  # noqa: PLC0414
from ..datadiff.entries import entries_of, label_of, other_changes, page_fields, result_keys
from ..output.article_md import CHART_OPEN, META_OPEN
from .model import (
    ChartChange,
    ChartFile,
    PageChange,
    Review,
    Status,
    VerificationChange,
)
from .snapshot import PageSnapshot, SiteSnapshot

# Envelope members compared as page fields (URLs are left out: they depend on where a site is deployed).
NARROW = ".narrow.svg"
# (envelope member, export section) of the states published in each article's index.json
VERIFICATION = (("verification", "reported_results"), ("facts_verification", "facts"))
# The states of a new value that are reported: the value is not as its cited line writes it.
UNVERIFIED = ("absent", "moved", "literal-mismatch")


def compare_sites(base: SiteSnapshot, head: SiteSnapshot) -> Review:
    pages = [compare_page(path, base.pages.get(path), head.pages.get(path))
             for path in sorted(base.pages.keys() | head.pages.keys())]
    new_warnings, resolved = compare_warnings(base.problems, head.problems)
    return Review(base.label, head.label, tuple(page for page in pages if page is not None), new_warnings, resolved)


def compare_page(path: str, old: PageSnapshot | None, new: PageSnapshot | None) -> PageChange | None:
    status: Status = "added" if old is None else "removed" if new is None else "changed"
    before = old or PageSnapshot(path, {}, {}, "", {})
    after = new or PageSnapshot(path, {}, {}, "", {})
    both = status == "changed"
    sections = changed_sections(before.text, after.text) if both else ()
    sources = compare_sources(entries_of(before.envelope, "sources"), entries_of(after.envelope, "sources"))
    change = PageChange(
        status=status,
        path=path,
        title=after.title if new is not None else before.title,
        checked=str((after if new is not None else before).envelope.get("checked") or ""),
        fields=tuple(page_fields(before.envelope, after.envelope)) if both else (),
        text_changed=bool(sections),  # a chart's spec is in the text of index.md, but its change is the chart's
        text_sections=sections,
        results=_without_repins(compare_results(entries_of(before.export, "reported_results"),
                                                entries_of(after.export, "reported_results")), sources),
        sources=sources,
        charts=compare_charts(before.charts, after.charts),
        other=tuple(other_changes(before.export, after.export)) if both else (),
        verification=compare_verification(before, after),
    )
    if both and not (change.fields or change.text_changed or change.results or change.sources or change.charts
                     or change.other or change.verification):
        return None
    return change


def _without_repins(results: Sequence[ResultChange], sources: Sequence[SourceChange]) -> tuple[ResultChange, ...]:
    """The result changes without what a re-pinned source explains: its SHA-256 and URL are reported
    once, under the source, not again under every result that cites it (a result left with no other
    change is not listed)."""
    shas = {(c.old, c.new) for source in sources for c in source.changes if c.field == "sha256"}
    urls = [(c.old, c.new) for source in sources for c in source.changes
            if c.field == "url" and isinstance(c.old, str) and isinstance(c.new, str)]

    def explained(change: FieldChange) -> bool:
        if change.field == "source_document_sha256":
            return (change.old, change.new) in shas
        if change.field == "evidence_url" and isinstance(change.old, str) and isinstance(change.new, str):
            return any(change.old.startswith(old) and change.new == new + change.old[len(old):] for old, new in urls)
        return False

    kept = []
    for result in results:
        if result.status != "changed":
            kept.append(result)
            continue
        left = tuple(change for change in result.changes if not explained(change))
        if left:
            kept.append(replace(result, changes=left))
    return tuple(kept)


def changed_sections(old: str, new: str) -> tuple[str, ...]:
    """The parts of an article's text that differ, named for a reviewer: "the title", "the summary",
    "the introduction" (before the first heading), "section “Heading”" (a ``##`` section, added,
    removed or edited), in the new text's order."""
    before, after = _sections(old), _sections(new)
    names = list(after) + [name for name in before if name not in after]
    return tuple(name for name in names if before.get(name) != after.get(name))


def _sections(text: str) -> dict[str, str]:
    """The text's parts by name. A chart's spec (its comment) is no text: its change is the chart's;
    the metadata comment gives the tags."""
    parts: dict[str, list[str]] = {"the title": [], "the summary": [], "the tags": [], "the introduction": []}
    current = "the introduction"
    in_chart = False
    for line in text.split("\n"):
        if in_chart or line.startswith(CHART_OPEN):
            in_chart = line != "-->"
        elif line.startswith(META_OPEN):
            parts["the tags"].append(_tags(line))
        elif line.startswith("# ") and not parts["the title"]:
            parts["the title"].append(line)
        elif line.startswith("> ") and not parts["the summary"] and not "".join(parts[current]).strip():
            parts["the summary"].append(line)
        elif line.startswith("## "):
            current = f"section “{line[3:].strip()}”"
            parts.setdefault(current, []).append(line)
        else:
            parts.setdefault(current, []).append(line)
    return {name: "\n".join(lines).strip() for name, lines in parts.items()}


def _tags(line: str) -> str:
    try:
        found = json.loads(line.removeprefix(META_OPEN).removesuffix(" -->"))
    except ValueError:
        return line
    return json.dumps(found.get("tags")) if isinstance(found, dict) else line


def compare_verification(old: PageSnapshot, new: PageSnapshot) -> tuple[VerificationChange, ...]:
    """Values whose state against the vault differs, matched like results (a fact by its label), in HEAD's
    order, results first; a value new on HEAD (or whose BASE published no states) when it is not verified."""
    changes: list[VerificationChange] = []
    for member, section in VERIFICATION:
        before = _states(old, member, section)
        for key, (state, label) in _states(new, member, section).items():
            previous = before[key][0] if key in before else None
            old_state = _text(previous.get("state")) if previous is not None else None
            new_state = _text(state.get("state"))
            if new_state == old_state or (old_state is None and new_state not in UNVERIFIED):
                continue
            line, excerpt = _number(state.get("line")), _text(state.get("excerpt"))
            if previous is not None:
                line = line if line is not None else _number(previous.get("line"))
                excerpt = excerpt if excerpt is not None else _text(previous.get("excerpt"))
            changes.append(VerificationChange(section, key[0], label, old_state, new_state or "", line, excerpt,
                                              _number(state.get("found_line"))))
    return tuple(changes)


def _states(page: PageSnapshot, member: str, section: str
            ) -> dict[tuple[str, str], tuple[dict[str, Any], str]]:
    """The page's published states of ``section`` with their entry's label, by the key (the one
    compare_results uses) of the entry each one's pointer designates."""
    entries = page.export.get(section)
    at = [n for n, entry in enumerate(entries) if isinstance(entry, dict)] if isinstance(entries, list) else []
    objects = entries_of(page.export, section)
    key_at = dict(zip(at, zip(result_keys(objects), map(label_of, objects), strict=True), strict=True))
    found: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
    for state in entries_of(page.envelope, member):
        folder, _, number = str(state.get("pointer", "")).rpartition("/")
        keyed = key_at.get(int(number)) if folder == f"/{section}" and number.isascii() and number.isdigit() else None
        if keyed is not None:
            found.setdefault(keyed[0], (state, keyed[1]))
    return found


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def compare_charts(old: Mapping[str, bytes], new: Mapping[str, bytes]) -> tuple[ChartChange, ...]:
    """Charts whose SVG bytes differ, wide and narrow variants, grouped by chart id."""
    changes: list[ChartChange] = []
    for chart_id in sorted({chart_of(name) for name in old.keys() | new.keys()}):
        names = sorted((n for n in old.keys() | new.keys() if chart_of(n) == chart_id), key=lambda n: (n.endswith(NARROW), n))
        files = tuple(ChartFile(name, _status(name in old, name in new), old.get(name), new.get(name))
                      for name in names if old.get(name) != new.get(name))
        if files:
            status = _status(any(n in old for n in names), any(n in new for n in names))
            changes.append(ChartChange(status, chart_id, files))
    return tuple(changes)


def chart_of(name: str) -> str:
    """``decode.narrow.svg`` and ``decode.svg`` -> ``decode``."""
    return name[: -len(NARROW)] if name.endswith(NARROW) else name.removesuffix(".svg")


def _status(in_old: bool, in_new: bool) -> Status:
    return "changed" if in_old and in_new else "added" if in_new else "removed"


def compare_warnings(old: Sequence[Problem] | None, new: Sequence[Problem] | None) -> tuple[tuple[Problem, ...] | None,
                                                                                          int | None]:
    """(warnings of HEAD that BASE does not have, count of BASE's that HEAD no longer has);
    matched without line and column, which move with every edit above them, and without hint.
    Notes (a draft
    left out) inform and are not warnings."""
    if old is None or new is None:
        return None, None
    remaining = Counter(_identity(problem) for problem in sort_problems(_warnings(old)))
    fresh: list[Problem] = []
    for problem in sort_problems(_warnings(new)):
        key = _identity(problem)
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            fresh.append(problem)
    return tuple(fresh), sum(remaining.values())


def _warnings(problems: Sequence[Problem]) -> list[Problem]:
    return [problem for problem in problems if problem.severity is not Severity.NOTE]


def _identity(problem: Problem) -> tuple[str, str, str, str, str]:
    """What makes a warning the same one: its rule, file, place in the document and message — not its
    hint, whose words change with the code (nine unchanged warnings were 'new' and 'no longer
    reported' at once when a hint was reworded)."""
    return problem.severity.value, problem.location.path, problem.rule, problem.json_path, problem.message
