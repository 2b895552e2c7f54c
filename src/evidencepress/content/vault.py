"""The vault: the cited documents, each a file named by its SHA-256 hex digest.

``read_vault`` lists the vault folder (``sources/`` at the site root unless
site.toml says otherwise) and checks every document's digest on every run: a
file whose bytes no longer give its name is an error at its path and is left
out, so a changed byte is never taken for the cited document. A book of
digests (``core.filestate.DigestBook``) reads and hashes a document only when
its stat signature is not the one it recorded (every change of a file changes
its ctime); a document's lines are read when a claim is verified against it,
and hashed again then. A file not named by a digest is a warning. A missing
folder is an empty vault that does not exist (``exists``).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..core.diagnostics import Location, Problem, error, warning
from ..core.filestate import DigestBook

DIGEST = re.compile(r"[0-9a-f]{64}")
DEFAULT_VAULT = "sources"


@dataclass(frozen=True)
class Vault:
    """The documents whose bytes match their names (their paths, by digest); ``folder`` as shown in
    diagnostics."""

    folder: str
    documents: Mapping[str, str] = field(default_factory=dict)
    exists: bool = False  # the folder is there (a site without one has not set up verification)

    def lines(self, digest: str) -> tuple[str, ...] | None:
        """The document's lines (1-based line n is ``lines[n - 1]``), decoded as UTF-8 (bad bytes
        replaced); None when it is not in the vault, or no longer holds its digest's bytes."""
        path = self.documents.get(digest)
        if path is None:
            return None
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        if digest_of(data) != digest:
            return None  # changed since it was listed: the next run reports it
        return tuple(data.decode("utf-8", errors="replace").replace("\r\n", "\n").split("\n"))


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_vault(root: Path, folder: str = DEFAULT_VAULT,
               book: DigestBook | None = None) -> tuple[Vault, list[Problem]]:
    """The vault at ``root``/``folder``; ``book``: the digests a stat vouches for (None: every
    document is read and hashed)."""
    base = root / folder
    if not base.is_dir():
        return Vault(folder), []
    documents: dict[str, str] = {}
    problems: list[Problem] = []
    for entry in sorted(os.scandir(base), key=lambda entry: entry.name):
        shown = f"{folder}/{entry.name}"
        if entry.name.startswith(".") or not entry.is_file():
            continue
        if not DIGEST.fullmatch(entry.name):
            problems.append(warning(Location(shown), "not a vault document: its name is not a SHA-256 hex digest",
                                    "vault", hint="store documents with `evidencepress sources add FILE`"))
            continue
        try:
            actual = book.digest(entry.path).hex() if book is not None else digest_of(Path(entry.path).read_bytes())
        except OSError as exc:
            problems.append(error(Location(shown), f"cannot read: {exc.strerror or exc}", "vault"))
            continue
        if actual != entry.name:
            problems.append(error(Location(shown), f"the document's sha256 is {actual}, not its name", "vault",
                                  hint="the file changed since it was stored: fetch it again with "
                                       "`evidencepress sources fetch`, or delete it"))
            continue
        documents[actual] = entry.path
    return Vault(folder, documents, exists=True), problems
