"""The git history of exports/: each published page document at every commit that changed it.

Git is an input like content/: ``read_export_history`` asks it, once per build, for the
commits that touched ``exports/`` (``git log``) and for the bytes of each changed page
document at each of them (one ``git cat-file --batch``). Only commits count: the working
tree's uncommitted exports/ is not history. Dates are the committer dates git records (in
the committer's own offset), never the clock. Outside a git repository the
history is empty (/changes/ says so; a note too when the site is in a repository but git is
missing); a shallow clone's history is incomplete, and a note says that.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..core.diagnostics import Location, Problem, note

EXPORTS = "exports"
RULE = "history"
_LOG_FORMAT = "--format=%x00%H %cI"


class _GitError(Exception):
    pass


@dataclass(frozen=True)
class Version:
    """One page document as a commit left it."""

    commit: str  # full hex id
    date: str  # the committer date, ISO 8601 with the committer's offset: 2026-10-18T09:30:00+02:00
    data: bytes | None  # the file's bytes at the commit (exactly `git show`'s); None: the commit deleted it


@dataclass(frozen=True)
class ExportHistory:
    head: str  # the HEAD commit; "" when there is none (not a repository, no commit yet)
    files: Mapping[str, tuple[Version, ...]] = field(default_factory=dict)  # guides/a.json -> newest first
    complete: bool = True  # False in a shallow clone
    problems: tuple[Problem, ...] = ()


def read_export_history(root: Path) -> ExportHistory:
    """Every version of every ``exports/**/*.json`` in the history of HEAD, newest first."""
    try:
        _git(root, "rev-parse", "--git-dir")
    except _GitError as exc:
        # Outside a repository there is no history to expect (/changes/ says so); in one without git, a note.
        missing = "not installed" in str(exc) and _in_repository(root)
        return ExportHistory("", problems=(_note(f"no history of the published data: {exc}"),) if missing else ())
    try:
        head = _git(root, "rev-parse", "--verify", "--quiet", "HEAD").decode().strip()
    except _GitError:
        return ExportHistory("")  # a repository without a commit: no history yet
    shallow = _git(root, "rev-parse", "--is-shallow-repository").decode().strip() == "true"
    prefix = _git(root, "rev-parse", "--show-prefix").decode().strip()
    folder = f"{prefix}{EXPORTS}/"
    log = _git(root, "-c", "core.quotePath=false", "log", _LOG_FORMAT, "--name-only", "--no-renames",
               "HEAD", "--", f":(top){folder}").decode("utf-8", errors="replace")
    changed: list[tuple[str, str, str]] = []  # (commit, date, path from the top), newest first
    for block in log.split("\x00")[1:]:
        first, _, names = block.partition("\n")
        commit, _, date = first.partition(" ")
        changed += [(commit, date, name) for name in names.split("\n")
                    if name.startswith(folder) and name.endswith(".json")]
    blobs = _blobs(root, [f"{commit}:{name}" for commit, _, name in changed])
    files: dict[str, list[Version]] = {}
    for (commit, date, name), data in zip(changed, blobs, strict=True):
        files.setdefault(name[len(folder):], []).append(Version(commit, date, data))
    problems = (_note("the repository is a shallow clone: the history of the published data is incomplete",
                      "check out the full history (actions/checkout with fetch-depth: 0, or git fetch "
                      "--unshallow)"),) if shallow else ()
    return ExportHistory(head, {name: tuple(versions) for name, versions in sorted(files.items())},
                         not shallow, problems)


def history_state(root: Path) -> str:
    """What the history depends on, for the build record: the HEAD commit and whether it is shallow."""
    try:
        return _git(root, "rev-parse", "--is-shallow-repository", "HEAD").decode().strip()
    except _GitError as exc:
        return f"none: {exc}"


def _in_repository(root: Path) -> bool:
    return any((folder / ".git").exists() for folder in (root.resolve(), *root.resolve().parents))


def _blobs(root: Path, objects: list[str]) -> list[bytes | None]:
    """The bytes of each ``commit:path`` (None: not at that commit), from one ``git cat-file --batch``."""
    if not objects:
        return []
    out = _git(root, "cat-file", "--batch", stdin="".join(f"{name}\n" for name in objects).encode())
    found: list[bytes | None] = []
    at = 0
    for _ in objects:
        end = out.index(b"\n", at)
        header = out[at:end].split(b" ")
        at = end + 1
        if len(header) != 3:  # "<name> missing"
            found.append(None)
            continue
        size = int(header[2])
        found.append(out[at:at + size])
        at += size + 1
    return found


def _git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    command = ["git", "-C", str(root), *args]
    try:
        done = subprocess.run(command, input=stdin, capture_output=True, check=False,
                              stdin=None if stdin is not None else subprocess.DEVNULL)
    except FileNotFoundError:
        raise _GitError("git is not installed") from None
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise _GitError(message[-1] if message else f"git {args[0]} failed")
    return done.stdout


def _note(message: str, hint: str = "") -> Problem:
    return note(Location(f"{EXPORTS}/"), message, RULE, hint=hint)
