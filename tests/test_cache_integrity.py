"""The cache cannot change what is published (issue 25).

Each kind of cache entry — a validated page (pages.sqlite), a page's rendered
files (rendered.sqlite), a chart drawing (charts/), a build record (builds/) —
is flipped, truncated, edited, swapped with another entry and replaced by a
planted pickle; the next build must publish exactly the bytes of a build with
--no-cache, say which cache it discarded, and run nothing it was given.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from sitekit import CHART, article, export, make_site, result, tree

from evidencepress.cache import buildrecord, safepickle
from evidencepress.cache.buildrecord import Outputs, _intact, output_files
from evidencepress.cache.caches import Store, key_of
from evidencepress.cli import main
from evidencepress.core import filestate, seal
from evidencepress.output.article import render_listing
from evidencepress.output.data import data_files
from evidencepress.output.exports import results_chunks

MARKER = "planted-pickle-ran"


class Planted:
    """A pickle that touches MARKER in the working folder when it is loaded."""

    def __reduce__(self) -> tuple[Callable[..., object], tuple[str]]:
        return os.system, (f"touch {MARKER}",)


def planted() -> bytes:
    return pickle.dumps(Planted(), protocol=pickle.HIGHEST_PROTOCOL)


def run(label: str, value: float, concurrency: int) -> dict[str, object]:
    entry = result(label, value)
    entry["conditions"] = {**entry["conditions"], "concurrency": concurrency}
    return entry


def site(root: Path) -> Path:
    chart = CHART.replace("kind: bar", "kind: bar\ncaption: Two runs.")
    runs = export(run("Decode at C1", 42.5, 1), run("Decode at C4", 38.25, 4))
    return make_site(root, {
        "guides/alpha.md": article("Alpha", "Alpha text.\n" + chart, runs),
        "guides/beta.md": article("Beta", "Beta text.\n" + chart.replace("id: decode", "id: beta"),
                                  export(run("Decode at C2", 40.75, 2), run("Decode at C8", 30.5, 8))),
    })


def build(root: Path, *options: str) -> str:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", *options])
    assert outcome.exit_code == 0, outcome.output
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit), outcome.exception
    return outcome.output


def published(root: Path) -> dict[str, bytes]:
    return {**{f"_site/{rel}": data for rel, data in tree(root / "_site").items()},
            **{f"exports/{rel}": data for rel, data in tree(root / "exports").items()}}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """What a build with --no-cache publishes for the site."""
    root = site(tmp_path_factory.mktemp("reference") / "site")
    build(root, "--no-cache")
    return published(root)


@pytest.fixture
def cached(tmp_path: Path, reference: dict[str, bytes]) -> Path:
    """The site built once, its caches full; the same bytes as the reference."""
    root = site(tmp_path / "site")
    build(root)
    assert published(root) == reference, "a cached build differs from --no-cache before any damage"
    return root


@contextlib.contextmanager
def another_machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Seal as another machine or user would: under another secret."""
    with monkeypatch.context() as patch:
        patch.setenv(seal.SECRET_ENV, "another machine")
        seal.secret.cache_clear()
        yield
    seal.secret.cache_clear()


def sealed_elsewhere(kind: str, key: str, sealed: bytes, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """The entry as another machine or user would have sealed the same bytes."""
    data = seal.unseal(kind, key, sealed)
    assert data is not None, "the entry was not sealed here"
    with another_machine(monkeypatch):
        return seal.seal(kind, key, data)


# The entries of one of the SQLite caches.

def blobs(path: Path) -> dict[str, bytes]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return dict(db.execute("SELECT key, data FROM blobs ORDER BY key").fetchall())


def put_blobs(path: Path, entries: dict[str, bytes]) -> None:
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.executemany("UPDATE blobs SET data = ? WHERE key = ?", [(data, key) for key, data in entries.items()])


def flipped(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0x10]) + data[middle + 1:]


def edited(data: bytes) -> bytes:
    assert b"42.5" in data or b"38.25" in data, "the entry holds no value to edit"
    return data.replace(b"42.5", b"99.5").replace(b"38.25", b"98.25")


def damage_store(path: Path, how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    entries = blobs(path)
    assert len(entries) >= 2, f"{path.name} holds {len(entries)} entries"
    if how == "swap":
        keys = sorted(entries)  # each key gets the next one's entry
        put_blobs(path, {key: entries[other] for key, other in zip(keys, keys[1:] + keys[:1], strict=True)})
        return
    kind = path.name
    if how == "planted":  # as if its seal had been forged: the reader still runs nothing
        put_blobs(path, {key: seal.seal(kind, key, planted()) for key in entries})
        return
    if how == "foreign":
        put_blobs(path, {key: sealed_elsewhere(kind, key, data, monkeypatch) for key, data in entries.items()})
        return
    change = {"flip": flipped, "truncate": lambda data: data[:len(data) // 2],
              "edit": lambda data: edited(data) if b"42.5" in data or b"38.25" in data else flipped(data)}[how]
    put_blobs(path, {key: change(data) for key, data in entries.items()})


def damage_charts(folder: Path, how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    files = sorted(folder.glob("*.svg"))
    assert len(files) >= 2, f"the chart cache holds {len(files)} files"
    if how == "swap":
        contents = [file.read_bytes() for file in files]
        for file, data in zip(files, contents[1:] + contents[:1], strict=True):
            file.write_bytes(data)
        return
    for file in files:
        data = file.read_bytes()
        if how == "script":
            file.write_bytes(b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>")
        elif how == "foreign":
            file.write_bytes(sealed_elsewhere("charts", file.stem, data, monkeypatch))
        else:
            file.write_bytes({"flip": flipped, "truncate": lambda data: data[:len(data) // 2],
                              "edit": lambda data: data.replace(b"<svg", b"<svg onload='alert(1)'")}[how](data))


STORE_DAMAGE = ["flip", "truncate", "edit", "swap", "planted", "foreign"]
CHART_DAMAGE = ["flip", "truncate", "edit", "swap", "script", "foreign"]


def assert_rebuilt(root: Path, reference: dict[str, bytes], discarded: str) -> None:
    """A build after the damage publishes the --no-cache bytes, notes the cache it discarded, and
    ran no planted pickle."""
    shutil.rmtree(root / ".cache" / "builds")  # else the output, intact, is replayed and no entry is read
    output = build(root)
    assert published(root) == reference
    assert f"{discarded}: note:" in output and "made again [cache]" in output, output
    assert not (root / MARKER).exists() and not Path(MARKER).exists(), "a planted pickle ran"
    output = build(root)  # the damaged entries were replaced: nothing is discarded again
    assert "[cache]" not in output, output


@pytest.mark.parametrize("how", STORE_DAMAGE)
@pytest.mark.parametrize("name", ["pages.sqlite", "rendered.sqlite"])
def test_a_damaged_database_entry_is_made_again(cached: Path, reference: dict[str, bytes], name: str, how: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(cached)
    damage_store(cached / ".cache" / name, how, monkeypatch)
    assert_rebuilt(cached, reference, f".cache/{name}")


@pytest.mark.parametrize("how", CHART_DAMAGE)
def test_a_damaged_chart_drawing_is_drawn_again(cached: Path, reference: dict[str, bytes], how: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    damage_charts(cached / ".cache" / "charts", how, monkeypatch)
    assert_rebuilt(cached, reference, ".cache/charts")


def only_record(root: Path) -> Path:
    records = [path for path in (root / ".cache" / "builds").iterdir() if not path.name.startswith("last-")]
    assert len(records) == 1, records
    return records[0]


@pytest.mark.parametrize("how", ["flip", "truncate", "planted", "planted-sealed", "foreign", "swap"])
def test_a_damaged_build_record_is_not_replayed(cached: Path, reference: dict[str, bytes], how: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(cached)
    record = only_record(cached)
    data = record.read_bytes()
    if how == "swap":  # another build's record (other inputs) under this one's name
        alpha = cached / "content/guides/alpha.md"
        text = alpha.read_text()
        alpha.write_text(text.replace("Alpha text.", "Alpha text, edited."))
        build(cached)
        other = next(path for path in (cached / ".cache" / "builds").iterdir()
                     if path != record and not path.name.startswith("last-"))
        alpha.write_text(text)
        record.write_bytes(other.read_bytes())
    elif how == "foreign":
        record.write_bytes(sealed_elsewhere("builds", record.name, data, monkeypatch))
    else:
        record.write_bytes({"flip": flipped, "truncate": lambda data: data[:len(data) // 2],
                            "planted": lambda _: planted(),
                            "planted-sealed": lambda _: seal.seal("builds", record.name, planted())}[how](data))
    page = cached / "_site/guides/alpha/index.html"
    page.write_bytes(page.read_bytes().replace(b"42.5", b"99.5"))  # a record trusted blindly would keep this
    output = build(cached)
    assert published(cached) == reference
    assert ".cache/builds: note: 1 entry did not match its seal" in output, output
    assert not (cached / MARKER).exists(), "a planted pickle ran"


def test_a_same_size_edit_of_a_published_file_is_undone(cached: Path, reference: dict[str, bytes]) -> None:
    page = cached / "_site/guides/alpha/index.html"
    data = page.read_bytes()
    assert b"42.5" in data
    page.write_bytes(data.replace(b"42.5", b"99.5"))  # same size: a replay that compared sizes kept it
    build(cached)
    assert published(cached) == reference


def test_stray_files_and_links_in_the_output_are_removed(cached: Path, reference: dict[str, bytes],
                                                        tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not for the site")
    (cached / "_site/stray.html").write_text("<script>alert(1)</script>")
    (cached / "_site/guides/stray-folder").mkdir()
    (cached / "_site/guides/stray-folder/x.txt").write_text("x")
    (cached / "_site/linked").symlink_to(outside)
    build(cached)
    assert published(cached) == reference
    assert not (cached / "_site/linked").exists() and not (cached / "_site/guides/stray-folder").exists()


def test_a_missing_published_file_is_written_again(cached: Path, reference: dict[str, bytes]) -> None:
    (cached / "_site/guides/beta/index.json").unlink()
    build(cached)
    assert published(cached) == reference


def test_an_intact_output_is_replayed(cached: Path, reference: dict[str, bytes]) -> None:
    before = (cached / "_site").stat().st_ino  # a build swaps a new folder in
    output = build(cached)
    assert published(cached) == reference and "[cache]" not in output
    assert (cached / "_site").stat().st_ino == before, "the intact output was built again"


# The store and the seal on their own.

def test_a_sealed_entry_reads_back_only_under_its_own_key_and_cache(tmp_path: Path) -> None:
    path = tmp_path / "pages.sqlite"
    store = Store(path)
    key, other = key_of("x"), key_of("y")
    store.save(key, {"value": "42.5"})
    store.save(other, {"value": "38.25"})
    store.commit()
    entries = blobs(path)
    put_blobs(path, {key: entries[other], other: entries[key]})
    fresh = Store(path)
    assert fresh.load(key) is None and fresh.load(other) is None and fresh.discarded == 2
    moved = tmp_path / "rendered.sqlite"
    shutil.copy(path, moved)
    put_blobs(moved, entries)
    assert Store(moved).load(key) is None, "an entry of pages.sqlite was taken for one of rendered.sqlite"
    put_blobs(path, entries)
    assert Store(path).load(key) == {"value": "42.5"}


def test_the_reader_admits_value_types_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(pickle.UnpicklingError, match="posix.system is not a value type"):
        safepickle.loads(planted())
    # A callable reached through one of the package's modules, by a dotted name: refused too.
    for module, name in [("evidencepress.review.git", "subprocess.Popen"), ("evidencepress.cli", "main"),
                         ("evidencepress.cache.store", "Store"), ("evidencepress.cache.caches", "shutil.rmtree")]:
        crafted = b"\x80\x04\x8c" + bytes([len(module)]) + module.encode() + b"\x94\x8c" + \
            bytes([len(name)]) + name.encode() + b"\x94\x93\x94."  # STACK_GLOBAL of (module, name)
        assert isinstance(pickle.loads(crafted), object)  # what an unrestricted reader would give
        with pytest.raises(pickle.UnpicklingError, match=f"{module}.{name} is not a value type"):
            safepickle.loads(crafted)
    assert not (tmp_path / MARKER).exists()


def test_every_entry_of_a_full_site_reads_back(cached: Path) -> None:
    """Each type a validated page or rendered file holds is admitted by the reader (else every
    build would make it again, and say so)."""
    for name in ("pages.sqlite", "rendered.sqlite"):
        store = Store(cached / ".cache" / name)
        keys = blobs(cached / ".cache" / name)
        files = [key for key in keys if key.startswith("file ")]  # a rendered file's bytes, not a pickle
        assert all(store.load(key) is not None for key in keys if key not in files), name
        assert all(store.load_pickled(key) is not None for key in files), name
        assert store.discarded == 0


def test_the_secret_is_kept_outside_the_site_and_made_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(seal.SECRET_ENV, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    seal.secret.cache_clear()
    try:
        first = seal.secret()
        path = tmp_path / "config" / "evidencepress" / "cache-secret"
        assert path.read_bytes() == first and len(first) == 32
        assert path.stat().st_mode & 0o777 == 0o600
        seal.secret.cache_clear()
        assert seal.secret() == first, "a second process made another secret"
        sealed = seal.seal("pages.sqlite", "k", b"data")
        monkeypatch.setenv(seal.SECRET_ENV, "shared by trusted runs")
        seal.secret.cache_clear()
        assert seal.secret() == b"shared by trusted runs"
        assert seal.unseal("pages.sqlite", "k", sealed) is None
    finally:
        seal.secret.cache_clear()


def test_check_reads_no_damaged_page(cached: Path, reference: dict[str, bytes],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """42.5 → 99.5 inside a cached page once reached what check compared exports/ with."""
    damage_store(cached / ".cache" / "pages.sqlite", "edit", monkeypatch)
    (cached / "exports/guides/alpha.json").write_bytes(
        (cached / "exports/guides/alpha.json").read_bytes().replace(b"42.5", b"99.5"))
    outcome = CliRunner().invoke(main, ["check", "--root", str(cached)])
    assert outcome.exit_code == 1, outcome.output
    # both pages and both pages' verification against the vault
    assert "exports/guides/alpha.json" in outcome.output and ".cache/pages.sqlite: note: 4 entries" in outcome.output


def test_the_workflow_carries_no_build_cache_between_runs() -> None:
    """Only the vault, whose documents are hashed against the digests the articles pin, is kept in
    the Actions cache: never .cache/ or an output folder."""
    import yaml
    from sitekit import REPO

    workflow = yaml.safe_load((REPO / ".github/workflows/site.yml").read_text())
    paths = [step["with"]["path"] for job in workflow["jobs"].values() for step in job["steps"]
             if str(step.get("uses", "")).startswith("actions/cache")]
    assert paths and set(paths) == {"sources/"}, paths


@pytest.mark.parametrize("files", [10, 2000])  # one thread, and the threads' slices
def test_the_replay_check_finds_any_changed_stray_or_missing_file_of_a_large_output(tmp_path: Path,
                                                                                   files: int) -> None:
    site, exports = tmp_path / "_site", tmp_path / "exports"
    exports.mkdir()
    for number in range(files):
        (site / f"p{number % 37}").mkdir(parents=True, exist_ok=True)
        (site / f"p{number % 37}/f{number}.html").write_bytes(f"page {number:05d}".encode())
    outputs = unsigned_outputs(site, exports)
    assert _intact(outputs, site, tmp_path) is not None
    listed = outputs.files
    last = site / listed[-1][0]
    original = last.read_bytes()
    last.write_bytes(original[:-1] + b"x")  # same size, other bytes, the last file hashed
    assert _intact(outputs, site, tmp_path) is None
    last.write_bytes(original)
    assert _intact(outputs, site, tmp_path) is not None
    (site / "p0/stray.html").write_bytes(b"stray")
    assert _intact(outputs, site, tmp_path) is None
    (site / "p0/stray.html").unlink()
    (site / listed[0][0]).unlink()
    assert _intact(outputs, site, tmp_path) is None


def unsigned_outputs(site: Path, exports: Path) -> Outputs:
    """What a build that wrote these folders records before it signs them: each file's sha256."""
    def hashes(folder: Path) -> dict[str, bytes]:
        return {path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).digest()
                for path in folder.rglob("*") if path.is_file()}

    return Outputs(site, output_files(hashes(site)), exports, output_files(hashes(exports)))


def aged() -> None:
    """Let the files' last change be older than the racy window, as after any real build."""
    time.sleep(filestate.RACY_NS / 1e9 + 0.05)


def test_a_signed_output_is_replayed_without_reading_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A no-change build read and hashed every output file (861 MB for 5,000 articles: 1.4 s);
    a signature that stat confirms vouches for the recorded digest (issue 27)."""
    site, exports = tmp_path / "_site", tmp_path / "exports"
    for folder in (site / "a", exports):
        folder.mkdir(parents=True)
    (site / "a/index.html").write_bytes(b"<p>42.5</p>")
    (exports / "a.json").write_bytes(b"{}")
    aged()
    signed = unsigned_outputs(site, exports).signed()
    assert all(signature is not None for _, _, signature in signed.files + signed.exports_files)
    read: list[str] = []
    real = buildrecord.file_sha256
    monkeypatch.setattr(buildrecord, "file_sha256", lambda path: read.append(path) or real(path))
    assert _intact(signed, site, tmp_path) == signed
    assert read == []


def test_a_same_size_edit_with_its_time_put_back_is_read_again(tmp_path: Path) -> None:
    """``touch -r`` puts a file's modification time back, not its status-change time (ctime)."""
    site, exports = tmp_path / "_site", tmp_path / "exports"
    for folder in (site / "a", exports):
        folder.mkdir(parents=True)
    page = site / "a/index.html"
    page.write_bytes(b"<p>42.5</p>")
    aged()
    signed = unsigned_outputs(site, exports).signed()
    before = page.stat()
    page.write_bytes(b"<p>99.5</p>")
    os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert page.stat().st_size == before.st_size and page.stat().st_mtime_ns == before.st_mtime_ns
    assert _intact(signed, site, tmp_path) is None
    page.write_bytes(b"<p>42.5</p>")  # the bytes back: read again, the same digest
    assert _intact(signed, site, tmp_path) is not None


def test_a_file_changed_just_before_it_is_signed_is_read_again(tmp_path: Path) -> None:
    """Racy: a second change within one tick of the file system's clock would leave ctime equal."""
    site, exports = tmp_path / "_site", tmp_path / "exports"
    for folder in (site / "a", exports):
        folder.mkdir(parents=True)
    (site / "a/index.html").write_bytes(b"<p>42.5</p>")
    signed = unsigned_outputs(site, exports).signed()
    assert signed.files[0][2] is None  # just written: no signature vouches for it
    assert _intact(signed, site, tmp_path) is not None  # read, and the same


def test_many_files_just_written_are_signed_once_the_racy_window_has_passed(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A cold build writes the search index's thousands of files last: left unsigned, the next
    build read and hashed them all again (0.1 s at 5,000 articles). From RACY_WAIT_FILES racy
    files on, signing waits out the racy window and signs them; fewer are left to the next build
    (the test above)."""
    monkeypatch.setattr(buildrecord, "RACY_WAIT_FILES", 3)
    site, exports = tmp_path / "_site", tmp_path / "exports"
    for folder in (site / "a", exports):
        folder.mkdir(parents=True)
    for number in range(3):
        (site / f"a/{number}.html").write_bytes(b"<p>42.5</p>")
    signed = unsigned_outputs(site, exports).signed()
    assert all(signature is not None for _, _, signature in signed.files)
    read: list[str] = []
    real = buildrecord.file_sha256
    monkeypatch.setattr(buildrecord, "file_sha256", lambda path: read.append(path) or real(path))
    assert _intact(signed, site, tmp_path) == signed and read == []


def test_the_book_of_input_digests_reads_only_changed_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    book_path = tmp_path / "digests"
    files = [tmp_path / f"f{number}.md" for number in range(3)]
    for number, file in enumerate(files):
        file.write_text(f"article {number}")
    aged()
    read: list[str] = []
    real = filestate.file_sha256
    monkeypatch.setattr(filestate, "file_sha256", lambda path: read.append(path) or real(path))
    book = filestate.DigestBook(book_path)
    assert [book.digest(str(file)) for file in files] == [hashlib.sha256(f.read_bytes()).digest() for f in files]
    book.save()
    assert len(read) == 3
    book = filestate.DigestBook(book_path)  # another run
    before = files[0].stat()
    files[0].write_text("article X")
    os.utime(files[0], ns=(before.st_atime_ns, before.st_mtime_ns))
    assert book.digest(str(files[0])) == hashlib.sha256(b"article X").digest()
    assert book.digest(str(files[1])) == hashlib.sha256(b"article 1").digest()
    assert read[3:] == [str(files[0])]  # the unchanged file is not read
    book.save()  # f2 was not asked for: its entry goes
    assert str(files[2]) not in filestate._load(book_path) and str(files[1]) in filestate._load(book_path)
    book_path.write_bytes(book_path.read_bytes()[:-1] + b"x")  # damaged: an empty book, every file read
    assert filestate._load(book_path) == {}


def beta_edited(root: Path, reference: dict[str, bytes]) -> dict[str, bytes]:
    """Edit Beta's text (Alpha unchanged); what a --no-cache build of the edited site publishes."""
    beta = root / "content/guides/beta.md"
    beta.write_text(beta.read_text().replace("Beta text.", "Beta text, edited."))
    other = site(root.parent / "other")
    shutil.copy(beta, other / "content/guides/beta.md")
    build(other, "--no-cache")
    expected = published(other)
    assert expected != reference
    return expected


def test_an_edit_links_the_unchanged_files_from_the_output_it_replaces(cached: Path,
                                                                       reference: dict[str, bytes],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit put every page again: read from the cache, hashed, compared with the old file (issue 27).
    The files the last build recorded, whose signature holds, are taken from it without reading their
    bytes from the cache (an HTML page is read still when its search shard is indexed again: here the
    site's only one)."""
    alpha = cached / "_site/guides/alpha/index.html"
    unchanged = {"file " + hashlib.sha256(path.read_bytes()).hexdigest()
                 for path in alpha.parent.iterdir() if path.suffix != ".html"}
    aged()
    build(cached)  # a replay: the files written in the build's last 0.1 s get their signatures
    expected = beta_edited(cached, reference)
    from evidencepress.cache.store import Store as RealStore

    read: list[str] = []
    real = RealStore.load_pickled
    monkeypatch.setattr(RealStore, "load_pickled", lambda store, key: read.append(key) or real(store, key))
    build(cached)
    assert published(cached) == expected
    assert len(unchanged) == 7 and not unchanged & set(read), "an unchanged file was read from the cache"


def test_the_next_edit_stages_in_the_standby_tree_and_keeps_its_unchanged_files(
        cached: Path, reference: dict[str, bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    """The output before the last one is kept under .cache/standby/; the next build writes into it only
    the files that changed since, and swaps it in: no tree is removed, no unchanged file written.
    The first edit after a cold build hard-links the unchanged files into its new tree: it copied
    them (0.86 GB for 5,000 articles, a third of that edit's time; issue 27)."""
    alpha = cached / "_site/guides/alpha/index.json"
    first = alpha.stat().st_ino  # of the first build's tree
    aged()
    build(cached)  # a replay: the files written last get their signatures
    beta_edited(cached, reference)
    build(cached)  # the first tree is the standby tree now
    assert len(list((cached / ".cache/standby").iterdir())) == 2
    assert alpha.stat().st_ino == first and alpha.stat().st_nlink == 2, "the unchanged file was not linked"
    aged()
    build(cached)  # a replay: the files linked last get their signatures
    linked = recorded_links(monkeypatch)
    beta = cached / "content/guides/beta.md"
    beta.write_text(beta.read_text().replace("Beta text, edited.", "Beta text, edited twice."))
    build(cached)
    assert alpha.stat().st_ino == first, "the standby tree's unchanged file was not kept"
    assert "guides/alpha/index.json" not in linked, "the file both trees name was linked again"
    fresh = site(cached.parent / "fresh")
    shutil.copy(beta, fresh / "content/guides/beta.md")
    build(fresh, "--no-cache")
    assert published(cached) == published(fresh)
    assert not [p.name for p in cached.iterdir() if p.name.startswith(("._site", ".exports"))]


def recorded_links(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the writer hard-links from now on (from the live tree, or into a twin), by path."""
    from evidencepress.output.writer import FolderWriter

    linked: list[str] = []
    real = FolderWriter.link
    monkeypatch.setattr(FolderWriter, "link", lambda writer, rel, *args, **kw: linked.append(rel) or real(
        writer, rel, *args, **kw))
    return linked


def test_a_cold_build_makes_the_standby_tree_as_a_twin_of_its_own(cached: Path, reference: dict[str, bytes],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The first edit after a cold build linked every file of the site from the live tree into its new
    one (25,261 files for 5,000 articles; issue 27): the cold build links each file it writes into a
    standby tree too, and the edit stages in it, linking nothing."""
    alpha = cached / "_site/guides/alpha/index.json"
    assert len(list((cached / ".cache/standby").iterdir())) == 2 and alpha.stat().st_nlink == 2
    aged()
    build(cached)  # a replay: the files written last get their signatures
    linked = recorded_links(monkeypatch)
    expected = beta_edited(cached, reference)
    build(cached)
    assert published(cached) == expected
    assert linked == [] and alpha.stat().st_nlink == 2, "the first edit linked files from the live tree"


def test_a_tampered_published_file_is_not_linked_into_the_next_build(cached: Path,
                                                                     reference: dict[str, bytes]) -> None:
    """A same-size edit of _site/ with its time put back: its ctime changed, so it is not linked."""
    alpha = cached / "_site/guides/alpha/index.html"
    aged()
    status = alpha.stat()
    alpha.write_bytes(alpha.read_bytes().replace(b"42.5", b"99.5"))
    os.utime(alpha, ns=(status.st_atime_ns, status.st_mtime_ns))
    expected = beta_edited(cached, reference)
    build(cached)
    assert published(cached) == expected


def test_a_page_whose_bytes_left_the_cache_is_rendered_again(cached: Path, reference: dict[str, bytes]) -> None:
    """Without the previous output and without the files' bytes in the cache, a cached page's
    files cannot be put: the page is rendered again."""
    path = cached / ".cache" / "rendered.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("DELETE FROM blobs WHERE key LIKE 'file %'")
        db.execute("DELETE FROM entries WHERE key LIKE 'file %'")
    shutil.rmtree(cached / "_site")
    expected = beta_edited(cached, reference)
    build(cached)
    assert published(cached) == expected


def test_the_data_files_and_listings_are_linked_when_no_page_data_changed(
        cached: Path, reference: dict[str, bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    """/data/ (143 MB for 5,000 articles), exports/results.csv and the listings were made again for an
    edit of a sentence (issue 27); an edit of the data or of a title makes them again."""
    from evidencepress.build import sitewide

    results, home = cached / "_site/data/results.json", cached / "_site/index.html"
    made: list[str] = []
    monkeypatch.setattr(sitewide, "data_files", lambda *args: made.append("data") or data_files(*args))
    monkeypatch.setattr(sitewide, "render_listing", lambda *args: made.append("listing") or render_listing(*args))
    monkeypatch.setattr(sitewide, "results_chunks", lambda *args: made.append("table") or results_chunks(*args))
    aged()
    build(cached)  # a replay: the files written last get their signatures
    expected = beta_edited(cached, reference)  # the text of an article, not its data
    made.clear()  # of the build of the edited site without the cache
    build(cached)
    assert published(cached) == expected
    assert made == [], "the data files or a listing were made again"
    aged()
    build(cached)  # a replay: the files the edit linked into its tree get their signatures
    beta = cached / "content/guides/beta.md"
    fresh = site(cached.parent / "fresh")
    for (old, new), remade in zip((("40.75", "40.5"), ('title: "Beta"', 'title: "Beta, renamed"')),
                                  (["data", "table"], ["data", "listing", "listing", "table"]), strict=True):
        assert old in beta.read_text()
        beta.write_text(beta.read_text().replace(old, new, 1))
        made.clear()
        build(cached)
        assert sorted(made) == remade  # the data: /data/, exports/; a title: also home, Guides
        shutil.copy(beta, fresh / "content/guides/beta.md")
        build(fresh, "--no-cache")
        assert published(cached) == published(fresh)
    assert b"40.5" in results.read_bytes() and b"Beta, renamed" in home.read_bytes()


def test_a_second_save_of_the_book_with_nothing_asked_forgets_nothing(tmp_path: Path) -> None:
    """A build commits its caches twice: the second save of the vault's book wiped it."""
    document = tmp_path / "document"
    document.write_bytes(b"lines")
    aged()
    book = filestate.DigestBook(tmp_path / "book")
    book.digest(str(document))
    book.save()
    book.save()
    assert str(document) in filestate._load(tmp_path / "book")


def test_the_last_build_is_found_whether_the_root_was_given_relative_or_not(
        cached: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cd site && evidencepress build` recorded its output as "_site": a build with --root /…/site
    found no last build, and wrote every file anew."""
    from evidencepress.cache.buildrecord import last_outputs
    from evidencepress.core.options import BuildOptions

    monkeypatch.chdir(cached)
    beta = cached / "content/guides/beta.md"
    beta.write_text(beta.read_text().replace("Beta text.", "Beta text, edited."))
    build(Path("."))
    page = hashlib.sha256((cached / "_site/guides/beta/index.html").read_bytes()).hexdigest()
    for root, out in ((cached, cached / "_site"), (Path("."), Path("_site"))):
        last = last_outputs(BuildOptions(root=root), out)
        assert last is not None and ("guides/beta/index.html", page) in [(rel, digest) for rel, digest, _ in last.files]


def test_a_record_keeps_the_standby_tree_as_its_differences_from_the_live_one(tmp_path: Path) -> None:
    """The standby tree shares nearly every file with the live one: a record listing both in full was
    twice as long to read, 60 ms of a no-change build of 5,000 articles (issue 27)."""
    files = tuple((f"p{n}/index.html", f"{n:064x}", (n, 10, 20, 30)) for n in range(1000))
    standby = (*files[:500], ("p500/index.html", "f" * 64, (1, 2, 3, 4)), *files[502:], ("old.html", "e" * 64, None))
    outputs = Outputs(tmp_path / "_site", files, tmp_path / "exports", files[:3], standby, ())
    record = buildrecord.Record(outputs, ())
    data = record.to_json()
    back = buildrecord.Record.from_json(data)
    assert {entry[0]: entry for entry in back.outputs.standby_files} == {entry[0]: entry for entry in standby}
    assert back.outputs.files == files and back.outputs.standby_exports_files == ()
    assert len(data) < 1.2 * len(buildrecord.Record(replace(outputs, standby_files=()), ()).to_json())
