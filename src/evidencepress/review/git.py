"""Git, for `diff`: resolve a revision and check it out into a temporary worktree.

Every worktree made here is removed again, whatever happens while it is in
use (an error, Ctrl-C, SIGTERM): ``checkout`` is a context manager, and the
command turns the signals into an exception (``core.signals.interrupts``) so
that its ``finally`` runs. A diff killed outright (SIGKILL, the OOM killer)
runs no ``finally``: ``removed_even_if_killed`` leaves a small guard process
that removes the diff's temporary folder, and forgets its worktrees, once the
diff and every git it started are gone. Repository hooks are switched off for
the checkout.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path


class GitError(Exception):
    """Git cannot do what `diff` needs: not a repository, unknown revision, no git."""


@dataclass(frozen=True)
class Revision:
    name: str  # as the user wrote it: origin/main, HEAD~1
    commit: str  # full hex id

    @property
    def label(self) -> str:
        """``origin/main (1a2b3c4)``; a commit id given as such is shortened."""
        if self.commit.startswith(self.name.lower()):
            return self.commit[:7] if len(self.name) >= 7 else self.name
        return f"{self.name} ({self.commit[:7]})"


def _shown(name: str, most: int = 80) -> str:
    """A name as a message quotes it: a 10,000-character one cut short."""
    return repr(name if len(name) <= most else name[:most] + "…")


def resolve(root: Path, name: str) -> Revision:
    if name.startswith("-"):
        raise GitError(f"{_shown(name)} is not a revision")
    try:
        _git(root, "rev-parse", "--git-dir")
    except GitError:
        raise GitError(f"{root} is not in a git repository, so {_shown(name)} (not a folder) cannot be a revision; "
                       "give two folders, or run diff in the site's repository") from None
    try:
        commit = _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}")
    except GitError:
        raise GitError(f"{_shown(name)} is neither a folder nor a commit of the git repository at {root}") from None
    return Revision(name, commit)


def site_prefix(root: Path) -> str:
    """Where the site root stands inside its repository: "" or "site/"."""
    return _git(root, "rev-parse", "--show-prefix")


@contextmanager
def checkout(root: Path, revision: Revision, folder: Path) -> Iterator[Path]:
    """A detached worktree of ``revision`` at ``folder`` (which must not exist); removed on exit."""
    try:
        _git(root, "worktree", "add", "--detach", "--quiet", str(folder), revision.commit,
             config=("core.hooksPath=/dev/null",))
        yield folder
    finally:
        _remove(root, folder)


def _remove(root: Path, folder: Path) -> None:
    try:
        _git(root, "worktree", "remove", "--force", "--force", str(folder))
    except GitError:
        # Half made (interrupted during `worktree add`) or already gone: delete the files, forget the entry.
        shutil.rmtree(folder, ignore_errors=True)
        with suppress(GitError):
            _git(root, "worktree", "prune")


def _git(root: Path, *args: str, config: tuple[str, ...] = ()) -> str:
    settings = [part for setting in config for part in ("-c", setting)]
    command = ["git", *settings, "-C", str(root), *args]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL,
                              pass_fds=tuple(_guards_waiting))
    except FileNotFoundError:
        raise GitError("git is not installed; diff of revisions needs it (two built folders do not)") from None
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()
        raise GitError(message[-1] if message else f"git {' '.join(args)} failed")
    return done.stdout.strip()


# Waits for its standard input to end (the diff closed it, or died, and so did every git the diff
# started: each holds the pipe too), then removes the folder and forgets the worktrees git no longer
# finds. Its own session: Ctrl-C or a kill of the diff's group does not reach it.
_GUARD = """
import os, shutil, signal, subprocess, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
root, folder = sys.argv[1], sys.argv[2]
sys.stdin.buffer.read()
if os.path.isdir(folder):
    shutil.rmtree(folder, ignore_errors=True)
    subprocess.run(["git", "-C", root, "worktree", "prune"], stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
"""


# The guards' pipes, which every git started meanwhile inherits: a diff killed during `git worktree
# add` left that git running, and it made the worktree after the guard had removed the folder.
_guards_waiting: list[int] = []


@contextmanager
def removed_even_if_killed(root: Path, folder: Path) -> Iterator[Path]:
    """``folder`` (a temporary folder that holds worktrees of ``root``'s repository) is removed
    when the block ends, and also when this process is killed inside it."""
    guard = subprocess.Popen([sys.executable, "-c", _GUARD, str(root), str(folder)], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    assert guard.stdin is not None
    _guards_waiting.append(guard.stdin.fileno())
    try:
        yield folder
    finally:
        _guards_waiting.remove(guard.stdin.fileno())
        shutil.rmtree(folder, ignore_errors=True)
        guard.stdin.close()  # the guard finds nothing to do, and ends
        guard.wait()
