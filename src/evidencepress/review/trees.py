"""Obtain the two sides of a diff as site snapshots.

A side is named on the command line as one of:

- nothing (HEAD only): the working tree as it is, uncommitted and untracked
  files included, rendered in memory; nothing is written into the repository;
- a folder holding ``site.toml``: that site, rendered in memory;
- any other folder: a site already built by ``evidencepress build``;
- anything else: a git revision, checked out into a temporary worktree
  (removed again in every case) and rendered in memory.

Sites are rendered by the evidencepress that runs the diff, through the
build's own ``plan_site`` and ``render_site``: the report shows what the
content change does, not what a change of the tool does. Both sides share
private caches in a temporary folder (the charts one seeded with a copy of
the working tree's ``.cache/charts``), so a chart that is the same on both
sides is drawn at most once and nothing is written into ``.cache/``.

Reported results are verified against a vault (``sources/``): a git
revision's checkout has none (sites do not commit it), so both revisions, and
the working tree, read the working tree's vault (its documents are named by
their digests: one document is the same on both sides); a site folder reads
its own. A value that is not on its cited line is a warning here, not an
error, so that the report can show it (``check`` fails on it).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from jinja2 import TemplateError

from ..build.recipe import CACHE_ROOT, plan_site, render_site
from ..cache.caches import CHARTS
from ..core.diagnostics import Problem
from ..core.options import BuildOptions, ConfigError
from ..output.article import template_problem
from .git import GitError, Revision, checkout, removed_even_if_killed, resolve, site_prefix
from .snapshot import SiteSnapshot, SnapshotError, site_snapshot

WORKING_TREE = "working tree"
_BUILT_NAMES = ("index.json", "index.md")


class DiffUsageError(Exception):
    """A side cannot be obtained: not a folder, revision or site (exit code 2)."""


class BuildFailed(Exception):
    """A side has content errors; ``problems`` holds them all (exit code 1)."""

    def __init__(self, role: str, label: str, problems: list[Problem]) -> None:
        errors = sum(1 for problem in problems if problem.is_error)
        super().__init__(f"the {role} side, {label}, does not build: {errors} error{'' if errors == 1 else 's'}")
        self.problems = problems


@dataclass(frozen=True)
class DiffOptions:
    root: Path  # the site root of the working tree; git revisions are looked up in its repository
    jobs: int = 1


def load_sides(base: str, head: str | None, options: DiffOptions) -> tuple[SiteSnapshot, SiteSnapshot]:
    """(BASE, HEAD) snapshots; HEAD None is the working tree."""
    with removed_even_if_killed(options.root, Path(tempfile.mkdtemp(prefix="evidencepress-diff-"))) as work:
        caches = work / "cache"
        _seed(options.root / CACHE_ROOT / CHARTS, caches / CHARTS)
        loader = _Loader(options, work, caches)
        old = loader.side("BASE", base)
        new = loader.side("HEAD", head) if head is not None else loader.site("HEAD", WORKING_TREE, options.root)
    return old, new


@dataclass(frozen=True)
class _Loader:
    options: DiffOptions
    work: Path
    caches: Path  # private caches of this diff, shared by both sides

    def side(self, role: str, name: str) -> SiteSnapshot:
        folder = Path(name)
        if _is_folder(folder):
            if not name.startswith(("/", "./", "../", "~")) and self.is_revision(name):
                raise DiffUsageError(f"{name!r} is both a folder and a git revision: write ./{name} for the folder, "
                                     f"or {name}^{{commit}} for the revision")
            if (folder / "site.toml").is_file():
                return self.site(role, name, folder, vault_root=folder)
            return built_snapshot(name, folder)
        revision = self.revision(name)
        with checkout(self.options.root, revision, self.work / role.lower()) as tree:
            return self.site(role, revision.label, tree / self.prefix())

    def revision(self, name: str) -> Revision:
        try:
            return resolve(self.options.root, name)
        except GitError as exc:
            raise DiffUsageError(str(exc)) from None

    def is_revision(self, name: str) -> bool:
        try:
            resolve(self.options.root, name)
        except GitError:
            return False
        return True

    def prefix(self) -> str:
        try:
            return site_prefix(self.options.root)
        except GitError as exc:
            raise DiffUsageError(str(exc)) from None

    def site(self, role: str, label: str, root: Path, vault_root: Path | None = None) -> SiteSnapshot:
        """The site at ``root``, verified against the vault of ``vault_root`` (default: the working tree)."""
        options = BuildOptions(root=root, jobs=self.options.jobs, cache_root=self.caches,
                               vault_root=vault_root or self.options.root, absent_is_error=False)
        try:
            plan, problems = plan_site(options)
        except ConfigError as exc:
            first = exc.problems[0]
            raise DiffUsageError(f"the {role} side, {label}, is not a site: {first.message} ({first.hint})") from None
        if plan is None:
            raise BuildFailed(role, label, problems)
        try:
            files = render_site(plan, options)
        except TemplateError as exc:
            raise BuildFailed(role, label, [*problems, template_problem(exc, root)]) from None
        return site_snapshot(label, files, {page.url for page in plan.pages}, tuple(problems))


def _is_folder(path: Path) -> bool:
    """False, not OSError, for a name no file system holds (a 10,000-character revision)."""
    try:
        return path.is_dir()
    except OSError:
        return False


def built_snapshot(label: str, folder: Path) -> SiteSnapshot:
    """A folder written by ``evidencepress build``; only page documents, their text and SVGs are read
    (and only when its top holds the site's index.json: ``diff /`` does not walk the file system)."""
    if not (folder / "index.json").is_file():
        raise DiffUsageError(f"{label} is neither a site (no site.toml) nor a built site (no index.json)")
    try:
        files = dict(_built_files(folder))
    except OSError as exc:
        raise DiffUsageError(f"{label}: cannot read {exc.filename}: {exc.strerror}") from None
    if "index.json" not in files:
        raise DiffUsageError(f"{label} is neither a site (no site.toml) nor a built site (no index.json)")
    try:
        return site_snapshot(label, files)
    except SnapshotError as exc:
        raise DiffUsageError(f"{label}: {exc}") from None


def _built_files(folder: Path) -> Iterator[tuple[str, bytes]]:
    for current, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            path = Path(current) / name
            if (name in _BUILT_NAMES or name.endswith(".svg")) and path.is_file():
                yield path.relative_to(folder).as_posix(), path.read_bytes()


def _seed(source: Path, target: Path) -> None:
    """Copy the working tree's cached chart drawings into the diff's private cache: read, never written
    (a copy, not a link, so that nothing the diff does to its cache reaches the repository's)."""
    if source.is_dir():
        try:
            shutil.copytree(source, target)
        except (OSError, shutil.Error):
            shutil.rmtree(target, ignore_errors=True)
