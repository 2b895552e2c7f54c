"""axe-core over the pages a reader starts from, in Debian's Chromium (issue 28 item 9).

The project's own site is built once per test session (one build shared by the pytest-xdist
workers) and served under a sub-path the way a static host serves it. Home, an article with charts,
data tables and inline values, a source-record page, /explore/ (its table rendered), /data/ (the
index of the data files) and /search/ (the Pagefind UI showing results) are each opened light and dark, 1280 and 375 px wide; axe-core
(npm ``axe-core``, pinned in tools/axe/package-lock.json, installed by make into .browser-tools/) is
injected and any violation of impact serious or critical fails, listed by rule, impact, help and
the first targets.

Without npm (so without axe-core), Chromium or Playwright these tests skip and say why; with
EVIDENCEPRESS_REQUIRE_BROWSER=1 (set by .ci/run) that is a failure instead.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browserkit import BASE_PATH, REQUIRED, served
from click.testing import CliRunner
from sitekit import REPO
from test_build import copy_project

from evidencepress.cli import main

# Variants allowed to fail, each with the rules it fails (serious or critical), while a fix is under way:
# a variant here must fail with exactly these rules (a rule no longer found, or any other, fails the
# test), and passing outright is an XPASS, which fails too. None today: every variant passes.
KNOWN_VIOLATIONS: dict[str, set[str]] = {}

AXE = REPO / ".browser-tools" / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
TARGETS_SHOWN = 5
# page name -> (path under the base, a selector that shows the page is ready)
PAGES = {
    "home": ("", "main h1"),
    "article": ("guides/qwen-flash-next-concurrency-latency/", "figure.chart svg"),
    "record": ("community/qwen38-flash-next-tp2-concurrency-context/", "main h1"),
    "explore": ("explore/", "#explore-table tbody tr"),
    "search": ("search/?q=Kimi", ".pagefind-ui__result-link"),
    "data": ("data/", "main table.data-files tbody tr"),
    # its code blocks scroll sideways: they were not reachable by keyboard (scrollable-region-focusable)
    "for-ai": ("for-ai/", "main pre"),
}
SCHEMES = ("light", "dark")
VIEWPORTS = {1280: 900, 375: 800}


class KnownViolations(Exception):
    """A variant failed with exactly the rules KNOWN_VIOLATIONS lists for it."""


def _variants() -> Iterator[Any]:
    for scheme in SCHEMES:
        for width in VIEWPORTS:
            for name in PAGES:
                variant = f"{name}-{scheme}-{width}"
                known = KNOWN_VIOLATIONS.get(variant)
                marks = [] if known is None else [pytest.mark.xfail(
                    strict=True, raises=KnownViolations, reason="known: " + ", ".join(sorted(known)))]
                yield pytest.param(name, scheme, width, id=variant, marks=marks)


@pytest.fixture(scope="session")
def axe_script() -> Path:
    if not AXE.is_file():
        missing = ("npm not found, so axe-core is not installed (apt-get install npm, then make setup)"
                   if shutil.which("npm") is None else f"axe-core is not installed at {AXE} (make setup)")
        if REQUIRED:
            pytest.fail(f"EVIDENCEPRESS_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)
    return AXE


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's site under /site/, built by the first worker that needs it, reused by the others."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's folder, which every worker's own folder sits in
    folder = shared / "accessibility"
    out = folder / "public"
    with open(shared / "accessibility.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "built").is_file():
            shutil.rmtree(folder, ignore_errors=True)
            root = copy_project(folder / "project")
            outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--out", str(out),
                                                "--base-url", "https://example.org" + BASE_PATH])
            assert outcome.exit_code == 0, outcome.output
            (folder / "built").touch()
    return out


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    with served(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def contexts(browser: Any) -> Iterator[dict[tuple[str, int], Any]]:
    """One browser context per colour scheme and width, made when first asked for."""
    made: dict[tuple[str, int], Any] = {}
    yield made
    for context in made.values():
        context.close()


def _context(contexts: dict[tuple[str, int], Any], browser: Any, scheme: str, width: int) -> Any:
    if (scheme, width) not in contexts:
        contexts[scheme, width] = browser.new_context(
            viewport={"width": width, "height": VIEWPORTS[width]}, color_scheme=scheme)
    return contexts[scheme, width]


def axe_violations(page: Any, script: Path) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it stands, every impact."""
    page.add_script_tag(path=str(script))
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return found


def describe(violations: list[dict[str, Any]]) -> str:
    lines = []
    for violation in violations:
        targets = [" ".join(map(str, node["target"])) for node in violation["nodes"]]
        shown = "; ".join(targets[:TARGETS_SHOWN]) + ("; ..." if len(targets) > TARGETS_SHOWN else "")
        lines.append(f"  {violation['id']} ({violation['impact']}, {len(targets)} nodes): {violation['help']}\n"
                     f"    {shown}")
    return "\n".join(lines)


@pytest.mark.parametrize(("name", "scheme", "width"), list(_variants()))
def test_no_serious_or_critical_axe_violation(browser: Any, contexts: dict[tuple[str, int], Any], site_url: str,
                                              axe_script: Path, name: str, scheme: str, width: int) -> None:
    variant = f"{name}-{scheme}-{width}"
    path, ready = PAGES[name]
    page = _context(contexts, browser, scheme, width).new_page()
    try:
        page.goto(site_url + path, wait_until="networkidle")
        page.locator(ready).first.wait_for(state="attached", timeout=15000)
        violations = axe_violations(page, axe_script)
    finally:
        page.close()
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    found = {v["id"] for v in blocking}
    known = KNOWN_VIOLATIONS.get(variant, set())
    report = f"{variant} ({site_url}{path}):\n{describe(blocking)}"
    assert found <= known, f"serious or critical axe-core violations on {report}"
    assert found == known, (f"{variant} no longer violates {sorted(known - found)}: "
                            f"take them out of KNOWN_VIOLATIONS\n{report}")
    if known:
        raise KnownViolations(report)
