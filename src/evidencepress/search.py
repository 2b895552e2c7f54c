"""Search index: the rendered HTML pages -> the files of a Pagefind bundle (``pagefind/``).

Pagefind (the PyPI package ``pagefind-bin``, which ships its binary) indexes
the elements marked ``data-pagefind-body`` (articles and record pages) and the
``data-pagefind-filter`` values they carry (system, model, engine). The
bundle is returned as bytes, so the writer publishes it with the rest of the
site in one atomic swap; nothing is written to the output folder here.

The pages are handed to the Pagefind binary as one folder (a private temporary
copy), and the bundle is read back from another: its Python client waits 0.1 s
per page message and cannot read a bundle larger than its stream limit (a site
of a thousand pages hung until the time-out).

Pagefind 1.5 writes its filter files (and the list of them in its metadata)
in hash-map order, which changes from run to run although nothing else does.
``canonical_bundle`` sorts them and renames the files by their content hash
the way Pagefind names them, so two builds of a site give the same bytes
(tested). It knows the layout of the pinned version and refuses any other.

When Pagefind cannot run (no binary for this platform, a crash, a timeout),
the build goes on without a search index and says so in one warning.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cbor2

from .diagnostics import Location, Problem, warning

TIMEOUT_SECONDS = 300


@dataclass(frozen=True)
class SearchIndex:
    files: Mapping[str, bytes]  # path inside pagefind/ -> bytes
    problems: tuple[Problem, ...]

    @property
    def available(self) -> bool:
        return bool(self.files)


SearchIndexer = Callable[[Mapping[str, bytes], str], SearchIndex]  # (HTML pages by path, language) -> index


def build_search_index(html_pages: Mapping[str, bytes], language: str) -> SearchIndex:
    """Index ``html_pages`` (output path -> HTML bytes)."""
    if not html_pages:
        return SearchIndex({}, ())  # nothing to search: no index, and nothing to warn about
    try:
        files = canonical_bundle(_index(html_pages, language))
    except Exception as exc:  # noqa: BLE001 -- any failure of the external indexer degrades to "no search"
        return SearchIndex({}, (_unavailable(exc),))
    return SearchIndex(files, ())


def _unavailable(exc: BaseException) -> Problem:
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, subprocess.TimeoutExpired):
        reason = f"Pagefind did not finish within {TIMEOUT_SECONDS} s"
    return warning(Location("pagefind"), f"search index not built: {reason}", "search",
                   hint="install the pinned pagefind-bin package (make setup); "
                        "the site is built without search and its search page says so")


def _index(html_pages: Mapping[str, bytes], language: str) -> dict[str, bytes]:
    """Run the Pagefind binary over a private temporary copy of the pages; the bundle's files by path."""
    binary = os.environ.get("PAGEFIND_BINARY_PATH")  # the variable Pagefind's own wrappers read
    if not binary:
        from pagefind_bin import get_executable  # type: ignore[import-untyped]  # only a build that indexes

        binary = str(get_executable())
    with tempfile.TemporaryDirectory(prefix="evidencepress-search-") as folder:
        site, bundle = Path(folder, "site"), Path(folder, "bundle")
        for rel, data in sorted(html_pages.items()):
            path = site / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        # Inline chart drawings repeat as SVG text what their data table says in words: not indexed.
        command = [binary, "--site", str(site), "--output-path", str(bundle), "--silent",
                   "--force-language", language.split("-")[0].lower(), "--exclude-selectors", "figure svg"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"Pagefind exited with {done.returncode}: {done.stderr.strip()[:300]}")
        return {p.relative_to(bundle).as_posix(): p.read_bytes() for p in sorted(bundle.rglob("*")) if p.is_file()}


# --- making the bundle byte-stable ------------------------------------------------------------

SIGNATURE = b"pagefind_dcd"  # leads every compressed Pagefind data file
FILTERS_AT = 3  # the metadata is [version, pages, word chunks, filters, sorts, meta fields]


def canonical_bundle(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """The bundle with every filter file's values and the metadata's filter list sorted."""
    filter_names = sorted(n for n in files if n.startswith("filter/") and n.endswith(".pf_filter"))
    bundle = {name: data for name, data in files.items() if name not in filter_names}
    renamed: dict[str, str] = {}
    for name in filter_names:
        old = name[len("filter/"):-len(".pf_filter")]
        filter_name, values = cbor2.loads(_unpack(files[name]))
        body = cbor2.dumps([filter_name, sorted(values, key=lambda value: str(value[0]))])
        new = _free_name(_prefix(old), _pagefind_hash(body), 7, lambda h: f"filter/{h}.pf_filter" in bundle)
        bundle[f"filter/{new}.pf_filter"] = _pack(body)
        renamed[old] = new
    metas = [n for n in files if n.startswith("pagefind.") and n.endswith(".pf_meta")]
    if len(metas) != 1 or "pagefind-entry.json" not in files:
        raise ValueError(f"unexpected Pagefind bundle: {len(metas)} metadata files")
    old_meta = metas[0][len("pagefind."):-len(".pf_meta")]
    meta: list[Any] = cbor2.loads(_unpack(files[metas[0]]))
    meta[FILTERS_AT] = sorted([name, renamed.get(hashed, hashed)] for name, hashed in meta[FILTERS_AT])
    body = cbor2.dumps(meta)
    new_meta = _prefix(old_meta) + _pagefind_hash(body)[:10]
    del bundle[metas[0]]
    bundle[f"pagefind.{new_meta}.pf_meta"] = _pack(body)
    bundle["pagefind-entry.json"] = files["pagefind-entry.json"].replace(old_meta.encode(), new_meta.encode())
    return dict(sorted(bundle.items()))


def _unpack(data: bytes) -> bytes:
    raw = gzip.decompress(data)
    if not raw.startswith(SIGNATURE):
        raise ValueError("unexpected Pagefind data file")
    return raw[len(SIGNATURE):]


def _pack(body: bytes) -> bytes:
    return gzip.compress(SIGNATURE + body, compresslevel=9, mtime=0)


def _prefix(hashed: str) -> str:
    """``en_3cc1afa`` -> ``en_``: the language part of a Pagefind file hash."""
    return hashed.rsplit("_", 1)[0] + "_" if "_" in hashed else ""


def _pagefind_hash(body: bytes) -> str:
    """Pagefind's file hash: the SHA-1 bytes in hex, each without a leading zero."""
    return "".join(format(byte, "x") for byte in hashlib.sha1(body).digest())


def _free_name(prefix: str, digest: str, length: int, taken: Any) -> str:
    """The shortest name of at least ``length`` digest characters that is not taken (as Pagefind does)."""
    while taken(prefix + digest[:length]) and length < len(digest):
        length += 1
    return prefix + digest[:length]
