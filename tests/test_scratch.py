"""A build's scratch folders in the temporary folder: removed when it ends, and by a later build
when it was killed (SIGKILL ends no ``with`` block: the folders of killed builds stayed in /tmp)."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from sitekit import article, export, make_site, result

from evidencepress.build.recipe import build_site
from evidencepress.core.options import BuildOptions
from evidencepress.core.scratch import ABANDONED_AFTER_SECONDS, remove_abandoned, scratch_folder

KILLED_WHILE_WRITING = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from evidencepress.build.recipe import build_site
    from evidencepress.core.options import BuildOptions

    def checkpoint(step):
        os.kill(os.getpid(), signal.SIGKILL)  # the first step of the write: every scratch folder is made

    build_site(BuildOptions(root=Path(sys.argv[1]), jobs=1, use_cache=False), checkpoint=checkpoint)
""")


def _ours(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(("evidencepress-records-", "evidencepress-drawings-")))


def _aged(folder: Path, seconds: float = ABANDONED_AFTER_SECONDS + 60) -> Path:
    then = time.time() - seconds
    os.utime(folder, (then, then))
    return folder


def _site(root: Path) -> Path:
    return make_site(root, {"guides/a.md": article("A", export_doc=export(result("Decode", 41.5)))})


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder of this process, and of the processes it starts."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("TMPDIR", str(folder))
    return folder


def test_a_build_killed_leaves_its_scratch_folders_and_the_next_build_removes_them(tmp_path: Path, temp: Path) -> None:
    root = _site(tmp_path / "site")
    killed = subprocess.run([sys.executable, "-c", KILLED_WHILE_WRITING, str(root)], capture_output=True, text=True,
                            check=False)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    left = _ours(temp)
    assert [name.split("-")[1] for name in left] == ["drawings", "records"]
    (temp / left[1] / "0.pickle").write_bytes(b"a record page rendered apart")
    for name in left:
        _aged(temp / name)

    assert not [p for p in build_site(BuildOptions(root=root, jobs=1, use_cache=False)) if p.is_error]
    assert _ours(temp) == []


def test_a_build_removes_its_scratch_folders_when_it_ends(tmp_path: Path, temp: Path) -> None:
    assert not [p for p in build_site(BuildOptions(root=_site(tmp_path / "site"), jobs=2)) if p.is_error]
    assert _ours(temp) == []


def test_a_folder_a_running_build_holds_is_never_removed(temp: Path) -> None:
    with scratch_folder("records") as held:
        (held / "0.pickle").write_bytes(b"in use")
        _aged(held)
        assert remove_abandoned(temp) == []
        assert (held / "0.pickle").read_bytes() == b"in use"
    assert not held.exists()


def test_only_old_unheld_folders_of_ours_are_removed(temp: Path) -> None:
    abandoned = _aged(Path(tempfile.mkdtemp(prefix="evidencepress-drawings-")))
    young = Path(tempfile.mkdtemp(prefix="evidencepress-records-"))
    others = []
    for name in ("evidencepress-diff-x", "evidencepress-tests-0", "records-x"):
        (temp / name).mkdir()
        others.append(_aged(temp / name))
    target = temp / "elsewhere"
    target.mkdir()
    (target / "keep").write_text("not ours")
    _aged(target)
    link = temp / "evidencepress-records-link"
    link.symlink_to(target, target_is_directory=True)

    assert remove_abandoned(temp) == [abandoned]
    assert not abandoned.exists()
    assert young.is_dir() and all(other.is_dir() for other in others)
    assert link.is_symlink() and (target / "keep").read_text() == "not ours"


def test_a_folder_locked_by_another_process_is_left_alone(temp: Path) -> None:
    folder = _aged(Path(tempfile.mkdtemp(prefix="evidencepress-records-")))
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import fcntl, os, sys
        fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        print("held", flush=True)
        sys.stdin.read()
    """), str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert remove_abandoned(temp) == [] and folder.is_dir()
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait()
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released with its process
    os.close(descriptor)
    assert remove_abandoned(temp) == [folder]
