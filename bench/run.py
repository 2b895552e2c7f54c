"""`make bench`: time validation and builds of the example site and a synthetic corpus.

Prints one line per measurement. Not part of the test suite: figures depend
on the machine. Each timing runs the CLI in a fresh process, so interpreter
start-up and imports are included, as a user would see them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpus import REPO, make_corpus

CLI = [sys.executable, "-m", "evidencepress.cli"]


def timed(args: list[str], label: str) -> float:
    started = time.perf_counter()
    outcome = subprocess.run(CLI + args, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    status = "ok" if outcome.returncode in (0, 1) else f"exit {outcome.returncode}"
    print(f"{label:<48} {elapsed:7.2f} s  ({status})", flush=True)
    if outcome.returncode not in (0, 1):
        print(outcome.stderr[-2000:])
    return elapsed


def in_process_check(root: Path) -> float:
    """Validation alone, imports excluded: the figure an editor waits for on a rebuild."""
    from evidencepress.build import BuildOptions, plan_site

    plan_site(BuildOptions(root=root))  # warm imports and schema compilation
    started = time.perf_counter()
    plan_site(BuildOptions(root=root))
    return time.perf_counter() - started


def chart_costs(root: Path, cache: Path) -> None:
    """Drawing cost per chart in one process (matplotlib import excluded), cold and from the cache."""
    from evidencepress.build import BuildOptions, plan_site
    from evidencepress.charts import render_charts

    plan, _ = plan_site(BuildOptions(root=root))
    assert plan is not None
    plans = [drawn for page in plan.pages for chart in page.charts for _, drawn in chart.variants()]
    started = time.perf_counter()
    import matplotlib.figure  # noqa: F401  (timed apart from drawing)

    print(f"{'import matplotlib (once per process)':<48} {time.perf_counter() - started:7.3f} s")
    for label, cache_dir in (("cold, --jobs 1", None), ("fill cache", cache), ("warm, from cache", cache)):
        started = time.perf_counter()
        svgs = render_charts(plans, jobs=1, cache_dir=cache_dir)
        elapsed = time.perf_counter() - started
        if label != "fill cache":
            per = elapsed / len(svgs) * 1000
            print(f"{'charts ' + label + f' ({len(svgs)} SVGs)':<48} {elapsed:7.3f} s  ({per:.2f} ms per SVG)")


def copy_site(target: Path) -> Path:
    for name in ("content", "schema", "templates"):
        shutil.copytree(REPO / name, target / name)
    shutil.copy(REPO / "site.toml", target / "site.toml")
    return target


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        example = copy_site(Path(scratch) / "example")
        print(f"{'example site: validation in process (warm)':<48} {in_process_check(example):7.3f} s")
        timed(["check", "--root", str(example)], "example site: check (new process)")
        timed(["build", "--root", str(example), "--jobs", "1", "--no-cache"], "example site: cold build, --jobs 1")
        timed(["build", "--root", str(example), "--no-cache"], "example site: cold build, --jobs N")
        timed(["build", "--root", str(example)], "example site: build filling the chart cache")
        timed(["build", "--root", str(example)], "example site: warm build (chart cache)")
        chart_costs(example, Path(scratch) / "chart-cache")
        corpus = make_corpus(Path(scratch) / "corpus", 200, 20)
        print(f"{'corpus 200 x 20 results: validation in process':<48} {in_process_check(corpus):7.3f} s")
        timed(["build", "--root", str(corpus)], "corpus 200 articles: cold build, --jobs N")
        timed(["build", "--root", str(corpus)], "corpus 200 articles: warm build (chart cache)")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
