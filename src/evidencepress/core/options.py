"""What a build is asked to do: the options of `build`, `check` and `serve`.

Kept apart from build/ so that the command line and the build record can
read them without importing the pipeline (markdown-it, jsonschema, Jinja2).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import Problem


@dataclass(frozen=True)
class BuildOptions:
    root: Path
    out: Path | None = None
    drafts: bool = False
    base_url: str | None = None
    jobs: int = field(default_factory=lambda: os.cpu_count() or 1)
    use_cache: bool = True
    strict: bool = False
    force: bool = False  # replace an output folder that evidencepress did not write
    cache_root: Path | None = None  # where the caches live; default <root>/.cache (diff uses a private one)
    prose: bool = True  # warn about prose numbers that copy export values instead of referencing them
    vault_root: Path | None = None  # the site root whose vault is read; default root (diff: the working tree's)
    absent_is_error: bool = True  # a value not on its cited line stops the build (diff: a warning, to report it)


class ConfigError(Exception):
    """The site cannot be read at all (no site.toml) or an option is wrong: a usage error, exit 2."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems[0].format())
        self.problems = problems


StageProgress = Callable[[str, int, int], None]  # (stage, done, total): what a long run is doing
