"""Command line: parse options, call one stage function, print problems, exit.

Exit codes: 0 success, 1 content errors, 2 usage errors (click's own).
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click

from . import __version__
from .build import BuildOptions, ConfigError, build_site, check_site
from .diagnostics import Problem, TextOptions, format_json, format_text, has_errors, sort_problems
from .progress import Progress
from .schemaref import NAMES as SCHEMA_NAMES
from .schemas import load_schemas, schema_folder

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


def _report_options(function: Callable[..., None]) -> Callable[..., None]:
    for option in (ALL_WARNINGS, QUIET, FORMAT, STRICT, PROSE):
        function = option(function)
    return function


@click.group()
@click.version_option(__version__, prog_name="evidencepress")
def main() -> None:
    """Build and check an evidence site: Markdown articles with validated JSON exports and charts."""


@main.command()
@ROOT
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Output folder (default: site.toml's output, _site).")
@click.option("--jobs", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True, help="Parallel chart workers.")
@click.option("--base-url", help="Override site.toml's base_url, e.g. https://user.github.io/site/.")
@click.option("--drafts", is_flag=True, help="Include pages with draft: true.")
@click.option("--no-cache", is_flag=True, help="Redraw every chart instead of using .cache/.")
@_report_options
def build(root: Path, out: Path | None, jobs: int, base_url: str | None, drafts: bool, no_cache: bool,
          strict: bool, output_format: str, quiet: bool, all_warnings: bool, prose: bool) -> None:
    """Validate everything, then write the site and exports/ atomically."""
    options = BuildOptions(root=root, out=out, drafts=drafts, base_url=base_url, jobs=jobs,
                           use_cache=not no_cache, strict=strict, prose=prose)
    started = time.perf_counter()
    with _progress() as progress:
        problems = _run(lambda: build_site(options, progress.update))
    _report(problems, output_format, TextOptions(quiet=quiet, all_warnings=all_warnings))
    if has_errors(problems):
        click.echo("build failed: nothing was written", err=True)
        sys.exit(1)
    click.echo(f"built in {time.perf_counter() - started:.2f} s", err=True)


@main.command()
@ROOT
@click.option("--drafts", is_flag=True, help="Include pages with draft: true.")
@_report_options
def check(root: Path, drafts: bool, strict: bool, output_format: str, quiet: bool, all_warnings: bool,
          prose: bool) -> None:
    """Validate everything and check exports/ is current; write nothing."""
    options = BuildOptions(root=root, drafts=drafts, strict=strict, prose=prose)
    with _progress() as progress:
        problems = _run(lambda: check_site(options, progress.update))
    _report(problems, output_format, TextOptions(quiet=quiet, all_warnings=all_warnings))
    sys.exit(1 if has_errors(problems) else 0)


@main.command()
@click.argument("target")
@ROOT
@click.option("--title", help="The article's title (default: from the slug).")
@click.option("--checked", type=click.DateTime(formats=["%Y-%m-%d"]), help="The checked date (default: today).")
def new(target: str, root: Path, title: str | None, checked: dt.datetime | None) -> None:
    """Write an article skeleton that passes check, e.g. `new guides/my-article`."""
    from .scaffold import article_skeleton, parse_target

    parsed = parse_target(target)
    if isinstance(parsed, str):
        raise click.BadParameter(parsed, param_hint="TARGET")
    if not (root / "site.toml").is_file():
        raise click.UsageError(f"no site.toml in {root}: run evidencepress from the site root, or pass --root DIR")
    path = root / "content" / parsed.rel
    existing = path if path.exists() else path.with_suffix("") / "index.md"
    if existing.exists():
        raise click.UsageError(f"{existing} already exists; edit it, or choose another slug")
    day = checked.date() if checked is not None else dt.date.today()
    text = article_skeleton(parsed, load_schemas(schema_folder(root)), day, title)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    click.echo(f"created content/{parsed.rel}: a draft; `evidencepress build --drafts` shows it, "
               "and removing `draft: true` publishes it")


@main.command()
@click.argument("name", required=False, metavar="[NAME]", type=click.Choice(sorted(SCHEMA_NAMES)))
@ROOT
@click.option("--reference", is_flag=True, help="A readable field reference instead of the JSON Schema.")
def schema(name: str | None, root: Path, reference: bool) -> None:
    """Print a published JSON Schema (export, conditions, chart, frontmatter, site, units)."""
    from .schemaref import field_reference

    schemas = load_schemas(schema_folder(root))
    if name is None:
        click.echo("Schemas published with the site under /schema/:")
        for short, (file, _, _) in SCHEMA_NAMES.items():
            title = schemas.documents[file].get("title", "Unit vocabulary")
            click.echo(f"  {short.ljust(12)} {file.ljust(24)} {title}")
        click.echo("`evidencepress schema NAME` prints one; add --reference for its fields in words.")
    elif reference:
        click.echo(field_reference(schemas, name), nl=False)
    else:
        data = dict(schemas.published)[SCHEMA_NAMES[name][0]]
        click.echo(data.decode("utf-8"), nl=not data.endswith(b"\n"))


@main.command(name="import")
@click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write here instead of stdout.")
def import_(file: Path, output: Path | None) -> None:
    """Turn a published index.md back into a source article."""
    from .importer import ImportError_, import_markdown

    try:
        article = import_markdown(file.read_text(encoding="utf-8"))
    except ImportError_ as exc:
        click.echo(f"{file}:{exc.line}:1: error: {exc} [import]", err=True)
        sys.exit(1)
    if output is None:
        click.echo(article, nl=False)
    else:
        output.write_text(article, encoding="utf-8")


def _run(action: Callable[[], list[Problem]]) -> list[Problem]:
    try:
        return action()
    except ConfigError as exc:
        _report(exc.problems, "text", TextOptions())
        sys.exit(2)


def _report(problems: list[Problem], output_format: str, options: TextOptions) -> None:
    ordered = sort_problems(problems)
    if output_format == "json":
        click.echo(format_json(ordered), nl=False)
    elif ordered:
        click.echo(format_text(ordered, options), nl=False, err=True)


def _progress() -> Progress:
    """A live counter on a terminal; a line every few seconds in a log (CI), so a long build shows it is alive."""
    return Progress(lambda text: click.echo(text, nl=False, err=True), terminal=sys.stderr.isatty())


if __name__ == "__main__":
    main()
