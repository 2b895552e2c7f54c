"""Real `evidencepress build` processes. A signal while it draws stops it at once, through its
``finally`` blocks (no staged folder left, the previous output untouched), and no worker process
outlives it, not even when it is killed with SIGKILL (issue 25: 2 workers of 85 MB each were left
blocked forever). Two builds of one site run one after the other (the second deleted the first's
staged folder)."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sitekit import CHART, article, export, group_members, make_site, result, tree, wait_until

from evidencepress.build.recipe import build_site
from evidencepress.core.options import BuildOptions

PATIENCE = 60.0  # seconds before a wait is a hang: it ends a stuck test, no result depends on it
CHARTS = 200

pytestmark = [
    pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads the processes in /proc"),
    pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="drawing workers are started on 2 cores or more"),
]


def _hidden(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith(("._site.", ".exports.")))


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site built once (one page), then given CHARTS articles with a chart each: the next build draws."""
    root = make_site(tmp_path_factory.mktemp("signals") / "site", {"guides/first.md": article("First")})
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    for number in range(CHARTS):
        text = article(f"Charted {number}", "Text.\n" + CHART,
                       export(result("Run A", 40 + number + 0.5), result("Run B", 30 + number)))
        (root / "content" / "guides" / f"c{number}.md").write_text(text, encoding="utf-8")
    return root


class Build:
    """`evidencepress build` in a process group of its own, its output in files (a pipe held open by
    an orphaned worker would never end)."""

    started = 0  # builds so far: each has a log of its own

    def __init__(self, root: Path, *more: str) -> None:
        self.root = root
        Build.started += 1
        self.log = root.parent / f"{root.name}.{Build.started}.stderr"
        with open(self.log, "w") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "evidencepress.cli", "build", "--root", str(root), "--jobs", "2", *more],
                stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)
        self.group = self.process.pid  # a new session: its group is its pid

    def drawing(self) -> None:
        """Wait until it draws: its staged folder exists and its two workers run beside it."""
        wait_until(lambda: bool(_hidden(self.root)) and len(group_members(self.group)) >= 3,
                   "the build staged its folder and started its workers")

    def stderr(self) -> str:
        return self.log.read_text()

    def __del__(self) -> None:
        for pid in group_members(self.group):  # a failed test leaves nothing running
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def site(template: Path, tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    root = tmp_path / "site"
    shutil.copytree(template, root)
    return root, tree(root / "_site")


@pytest.mark.parametrize(("signum", "to_group", "code"), [
    (signal.SIGTERM, False, 143),  # `kill PID`, a CI runner cancelling a job
    (signal.SIGINT, True, 130),  # Ctrl-C: the terminal signals every process of the foreground group
    (signal.SIGINT, False, 130),
])
def test_a_signal_stops_the_build_while_it_draws(site: tuple[Path, dict[str, bytes]], signum: int, to_group: bool,
                                                 code: int) -> None:
    root, before = site
    build = Build(root, "--no-cache")
    build.drawing()
    (os.killpg if to_group else os.kill)(build.group, signum)
    assert build.process.wait(timeout=PATIENCE) == code, build.stderr()
    assert build.stderr().splitlines()[-1] == f"build interrupted by {signal.Signals(signum).name}"
    assert "Traceback" not in build.stderr()
    # No worker left: killed before the build exits. The fork server and the resource tracker of a
    # build that started large (its parent's peak memory counts: Linux keeps it across exec) end a
    # moment after it, by themselves.
    wait_until(lambda: group_members(build.group) == [], "no process of the build left")
    assert _hidden(root) == []  # the staged folders are removed
    assert tree(root / "_site") == before


def test_workers_die_with_a_build_killed_with_sigkill(site: tuple[Path, dict[str, bytes]]) -> None:
    root, before = site
    build = Build(root, "--no-cache")
    build.drawing()
    os.kill(build.process.pid, signal.SIGKILL)
    assert build.process.wait(timeout=PATIENCE) == -signal.SIGKILL
    wait_until(lambda: group_members(build.group) == [], "the workers died with their parent")
    assert tree(root / "_site") == before  # the staged folders stay until the next build removes them
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
    assert _hidden(root) == []


def _waits_for(build: Build, pid: int) -> None:
    line = f"waiting for another build of the site at {build.root} (pid {pid}) to finish"
    wait_until(lambda: line in build.stderr().splitlines(), f"the line {line!r}")


def test_a_build_waits_while_another_holds_the_lock(tmp_path: Path) -> None:
    root = make_site(tmp_path / "site", {"guides/a.md": article("A")})
    held = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a build holds it
        build = Build(root)
        _waits_for(build, os.getpid())
        assert build.process.poll() is None and _hidden(root) == [] and not (root / "_site").exists()
    finally:
        os.close(held)
    assert build.process.wait(timeout=PATIENCE) == 0, build.stderr()
    assert build.stderr().count("waiting for another build") == 1
    assert (root / "_site" / "index.html").is_file()


def test_two_overlapping_builds_of_one_site_both_succeed(site: tuple[Path, dict[str, bytes]]) -> None:
    root, _ = site
    first = Build(root, "--no-cache")
    first.drawing()
    second = Build(root)
    _waits_for(second, first.process.pid)
    assert first.process.wait(timeout=PATIENCE) == 0, first.stderr()
    written = tree(root / "_site")
    assert second.process.wait(timeout=PATIENCE) == 0, second.stderr()
    assert tree(root / "_site") == written and len(written) > CHARTS
    assert _hidden(root) == []
