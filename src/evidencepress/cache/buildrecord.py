"""Build records: a rebuild of unchanged inputs costs a stat of every input and output file.

After a good build, the record of its inputs — the sha256 of every file of
``content/``, ``static/``, ``templates/``, ``schema/`` and ``site.toml``, the git HEAD (the
history of exports/), the
options that shape the output, this package's code and its dependencies'
versions — is stored with the build's problems and a description of what it
wrote: the sha256 of every file, with the signature ``stat`` gave of it after the
build (``filestate``). A later build whose inputs hash the same, and
whose output folders still hold exactly those files with those digests (no file
changed, none missing, none more), prints the same problems and stops: the
output is already what it would write. A file whose signature is the recorded one
holds the recorded bytes; any other is read and hashed. Inputs are hashed the same
way, through a book of digests kept in ``.cache/digests`` (``filestate.DigestBook``).
Anything unreadable, missing or
different means a full build, which writes the folder anew. A record is JSON
behind its seal (``core.seal``): read as data, never run, and one that is
damaged or not this user's is a miss. This module imports no part of the pipeline.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import stat
import time
import tomllib
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..content.history import history_state
from ..content.vault import DEFAULT_VAULT
from ..core.diagnostics import Problem
from ..core.filestate import (
    DigestBook,
    Signature,
    Vouched,
    file_sha256,
    signature_of,
    vouchable,
    vouchable_from,
    vouched_digest,
)
from ..core.options import BuildOptions
from ..core.seal import seal, unseal
from ..output.writer import Standby
from .caches import code_fingerprint

RECORDS = ".cache/builds"
STANDBY = ".cache/standby"
LAST = "last-{folder}"  # in RECORDS, sealed: the digest of the last record of an output folder (of its path)
DIGESTS = ".cache/digests"  # the book of the inputs' digests (``filestate.DigestBook``)
_KIND = "builds"  # what the records are sealed with besides their digests
HASH_THREADS = 4  # the replay hashes the output files on this many threads
HASH_ALONE = 512  # files below which one thread hashes them
RACY_WAIT_FILES = 100  # racy output files worth waiting out the racy window for (``_signed``)
INPUTS = ("content", "static", "templates", "schema")
_PACKAGE_DEFAULTS = Path(__file__).resolve().parents[1] / "defaults"


OutputFile = tuple[str, str, Signature | None]  # POSIX path, hex sha256, the signature that vouches for it


@dataclass(frozen=True)
class Outputs:
    """What a good build left: its output folders' files with their sha256 (and, once the build is
    done, the signatures that vouch for them: ``signed``)."""

    site: Path
    files: tuple[OutputFile, ...]  # every file of the site's folder
    exports: Path
    exports_files: tuple[OutputFile, ...]  # every file of exports/
    # the files of each folder's standby tree (the output before this one, kept for the next build
    # to stage in: output.writer), as the build that wrote them recorded them
    standby_files: tuple[OutputFile, ...] = ()
    standby_exports_files: tuple[OutputFile, ...] = ()
    # whether this build made each folder's standby tree as a twin of its new tree (hard links to
    # the same files: ``output.writer``), whose files are then signed with the new tree's
    twins: tuple[bool, bool] = (False, False)

    def vouched(self, site: Path, exports: Path) -> dict[Path, Vouched]:
        """The files of the site's and the exports' folders (as this run names them) with their
        digests and signatures (``StagedFolder.link``)."""
        return {site: _vouched(self.files), exports: _vouched(self.exports_files)}

    def standby(self, root: Path, site: Path, exports: Path) -> dict[Path, Standby]:
        """Each output folder's standby tree (the folders as this run names them): where it is
        kept, what its files are."""
        return {site: Standby(standby_folder(root, site), _vouched(self.standby_files)),
                exports: Standby(standby_folder(root, exports), _vouched(self.standby_exports_files))}

    def signed(self) -> Outputs:
        """These outputs with each file's signature as ``stat`` gives it now (none for a racy one)."""
        files, exports_files = _signed(self.site, self.files), _signed(self.exports, self.exports_files)
        return replace(self, files=files, exports_files=exports_files,
                       standby_files=files if self.twins[0] else self.standby_files,
                       standby_exports_files=exports_files if self.twins[1] else self.standby_exports_files)


def standby_folder(root: Path, target: Path) -> Path:
    """Where the standby tree of the output folder ``target`` is kept: under the site's ``.cache/``."""
    return root / STANDBY / hashlib.sha256(os.fsencode(target.resolve())).hexdigest()[:16]


def _vouched(files: tuple[OutputFile, ...]) -> Vouched:
    return {rel: (digest, signature) for rel, digest, signature in files}


def output_files(hashes: Mapping[str, bytes]) -> tuple[OutputFile, ...]:
    """The files a writer hashed (POSIX path -> sha256), without signatures yet."""
    return tuple(sorted((rel, digest.hex(), None) for rel, digest in hashes.items()))


def _signed(folder: Path, files: tuple[OutputFile, ...]) -> tuple[OutputFile, ...]:
    """``files`` with their signatures as ``stat`` gives them now; a racy one (``vouchable``) has
    none, unless there are RACY_WAIT_FILES or more: then they are signed again once the racy
    window has passed (at most ``filestate.RACY_NS``). A cold build writes a shard of the search
    index last, and the next build read and hashed its files again and wrote its record anew (589
    files of 5,000 articles: 70 ms). An edit leaves none racy; a small site, a few: they are not
    waited for."""
    taken = time.time_ns()
    statuses = {rel: _status(folder, rel) for rel, _, _ in files}
    racy = [rel for rel, status in statuses.items() if status is not None and not vouchable(status, taken)]
    if len(racy) >= RACY_WAIT_FILES:
        last = max(vouchable_from(status) for rel in racy if (status := statuses[rel]) is not None)
        time.sleep(max(0, last - taken) / 1e9 + 0.001)
        taken = time.time_ns()
        statuses.update((rel, _status(folder, rel)) for rel in racy)
    signed = []
    for rel, digest, _ in files:
        status = statuses[rel]
        signed.append((rel, digest, status if status is not None and vouchable(status, taken) else None))
    return tuple(signed)


def _status(folder: Path, rel: str) -> Signature | None:
    try:
        return signature_of(os.lstat(os.path.join(folder, rel)))
    except OSError:
        return None  # gone: the replay finds it missing


def inputs_digest(options: BuildOptions, out: Path) -> str | None:
    """sha256 of everything the output depends on, or None when an input cannot be read. A file
    is read only when the book of digests has no signature for it that ``stat`` confirms (the book
    is saved with the record of a good build, or by a replay)."""
    digest = hashlib.sha256()
    settings = [str(out.resolve()), options.base_url or "", str(options.drafts), str(options.strict),
                str(options.prose)]
    digest.update(json.dumps([code_fingerprint(), _dependencies(), settings]).encode())
    book = _book(options.root / DIGESTS)
    try:
        digest.update(file_sha256(str(options.root / "site.toml")))
        for name in INPUTS:
            folder = options.root / name
            if not folder.is_dir() and name in ("templates", "schema"):
                folder = _PACKAGE_DEFAULTS / name
            digest.update(name.encode() + b"\0" + tree_digest(folder, book).encode())
        vault = _vault_folder(options)  # the documents the values are verified against
        digest.update(b"vault\0" + (tree_digest(vault, book).encode() if vault.is_dir() else b"none"))
        digest.update(b"history\0" + history_state(options.root).encode())  # new commits: new history pages
    except OSError:
        return None
    return digest.hexdigest()


@functools.cache  # one book per site in a process: a build asks for its inputs' digest twice
def _book(path: Path) -> DigestBook:
    return DigestBook(path)


def _vault_folder(options: BuildOptions) -> Path:
    """The vault as site.toml names it (a site.toml that cannot be read is reported by the build)."""
    try:
        folder = tomllib.loads((options.root / "site.toml").read_text(encoding="utf-8")).get("sources", DEFAULT_VAULT)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        folder = DEFAULT_VAULT
    return (options.vault_root or options.root) / (folder if isinstance(folder, str) else DEFAULT_VAULT)


def tree_digest(folder: Path, book: DigestBook | None = None) -> str:
    """sha256 over every file below ``folder`` (path and content), in sorted order; symlinks followed.
    ``book`` vouches for the digests of files that have not changed since it read them.
    (Paths as strings: a build hashes thousands of files twice, and Path objects cost a third.)"""
    hashes: dict[str, bytes] = {}
    for rel, path in _tree_files(folder, follow_links=True):
        hashes[rel] = book.digest(path) if book is not None else file_sha256(path)
    return files_digest(hashes)


def files_digest(hashes: Mapping[str, bytes]) -> str:
    """``tree_digest`` of a folder that holds these files (POSIX path -> sha256 of the bytes): a
    folder's digest taken as it was written."""
    digest = hashlib.sha256()
    for rel in sorted(hashes, key=lambda rel: rel.split("/")):  # the order of the folder's sorted Paths
        digest.update(rel.encode() + b"\0" + hashes[rel])
    return digest.hexdigest()


@functools.cache  # the versions this process imported
def _dependencies() -> list[str]:
    """The installed versions of what the package requires (a new Jinja2 may render differently)."""
    try:
        requires = importlib.metadata.requires("evidencepress") or []
    except importlib.metadata.PackageNotFoundError:
        return []
    names = sorted({requirement.split(";")[0].split("[")[0].split("=")[0].split("<")[0].split(">")[0].strip()
                    for requirement in requires if "extra ==" not in requirement})
    versions = []
    for name in names:
        try:
            versions.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name} missing")
    return versions


def output_folder(options: BuildOptions) -> Path | None:
    """--out, or site.toml's ``output`` (default ``_site``); None when site.toml cannot be read."""
    if options.out is not None:
        return options.out
    try:
        config = tomllib.loads((options.root / "site.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    output = config.get("output", "_site")
    return options.root / output if isinstance(output, str) else None


@dataclass(frozen=True)
class Record:
    outputs: Outputs
    problems: tuple[Problem, ...]

    def to_json(self) -> bytes:
        outputs = self.outputs
        return json.dumps({"site": str(outputs.site), "files": _files_json(outputs.files),
                           "exports": str(outputs.exports), "exports_files": _files_json(outputs.exports_files),
                           "standby_files": _changes_json(outputs.standby_files, outputs.files),
                           "standby_exports_files": _changes_json(outputs.standby_exports_files, outputs.exports_files),
                           "problems": [problem.as_dict() for problem in self.problems]},
                          ensure_ascii=False).encode("utf-8", "surrogatepass")

    @classmethod
    def from_json(cls, data: bytes) -> Record:
        """The record ``to_json`` wrote; ValueError, KeyError or TypeError when it is not one."""
        found: Any = json.loads(data.decode("utf-8", "surrogatepass"))
        files, exports_files = _files_from_json(found["files"]), _files_from_json(found["exports_files"])
        outputs = Outputs(Path(_text(found["site"])), files, Path(_text(found["exports"])), exports_files,
                          _changes_from_json(found["standby_files"], files),
                          _changes_from_json(found["standby_exports_files"], exports_files))
        return cls(outputs, tuple(Problem.from_dict(problem) for problem in found["problems"]))


def _files_json(files: tuple[OutputFile, ...]) -> list[list[str | int]]:
    """Each file as [path, sha256] or, with its signature, [path, sha256, inode, size, mtime_ns, ctime_ns]."""
    return [[rel, digest, *(signature or ())] for rel, digest, signature in files]


def _changes_json(files: tuple[OutputFile, ...], base: tuple[OutputFile, ...]) -> dict[str, list[Any]]:
    """``files`` as their differences from ``base``: a standby tree shares most files with the live one
    (the same file, signature included), and writing them twice made the record twice as long to read."""
    known = {entry[0]: entry for entry in base}
    kept = {entry[0] for entry in files}
    return {"other": _files_json(tuple(entry for entry in files if known.get(entry[0]) != entry)),
            "gone": sorted(known.keys() - kept)}


def _changes_from_json(found: Any, base: tuple[OutputFile, ...]) -> tuple[OutputFile, ...]:
    """The files ``_changes_json`` wrote the differences of."""
    gone = set(found["gone"])
    files = {entry[0]: entry for entry in base if entry[0] not in gone}
    files.update((entry[0], entry) for entry in _files_from_json(found["other"]))
    return tuple(files.values())


def _files_from_json(found: Any) -> tuple[OutputFile, ...]:
    files: list[OutputFile] = []
    for entry in found:
        rel, digest, *signature = entry
        if not (isinstance(rel, str) and isinstance(digest, str) and len(signature) in (0, 4)
                and all(isinstance(part, int) for part in signature)):
            raise TypeError("files: not [path, sha256, signature...] lists")
        files.append((rel, digest, (signature[0], signature[1], signature[2], signature[3]) if signature else None))
    return tuple(files)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


@dataclass(frozen=True)
class Replay:
    """What ``replay`` found: the recorded problems when the output is already in place (else
    None: build), and the inputs' digest it computed (None: no cache, or an input unreadable),
    which the build that follows starts from."""

    problems: list[Problem] | None
    digest: str | None
    out: Path | None  # the output folder the digest was computed for
    damaged: Path | None = None  # a record that was there but did not match its seal (or was none)

    def digest_for(self, out: Path) -> str | None:
        return self.digest if self.out == out else None


def replay(options: BuildOptions) -> Replay:
    """The problems of the good build these inputs already produced, when its output is intact."""
    out = output_folder(options)
    if out is None or not options.use_cache:
        return Replay(None, None, None)
    digest = inputs_digest(options, out)
    if digest is None:
        return Replay(None, None, None)
    path = options.root / RECORDS / digest
    try:
        sealed = path.read_bytes()
    except OSError:
        return Replay(None, digest, out)  # no record: build
    record = _record(sealed, digest)
    if record is None:
        return Replay(None, digest, out, damaged=path)
    intact = _intact(record.outputs, out, options.root)
    if intact is None:
        return Replay(None, digest, out)
    if intact != record.outputs:  # files read again: their signatures now vouch for them
        remember(options, digest, list(record.problems), intact)
    else:
        _book(options.root / DIGESTS).save()
    return Replay(list(record.problems), digest, out)


def _record(sealed: bytes, digest: str) -> Record | None:
    """The record in ``sealed`` when its seal holds and it is one; else None (a damaged or foreign one)."""
    data = unseal(_KIND, digest, sealed)
    try:
        return Record.from_json(data) if data is not None else None
    except (ValueError, KeyError, TypeError):
        return None


def remember(options: BuildOptions, digest: str, problems: list[Problem], outputs: Outputs) -> None:
    """Store the record of a good build, and that it is the last one of its output folder (best
    effort: a record only saves time)."""
    _book(options.root / DIGESTS).save()
    folder = options.root / RECORDS
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _write_sealed(folder / digest, digest, Record(outputs, tuple(problems)).to_json())
        _write_sealed(folder / _last_name(outputs.site), _last_key(outputs.site), digest.encode())
    except OSError:
        return


def last_outputs(options: BuildOptions, out: Path) -> Outputs | None:
    """What the last recorded build of the output folder ``out`` wrote (a build links the files of
    it that it would write again, ``output.writer.StagedFolder.link``); None when there is none."""
    folder = options.root / RECORDS
    try:
        digest = unseal(_KIND, _last_key(out), (folder / _last_name(out)).read_bytes())
        record = _record((folder / digest.decode()).read_bytes(), digest.decode()) if digest else None
    except (OSError, UnicodeDecodeError):
        return None
    return record.outputs if record is not None and _same_folder(record.outputs.site, out) else None


def _last_name(out: Path) -> str:
    return LAST.format(folder=hashlib.sha256(os.fsencode(out.resolve())).hexdigest()[:32])


def _last_key(out: Path) -> str:
    return f"last build of {out.resolve()}"


def _same_folder(recorded: Path, out: Path) -> bool:
    """The same output folder, whether either was given relative to another working folder or not."""
    return recorded == out or recorded.resolve() == out.resolve()


def _write_sealed(path: Path, key: str, data: bytes) -> None:
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_bytes(seal(_KIND, key, data))
    os.replace(temp, path)


def _intact(outputs: Outputs, out: Path, root: Path) -> Outputs | None:
    """The outputs, signed anew, when the output folders hold exactly what the recorded build
    wrote — each file with its sha256, no other file — and no build was interrupted since; else
    None. A file is read only when its signature is not the recorded one (or none was)."""
    if not _same_folder(outputs.site, out) or (root / ".cache" / "write-journal.json").exists():
        return None
    try:
        site = _intact_folder(out, outputs.files)
        exports = _intact_folder(outputs.exports, outputs.exports_files) if site is not None else None
    except OSError:
        return None
    return replace(outputs, files=site, exports_files=exports) if site is not None and exports is not None else None


def _intact_folder(folder: Path, files: tuple[OutputFile, ...]) -> tuple[OutputFile, ...] | None:
    """``files`` with the signatures the folder's files have now, when it holds exactly them; else None."""
    recorded = {rel: (digest, signature) for rel, digest, signature in files}
    found = list(_tree_files(folder))
    if len(found) != len(recorded) or any(rel not in recorded for rel, _ in found):
        return None  # a file more (a stray) or one missing: the build writes the folder anew
    taken = time.time_ns()
    statuses = {rel: os.lstat(path) for rel, path in found}
    unvouched = [(rel, path) for rel, path in found
                 if vouched_digest(recorded, rel, signature_of(statuses[rel])) is None]
    digests = _hex_digests([path for _, path in unvouched])
    if any(digest != recorded[rel][0] for (rel, _), digest in zip(unvouched, digests, strict=True)):
        return None  # a changed file
    signed = []
    for rel, digest, _ in files:
        signature = signature_of(statuses[rel])
        signed.append((rel, digest, signature if vouchable(signature, taken) and _regular(statuses[rel]) else None))
    return tuple(signed)


def _regular(status: os.stat_result) -> bool:
    return stat.S_ISREG(status.st_mode)


def _hex_digests(paths: list[str]) -> list[str]:
    """``_hex_digest`` of each path, in order, by HASH_THREADS threads each taking a slice (reading and
    hashing let the other threads run): the files of a large site no signature vouches for."""
    if len(paths) < HASH_ALONE:
        return [_hex_digest(path) for path in paths]
    size = -(-len(paths) // HASH_THREADS)
    with ThreadPoolExecutor(HASH_THREADS, thread_name_prefix="evidencepress-hash") as pool:
        parts = list(pool.map(lambda start: [_hex_digest(path) for path in paths[start:start + size]],
                              range(0, len(paths), size)))
    return [digest for part in parts for digest in part]


def _tree_files(folder: Path, follow_links: bool = False) -> Iterator[tuple[str, str]]:
    """(POSIX path, file system path) of every file below ``folder``, folders in sorted order. Without
    ``follow_links``, a link to a folder is an entry of its own, never walked into (and a missing
    folder is an error); with it, the link is walked like a folder."""
    base = os.fspath(folder)
    if not follow_links and not os.path.isdir(base):
        raise NotADirectoryError(base)
    yield from _scan(base, "", follow_links)


def _scan(directory: str, prefix: str, follow_links: bool) -> Iterator[tuple[str, str]]:
    """``_tree_files`` of one folder: its files, then each folder in sorted order (the type of an
    entry comes with the listing: os.walk's own and a second look at each folder for a link took a
    tenth of a no-change build of 5,000 articles)."""
    folders: list[str] = []
    links: list[str] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return  # a folder gone or unreadable: its files are missing (os.walk's way)
    for entry in entries:
        if not entry.is_dir():
            yield prefix + entry.name, entry.path
        elif entry.is_symlink() and not follow_links:
            links.append(entry.name)
        else:
            folders.append(entry.name)
    for name in sorted(links):
        yield prefix + name, os.path.join(directory, name)
    for name in sorted(folders):
        yield from _scan(os.path.join(directory, name), prefix + name + "/", follow_links)


def _hex_digest(path: str) -> str:
    if os.path.islink(path):
        return ""  # never a file the build wrote
    return file_sha256(path).hex()
