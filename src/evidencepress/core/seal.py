"""Sealed cache entries: a keyed digest binds each entry to its cache, its key and this user.

Every entry a cache writes (a validated page, a page's rendered files, a chart
drawing, a build record) is stored behind an HMAC-SHA256 of the cache's name, the
entry's key and its bytes, under a secret that lives outside the site: a
flipped bit, a truncated or edited entry, an entry moved to another key and an
entry written by another machine or user (a ``.cache/`` restored from elsewhere)
all fail the check and are read as a miss — what is published is then made
again, never taken from them. The secret is ``$EVIDENCEPRESS_CACHE_SECRET``
when set (a CI secret that lets trusted runs share their caches), else 32
random bytes kept in ``$XDG_CONFIG_HOME/evidencepress/cache-secret``
(``~/.config``), made on first use; where that cannot be written, this
process's own (its entries serve only this process).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
from pathlib import Path

SECRET_ENV = "EVIDENCEPRESS_CACHE_SECRET"
SEAL_BYTES = 32  # the digest in front of each entry's bytes
_SECRET_BYTES = 32


def seal(kind: str, key: str, data: bytes) -> bytes:
    """``data`` as a cache stores it: behind its keyed digest."""
    return _digest(kind, key, data) + data


def unseal(kind: str, key: str, sealed: bytes) -> bytes | None:
    """The bytes ``seal(kind, key, …)`` sealed, or None when ``sealed`` is not such an entry
    (damaged, truncated, another key's, another cache's, or sealed under another secret)."""
    if len(sealed) < SEAL_BYTES:
        return None
    data = sealed[SEAL_BYTES:]
    return data if hmac.compare_digest(sealed[:SEAL_BYTES], _digest(kind, key, data)) else None


def _digest(kind: str, key: str, data: bytes) -> bytes:
    mac = hmac.new(secret(), f"{kind}\0{key}\0".encode("utf-8", "surrogatepass"), hashlib.sha256)
    mac.update(data)
    return mac.digest()


@functools.cache
def secret() -> bytes:
    """The secret the caches are sealed with (see the module's docstring)."""
    given = os.environ.get(SECRET_ENV)
    if given:
        return given.encode("utf-8", "surrogatepass")
    path = secret_path()
    if path is None:
        return secrets.token_bytes(_SECRET_BYTES)
    return _stored_secret(path)


def secret_path() -> Path | None:
    """Where the user's secret is kept; None when there is no home to keep it in."""
    config = os.environ.get("XDG_CONFIG_HOME")
    try:
        base = Path(config) if config else Path.home() / ".config"
    except (RuntimeError, KeyError):  # no HOME and no password entry
        return None
    return base / "evidencepress" / "cache-secret"


def _stored_secret(path: Path) -> bytes:
    """The secret at ``path``; made there when missing (by one process: the first link wins)."""
    kept = _read_secret(path)
    if kept is not None:
        return kept
    made = secrets.token_bytes(_SECRET_BYTES)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(made)
        os.link(temp, path)  # fails when another process made it first: that one is read below
    except FileExistsError:
        pass
    except OSError:
        return made
    finally:
        temp.unlink(missing_ok=True)
    return _read_secret(path) or made


def _read_secret(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if len(data) >= _SECRET_BYTES else None
