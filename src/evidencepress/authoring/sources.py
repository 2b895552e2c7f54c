"""Filling the vault: ``sources fetch`` (the only code that uses the network) and ``sources add``.

Every source of every page names its document by a pinned URL and a sha256.
``fetch_sources`` downloads each document once (a GitHub or Hugging Face
``blob/<commit>/path`` page becomes the raw file at that commit; any other URL
is fetched as is), checks its SHA-256 and stores it in the vault under its
digest; a document whose bytes give another digest is stored nowhere and
reported. ``add_documents`` stores files obtained by hand and says which
sources they are. Where GitHub's and Hugging Face's files are served from is a
``Hosts`` value, so that tests point them at a server on 127.0.0.1.
"""

from __future__ import annotations

import os
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from ..content.parse import parse_page
from ..content.read import read_content
from ..content.vault import DIGEST, digest_of

USER_AGENT = "evidencepress-sources-fetch"


@dataclass(frozen=True)
class Hosts:
    """Where the raw files of GitHub and Hugging Face blob URLs are downloaded from."""

    github_raw: str = "https://raw.githubusercontent.com"
    huggingface: str = "https://huggingface.co"


@dataclass(frozen=True)
class CitedSource:
    digest: str
    url: str
    cited_by: str  # content/guides/a.md sources[0]


@dataclass(frozen=True)
class Fetched:
    source: CitedSource
    outcome: str  # "fetched", "already there" or "failed"
    why: str = ""


@dataclass(frozen=True)
class FetchReport:
    results: tuple[Fetched, ...] = field(default_factory=tuple)

    def count(self, outcome: str) -> int:
        return sum(1 for result in self.results if result.outcome == outcome)

    @property
    def failed(self) -> tuple[Fetched, ...]:
        return tuple(result for result in self.results if result.outcome == "failed")

    def summary(self) -> str:
        return (f"{self.count('fetched')} fetched, {self.count('already there')} already there, "
                f"{self.count('failed')} failed")


def download_url(url: str, hosts: Hosts = Hosts()) -> str:
    """The URL the document's bytes are served at: the raw file of a blob page, else ``url`` (no fragment)."""
    parts = urlsplit(url)
    path = [part for part in parts.path.split("/") if part]
    plain = parts._replace(fragment="").geturl()
    if parts.hostname in ("github.com", "www.github.com") and len(path) >= 5 and path[2] == "blob":
        owner, name, commit = path[0], path[1], path[3]
        return f"{hosts.github_raw.rstrip('/')}/{owner}/{name}/{commit}/{'/'.join(path[4:])}"
    if parts.hostname in ("huggingface.co", "www.huggingface.co") and "blob" in path[:4]:
        at = path.index("blob")
        repo, rest = path[:at], path[at + 1:]
        if len(repo) >= 2 and len(rest) >= 2:
            return f"{hosts.huggingface.rstrip('/')}/{'/'.join(repo)}/resolve/{'/'.join(rest)}"
    return plain


def cited_sources(root: Path) -> list[CitedSource]:
    """Every source of every page (read from the front matter as written; a page with errors still counts)."""
    content, _ = read_content(root)
    cited: list[CitedSource] = []
    for source_file in content.pages:
        parsed, _ = parse_page(source_file)
        front = parsed.front_matter.value if parsed is not None and parsed.front_matter is not None else None
        sources = front.get("sources") if isinstance(front, dict) else None
        for index, entry in enumerate(sources if isinstance(sources, list) else []):
            if not isinstance(entry, dict):
                continue
            digest, url = entry.get("sha256"), entry.get("url")
            if isinstance(digest, str) and isinstance(url, str) and DIGEST.fullmatch(digest):
                cited.append(CitedSource(digest, url, f"{source_file.path} sources[{index}]"))
    return cited


def fetch_sources(root: Path, folder: str, hosts: Hosts = Hosts(), timeout: float = 30.0, retries: int = 2,
                  progress: Callable[[str], None] = lambda text: None) -> FetchReport:
    """Download every cited document the vault lacks (each digest once), check and store it."""
    vault = root / folder
    unique: dict[str, CitedSource] = {}
    for source in cited_sources(root):
        unique.setdefault(source.digest, source)
    results: list[Fetched] = []
    for number, source in enumerate(unique.values(), start=1):
        progress(f"[{number}/{len(unique)}] {source.url}")
        stored = vault / source.digest
        if stored.is_file() and digest_of(stored.read_bytes()) == source.digest:
            results.append(Fetched(source, "already there"))
            continue
        results.append(_fetch_one(source, vault, hosts, timeout, retries))
    return FetchReport(tuple(results))


def _fetch_one(source: CitedSource, vault: Path, hosts: Hosts, timeout: float, retries: int) -> Fetched:
    url = download_url(source.url, hosts)
    data, why = _download(url, timeout, retries)
    if data is None:
        return Fetched(source, "failed", why)
    actual = digest_of(data)
    if actual != source.digest:
        return Fetched(source, "failed", f"{url} gave sha256 {actual}, not {source.digest}: "
                                         "the snapshot changed, or the URL is wrong")
    store_document(vault, data)
    return Fetched(source, "fetched")


def _download(url: str, timeout: float, retries: int) -> tuple[bytes | None, str]:
    """The body of ``url``, or None and why; network errors and 5xx answers are tried again."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    why = ""
    for attempt in range(retries + 1):
        if attempt:
            time.sleep(min(0.5 * 2 ** (attempt - 1), 4.0))
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.read(), ""
        except urllib.error.HTTPError as exc:
            why = f"{url}: HTTP {exc.code} {exc.reason}"
            if exc.code < 500:
                return None, why
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            why = f"{url}: {reason}"
    return None, f"{why} (after {retries + 1} attempts)"


def store_document(vault: Path, data: bytes) -> str:
    """Write ``data`` into the vault under its digest (atomically); the digest."""
    digest = digest_of(data)
    vault.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=vault, prefix=".incoming-")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, vault / digest)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return digest


def add_documents(root: Path, folder: str, files: list[Path]) -> list[tuple[Path, str, list[CitedSource]]]:
    """Store each file under its digest; each with the sources it is (by sha256)."""
    cited = cited_sources(root)
    added = []
    for path in files:
        digest = store_document(root / folder, path.read_bytes())
        added.append((path, digest, [source for source in cited if source.digest == digest]))
    return added
