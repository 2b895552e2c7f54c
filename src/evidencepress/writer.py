"""Write stage: the only code that touches the output folders.

A folder is written in full into a temporary sibling, then swapped into
place; a failure before the swap leaves the previous folder untouched and
removes the temporary one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Mapping


def write_tree(target: Path, files: Mapping[str, bytes]) -> None:
    """Replace ``target`` by a folder holding exactly ``files`` (POSIX relative path -> bytes)."""
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=parent))
    try:
        for rel in sorted(files):
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(files[rel])
        _swap(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


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
