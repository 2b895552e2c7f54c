"""--out replaces only a folder evidencepress made (or an empty one); static/ survives every build."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from sitekit import article, make_site, tree

from evidencepress.cli import main
from evidencepress.core import filestate
from evidencepress.output import writer
from evidencepress.output.writer import (
    FolderWriter,
    Standby,
    remove_tree,
    staged_folders,
    wait_for_removals,
    write_trees,
)


def _site(root: Path) -> Path:
    return make_site(root, {"guides/a.md": article("A")})


def _build(root: Path, *args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", *args])
    return outcome.exit_code, outcome.output


def test_a_folder_of_someone_elses_files_is_refused_and_untouched(tmp_path: Path) -> None:
    root = _site(tmp_path / "site")
    documents = tmp_path / "Documents"
    documents.mkdir()
    (documents / "thesis.txt").write_text("years of work")
    code, output = _build(root, "--out", str(documents))
    assert code == 2
    assert f"{documents}: error: the output folder {documents} holds files that evidencepress did not write; " \
           "building would replace them [output]" in output
    assert "hint: empty the folder or choose another; --force replaces it anyway" in output
    assert tree(documents) == {"thesis.txt": b"years of work"}


def test_force_replaces_it_and_then_it_is_ours(tmp_path: Path) -> None:
    root = _site(tmp_path / "site")
    out = tmp_path / "public"
    out.mkdir()
    (out / "old.txt").write_text("x")
    assert _build(root, "--out", str(out), "--force")[0] == 0
    assert "old.txt" not in tree(out) and "guides/a/index.html" in tree(out)
    assert _build(root, "--out", str(out))[0] == 0  # the marker says the folder is a previous build


def test_an_empty_folder_is_accepted(tmp_path: Path) -> None:
    root = _site(tmp_path / "site")
    (tmp_path / "empty").mkdir()
    assert _build(root, "--out", str(tmp_path / "empty"))[0] == 0
    assert (tmp_path / "empty" / ".evidencepress-output").is_file()


@pytest.mark.parametrize("out, message", [
    ("site.toml", "is a file"),
    (".git", "is the site's own .git/"),
    ("static", "is the site's own static/"),
])
def test_never_the_sites_own_files_even_with_force(tmp_path: Path, out: str, message: str) -> None:
    root = _site(tmp_path / "site")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    before = tree(root)
    code, output = _build(root, "--out", str(root / out), "--force")
    assert code == 2 and message in output
    assert tree(root) == before


def test_output_in_site_toml_is_checked_too(tmp_path: Path) -> None:
    root = _site(tmp_path / "site")
    text = (root / "site.toml").read_text()
    (root / "site.toml").write_text(text.replace('language = "en"', 'language = "en"\noutput = "site.toml"'))
    before = tree(root)
    code, output = _build(root)
    assert code == 2 and "is a file, not a folder" in output
    assert tree(root) == before


@pytest.mark.parametrize("kind", ["a file", "a link to nothing"])
@pytest.mark.parametrize("flags", [(), ("--no-cache",)])
def test_a_cache_path_that_is_not_a_folder_is_an_error_naming_it(tmp_path: Path, kind: str,
                                                                 flags: tuple[str, ...]) -> None:
    """A regular file .cache failed the build with "write-journal.json: Not a directory" (issue 25)."""
    root = _site(tmp_path / "site")
    assert _build(root)[0] == 0
    (root / ".cache").rename(tmp_path / "old-cache")
    if kind == "a file":
        (root / ".cache").write_text("not a folder")
    else:
        (root / ".cache").symlink_to(tmp_path / "nowhere")
    before = tree(root)
    code, output = _build(root, *flags)
    assert code == 2
    assert output == (f".cache: error: .cache is {kind}, not a folder: the build keeps its caches and its write "
                      "journal in it [cache]\n  hint: remove or rename it, then build again\n1 error, 0 warnings\n")
    assert tree(root) == before


def test_static_files_are_copied_to_the_output_root_on_every_build(tmp_path: Path) -> None:
    root = _site(tmp_path / "site")
    (root / "static" / ".well-known").mkdir(parents=True)
    (root / "static" / "CNAME").write_text("evidence.example.org\n")
    (root / "static" / ".nojekyll").write_text("")
    (root / "static" / ".well-known" / "security.txt").write_text("Contact: mailto:a@example.org\n")
    for _ in range(2):
        assert _build(root)[0] == 0
        files = tree(root / "_site")
        assert files["CNAME"] == b"evidence.example.org\n" and files[".nojekyll"] == b""
        assert ".well-known/security.txt" in files


def test_a_static_or_asset_file_may_not_replace_a_generated_one(tmp_path: Path) -> None:
    root = _site(tmp_path / "site")
    (root / "static" / "guides" / "a").mkdir(parents=True)
    (root / "static" / "guides" / "a" / "index.json").write_text("{}")
    (root / "content" / "assets").mkdir()
    (root / "content" / "assets.md").write_text(article("Assets page"))
    (root / "content" / "assets" / "index.json").write_text("{}")
    code, output = _build(root)
    assert code == 1
    assert "static/guides/a/index.json: error: /guides/a/index.json is a file the build generates [path]" in output
    assert "content/assets/index.json: error: /assets/index.json is a file the build generates [path]" in output
    assert not (root / "_site").exists()


def test_names_one_file_system_takes_for_one_are_errors_naming_both(tmp_path: Path) -> None:
    """Café.md in NFC and NFD, Alpha and alpha, Img/ and img/ were published side by side (issue 25):
    a macOS or Windows checkout keeps one of each pair."""
    root = _site(tmp_path / "site")
    assets, static = root / "content" / "assets", root / "static"
    (assets / "Img").mkdir(parents=True)
    (assets / "Img" / "a.png").write_text("a")
    (assets / "img").mkdir()
    (assets / "img" / "b.png").write_text("b")
    (assets / "Cafe\u0301.png").write_text("decomposed")
    (assets / "Caf\u00e9.png").write_text("composed")
    (static / "Guides").mkdir(parents=True)
    (static / "Guides" / "notes.txt").write_text("x")
    (static / "assets").mkdir()
    (static / "assets" / "LOGO.svg").write_text("x")
    (assets / "logo.svg").write_text("y")
    code, output = _build(root)
    hint = "\n  hint: rename one of them so that the names differ in more than that"
    case = "only in case: macOS and Windows file systems hold only one of the two [path]" + hint
    assert code == 1
    assert output.split("by rule:")[0] == "\n".join([
        "content/assets/Caf\u00e9.png: error: /assets/Caf\u00e9.png differs from content/assets/Cafe\u0301.png only in "
        "Unicode normalization (one name is composed, NFC, the other decomposed, NFD): a macOS file system holds only "
        "one of the two [path]" + hint,
        "content/assets/img/b.png: error: its folder /assets/img/ differs from the folder /assets/Img/ " + case,
        "content/assets/logo.svg: error: /assets/logo.svg differs from static/assets/LOGO.svg " + case,
        "static/Guides/notes.txt: error: its folder /Guides/ differs from the folder /guides/ " + case,
        ""])
    assert not (root / "_site").exists()


def test_remove_tree_removes_a_large_tree_and_never_follows_links(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    tree = tmp_path / "tree"
    for n in range(300):  # enough entries to be shared out among threads
        (tree / "guides" / f"p{n}").mkdir(parents=True)
        (tree / "guides" / f"p{n}" / "index.html").write_text("x")
    (tree / "guides" / "link").symlink_to(outside)
    (tree / "top-link").symlink_to(outside)
    (tree / "file.txt").write_text("x")
    remove_tree(tree)
    assert not tree.exists()
    assert (outside / "keep.txt").read_text() == "mine"
    link = tmp_path / "link-to-outside"
    link.symlink_to(outside)
    remove_tree(link)
    assert (outside / "keep.txt").read_text() == "mine"


def test_staged_files_are_written_by_threads_in_order_and_errors_surface(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Files handed to the writer threads: the last version of a file put twice wins, every file is
    there at the swap, and a write's error reaches the caller with the previous tree untouched."""
    target = tmp_path / "out"
    journal = tmp_path / "journal.json"
    with staged_folders([target], journal) as folders:
        for number in range(300):  # more than MAX_PENDING: the caller waits for the threads
            folders[target].put(f"p{number % 50}/index.html", f"version {number}".encode())
    assert sorted(path.name for path in target.iterdir()) == sorted(f"p{n}" for n in range(50))
    assert all((target / f"p{n}/index.html").read_text() == f"version {250 + n}" for n in range(50))

    def refuse(self: FolderWriter, rel: str, chunks: object) -> int:
        raise OSError(28, "No space left on device", rel)

    monkeypatch.setattr(FolderWriter, "write_chunks", refuse)
    with pytest.raises(OSError), staged_folders([target], journal) as folders:
        folders[target].put("new.html", b"x")
    assert (target / "p7/index.html").read_text() == "version 257"
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] == []  # nothing staged is left


def test_unchanged_files_are_linked_from_the_previous_tree(tmp_path: Path) -> None:
    """A rebuild links each file whose bytes are unchanged (same inode, same modification time),
    writes the others anew, and never links what is not a regular file of the previous tree."""
    target = tmp_path / "out"
    journal = tmp_path / "journal.json"
    write_trees({target: {"same.html": b"same", "changed.html": b"old", "grown.html": b"ab", "link.html": b"x"}},
                journal)
    outside = tmp_path / "outside.html"
    outside.write_bytes(b"x")
    (target / "link.html").unlink()
    (target / "link.html").symlink_to(outside)
    before = {name: (target / name).lstat() for name in ("same.html", "changed.html", "grown.html")}
    write_trees({target: {"same.html": b"same", "changed.html": b"new", "grown.html": b"abc", "link.html": b"x"}},
                journal)
    after = {name: (target / name).lstat() for name in ("same.html", "changed.html", "grown.html", "link.html")}
    assert after["same.html"].st_ino == before["same.html"].st_ino
    assert after["same.html"].st_mtime_ns == before["same.html"].st_mtime_ns
    assert after["changed.html"].st_ino != before["changed.html"].st_ino
    assert (target / "changed.html").read_bytes() == b"new" and (target / "grown.html").read_bytes() == b"abc"
    assert not (target / "link.html").is_symlink() and after["link.html"].st_ino != outside.stat().st_ino
    assert outside.stat().st_nlink == 1


def test_chunks_given_at_once_are_written_like_put_and_a_generator_in_the_callers_thread(tmp_path: Path) -> None:
    """exports/ hands its files over whole: an unchanged one is linked like any put file; a
    generator's chunks (a site's data file) are written as they are made."""
    target = tmp_path / "out"
    journal = tmp_path / "journal.json"
    with staged_folders([target], journal) as folders:
        folders[target].put_chunks("whole.json", (b"a", b"b"))
        folders[target].put_chunks("made.csv", iter([b"x", b"y"]))
    before = (target / "whole.json").stat()
    with staged_folders([target], journal) as folders:
        folders[target].put_chunks("whole.json", [b"ab"])
        folders[target].put_chunks("made.csv", (chunk for chunk in (b"x", b"y")))
        assert folders[target].sizes == {"whole.json": 2, "made.csv": 2}
    assert (target / "whole.json").stat().st_ino == before.st_ino and (target / "made.csv").read_bytes() == b"xy"


def _hidden(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name.startswith("."))


def test_the_old_tree_is_removed_by_a_thread_of_its_own_after_the_swap(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The swap returns with the new tree in place while the old one is still being removed (it
    was removed in the build's own thread before the swap returned: 1.6 s of a 5,000-article edit)."""
    target, journal = tmp_path / "out", tmp_path / "journal.json"
    write_trees({target: {"a.html": b"old"}}, journal)
    release, removers = threading.Event(), []
    real = writer.remove_tree

    def slow_remove(path: Path) -> None:
        removers.append(threading.current_thread().name)
        release.wait(timeout=5)
        real(path)

    monkeypatch.setattr(writer, "remove_tree", slow_remove)
    write_trees({target: {"a.html": b"new"}}, journal)
    assert (target / "a.html").read_bytes() == b"new"
    assert [name[:len(".out.new-")] for name in _hidden(tmp_path)] == [".out.new-"]  # the old tree, going
    release.set()
    wait_for_removals()
    assert removers == ["evidencepress-remove-old"] and _hidden(tmp_path) == []


def test_the_process_waits_for_the_removal_of_the_old_tree_at_exit(tmp_path: Path) -> None:
    """The command leaves as ``cli.run`` does (the atexit handlers, then ``os._exit``): no old tree is left."""
    script = textwrap.dedent("""
        import atexit, os, sys, time
        from pathlib import Path
        from evidencepress.output import writer

        real = writer.remove_tree
        writer.remove_tree = lambda path: (time.sleep(0.5), real(path))
        target, journal = Path(sys.argv[1]) / "out", Path(sys.argv[1]) / "journal.json"
        writer.write_trees({target: {"a.html": b"old"}}, journal)
        writer.write_trees({target: {"a.html": b"new"}}, journal)
        atexit._run_exitfuncs()
        os._exit(0)
    """)
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=True)
    assert (tmp_path / "out/a.html").read_bytes() == b"new" and _hidden(tmp_path) == []


def test_a_put_file_the_live_tree_holds_is_linked_and_a_new_standby_tree_is_its_twin(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A cached build with no standby tree yet (the first edit after a cold build) wrote every file it
    was handed again, the search index's 5,000 included (issue 27): one whose bytes the live tree
    holds, as its signature vouches, is linked; another is written anew, never through the old file.
    The tree it replaces goes: the standby tree is made as a twin of the new one."""
    monkeypatch.setattr(filestate, "RACY_NS", 0)  # the files are not older than the racy window
    target, journal = tmp_path / "out", tmp_path / "journal.json"
    write_trees({target: {"same.html": b"same", "changed.html": b"old"}}, journal)
    before = {name: (target / name).stat() for name in ("same.html", "changed.html")}
    vouched = {name: (hashlib.sha256((target / name).read_bytes()).hexdigest(), filestate.signature_of(status))
               for name, status in before.items()}
    standby = Standby(tmp_path / "standby", {})
    with staged_folders([target], journal, previous={target: vouched}, standby={target: standby}) as folders:
        folders[target].put("same.html", b"same")
        folders[target].put("changed.html", b"new")
    assert (target / "same.html").stat().st_ino == before["same.html"].st_ino
    assert (target / "changed.html").stat().st_ino != before["changed.html"].st_ino
    twin = tmp_path / "standby/same.html"  # no standby tree yet: made as the new tree's twin
    assert twin.stat().st_ino == before["same.html"].st_ino and tree(tmp_path / "standby") == tree(target)
    assert tree(target) == {"same.html": b"same", "changed.html": b"new"}
