"""Build records: a rebuild of unchanged inputs costs reading and hashing them.

After a good build, the record of its inputs — the sha256 of every file of
``content/``, ``static/``, ``templates/``, ``schema/`` and ``site.toml``, the git HEAD (the
history of exports/), the
options that shape the output, this package's code and its dependencies'
versions — is stored with the build's problems and a description of what it
wrote: the sha256 of every file. A later build whose inputs hash the same, and
whose output folders still hold exactly those files with those digests (no file
changed, none missing, none more), prints the same problems and stops: the
output is already what it would write. Anything unreadable, missing or
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
import tomllib
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..content.history import history_state
from ..content.vault import DEFAULT_VAULT
from ..core.diagnostics import Problem
from ..core.options import BuildOptions
from ..core.seal import seal, unseal
from .caches import code_fingerprint

RECORDS = ".cache/builds"
_KIND = "builds"  # what the records are sealed with besides their digests
HASH_THREADS = 4  # the replay hashes the output files on this many threads
HASH_ALONE = 512  # files below which one thread hashes them
INPUTS = ("content", "static", "templates", "schema")
_PACKAGE_DEFAULTS = Path(__file__).resolve().parents[1] / "defaults"


@dataclass(frozen=True)
class Outputs:
    """What a good build left: its output folder's files with their sha256, and the exports' digest."""

    site: Path
    files: tuple[tuple[str, str], ...]  # (POSIX path, hex sha256), every file of the folder
    exports: Path
    exports_digest: str


def inputs_digest(options: BuildOptions, out: Path) -> str | None:
    """sha256 of everything the output depends on, or None when an input cannot be read."""
    digest = hashlib.sha256()
    settings = [str(out.resolve()), options.base_url or "", str(options.drafts), str(options.strict),
                str(options.prose)]
    digest.update(json.dumps([code_fingerprint(), _dependencies(), settings]).encode())
    try:
        digest.update(_file_digest(options.root / "site.toml"))
        for name in INPUTS:
            folder = options.root / name
            if not folder.is_dir() and name in ("templates", "schema"):
                folder = _PACKAGE_DEFAULTS / name
            digest.update(name.encode() + b"\0" + tree_digest(folder).encode())
        vault = _vault_folder(options)  # the documents the values are verified against
        digest.update(b"vault\0" + (tree_digest(vault).encode() if vault.is_dir() else b"none"))
        digest.update(b"history\0" + history_state(options.root).encode())  # new commits: new history pages
    except OSError:
        return None
    return digest.hexdigest()


def _vault_folder(options: BuildOptions) -> Path:
    """The vault as site.toml names it (a site.toml that cannot be read is reported by the build)."""
    try:
        folder = tomllib.loads((options.root / "site.toml").read_text(encoding="utf-8")).get("sources", DEFAULT_VAULT)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        folder = DEFAULT_VAULT
    return (options.vault_root or options.root) / (folder if isinstance(folder, str) else DEFAULT_VAULT)


def tree_digest(folder: Path) -> str:
    """sha256 over every file below ``folder`` (path and content), in sorted order; symlinks followed.
    (Paths as strings: a build hashes thousands of files twice, and Path objects cost a third.)"""
    hashes: dict[str, bytes] = {}
    for rel, path in _tree_files(folder, follow_links=True):
        with open(path, "rb") as handle:
            hashes[rel] = hashlib.sha256(handle.read()).digest()
    return files_digest(hashes)


def files_digest(hashes: Mapping[str, bytes]) -> str:
    """``tree_digest`` of a folder that holds these files (POSIX path -> sha256 of the bytes): a
    folder's digest taken as it was written."""
    digest = hashlib.sha256()
    for rel in sorted(hashes, key=lambda rel: rel.split("/")):  # the order of the folder's sorted Paths
        digest.update(rel.encode() + b"\0" + hashes[rel])
    return digest.hexdigest()


def _file_digest(path: Path) -> bytes:
    return hashlib.sha256(path.read_bytes()).digest()


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
        return json.dumps({"site": str(outputs.site), "files": [list(file) for file in outputs.files],
                           "exports": str(outputs.exports), "exports_digest": outputs.exports_digest,
                           "problems": [problem.as_dict() for problem in self.problems]},
                          ensure_ascii=False).encode("utf-8", "surrogatepass")

    @classmethod
    def from_json(cls, data: bytes) -> Record:
        """The record ``to_json`` wrote; ValueError, KeyError or TypeError when it is not one."""
        found: Any = json.loads(data.decode("utf-8", "surrogatepass"))
        files = tuple((rel, digest) for rel, digest in found["files"])
        if not all(isinstance(part, str) for file in files for part in file):
            raise TypeError("files: not (path, sha256) pairs")
        outputs = Outputs(Path(_text(found["site"])), files, Path(_text(found["exports"])),
                          _text(found["exports_digest"]))
        return cls(outputs, tuple(Problem.from_dict(problem) for problem in found["problems"]))


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
    if not _intact(record.outputs, out, options.root):
        return Replay(None, digest, out)
    return Replay(list(record.problems), digest, out)


def _record(sealed: bytes, digest: str) -> Record | None:
    """The record in ``sealed`` when its seal holds and it is one; else None (a damaged or foreign one)."""
    data = unseal(_KIND, digest, sealed)
    try:
        return Record.from_json(data) if data is not None else None
    except (ValueError, KeyError, TypeError):
        return None


def remember(options: BuildOptions, digest: str, problems: list[Problem], outputs: Outputs) -> None:
    """Store the record of a good build (best effort: a record only saves time)."""
    folder = options.root / RECORDS
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temp = folder / f".{digest}.tmp"
        temp.write_bytes(seal(_KIND, digest, Record(outputs, tuple(problems)).to_json()))
        os.replace(temp, folder / digest)
    except OSError:
        return


def _intact(outputs: Outputs, out: Path, root: Path) -> bool:
    """The output folders hold exactly what the recorded build wrote — each file of the site with
    its sha256, no other file, the exports' digest — and no build was interrupted since."""
    if outputs.site != out or (root / ".cache" / "write-journal.json").exists():
        return False
    expected = dict(outputs.files)
    try:
        found = list(_tree_files(out))
        if len(found) != len(expected) or any(rel not in expected for rel, _ in found):
            return False  # a file more (a stray) or one missing: the build writes the folder anew
        digests = _hex_digests([path for _, path in found])
        if any(digest != expected[rel] for (rel, _), digest in zip(found, digests, strict=True)):
            return False  # a changed file
        return tree_digest(outputs.exports) == outputs.exports_digest
    except OSError:
        return False


def _hex_digests(paths: list[str]) -> list[str]:
    """``_hex_digest`` of each path, in order, by HASH_THREADS threads each taking a slice (reading and
    hashing let the other threads run): a no-change build of a large site reads every output file."""
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
    for directory, dirs, names in os.walk(base, followlinks=follow_links):
        dirs.sort()
        inner = os.path.relpath(directory, base)
        prefix = "" if inner == os.curdir else inner.replace(os.sep, "/") + "/"
        linked = [] if follow_links else [name for name in dirs if os.path.islink(os.path.join(directory, name))]
        for name in [*names, *linked]:
            yield prefix + name, os.path.join(directory, name)


def _hex_digest(path: str) -> str:
    if os.path.islink(path):
        return ""  # never a file the build wrote
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
