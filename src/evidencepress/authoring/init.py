"""``evidencepress init [DIR]``: a new site that builds and passes ``check`` at once.

The files come from ``defaults/init/`` (carried in the wheel): a ``site.toml``
with every key explained, one example article built around a real export, a
``.gitignore``, a GitHub Pages workflow that installs this version, and the
article's ``exports/`` as a build writes them (so that ``check`` passes before
the first build). Nothing is overwritten: when any of the files exists,
nothing is written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..build.recipe import expected_exports
from ..core.options import BuildOptions
from ..output.exports import EXPORTS_DIR

_FROM = Path(__file__).resolve().parents[1] / "defaults" / "init"
# (file of defaults/init/, where it goes in the new site)
FILES = (
    ("site.toml", "site.toml"),
    ("first-article.md", "content/guides/first-article.md"),
    ("gitignore", ".gitignore"),
    ("workflow.yml", ".github/workflows/site.yml"),
)


@dataclass(frozen=True)
class Written:
    folder: Path
    files: tuple[str, ...]  # as FILES names them in the site


def taken(folder: Path) -> list[str]:
    """The files of a new site that ``folder`` already has (or holds a link at)."""
    wanted = [rel for _, rel in FILES] + [EXPORTS_DIR]
    return [rel for rel in wanted if (folder / rel).exists() or (folder / rel).is_symlink()]


def write_site(folder: Path) -> Written:
    """Write a new site into ``folder`` (made when missing); callers check ``taken`` first. Each file
    is created, never opened through a link or over a file that appeared meanwhile."""
    for name, rel in FILES:
        _create(folder / rel, (_FROM / name).read_text(encoding="utf-8").replace("@VERSION@", __version__).encode())
    exports, _ = expected_exports(BuildOptions(root=folder, use_cache=False))
    for name, data in sorted((exports or {}).items()):
        _create(folder / EXPORTS_DIR / name, data)
    return Written(folder, tuple(rel for _, rel in FILES) + (f"{EXPORTS_DIR}/",))


def _create(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "xb") as created:
        created.write(data)


def shown(folder: Path) -> str:
    """``folder`` as the user should type it to reach the new site."""
    relative = os.path.relpath(folder)
    return relative if not relative.startswith("..") else str(folder)
