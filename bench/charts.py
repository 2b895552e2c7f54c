"""Chart drawing bench: CPU ms per SVG, in-process and over a cold build.

    .venv/bin/python bench/charts.py                 # every chart of the example site, 5 rounds
    .venv/bin/python bench/charts.py --rounds 9 --profile /tmp/charts.prof
    .venv/bin/python bench/charts.py --corpus 1000   # also a cold --no-cache build of 1,000 articles, 2 charts each

In-process: each round draws every drawing of the example site (wide and narrow) once in this
process (``drawing.render_charts``, as ``build --jobs 1 --no-cache`` does), after one warm-up round (imports, font caches); the CPU time (``time.process_time``) of a
round divided by its drawings is one sample, and the median of the rounds is printed. CPU time
varies less than wall time on a shared machine.

Corpus: a synthetic site (``corpus.make_corpus``, 2 bar charts per article) is planned, its
drawings drawn in-process once, then built cold (``build --no-cache``, a fresh output folder) in
a child process; its wall time and the CPU time of every process of the build's tree are printed
(``measure.run``: the bench is their subreaper, so the drawing workers a fork server starts count
too).
"""

from __future__ import annotations

import argparse
import cProfile
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from corpus import REPO, make_corpus
from measure import become_subreaper, run

from evidencepress.build.plan import plan_site
from evidencepress.charts.drawing import render_charts
from evidencepress.charts.model import ChartPlan
from evidencepress.core.options import BuildOptions

CLI = [str(Path(sys.executable).with_name("evidencepress"))]


def drawings(root: Path) -> list[ChartPlan]:
    """Every drawing (wide and narrow) of the site at ``root``, in page order."""
    plan, problems = plan_site(BuildOptions(root=root, use_cache=False))
    if plan is None:
        sys.exit("\n".join(problem.format() for problem in problems))
    return [drawn for page in plan.pages for chart in page.charts for _, drawn in chart.variants()]


def cpu_ms_per_svg(plans: list[ChartPlan], rounds: int) -> list[float]:
    """One sample per round: CPU ms of drawing every plan once in this process, as a build with
    ``--jobs 1 --no-cache`` draws them, per drawing."""
    render_charts(plans, jobs=1, cache_dir=None)  # warm-up: imports, fonts, the text measure's caches
    samples = []
    for _ in range(rounds):
        started = time.process_time()
        render_charts(plans, jobs=1, cache_dir=None)
        samples.append((time.process_time() - started) * 1000 / len(plans))
    return samples


def cold_build(site: Path, jobs: int | None) -> tuple[float, float]:
    """(wall s, CPU s) of a cold ``build --no-cache`` of ``site``, the CPU of its whole process tree."""
    for folder in ("_site", "exports", ".cache"):
        shutil.rmtree(site / folder, ignore_errors=True)
    command = CLI + ["build", "--root", str(site), "--no-cache"] + ([f"--jobs={jobs}"] if jobs else [])
    timing = run(command)
    if not timing.ok:
        sys.exit("build failed")
    return timing.seconds, timing.cpu_seconds


def _report(name: str, samples: list[float]) -> None:
    shown = ", ".join(f"{s:.1f}" for s in samples)
    print(f"{name}: median {statistics.median(samples):.1f} ms CPU per SVG (rounds: {shown})")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", type=Path, help="write a cProfile of the example rounds here")
    parser.add_argument("--corpus", type=int, default=0, help="articles of a synthetic corpus to build cold")
    parser.add_argument("--jobs", type=int, default=None, help="--jobs of the cold build")
    args = parser.parse_args(argv)
    example = drawings(REPO)
    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        profiler.enable()
    _report(f"example site, {len(example)} drawings", cpu_ms_per_svg(example, args.rounds))
    if profiler:
        profiler.disable()
        profiler.dump_stats(args.profile)
    if args.corpus:
        become_subreaper()
        with tempfile.TemporaryDirectory(prefix="evidencepress-bench-charts-") as scratch:
            site = make_corpus(Path(scratch) / "site", args.corpus, 20, 2)
            plans = drawings(site)
            _report(f"corpus of {args.corpus}, {len(plans)} drawings", cpu_ms_per_svg(plans[:200], 1))
            wall, cpu = cold_build(site, args.jobs)
            print(f"corpus of {args.corpus}, cold build --no-cache: {wall:.1f} s wall, {cpu:.1f} s CPU")


if __name__ == "__main__":
    main(sys.argv[1:])
