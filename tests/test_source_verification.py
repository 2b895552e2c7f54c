"""Source verification against the vault (sources/): each fault gives one exact diagnostic.

The sites cite a document the test writes itself, and the seed's real source
document (read from ../shared at run time; skipped when it is not there).
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sitekit import REPO, SHA, SOURCE_URL, article, export, make_site, result

from evidencepress.build.plan import plan_site
from evidencepress.checks.sources import ResultState
from evidencepress.cli import main
from evidencepress.core.diagnostics import Problem
from evidencepress.core.options import BuildOptions

SEED_SOURCE = REPO.parent / "shared" / "seed" / "source-example-gist.txt"

DOCUMENT = (
    "Benchmark notes\n"
    "\n"
    "Decode at C1 reached 42.5 tokens/s over 3 runs.\n"
    "Prefill took 8.20 s at 1,024 tokens.\n"
    "Total 188.5 tokens.\n"
    "Decode at C2: 37.25 ± 0.4 tokens/s (version 1.5.2).\n"
).encode()
DIGEST = hashlib.sha256(DOCUMENT).hexdigest()
PAGE = "content/guides/a.md"


def cited(label: str, literal: str, line: int | None, digest: str = DIGEST, **overrides: Any) -> dict[str, Any]:
    """A result whose value is written ``literal`` (replaced into the JSON text by ``site``)."""
    entry = result(label, f"@{literal}@", **overrides)
    entry["evidence_url"] = SOURCE_URL + (f"#L{line}" if line is not None else "")
    if line is not None:
        entry["source_line"] = line
    entry["source_document_sha256"] = digest
    return entry


def site(root: Path, *results: dict[str, Any], documents: tuple[bytes, ...] = (DOCUMENT,),
         digest: str = DIGEST) -> Path:
    text = article("Cited", "Text.", export(*results)).replace(SHA, digest)
    for entry in results:
        literal = str(entry["value"]).strip("@")
        text = text.replace(json.dumps(entry["value"]), literal)
    make_site(root, {"guides/a.md": text})
    vault = root / "sources"
    vault.mkdir(exist_ok=True)
    for document in documents:
        (vault / hashlib.sha256(document).hexdigest()).write_bytes(document)
    return root


def where(root: Path, index: int, key: str = "value") -> str:
    """``file:line:col`` of the index-th ``key`` of the export in the page."""
    lines = (root / PAGE).read_text().split("\n")
    spots = [(n, line.index(f'"{key}":')) for n, line in enumerate(lines, start=1) if f'      "{key}":' in line
             or f'    "{key}":' in line]
    spots = [(n, col) for n, col in spots if lines[n - 1][:col].strip() == ""]
    number, col = spots[index]
    return f"{PAGE}:{number}:{col + 1}"


def run(root: Path) -> tuple[dict[str, tuple[ResultState, ...]], list[Problem]]:
    plan, problems = plan_site(BuildOptions(root, use_cache=False, jobs=1))
    states = dict(plan.source_states) if plan is not None else {}
    return states, [p for p in problems if p.rule.startswith("source") or p.rule == "vault"]


def states_of(root: Path) -> list[str]:
    states, _ = run(root)
    return [state.state for state in states["/guides/a/"]]


def lines_of(problems: list[Problem]) -> list[str]:
    return [p.format().split("\n")[0] for p in problems]


def test_values_on_their_lines_are_verified(tmp_path: Path) -> None:
    root = site(tmp_path, cited("A", "42.5", 3), cited("B", "3", 3, source_record_id="other"),
                cited("C", "37.25", 6, uncertainty={"standard_deviation": 0.4}),
                cited("D", "1024", None))
    states, problems = run(root)
    assert problems == []
    assert [(s.index, s.state) for s in states["/guides/a/"]] == [(0, "verified"), (1, "verified"),
                                                                   (2, "verified"), (3, "no-line")]


def test_one_digit_changed_is_absent(tmp_path: Path) -> None:
    root = site(tmp_path, cited("A", "42.6", 3))
    _, problems = run(root)
    assert lines_of(problems) == [
        (f'{where(root, 0)}: error: reported_results[0].value: value 42.6 is not on line 3 of the cited document: '
        '"Decode at C1 reached 42.5 tokens/s over 3 runs." [source-absent]')]
    assert problems[0].hint == f"the document is sources/{DIGEST}: correct the number or the line it cites"
    result_ = CliRunner().invoke(main, ["check", "--root", str(root)])
    assert result_.exit_code == 1


@pytest.mark.parametrize("line", [2, 4])
def test_source_line_off_by_one_is_moved(tmp_path: Path, line: int) -> None:
    root = site(tmp_path, cited("A", "42.5", line))
    states, problems = run(root)
    assert lines_of(problems) == [
        (f'{where(root, 0)}: warning: reported_results[0].value: value 42.5 is on line 3 of the cited document, '
        f'not line {line}: "Decode at C1 reached 42.5 tokens/s over 3 runs." [source-moved]')]
    assert problems[0].hint == 'write "source_line": 3 (and #L3 in evidence_url)'
    cited_line = DOCUMENT.decode().split("\n")[line - 1]
    assert states["/guides/a/"] == (ResultState(0, "moved", line, cited_line, found=3),)


def test_a_flipped_byte_in_the_vault_is_an_error(tmp_path: Path) -> None:
    root = site(tmp_path, cited("A", "42.5", 3))
    stored = root / "sources" / DIGEST
    data = bytearray(stored.read_bytes())
    data[20] ^= 0x01
    stored.write_bytes(bytes(data))
    states, problems = run(root)
    actual = hashlib.sha256(bytes(data)).hexdigest()
    assert lines_of(problems) == [
        f"sources/{DIGEST}: error: the document's sha256 is {actual}, not its name [vault]",
        ("sources/: note: 1 value cites 1 document not in the vault: their lines are not verified "
        "[source-missing]")]
    assert states == {}  # the build stops at the error
    result_ = CliRunner().invoke(main, ["check", "--root", str(root)])
    assert result_.exit_code == 1


def test_the_vault_is_read_only_where_a_document_changed_and_a_same_size_edit_shows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each build read and hashed every vault document (5,000 of them: 2 s of each edit, issue 27).
    A book of digests, kept at the build's commit, vouches for the unchanged ones by their stat; a
    same-size edit with its modification time put back changes its ctime, and is read."""
    import time

    from evidencepress.core import filestate

    root = site(tmp_path, cited("A", "42.5", 3))
    stored = root / "sources" / DIGEST
    time.sleep(filestate.RACY_NS / 1e9 + 0.05)  # older than the racy window, as after any real save
    assert CliRunner().invoke(main, ["build", "--root", str(root)]).exit_code == 0
    read: list[str] = []
    real = filestate.file_sha256
    monkeypatch.setattr(filestate, "file_sha256", lambda path: read.append(path) or real(path))
    page = root / "content/guides/a.md"
    page.write_text(page.read_text() + "\nMore text.\n")
    assert CliRunner().invoke(main, ["build", "--root", str(root)]).exit_code == 0
    assert str(stored) not in read
    status = stored.stat()
    data = bytearray(stored.read_bytes())
    data[20] ^= 0x01
    stored.write_bytes(bytes(data))
    os.utime(stored, ns=(status.st_atime_ns, status.st_mtime_ns))
    outcome = CliRunner().invoke(main, ["build", "--root", str(root)])
    assert outcome.exit_code == 1 and f"sources/{DIGEST}: error: the document's sha256 is" in outcome.output


def test_a_dropped_trailing_zero_is_a_literal_mismatch(tmp_path: Path) -> None:
    root = site(tmp_path, cited("A", "8.2", 4, metric="prefill_time", unit="s"))
    _states, problems = run(root)
    assert lines_of(problems) == [
        (f'{where(root, 0)}: warning: reported_results[0].value: value 8.2 is written 8.20 on line 4 of the cited '
        'document: "Prefill took 8.20 s at 1,024 tokens." [source-literal]')]
    assert states_of(root) == ["literal-mismatch"]


def test_a_value_inside_a_longer_number_is_absent(tmp_path: Path) -> None:
    root = site(tmp_path, cited("A", "88", 5), cited("B", "1.5", 6, source_record_id="other"))
    _, problems = run(root)
    assert lines_of(problems) == [
        (f'{where(root, 0)}: error: reported_results[0].value: value 88 is not on line 5 of the cited document: '
        '"Total 188.5 tokens." [source-absent]'),
        (f'{where(root, 1)}: error: reported_results[1].value: value 1.5 is not on line 6 of the cited document: '
        '"Decode at C2: 37.25 ± 0.4 tokens/s (version 1.5.2)." [source-absent]')]


def test_an_uncertainty_not_on_the_line_is_absent(tmp_path: Path) -> None:
    root = site(tmp_path, cited("A", "37.25", 6, uncertainty={"standard_deviation": 0.5}))
    _, problems = run(root)
    assert lines_of(problems) == [
        (f'{where(root, 0, "standard_deviation")}: error: reported_results[0].uncertainty.standard_deviation: '
        'uncertainty.standard_deviation 0.5 is not on line 6 of the cited document: '
        '"Decode at C2: 37.25 ± 0.4 tokens/s (version 1.5.2)." [source-absent]')]


def test_source_line_and_fragment_disagreeing_is_a_warning(tmp_path: Path) -> None:
    entry = cited("A", "42.5", 3)
    entry["evidence_url"] = SOURCE_URL + "#L4"
    root = site(tmp_path, entry)
    _states, problems = run(root)
    assert lines_of(problems) == [
        (f"{where(root, 0, 'source_line')}: warning: reported_results[0].source_line: source_line 3 disagrees with "
        "evidence_url's #L4 (line 3: \"Decode at C1 reached 42.5 tokens/s over 3 runs.\") [source-line]")]
    assert states_of(root) == ["verified"]


def test_a_fragment_range_is_read_as_the_cited_lines(tmp_path: Path) -> None:
    entry = cited("A", "42.5", None)
    entry["evidence_url"] = SOURCE_URL + "#L2-L4"
    root = site(tmp_path, entry)
    assert states_of(root) == ["verified"]


def test_documents_not_in_the_vault_give_one_note(tmp_path: Path) -> None:
    root = site(tmp_path, cited("A", "42.5", 3), cited("B", "37.25", 6, source_record_id="other"), documents=())
    _states, problems = run(root)
    assert lines_of(problems) == [
        ("sources/: note: 2 values cite 1 document not in the vault: their lines are not verified "
        "[source-missing]")]
    assert problems[0].hint == "run `evidencepress sources fetch` to fill the vault"
    assert states_of(root) == ["source-missing", "source-missing"]


def test_a_site_without_a_vault_folder_gets_no_note(tmp_path: Path) -> None:
    root = site(tmp_path, cited("A", "42.5", 3), documents=())
    (root / "sources").rmdir()
    _states, problems = run(root)
    assert problems == []
    assert states_of(root) == ["source-missing"]


def test_a_site_toml_that_names_the_vault_gets_the_note_before_the_vault_exists(tmp_path: Path) -> None:
    root = site(tmp_path, cited("A", "42.5", 3), documents=())
    (root / "sources").rmdir()
    (root / "site.toml").write_text('sources = "sources"\n' + (root / "site.toml").read_text())
    _states, problems = run(root)
    assert lines_of(problems) == [
        "sources/: note: 1 value cites 1 document not in the vault: their lines are not verified [source-missing]"]


def test_the_vault_folder_comes_from_site_toml(tmp_path: Path) -> None:
    root = site(tmp_path, cited("A", "42.6", 3))
    (root / "sources").rename(root / "vault")
    (root / "site.toml").write_text((root / "site.toml").read_text() + '\nsources = "vault"\n')
    text = (root / "site.toml").read_text()
    (root / "site.toml").write_text('sources = "vault"\n' + text.replace('\nsources = "vault"\n', ""))
    _, problems = run(root)
    assert [p.rule for p in problems] == ["source-absent"]
    assert problems[0].hint.startswith("the document is vault/")


def test_check_makes_no_network_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = site(tmp_path, cited("A", "42.5", 3))
    assert CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"]).exit_code == 0
    calls: list[object] = []

    def refuse(self: socket.socket, address: object) -> None:
        calls.append(address)
        raise OSError("no network in check")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: refuse(None, a))  # type: ignore[arg-type]
    outcome = CliRunner().invoke(main, ["check", "--root", str(root), "--format", "json"])
    assert outcome.exit_code == 0, outcome.output
    assert calls == []


# --- the seed's real source document ---------------------------------------------------------

# (value as the document writes it, its line): numbers of the seed's source document.
SEED_VALUES = [("53.8", 103), ("54.3", 103), ("40.1", 103), ("27.6", 138), ("47.5", 138), ("26.5", 280)]


@pytest.fixture
def seed_document() -> bytes:
    if not SEED_SOURCE.is_file():
        pytest.skip("shared/seed is not beside the repository")
    return SEED_SOURCE.read_bytes()


def seed_site(root: Path, document: bytes, values: list[tuple[str, int]]) -> Path:
    digest = hashlib.sha256(document).hexdigest()
    results = [cited(f"Run {n}", literal, line, digest, source_record_id=f"seed-{n}")
               for n, (literal, line) in enumerate(values)]
    return site(root, *results, documents=(document,), digest=digest)


def test_values_of_the_seed_document_are_verified(tmp_path: Path, seed_document: bytes) -> None:
    root = seed_site(tmp_path, seed_document, SEED_VALUES)
    _, problems = run(root)
    assert problems == []
    assert set(states_of(root)) == {"verified"}


def test_faults_against_the_seed_document(tmp_path: Path, seed_document: bytes) -> None:
    lines = seed_document.decode().split("\n")
    quoted = lines[102].strip()[:159] + "…"  # a long line is quoted up to 160 characters
    faults = [("53.9", 103), ("27.6", 139), ("40.10", 103)]
    root = seed_site(tmp_path, seed_document, faults)
    _, problems = run(root)
    assert [p.rule for p in problems] == ["source-absent", "source-moved", "source-literal"]
    assert problems[0].message == f'value 53.9 is not on line 103 of the cited document: "{quoted}"'
    assert problems[2].message == f'value 40.10 is written 40.1 on line 103 of the cited document: "{quoted}"'
    warned = seed_site(tmp_path / "warned", seed_document, faults[1:])
    states, _ = run(warned)
    assert [(s.state, s.line, s.found) for s in states["/guides/a/"]] == [("moved", 139, 138), ("literal-mismatch", 103, None)]


# --- facts ----------------------------------------------------------------------------------


def fact(value: Any, line: int | None, **overrides: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"label": "A statement", "value": value, "classification": "setting",
                             "evidence_url": SOURCE_URL + (f"#L{line}" if line is not None else ""),
                             "source_document_sha256": DIGEST}
    if line is not None:
        entry["source_line"] = line
    entry.update(overrides)
    return entry


def fact_site(root: Path, *facts: dict[str, Any]) -> Path:
    text = article("Cited", "Text.", export(cited("A", "42.5", 3), facts=list(facts))).replace(SHA, DIGEST)
    make_site(root, {"guides/a.md": text.replace('"@42.5@"', "42.5")})
    (root / "sources").mkdir()
    (root / "sources" / DIGEST).write_bytes(DOCUMENT)
    return root


def test_facts_with_a_number_or_short_text_are_verified(tmp_path: Path) -> None:
    root = fact_site(tmp_path, fact(3, 3), fact("tokens/s", 3), fact("version 1.5.2", 6),
                     fact(True, 3), fact("x" * 81, 3), fact({"a": 1}, 3), fact("C1 reached", None))
    states, problems = run(root)
    assert problems == []
    # a boolean, a long text and an object are not looked up: they have no state
    assert [(s.pointer, s.state) for s in states["/guides/a/"]] == [
        ("/reported_results/0", "verified"), ("/facts/0", "verified"), ("/facts/1", "verified"),
        ("/facts/2", "verified"), ("/facts/6", "no-line")]


def test_a_fact_number_written_with_a_thousands_separator_is_a_literal_mismatch(tmp_path: Path) -> None:
    root = fact_site(tmp_path, fact(1024, 4))
    states, problems = run(root)
    assert [s.state for s in states["/guides/a/"]] == ["verified", "literal-mismatch"]
    assert [p.message for p in problems] == [
        'value 1024 is written 1,024 on line 4 of the cited document: "Prefill took 8.20 s at 1,024 tokens."']


def test_fact_text_faults(tmp_path: Path) -> None:
    root = fact_site(tmp_path, fact("Decode At C1", 3), fact("Total", 6), fact("tokens/m", 3),
                     fact("Benchmark", 2, url=SOURCE_URL + "#L2", evidence_url=None))
    text = (root / PAGE).read_text().replace('"evidence_url": null,\n', "")
    (root / PAGE).write_text(text)
    _, problems = run(root)
    assert lines_of(problems) == [
        (f'{where(root, 0)}: warning: facts[0].value: value "Decode At C1" is written "Decode at C1" on line 3 of '
         'the cited document: "Decode at C1 reached 42.5 tokens/s over 3 runs." [source-literal]'),
        (f'{where(root, 1)}: warning: facts[1].value: value "Total" is on line 5 of the cited document, not line 6: '
         '"Total 188.5 tokens." [source-moved]'),
        (f'{where(root, 2)}: error: facts[2].value: value "tokens/m" is not on line 3 of the cited document: '
         '"Decode at C1 reached 42.5 tokens/s over 3 runs." [source-absent]'),
        (f'{where(root, 3)}: warning: facts[3].value: value "Benchmark" is on line 1 of the cited document, not '
         'line 2: "Benchmark notes" [source-moved]'),
    ]
    assert problems[2].hint == f"the document is sources/{DIGEST}: correct the text or the line it cites"
    assert problems[3].hint == 'write "source_line": 1 (and #L1 in url)'
    warned = fact_site(tmp_path / "warned", fact("Decode At C1", 3), fact("Total", 6))
    states, _ = run(warned)
    assert [(s.pointer, s.state, s.found) for s in states["/guides/a/"]][1:] == [
        ("/facts/0", "literal-mismatch", None), ("/facts/1", "moved", 5)]
