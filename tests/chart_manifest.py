"""The SVG regression manifest: the sha256 of every chart of the example site.

``tests/chart_manifest.json`` maps each chart file of the built example site to
the sha256 of its bytes. The end-to-end build test compares them; a chart that
changes fails the test until the manifest is updated on purpose, after looking
at the new drawings:

    EVIDENCEPRESS_UPDATE_CHART_MANIFEST=1 .venv/bin/python -m pytest -q tests/test_build.py -k end_to_end
    (or: .venv/bin/python tools/update_chart_manifest.py)

and the manifest diff is reviewed with the pull request like any other change.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

MANIFEST = Path(__file__).with_name("chart_manifest.json")
UPDATE = "EVIDENCEPRESS_UPDATE_CHART_MANIFEST"


def chart_digests(files: Mapping[str, bytes]) -> dict[str, str]:
    return {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())
            if name.endswith(".svg") and not name.startswith("static/")}  # static/: the theme's own files


def write_manifest(digests: Mapping[str, str]) -> None:
    MANIFEST.write_text(json.dumps(dict(sorted(digests.items())), indent=2) + "\n", encoding="utf-8")


def changed_charts(files: Mapping[str, bytes]) -> list[str]:
    """Chart files whose bytes differ from the manifest (added, removed or redrawn); updates it when asked."""
    digests = chart_digests(files)
    if os.environ.get(UPDATE):
        write_manifest(digests)
        return []
    recorded: dict[str, str] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    names = sorted(set(recorded) | set(digests))
    return [name for name in names if recorded.get(name) != digests.get(name)]
