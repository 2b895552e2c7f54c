"""`evidencepress sources fetch` and `sources add`, against an HTTP server on 127.0.0.1 (never the internet)."""

from __future__ import annotations

import hashlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from click.testing import CliRunner
from sitekit import REV, SHA, SOURCE_URL, article, export, make_site, result

from evidencepress.authoring.sources import Hosts, download_url
from evidencepress.cli import main

DOCUMENT = b"Decode at C1 reached 42.5 tokens/s.\n"
DIGEST = hashlib.sha256(DOCUMENT).hexdigest()
OTHER = b"A second document: 17 tokens.\n"
OTHER_DIGEST = hashlib.sha256(OTHER).hexdigest()
HF_URL = f"https://huggingface.co/example/model/blob/{REV}/README.md"


class Files(http.server.BaseHTTPRequestHandler):
    files: ClassVar[dict[str, bytes]] = {}
    requests: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.requests.append(self.path)
        body = self.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    Files.files, Files.requests = {}, []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Files)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def two_source_site(root: Path) -> Path:
    """Page a cites the GitHub document (DIGEST); page b cites it too and a Hugging Face one (OTHER_DIGEST)."""
    first = article("A", "Text.", export(result(source_document_sha256=DIGEST))).replace(SHA, DIGEST)
    second = article("B", "Text.", export(result(source_document_sha256=DIGEST))).replace(SHA, DIGEST)
    second = second.replace("sources:\n", f'sources:\n  - publisher: hf\n    url: "{HF_URL}"\n    revision: "{REV}"\n'
                                          f'    sha256: "{OTHER_DIGEST}"\n', 1)
    return make_site(root, {"guides/a.md": first, "guides/b.md": second})


def fetch(root: Path, base: str) -> tuple[int, str, str]:
    outcome = CliRunner().invoke(main, ["sources", "fetch", "--root", str(root), "--github-raw", base,
                                        "--huggingface", base, "--retries", "1", "--timeout", "5"])
    return outcome.exit_code, outcome.stdout, outcome.stderr


def test_blob_urls_become_their_raw_files() -> None:
    assert download_url(SOURCE_URL + "#L10") == f"https://raw.githubusercontent.com/example/bench/{REV}/README.md"
    assert download_url(HF_URL) == f"https://huggingface.co/example/model/resolve/{REV}/README.md"
    assert (download_url(f"https://huggingface.co/datasets/o/d/blob/{REV}/data/a.md", Hosts(huggingface="http://h"))
            == f"http://h/datasets/o/d/resolve/{REV}/data/a.md")
    assert download_url("https://www.example.org/report?id=3#part") == "https://www.example.org/report?id=3"


def test_fetch_downloads_checks_and_stores_each_document_once(tmp_path: Path, server: str) -> None:
    root = two_source_site(tmp_path)
    Files.files = {f"/example/bench/{REV}/README.md": DOCUMENT, f"/example/model/resolve/{REV}/README.md": OTHER}
    code, out, err = fetch(root, server)
    assert (code, out) == (0, "sources/: 2 fetched, 0 already there, 0 failed\n")
    assert f"fetching [1/2] {SOURCE_URL}" in err
    assert f"fetching [2/2] {HF_URL}" in err
    assert sorted(p.name for p in (root / "sources").iterdir()) == sorted([DIGEST, OTHER_DIGEST])
    assert (root / "sources" / DIGEST).read_bytes() == DOCUMENT
    assert len(Files.requests) == 2
    code, out, _ = fetch(root, server)
    assert (code, out) == (0, "sources/: 0 fetched, 2 already there, 0 failed\n")
    assert len(Files.requests) == 2  # nothing downloaded again


def test_a_changed_snapshot_is_stored_nowhere_and_fails(tmp_path: Path, server: str) -> None:
    root = two_source_site(tmp_path)
    changed = DOCUMENT.replace(b"42.5", b"42.6")
    Files.files = {f"/example/bench/{REV}/README.md": changed}
    code, out, err = fetch(root, server)
    assert (code, out) == (1, "sources/: 0 fetched, 0 already there, 2 failed\n")
    raw = f"{server}/example/bench/{REV}/README.md"
    assert (f"failed: content/guides/a.md sources[0]: {raw} gave sha256 {hashlib.sha256(changed).hexdigest()}, "
            f"not {DIGEST}: the snapshot changed, or the URL is wrong") in err
    hf = f"{server}/example/model/resolve/{REV}/README.md"
    assert f"failed: content/guides/b.md sources[0]: {hf}: HTTP 404 Not Found" in err
    assert not (root / "sources").exists()


def test_an_unreachable_server_is_tried_again_then_reported(tmp_path: Path, server: str) -> None:
    root = two_source_site(tmp_path)
    code, out, err = fetch(root, "http://127.0.0.1:9")  # the discard port: nothing listens there
    assert code == 1
    assert out == "sources/: 0 fetched, 0 already there, 2 failed\n"
    assert "(after 2 attempts)" in err


def test_fetched_documents_verify_in_check(tmp_path: Path, server: str) -> None:
    root = two_source_site(tmp_path)
    Files.files = {f"/example/bench/{REV}/README.md": DOCUMENT, f"/example/model/resolve/{REV}/README.md": OTHER}
    assert fetch(root, server)[0] == 0
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    assert outcome.exit_code == 0
    assert "source-missing" not in outcome.stderr
    # each result cites #L10 of a one-line document, where 42.5 is on line 1: moved
    assert "value 42.5 is on line 1 of the cited document, not line 10" in outcome.stderr


def test_add_stores_a_document_and_names_its_sources(tmp_path: Path) -> None:
    root = two_source_site(tmp_path)
    (tmp_path / "saved.md").write_bytes(DOCUMENT)
    (tmp_path / "other.txt").write_bytes(b"unrelated\n")
    outcome = CliRunner().invoke(main, ["sources", "add", str(tmp_path / "saved.md"), str(tmp_path / "other.txt"),
                                        "--root", str(root)])
    assert outcome.exit_code == 0
    unrelated = hashlib.sha256(b"unrelated\n").hexdigest()
    assert outcome.stdout == (
        f"{tmp_path / 'saved.md'}: stored as sources/{DIGEST}; it is content/guides/a.md sources[0], "
        "content/guides/b.md sources[1]\n"
        f"{tmp_path / 'other.txt'}: stored as sources/{unrelated}; it is no source of the site\n")
    assert (root / "sources" / DIGEST).read_bytes() == DOCUMENT
