"""Review of a change (SPEC §8): `evidencepress diff BASE [HEAD]`.

Stages: obtain both sides as site snapshots (``trees``: git revisions in
temporary worktrees, the working tree, or built folders), compare them
(``compare``: frozen PageChange / ResultChange / … values), then report
(``markdown`` for a pull-request comment, ``jsonreport`` as data,
``pictures`` for the changed charts' SVG files).
"""

from __future__ import annotations

from .compare import compare_sites
from .jsonreport import json_report
from .markdown import NO_CHANGES, ReportOptions, markdown_report
from .model import Review
from .pictures import chart_pictures
from .trees import BuildFailed, DiffOptions, DiffUsageError, load_sides

__all__ = [
    "NO_CHANGES",
    "BuildFailed",
    "DiffOptions",
    "DiffUsageError",
    "ReportOptions",
    "Review",
    "chart_pictures",
    "json_report",
    "markdown_report",
    "review_change",
]


def review_change(base: str, head: str | None, options: DiffOptions) -> Review:
    """Compare BASE with HEAD (None: the working tree)."""
    old, new = load_sides(base, head, options)
    return compare_sites(old, new)
