"""The browser fixtures: one Chromium for the session (skipped, or failed under
EVIDENCEPRESS_REQUIRE_BROWSER=1, where there is none; see browserkit.py) and a fresh page per test;
the example site built once per session (``example_site``), for tests that read its published files.

Tests marked ``forks`` check work done in forked workers. Where this process runs a thread
that Python does not know of (pytest-xdist's own, which talks to the controller), evidencepress
does not fork (``forking.fork_is_safe``); such a test then runs in a fresh pytest process of its
own, so that it forks as a build does, beside no thread at all.

numpy's OpenBLAS would start a thread of its own when a test module imports matplotlib: a build
never draws in its own process before it forks, and the tests' process is kept like it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browserkit import ARGS, CHROMIUM, REQUIRED, Visit, missing_browser

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before any test module imports numpy
# The caches' secret (core.seal) is made here, not in the home of whoever runs the tests.
os.environ.setdefault("XDG_CONFIG_HOME", os.path.join(tempfile.gettempdir(), f"evidencepress-tests-{os.getuid()}"))
# A build slowed by a loaded machine would print "progress: … (5 s)" lines into reports that tests compare whole.
os.environ.setdefault("EVIDENCEPRESS_PROGRESS_INTERVAL", "3600")

FRESH = "EVIDENCEPRESS_TEST_FRESH_PROCESS"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "forks: forks worker processes; runs in a fresh process beside a foreign thread")


def _unknown_threads() -> bool:
    try:
        return len(os.listdir("/proc/self/task")) > threading.active_count()
    except OSError:
        return False


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if pyfuncitem.get_closest_marker("forks") is None or os.environ.get(FRESH) or not _unknown_threads():
        return None  # runs here, as usual
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", pyfuncitem.nodeid],
        cwd=pyfuncitem.config.rootpath, env={**os.environ, FRESH: "1"}, capture_output=True, text=True, check=False)
    output = result.stdout + result.stderr
    if result.returncode != 0 or "multi-threaded" in output:
        pytest.fail(f"in a fresh process:\n{output}", pytrace=False)
    return True


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    missing = missing_browser()
    if missing:
        if REQUIRED:
            pytest.fail(f"EVIDENCEPRESS_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def visit(browser: Any) -> Iterator[Visit]:
    opened = Visit(browser)
    yield opened
    opened.close()


@pytest.fixture(scope="session")
def example_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the project's own site, built (read it, never write to it)."""
    from click.testing import CliRunner
    from test_build import copy_project

    from evidencepress.cli import main

    root = copy_project(tmp_path_factory.mktemp("example") / "project")
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "2"])
    assert outcome.exit_code == 0, outcome.output
    return root
