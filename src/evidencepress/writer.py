"""Write stage: the only code that touches the output folders.

All folders of one build are written in full into temporary siblings first,
then swapped into place one after the other; a failure before the swaps
leaves every previous folder untouched and removes the temporary ones.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Mapping

Tree = Mapping[str, bytes]  # POSIX relative path -> bytes


def write_trees(trees: Mapping[Path, Tree]) -> None:
    """Replace each target folder by a folder holding exactly its files.

    Raises OSError (disk full, permission denied ...) with nothing changed.
    """
    staged: list[tuple[Path, Path]] = []
    try:
        for target in sorted(trees):
            staged.append((_stage(target, trees[target]), target))
    except BaseException:
        for staging, _ in staged:
            shutil.rmtree(staging, ignore_errors=True)
        raise
    for staging, target in staged:
        _swap(staging, target)


def _stage(target: Path, files: Tree) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
    try:
        for rel in sorted(files):
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(files[rel])
        staging.chmod(0o755)  # mkdtemp makes 0700; a published folder must be readable
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging


def _swap(staging: Path, target: Path) -> None:
    if not target.exists():
        os.replace(staging, target)
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    os.rmdir(retired)
    os.replace(target, retired)
    try:
        os.replace(staging, target)
    except BaseException:
        os.replace(retired, target)
        raise
    shutil.rmtree(retired, ignore_errors=True)


def read_tree(target: Path) -> dict[str, bytes]:
    """Every file under ``target`` by POSIX relative path (for `check`)."""
    if not target.is_dir():
        return {}
    return {p.relative_to(target).as_posix(): p.read_bytes() for p in sorted(target.rglob("*")) if p.is_file()}
