"""Command line: parse options, call one stage function, print problems, exit.

Exit codes: 0 success, 1 content errors, 2 usage errors (click's own); a command stopped by a
signal exits with 128 + its number (130 for Ctrl-C, 143 for SIGTERM); `serve`, which Ctrl-C
ends as it is meant to, with 0.
"""

from __future__ import annotations

import atexit
import contextlib
import datetime as dt
import functools
import math
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from . import __version__
from .core import lifetime
from .core.diagnostics import Problem, TextOptions, format_json, format_text, has_errors, sort_problems
from .core.forking import collector, stop_all_workers
from .core.options import BuildOptions, ConfigError
from .core.progress import Progress
from .core.signals import Interrupted, interrupts

if TYPE_CHECKING:  # the schemas load jsonschema: imported only by the commands that need them
    from .build.plan import Setup
    from .schemas.load import SchemaSet

ROOT = click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
                    show_default=True, help="The site root (the folder holding site.toml).")
FORMAT = click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
                      show_default=True, help="How problems are printed.")
STRICT = click.option("--strict", is_flag=True, help="Treat warnings as errors.")
QUIET = click.option("-q", "--quiet", is_flag=True, help="List errors only (the summary still counts everything).")
ALL_WARNINGS = click.option("--all-warnings", is_flag=True,
                            help="List every warning instead of the first few of each rule.")
PROSE = click.option("--prose/--no-prose", default=True, show_default=True,
                     help="Warn about numbers in the prose that copy export values instead of referencing them.")
# `evidencepress schema NAME` (schemaref.NAMES maps each to its file; not imported here, it loads jsonschema)
SCHEMA_CHOICES = ("export", "conditions", "chart", "frontmatter", "site", "units", "comparability")
DEFAULT_REPORT = TextOptions()  # how a usage error or a failed diff build is reported


def _stops_on_signals(function: Callable[..., None]) -> Callable[..., None]:
    """SIGINT, SIGTERM and SIGHUP stop the command through its ``finally`` blocks (staged folders,
    temporary worktrees and worker processes are removed); it says so and exits with 128 + the
    signal's number."""
    @functools.wraps(function)
    def command(*args: Any, **kwargs: Any) -> None:
        try:
            with interrupts():
                function(*args, **kwargs)
        except KeyboardInterrupt as exc:
            stop_all_workers()
            signum = exc.signum if isinstance(exc, Interrupted) else signal.SIGINT
            click.echo(f"{click.get_current_context().info_name} interrupted by {signal.Signals(signum).name}",
                       err=True)
            sys.exit(128 + signum)

    return command


def _collector_off() -> contextlib.AbstractContextManager[None]:
    """The cyclic garbage collector off for a build or a check (``core.forking.collector``). In
    the ``evidencepress`` command (``run``), whose process ends with it, it is not turned on
    again (``core.lifetime``): its first pass walked every object the build still held (0.2-0.3 s
    of a one-article edit of 5,000 articles)."""
    return collector(enabled=False, restore=not lifetime.ending())


def _report_options(function: Callable[..., None]) -> Callable[..., None]:
    for option in (ALL_WARNINGS, QUIET, FORMAT, STRICT, PROSE):
        function = option(function)
    return function


@click.group(invoke_without_command=True)
@click.version_option(__version__, prog_name="evidencepress")
@click.pass_context
def main(context: click.Context) -> None:
    """Build and check an evidence site: Markdown articles with validated JSON exports and charts.
    Start one with `evidencepress init my-site`."""
    _tolerant_streams()
    if context.invoked_subcommand is None:  # bare `evidencepress`: what it can do, not a usage error
        click.echo(context.get_help())


def _tolerant_streams() -> None:
    """A terminal or pipe that cannot show a character (PYTHONIOENCODING=latin-1) gets an
    escape instead of a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _site_schemas(root: Path) -> SchemaSet:
    """The site's schemas; a schema file that cannot be read is reported, not a traceback."""
    from .schemas.load import SchemaFileError, load_schemas, schema_folder

    try:
        return load_schemas(schema_folder(root))
    except SchemaFileError as exc:
        _report([exc.problem], "text", DEFAULT_REPORT)
        sys.exit(1)


def _utf8_stdout() -> bool:
    return (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "") in ("utf8", "utf8sig")


@main.command()
@ROOT
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Output folder (default: site.toml's output, _site).")
@click.option("--jobs", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True, help="Worker processes for validating, drawing and rendering.")
@click.option("--base-url", help="Override site.toml's base_url, e.g. https://user.github.io/site/.")
@click.option("--drafts", is_flag=True, help="Include pages with draft: true.")
@click.option("--no-cache", is_flag=True, help="Redraw every chart instead of using .cache/.")
@click.option("--force", is_flag=True, help="Replace an output folder that holds files evidencepress did not write.")
@_report_options
@_stops_on_signals
def build(root: Path, out: Path | None, jobs: int, base_url: str | None, drafts: bool, no_cache: bool,
          force: bool, strict: bool, output_format: str, quiet: bool, all_warnings: bool, prose: bool) -> None:
    """Validate everything, then write the site and exports/ atomically."""
    options = BuildOptions(root=root, out=out, drafts=drafts, base_url=base_url, jobs=jobs,
                           use_cache=not no_cache, strict=strict, force=force, prose=prose)
    started = time.perf_counter()
    with _progress() as progress, _collector_off():
        problems = _run(lambda: _build(options, progress))
    _report(problems, output_format, TextOptions(quiet=quiet, all_warnings=all_warnings))
    if has_errors(problems):
        click.echo("build failed: nothing was written", err=True)
        sys.exit(1)
    click.echo(f"built in {time.perf_counter() - started:.2f} s", err=True)


@main.command()
@ROOT
@click.option("--drafts", is_flag=True, help="Include pages with draft: true.")
@_report_options
@_stops_on_signals
def check(root: Path, drafts: bool, strict: bool, output_format: str, quiet: bool, all_warnings: bool,
          prose: bool) -> None:
    """Validate everything and check exports/ is current; write nothing."""
    from .build.recipe import check_site

    options = BuildOptions(root=root, drafts=drafts, strict=strict, prose=prose)
    with _progress() as progress, _collector_off():
        problems = _run(lambda: check_site(options, progress.update))
    _report(problems, output_format, TextOptions(quiet=quiet, all_warnings=all_warnings))
    sys.exit(1 if has_errors(problems) else 0)


@main.command()
@click.argument("directory", default=".", type=click.Path(file_okay=False, path_type=Path))
def init(directory: Path) -> None:
    """Start a new site in DIRECTORY (default: here): site.toml, an example article, .gitignore, a workflow."""
    from .authoring.init import shown, taken, write_site

    existing = taken(directory)
    if existing:
        raise click.UsageError(f"{directory / existing[0]} already exists: init writes a new site only where none "
                               "of its files is (choose an empty folder, e.g. evidencepress init my-site)")
    try:
        written = write_site(directory)
    except OSError as exc:
        _fail(f"{exc.filename or directory}: error: cannot write the new site: {exc.strerror or exc} [init]")
    where = shown(written.folder)
    root = "" if where == "." else f" --root {where}"
    click.echo(f"created a site in {where}: " + ", ".join(written.files))
    click.echo(f"next: evidencepress serve{root}  (then write your own article with evidencepress new guides/<slug>"
               f"{root})")


@main.command()
@click.argument("target")
@ROOT
@click.option("--title", help="The article's title (default: from the slug).")
@click.option("--checked", type=click.DateTime(formats=["%Y-%m-%d"]), help="The checked date (default: today).")
def new(target: str, root: Path, title: str | None, checked: dt.datetime | None) -> None:
    """Write a draft article skeleton (e.g. guides/my-article) that passes check."""
    from .authoring.new import article_skeleton, parse_target, placement_problem, title_problem

    parsed = parse_target(target)
    if isinstance(parsed, str):
        raise click.BadParameter(parsed, param_hint="TARGET")
    unwritable = title_problem(title)
    if unwritable is not None:
        raise click.BadParameter(unwritable, param_hint="--title")
    if not (root / "site.toml").is_file():
        raise click.UsageError(f"no site.toml in {root}: run evidencepress from the site root, pass --root DIR, "
                               "or start a site with evidencepress init")
    outside = placement_problem(root, parsed)
    if outside is not None:
        raise click.UsageError(outside)
    path = root / "content" / parsed.rel
    existing = path if path.exists() or path.is_symlink() else path.with_suffix("") / "index.md"
    if existing.exists() or existing.is_symlink():
        raise click.UsageError(f"{existing} already exists; edit it, or choose another slug")
    day = checked.date() if checked is not None else dt.date.today()
    text = article_skeleton(parsed, _site_schemas(root), day, title)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as created:  # "x": never through a link that appeared meanwhile
        created.write(text)
    click.echo(f"created content/{parsed.rel}: a draft; `evidencepress build --drafts` shows it, "
               "and removing `draft: true` publishes it")


@main.command()
@click.argument("name", required=False, metavar="[NAME]", type=click.Choice(SCHEMA_CHOICES))
@ROOT
@click.option("--reference", is_flag=True, help="A readable field reference instead of the JSON Schema.")
def schema(name: str | None, root: Path, reference: bool) -> None:
    """Print a published JSON Schema (export, conditions, chart, frontmatter, site, units, comparability)."""
    from .authoring.schemaref import NAMES, field_reference

    schemas = _site_schemas(root)
    if name is None:
        click.echo("Schemas published with the site under /schema/:")
        for short, (file, _, _) in NAMES.items():
            title = schemas.documents[file].get("title", "Unit vocabulary")
            click.echo(f"  {short.ljust(14)} {file.ljust(24)} {title}")
        click.echo("`evidencepress schema NAME` prints one; add --reference for its fields in words.")
    elif reference:
        click.echo(field_reference(schemas, name), nl=False)
    else:
        data = dict(schemas.published)[NAMES[name][0]]
        click.echo(data.decode("utf-8"), nl=not data.endswith(b"\n"))


@main.command(name="diff")
@click.argument("base")
@click.argument("head", required=False)
@ROOT
@click.option("--format", "output_format", type=click.Choice(["markdown", "json"]), default="markdown",
              show_default=True, help="A report for a pull-request comment, or the same as data.")
@click.option("--exit-code", is_flag=True,
              help="Exit 1 when published data changed or a warning is new, 0 otherwise (like git diff).")
@click.option("--text-changes", is_flag=True, help="With --exit-code, a change to the prose alone also exits 1.")
@click.option("--old-url", help="Where BASE's site is published: the report links to its pages and chart pictures.")
@click.option("--new-url", help="Where HEAD's site is published (e.g. a preview deployment).")
@click.option("--charts-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write the old/ and new/ SVGs of every changed chart into this new or empty folder.")
@click.option("--max-chars", type=click.IntRange(min=2000), default=65536, show_default=True,
              help="Truncate the Markdown report to this many characters (GitHub's comment limit).")
@click.option("--jobs", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
              help="Worker processes for validating, drawing and rendering.")
@_stops_on_signals
def diff(base: str, head: str | None, root: Path, output_format: str, exit_code: bool, text_changes: bool,
         old_url: str | None, new_url: str | None, charts_dir: Path | None, max_chars: int, jobs: int) -> None:
    """Semantic diff of the published data of BASE and HEAD: git revisions, site folders or built folders.

    HEAD defaults to the working tree as it is (uncommitted changes included); nothing is written into it.
    Git revisions are checked against the working tree's vault (sources/), a site folder against its own.
    A value that is no longer on its cited line (absent) is reported, not an error: the report is written
    and the exit code is as for any other change; `check` fails on it.
    """
    from . import review
    from .output.writer import write_trees

    if charts_dir is not None and charts_dir.exists() and any(charts_dir.iterdir()):
        raise click.BadParameter(f"{charts_dir} is not empty; give a new or empty folder", param_hint="--charts-dir")
    try:
        change = review.review_change(base, head, review.DiffOptions(root=root, jobs=jobs))
    except review.DiffUsageError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except review.BuildFailed as exc:
        _report(exc.problems, "text")
        click.echo(f"diff failed: {exc}", err=True)
        sys.exit(1)
    if charts_dir is not None:
        write_trees({charts_dir: review.chart_pictures(change)}, charts_dir.parent / f".{charts_dir.name}.journal")
    if output_format == "json":
        click.echo(review.json_report(change, old_url, new_url), nl=False)
    else:
        options = review.ReportOptions(old_url, new_url, charts_dir is not None, max_chars)
        click.echo(review.markdown_report(change, options), nl=False)
    sys.exit(1 if exit_code and (change.changed or (text_changes and change.text_changed)) else 0)


@main.command()
@ROOT
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port on 127.0.0.1 (0: any free port); when it is busy, the next free one.")
@click.option("--drafts", is_flag=True, help="Include pages with draft: true.")
@click.option("--jobs", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
              help="Worker processes for validating, drawing and rendering.")
@click.option("--all-problems", is_flag=True,
              help="Print every warning after each build, not only the new ones.")
@_stops_on_signals
def serve(root: Path, port: int, drafts: bool, jobs: int, all_problems: bool) -> None:
    """Build in memory, serve on 127.0.0.1, rebuild on save and reload the browser."""
    from .serve.server import PortUnavailable, run_server

    try:
        _run(lambda: run_server(root, port, drafts, jobs, click.echo, all_problems))
    except PortUnavailable as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


@main.group()
def sources() -> None:
    """Fill the vault of cited documents (sources/, named by their sha256)."""


@sources.command()
@ROOT
@click.option("--timeout", type=click.FloatRange(min=0.1), default=30.0, show_default=True,
              help="Seconds to wait for a server.")
@click.option("--retries", type=click.IntRange(min=0), default=2, show_default=True,
              help="Attempts after the first on a network error or a 5xx answer.")
@click.option("--github-raw", default="https://raw.githubusercontent.com", show_default=True,
              help="Where GitHub blob URLs' raw files are served (a mirror).")
@click.option("--huggingface", default="https://huggingface.co", show_default=True,
              help="Where Hugging Face blob URLs' files are resolved (a mirror).")
def fetch(root: Path, timeout: float, retries: int, github_raw: str, huggingface: str) -> None:
    """Download every cited document at its pinned URL, check its sha256 and store it."""
    from .authoring.sources import Hosts, fetch_sources

    folder = _vault_folder(root)
    report = fetch_sources(root, folder, Hosts(github_raw, huggingface), timeout, retries,
                           lambda text: click.echo(f"fetching {text}", err=True))
    for failed in report.failed:
        click.echo(f"failed: {failed.source.cited_by}: {failed.why}", err=True)
    click.echo(f"{folder}/: {report.summary()}")
    sys.exit(1 if report.failed else 0)


@sources.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True, path_type=Path))
@ROOT
def add(files: tuple[Path, ...], root: Path) -> None:
    """Store documents obtained by hand in the vault and say which sources they are."""
    from .authoring.sources import add_documents

    folder = _vault_folder(root)
    for path, digest, matches in add_documents(root, folder, list(files)):
        which = ", ".join(match.cited_by for match in matches) if matches else "no source of the site"
        click.echo(f"{path}: stored as {folder}/{digest}; it is {which}")


def _vault_folder(root: Path) -> str:
    from .build.plan import load_setup

    setup, problems = _run_setup(lambda: load_setup(BuildOptions(root=root)))
    if setup is None:
        _report(problems, "text")
        sys.exit(1)
    return setup.config.vault


def _run_setup(action: Callable[[], tuple[Setup | None, list[Problem]]]) -> tuple[Setup | None, list[Problem]]:
    try:
        return action()
    except ConfigError as exc:
        _report(exc.problems, "text")
        sys.exit(2)


@main.command(name="import")
@click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write here instead of stdout.")
def import_(file: Path, output: Path | None) -> None:
    """Turn a published index.md back into a source article."""
    from .authoring.importer import ImportError_, import_markdown

    data = file.read_bytes()
    try:
        article = import_markdown(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        _fail(f"{file}:{line}:1: error: not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded [import]")
    except ImportError_ as exc:
        _fail(f"{file}:{exc.line}:1: error: {exc} [import]\n  hint: import reads the index.md that build publishes")
    if output is None:
        click.echo(article, nl=False)
        return
    try:
        output.write_text(article, encoding="utf-8")
    except OSError as exc:
        _fail(f"{output}: error: cannot write: {exc.strerror or exc} [import]")


def _fail(text: str) -> NoReturn:
    click.echo(text, err=True)
    sys.exit(1)


def _build(options: BuildOptions, progress: Progress) -> list[Problem]:
    """The output of unchanged inputs is already in place (the build record says so), or a full build.
    The pipeline is imported only for the second. One build of a site runs at a time: the second waits."""
    from .cache.buildrecord import replay
    from .output.buildlock import one_build_at_a_time

    def waiting(pid: int | None) -> None:
        holder = f" (pid {pid})" if pid is not None else ""
        click.echo(f"waiting for another build of the site at {options.root}{holder} to finish", err=True)

    with one_build_at_a_time(options.root, waiting):
        replayed = replay(options)
        if replayed.problems is not None:
            return replayed.problems
        from .build.recipe import build_site

        return build_site(options, progress.update, replayed=replayed)


def _run(action: Callable[[], list[Problem]]) -> list[Problem]:
    try:
        return action()
    except ConfigError as exc:
        _report(exc.problems, "text")
        sys.exit(2)


def _report(problems: list[Problem], output_format: str, options: TextOptions = DEFAULT_REPORT) -> None:
    ordered = sort_problems(problems)
    if output_format == "json":  # JSON escapes what the output encoding cannot show: still valid JSON
        click.echo(format_json(ordered, ascii_only=not _utf8_stdout()), nl=False)
    elif ordered:
        click.echo(format_text(ordered, options), nl=False, err=True)


PROGRESS_INTERVAL_VARIABLE = "EVIDENCEPRESS_PROGRESS_INTERVAL"


def _progress() -> Progress:
    """A live counter on a terminal; a line every few seconds in a log (CI), so a long build shows it is alive.

    ``$EVIDENCEPRESS_PROGRESS_INTERVAL`` sets the seconds between log lines (a quieter CI log, or none
    in a test that compares the whole report)."""
    return Progress(lambda text: click.echo(text, nl=False, err=True), terminal=sys.stderr.isatty(),
                    interval=_progress_interval())


def _progress_interval() -> float | None:
    text = os.environ.get(PROGRESS_INTERVAL_VARIABLE, "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise click.UsageError(f"{PROGRESS_INTERVAL_VARIABLE} must be a positive number of seconds, not {text!r}")
    return seconds


def run() -> NoReturn:
    """The ``evidencepress`` command: ``main``, then an exit that runs the ``atexit`` handlers
    (multiprocessing removes its temporary folders there) but does not free the objects a
    build made one by one, which takes 0.05-0.1 s after a build of 1,000 articles (mypy leaves
    the same way). Every file is written and closed by then; the streams are flushed here."""
    try:
        lifetime.ends_with_command()
        main()
        status: object = 0
    except SystemExit as exc:
        status = exc.code
    if isinstance(status, str):  # what ``sys.exit("message")`` prints
        print(status, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()  # the handlers a normal exit runs (once: os._exit skips them)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more to say
            stream.flush()
    os._exit(status if isinstance(status, int) else 0 if status is None else 1)


if __name__ == "__main__":
    run()
