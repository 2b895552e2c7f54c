"""Rewrite tests/chart_manifest.json from the example site (after looking at the changed charts).

    .venv/bin/python tools/update_chart_manifest.py
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from chart_manifest import chart_digests, write_manifest

from evidencepress.build.recipe import plan_site, render_site
from evidencepress.core.options import BuildOptions


def main() -> None:
    options = BuildOptions(root=REPO, use_cache=False)
    plan, problems = plan_site(options)
    if plan is None:
        sys.exit("\n".join(p.format() for p in problems))
    write_manifest(chart_digests(render_site(plan, options)))
    print("tests/chart_manifest.json updated")


if __name__ == "__main__":
    main()
