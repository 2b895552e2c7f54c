"""Atomic output under kill -9: fault injection at every step of the write.

A build of version 2 of a site is killed (SIGKILL, in a child process) at
each checkpoint of the writer in turn. After every kill, ``_site/`` and
``exports/`` must each be the complete tree of version 1 or of version 2;
the next build must leave both at version 2 with no hidden leftovers.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from sitekit import article, export, make_site, result, tree

from evidencepress.build.recipe import build_site
from evidencepress.core import filestate
from evidencepress.core.options import BuildOptions
from evidencepress.output.writer import wait_for_removals

KILLER = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from evidencepress.output import writer
    from evidencepress.build.recipe import build_site
    from evidencepress.core.options import BuildOptions

    root, kill_at, portable = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "portable"
    cached = sys.argv[4:] == ["cached"]
    if portable:
        writer._RENAMEAT2 = None  # the two-renames swap of file systems without RENAME_EXCHANGE
    steps = []

    def checkpoint(step):
        steps.append(step)
        if len(steps) == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    build_site(BuildOptions(root=root, jobs=1, use_cache=cached), checkpoint=checkpoint)
    print(len(steps))
""")


def _version(root: Path, number: int) -> Path:
    results = [result(f"Run {i}", 40.0 + i + number) for i in range(3)]
    pages = {f"guides/p{i}.md": article(f"Page {i} v{number}", export_doc=export(*results)) for i in range(3)}
    if number == 2:
        pages["guides/new.md"] = article("Added in version 2")
    return make_site(root, pages)


def _built(root: Path, number: int) -> tuple[dict[str, bytes], dict[str, bytes]]:
    _version(root, number)
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1, use_cache=False)) if p.is_error]
    return tree(root / "_site"), tree(root / "exports")


def _hidden(root: Path) -> list[str]:
    wait_for_removals()  # the old trees of the builds of this process (the command waits for them at exit)
    return sorted(p.name for p in root.iterdir() if p.name.startswith(("._site.", ".exports.")))


def _kill(root: Path, step: int, mode: str, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", KILLER, str(root), str(step), mode, *more],
                          capture_output=True, text=True, check=False)


@pytest.mark.parametrize("mode", ["renameat2", "portable"])
def test_kill_at_every_step_leaves_a_complete_old_or_new_output(tmp_path: Path, mode: str) -> None:
    old = _built(tmp_path / "old", 1)
    new = _built(tmp_path / "new", 2)
    assert old[0] != new[0] and old[1] != new[1]
    template = tmp_path / "template"
    shutil.copytree(tmp_path / "old", template)
    _version(template, 2)  # version 1 built, version 2 written: the next build changes everything

    steps = int(_kill(template, 0, mode).stdout)  # kill_at 0: never killed, counts the steps
    assert steps >= 8
    for step in range(1, steps + 1):
        root = tmp_path / f"kill-{step}"
        shutil.copytree(template, root)
        shutil.rmtree(root / "_site")
        shutil.copytree(tmp_path / "old" / "_site", root / "_site")
        outcome = _kill(root, step, mode)
        assert outcome.returncode == -signal.SIGKILL, (step, outcome.stderr)
        site, exports = tree(root / "_site"), tree(root / "exports")
        assert site in (old[0], new[0]), f"_site/ is neither old nor new after a kill at step {step}"
        assert exports in (old[1], new[1]), f"exports/ is neither old nor new after a kill at step {step}"
        assert not [p for p in build_site(BuildOptions(root=root, jobs=1, use_cache=False)) if p.is_error]
        assert (tree(root / "_site"), tree(root / "exports")) == new, step
        assert _hidden(root) == [], step
        assert not (root / ".cache" / "write-journal.json").exists()


def test_a_cached_build_killed_at_every_step_leaves_caches_the_next_build_trusts(tmp_path: Path) -> None:
    """The caches take a build's pages as they are made, in a transaction open until the end: a
    kill at any step of the write leaves databases from which the next build makes the new site."""
    new = _built(tmp_path / "new", 2)
    template = tmp_path / "template"
    _version(template, 1)
    assert not [p for p in build_site(BuildOptions(root=template, jobs=1)) if p.is_error]  # cached
    _version(template, 2)  # the caches hold version 1: a build of version 2 saves every page
    shutil.copytree(template, tmp_path / "probe")
    steps = int(_kill(tmp_path / "probe", 0, "renameat2", "cached").stdout)
    for step in range(1, steps + 1):
        root = tmp_path / f"kill-{step}"
        shutil.copytree(template, root)
        outcome = _kill(root, step, "renameat2", "cached")
        assert outcome.returncode == -signal.SIGKILL, (step, outcome.stderr)
        assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
        assert (tree(root / "_site"), tree(root / "exports")) == new, step
        assert sorted(p.name for p in (root / ".cache").glob("*.sqlite*")) == ["pages.sqlite", "rendered.sqlite"]


def test_an_interrupted_swap_is_finished_by_the_next_run(tmp_path: Path) -> None:
    """Killed between the two exchanges: the next run completes the same build's swap."""
    old = _built(tmp_path / "old", 1)
    new = _built(tmp_path / "new", 2)
    root = tmp_path / "site"
    shutil.copytree(tmp_path / "old", root)
    _version(root, 2)
    steps: list[str] = []
    probe = tmp_path / "probe"
    shutil.copytree(root, probe)
    build_site(BuildOptions(root=probe, jobs=1, use_cache=False), checkpoint=steps.append)
    first_exchange = steps.index(next(s for s in steps if s.startswith("exchanged"))) + 1
    outcome = _kill(root, first_exchange, "renameat2")
    assert outcome.returncode == -signal.SIGKILL
    assert (tree(root / "_site"), tree(root / "exports")) in ((old[0], new[1]), (new[0], old[1]))
    assert (root / ".cache" / "write-journal.json").is_file()
    from evidencepress.output.writer import recover

    recover(root / ".cache" / "write-journal.json", [root / "_site", root / "exports"])
    assert (tree(root / "_site"), tree(root / "exports")) == new
    assert _hidden(root) == []


def test_leftovers_of_a_build_killed_while_staging_are_removed(tmp_path: Path) -> None:
    root = _version(tmp_path / "site", 1)
    (root / "._site.new-abc123").mkdir()
    (root / "._site.new-abc123" / "half.html").write_text("half")
    (root / ".exports.old-xyz").mkdir()
    (root / ".unrelated").mkdir()
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1, use_cache=False)) if p.is_error]
    assert _hidden(root) == [] and (root / ".unrelated").is_dir()


def _failing_at(call: int, real: Callable[..., None], calls: list[int]) -> Callable[..., None]:
    """``real``, except that its ``call``-th call raises ENOSPC (every call is counted in ``calls``)."""
    def fake(*args: object, **kwargs: object) -> None:
        calls.append(1)
        if len(calls) == call:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(*args, **kwargs)

    return fake


@pytest.mark.parametrize(("function", "mode"), [("fsync", "renameat2"), ("replace", "renameat2"),
                                                ("replace", "portable")])
def test_every_failed_fsync_or_rename_leaves_the_old_output_and_no_staging(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, function: str, mode: str) -> None:
    """An fsync failure on the journal left ._site.new-* and .exports.new-* behind while the build said
    "nothing was written" (issue 25). Each call of os.fsync / os.replace a build makes fails in turn."""
    from evidencepress.output import writer

    if mode == "portable":
        monkeypatch.setattr(writer, "_RENAMEAT2", None)
    old = _built(tmp_path / "site", 1)
    root = _version(tmp_path / "site", 2)
    real = getattr(os, function)
    counted: list[int] = []
    with monkeypatch.context() as patch:
        patch.setattr(os, function, _failing_at(0, real, counted))
        shutil.copytree(root, tmp_path / "probe")
        assert not [p for p in build_site(BuildOptions(root=tmp_path / "probe", jobs=1, use_cache=False)) if p.is_error]
    assert counted, f"a build calls os.{function}"
    for call in range(1, len(counted) + 1):
        with monkeypatch.context() as patch:
            patch.setattr(os, function, _failing_at(call, real, []))
            problems = build_site(BuildOptions(root=root, jobs=1, use_cache=False))
        messages = [p.message for p in problems if p.is_error]
        assert messages == ["cannot write the site: No space left on device"], (call, messages)
        assert (tree(root / "_site"), tree(root / "exports")) == old, call
        assert _hidden(root) == [], call
        assert not list((root / ".cache").glob("write-journal.json*")), call


def test_a_build_staged_in_the_standby_tree_killed_at_every_step(tmp_path: Path) -> None:
    """A cached build stages in the standby tree (the output before the last one, kept under
    .cache/standby/): a kill at any step leaves the previous output whole, and the next build
    makes the new one from a standby tree left half written."""
    template = tmp_path / "template"
    for number in (1, 2):
        _version(template, number)
        assert not [p for p in build_site(BuildOptions(root=template, jobs=1)) if p.is_error]
    old = tree(template / "_site"), tree(template / "exports")
    assert len(list((template / ".cache" / "standby").iterdir())) == 2  # the first build's trees
    _version(template, 3)
    shutil.copytree(template, tmp_path / "v3", ignore=shutil.ignore_patterns(".cache", "_site", "exports"))
    assert not [p for p in build_site(BuildOptions(root=tmp_path / "v3", jobs=1, use_cache=False)) if p.is_error]
    new = tree(tmp_path / "v3" / "_site"), tree(tmp_path / "v3" / "exports")
    assert new != old
    shutil.copytree(template, tmp_path / "probe")
    steps = int(_kill(tmp_path / "probe", 0, "renameat2", "cached").stdout)
    assert steps >= 8
    for step in range(1, steps + 1):
        root = tmp_path / f"kill-{step}"
        shutil.copytree(template, root)
        outcome = _kill(root, step, "renameat2", "cached")
        assert outcome.returncode == -signal.SIGKILL, (step, outcome.stderr)
        assert tree(root / "_site") in (old[0], new[0]), f"_site/ is neither old nor new after a kill at step {step}"
        assert tree(root / "exports") in (old[1], new[1]), f"exports/ is neither after a kill at step {step}"
        assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
        assert (tree(root / "_site"), tree(root / "exports")) == new, step
        assert _hidden(root) == [], step


def test_a_file_both_trees_name_is_never_written_through(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first edit after a cold build hard-links its unchanged files from the tree it replaces
    (issue 27), so the standby tree and the live one name the same files. The next build stages in
    the standby tree: at no step may the live tree change (a changed file is removed and written
    anew), and its output is what a build without caches makes."""
    monkeypatch.setattr(filestate, "RACY_NS", 0)  # the builds are quicker than the racy window
    root = tmp_path / "site"

    def built(texts: list[str], checkpoint: Callable[[str], None] | None = None) -> None:
        make_site(root, {f"guides/p{i}.md": article(f"Page {i}", f"{text}\n\n## Part\n\nMore.\n",
                                                    export(result("Run", 40.5 + i))) for i, text in enumerate(texts)})
        assert not [p for p in build_site(BuildOptions(root=root, jobs=1), checkpoint=checkpoint) if p.is_error]

    built(["Text 0.", "Text 1.", "Text 2."])
    built(["Text 0, edited.", "Text 1.", "Text 2."])
    shared = root / "_site/guides/p1/index.html"
    assert shared.stat().st_nlink == 2, "the unchanged page was not linked into the new tree"
    live = tree(root / "_site"), tree(root / "exports")
    steps: list[str] = []

    def unchanged_live_tree(step: str) -> None:
        steps.append(step)
        if step.startswith(("staging", "staged")):
            assert (tree(root / "_site"), tree(root / "exports")) == live, step

    built(["Text 0, edited.", "Text 1, edited.", "Text 2."], unchanged_live_tree)
    assert "staged _site" in steps and shared.stat().st_nlink == 1  # written anew in the standby tree
    fresh = make_site(tmp_path / "fresh", {})
    shutil.copytree(root / "content", fresh / "content")
    assert not [p for p in build_site(BuildOptions(root=fresh, jobs=1, use_cache=False)) if p.is_error]
    assert tree(root / "_site") == tree(fresh / "_site") and tree(root / "exports") == tree(fresh / "exports")


def test_a_cold_cached_build_killed_at_every_step_then_built_again(tmp_path: Path) -> None:
    """A cold cached build makes the standby tree as a twin of its new tree, linking each file into
    it as it is written (issue 27): a kill at any step leaves no output or the new one, and the next
    build (staged in a twin left half made) makes the new site."""
    new = _built(tmp_path / "new", 2)
    template = tmp_path / "template"
    _version(template, 2)
    shutil.copytree(template, tmp_path / "probe")
    steps = int(_kill(tmp_path / "probe", 0, "renameat2", "cached").stdout)
    assert steps >= 6 and len(list((tmp_path / "probe/.cache/standby").iterdir())) == 2
    for step in range(1, steps + 1):
        root = tmp_path / f"kill-{step}"
        shutil.copytree(template, root)
        outcome = _kill(root, step, "renameat2", "cached")
        assert outcome.returncode == -signal.SIGKILL, (step, outcome.stderr)
        assert not (root / "_site").exists() or tree(root / "_site") == new[0], step
        assert not [p for p in build_site(BuildOptions(root=root, jobs=1)) if p.is_error]
        assert (tree(root / "_site"), tree(root / "exports")) == new, step
        assert _hidden(root) == [], step


@pytest.mark.parametrize("cached", [False, True])
def test_a_page_edited_after_it_was_validated_fails_the_build_and_keeps_the_old_output(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cached: bool) -> None:
    """The build lets go of page texts once they are validated and reads back those it renders again
    (issue 27): a page edited meanwhile is never published with text that was not validated."""
    from evidencepress.build import recipe

    old = _built(tmp_path / "site", 1)
    root = _version(tmp_path / "site", 2)
    planned = recipe.plan_site

    def edited_after(*args: object, **kwargs: object) -> object:
        plan = planned(*args, **kwargs)  # type: ignore[arg-type]
        (root / "content/guides/p1.md").write_text(article("Edited meanwhile"), encoding="utf-8")
        return plan

    monkeypatch.setattr(recipe, "plan_site", edited_after)
    problems = build_site(BuildOptions(root=root, jobs=1, use_cache=cached))
    assert [(str(p.location), p.message, p.hint) for p in problems if p.is_error] == [
        ("content/guides/p1.md", "cannot write the site: the page changed while the site was built: build again",
         "the previous output is in place; build again")]
    assert (tree(root / "_site"), tree(root / "exports")) == old
    assert _hidden(root) == []
    monkeypatch.undo()
    assert not [p for p in build_site(BuildOptions(root=root, jobs=1, use_cache=cached)) if p.is_error]
    assert b"Edited meanwhile" in (root / "_site/guides/p1/index.html").read_bytes()
