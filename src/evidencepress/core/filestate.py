"""File digests that a stat vouches for: a file is read and hashed again only when it may have changed.

A file's signature is what ``stat`` says of it that every change of the file changes: its inode,
size, modification time and status-change time (ctime), in nanoseconds. The kernel sets a file's
ctime to the current time on every write, truncation, link, unlink, mode or owner change and time
change (``touch -r`` included), and no call sets it back: a file whose signature is the one
recorded beside its digest holds the bytes it had when the digest was taken. One case escapes: a
second change within the same tick of the file system's clock as the change that set the recorded
ctime leaves the ctime as it was. A signature whose ctime lies within RACY_NS of the moment it was
taken is therefore never recorded ("racy", as git calls the same case in its index), and such a
file is read again the next time.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path

from .seal import seal, unseal

RACY_NS = 100_000_000  # far longer than a file system clock's tick (1-10 ms on Linux)
_KIND = "file digests"  # what a book's file is sealed with besides its path

Signature = tuple[int, int, int, int]  # inode, size, mtime_ns, ctime_ns
Vouched = Mapping[str, tuple[str, Signature | None]]  # by path: hex sha256, the signature that vouches for it


def signature_of(status: os.stat_result) -> Signature:
    return status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns


def vouchable(signature: Signature, taken_ns: int) -> bool:
    """Can ``signature``, taken at ``taken_ns`` (``time.time_ns()`` before the stat), vouch for the
    file later? Not when the file changed within RACY_NS before it was taken."""
    return taken_ns >= vouchable_from(signature)


def vouchable_from(signature: Signature) -> int:
    """The first moment (ns) at which a signature taken can vouch for the file (``vouchable``)."""
    return signature[3] + RACY_NS + 1


def file_sha256(path: str) -> bytes:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").digest()


class DigestBook:
    """The sha256 of files by path, each with the signature that vouches for it, kept between runs in
    a sealed file (``path``; None: this process only). ``digest`` reads a file only when the book
    has no signature for it or the file's signature is another; ``save`` writes the entries of the
    files asked for since the last save that asked for any (a removed file's entry goes)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._entries: dict[str, tuple[bytes, Signature]] = _load(path) if path is not None else {}
        self._asked: set[str] = set()
        self._changed = False

    def digest(self, path: str) -> bytes:
        """The sha256 of the file at ``path`` (links followed). Raises OSError when it cannot be read."""
        taken = time.time_ns()
        signature = signature_of(os.stat(path))
        known = self.vouched(path, signature)
        if known is not None:
            return known
        digest = file_sha256(path)
        self.record(path, digest, signature, taken)
        return digest

    def vouched(self, path: str, signature: Signature) -> bytes | None:
        """The digest recorded for ``path`` when ``signature`` is the one recorded with it; else None."""
        self._asked.add(path)
        known = self._entries.get(path)
        return known[0] if known is not None and known[1] == signature else None

    def record(self, path: str, digest: bytes, signature: Signature, taken: int) -> None:
        """``digest`` of the file at ``path``, read after its ``signature`` was taken (itself after
        ``taken``, see ``vouchable``): recorded when the signature can vouch for it, else forgotten."""
        self._asked.add(path)
        if vouchable(signature, taken):
            if self._entries.get(path) != (digest, signature):
                self._entries[path] = (digest, signature)
                self._changed = True
        elif path in self._entries:
            del self._entries[path]
            self._changed = True

    def save(self) -> None:
        """Write the book when it changed (best effort: it only saves time). A save with nothing
        asked for since the last one (a second commit of a build) forgets nothing."""
        gone = self._entries.keys() - self._asked if self._asked else set()
        self._asked = set()
        for path in gone:
            del self._entries[path]
        if self.path is None or not (self._changed or gone):
            return
        document = {path: [digest.hex(), *signature] for path, (digest, signature) in sorted(self._entries.items())}
        data = json.dumps(document, separators=(",", ":")).encode("utf-8", "surrogatepass")
        temp = self.path.with_name(f".{self.path.name}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temp.write_bytes(seal(_KIND, str(self.path), data))
            os.replace(temp, self.path)
        except OSError:
            return
        self._changed = False


def _load(path: Path) -> dict[str, tuple[bytes, Signature]]:
    """The entries of the book at ``path``; none when it is missing, damaged or not this user's."""
    try:
        data = unseal(_KIND, str(path), path.read_bytes())
        found = json.loads(data.decode("utf-8", "surrogatepass")) if data is not None else {}
        return {name: _entry(fields) for name, fields in found.items()} if isinstance(found, dict) else {}
    except (OSError, ValueError, TypeError):
        return {}


def _entry(fields: object) -> tuple[bytes, Signature]:
    if not (isinstance(fields, list) and len(fields) == 5 and isinstance(fields[0], str)
            and all(isinstance(part, int) for part in fields[1:])):
        raise TypeError("not [sha256, inode, size, mtime_ns, ctime_ns]")
    return bytes.fromhex(fields[0]), (fields[1], fields[2], fields[3], fields[4])


def vouched_digest(recorded: Vouched, rel: str, signature: Signature) -> str | None:
    """The recorded hex digest of ``rel`` when its recorded signature is ``signature``; else None."""
    known = recorded.get(rel)
    if known is None or known[1] is None or known[1] != signature:
        return None
    return known[0]
