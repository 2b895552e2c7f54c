"""The vault: the cited documents, each a file named by its SHA-256 hex digest.

``read_vault`` lists the vault folder (``sources/`` at the site root unless
site.toml says otherwise), reads every document and hashes it again on every
run: a file whose bytes no longer give its name is an error at its path and
is left out, so a changed byte is never taken for the cited document. A file
not named by a digest is a warning. A missing folder is an empty vault that
does not exist (``exists``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..core.diagnostics import Location, Problem, error, warning

DIGEST = re.compile(r"[0-9a-f]{64}")
DEFAULT_VAULT = "sources"


@dataclass(frozen=True)
class Vault:
    """The documents whose bytes match their names, by digest; ``folder`` as shown in diagnostics."""

    folder: str
    documents: Mapping[str, bytes] = field(default_factory=dict)
    exists: bool = False  # the folder is there (a site without one has not set up verification)

    def lines(self, digest: str) -> tuple[str, ...] | None:
        """The document's lines (1-based line n is ``lines[n - 1]``), decoded as UTF-8 (bad bytes replaced)."""
        data = self.documents.get(digest)
        if data is None:
            return None
        return tuple(data.decode("utf-8", errors="replace").replace("\r\n", "\n").split("\n"))


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_vault(root: Path, folder: str = DEFAULT_VAULT) -> tuple[Vault, list[Problem]]:
    base = root / folder
    if not base.is_dir():
        return Vault(folder), []
    documents: dict[str, bytes] = {}
    problems: list[Problem] = []
    for path in sorted(base.iterdir()):
        shown = f"{folder}/{path.name}"
        if path.name.startswith(".") or not path.is_file():
            continue
        if not DIGEST.fullmatch(path.name):
            problems.append(warning(Location(shown), "not a vault document: its name is not a SHA-256 hex digest",
                                    "vault", hint="store documents with `evidencepress sources add FILE`"))
            continue
        try:
            data = path.read_bytes()
        except OSError as exc:
            problems.append(error(Location(shown), f"cannot read: {exc.strerror or exc}", "vault"))
            continue
        actual = digest_of(data)
        if actual != path.name:
            problems.append(error(Location(shown), f"the document's sha256 is {actual}, not its name", "vault",
                                  hint="the file changed since it was stored: fetch it again with "
                                       "`evidencepress sources fetch`, or delete it"))
            continue
        documents[actual] = data
    return Vault(folder, documents, exists=True), problems
