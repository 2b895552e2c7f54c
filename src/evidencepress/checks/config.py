"""``site.toml`` -> SiteConfig, validated against ``schema/site.schema.json``."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..content.vault import DEFAULT_VAULT
from ..core.diagnostics import Location, Problem, error
from ..core.model import JsonPath, Positions
from ..schemas.explain import schema_problems
from ..schemas.load import SchemaSet

CONFIG_FILE = "site.toml"


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    description: str = ""


@dataclass(frozen=True)
class License:
    name: str
    url: str


@dataclass(frozen=True)
class Author:
    """One ``[[citation.authors]]`` entry: a person (``family``, and ``given`` names) or an
    organisation (``name``); an empty string is a key the site did not write."""

    family: str = ""
    given: str = ""
    name: str = ""
    orcid: str = ""  # https://orcid.org/0000-0000-0000-0000


@dataclass(frozen=True)
class CitationSettings:
    """``[citation]``: what the site says of its own authorship, for its citations and CITATION.cff.
    Nothing here has a default value: a citation leaves out what the site does not write."""

    authors: tuple[Author, ...] = ()
    doi: str = ""  # the site's DOI (e.g. of its archive), without the resolver: 10.5281/zenodo.123


@dataclass(frozen=True)
class SiteConfig:
    title: str
    base_url: str
    language: str
    footer: str
    description: str = ""
    output: str = "_site"
    sections: tuple[Section, ...] = ()
    license: License | None = None
    # The vault: cited documents named by their sha256, relative to the site root; None: not named
    # (the default folder, sources/): a site that names it verifies its sources even before it has one.
    sources: str | None = None
    citation: CitationSettings = CitationSettings()

    @property
    def vault(self) -> str:
        return self.sources if self.sources is not None else DEFAULT_VAULT

    @property
    def base_path(self) -> str:
        """The path part of base_url: ``/`` or ``/site/``."""
        return urlsplit(self.base_url).path or "/"

    def section_title(self, section_id: str) -> str:
        for section in self.sections:
            if section.id == section_id:
                return section.title
        return section_id.replace("-", " ").capitalize()


def load_config(root: Path, schemas: SchemaSet) -> tuple[SiteConfig | None, list[Problem]]:
    path = root / CONFIG_FILE
    if not root.is_dir():
        return None, [error(Location(str(root)), "no such folder: --root names the folder of a site", "config",
                            hint=f"pass the folder that holds site.toml, or start a site there with "
                                 f"`evidencepress init {root}`")]
    if not path.is_file():
        return None, [error(Location(CONFIG_FILE), "site.toml not found", "config",
                            hint="run evidencepress from the site root, pass --root DIR, or start a site here "
                                 "with `evidencepress init`")]
    text = _decode(path.read_bytes())
    if isinstance(text, Problem):
        return None, [text]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return None, [_toml_problem(exc)]
    positions = _positions(text, data)
    problems = schema_problems(schemas.validator("site.schema.json"), data, positions, rule="config")
    problems += _output_problems(data, positions)
    if problems:
        return None, problems
    sections = tuple(Section(s["id"], s["title"], s.get("description", "")) for s in data.get("sections", ()))
    license_table = data.get("license")
    config = SiteConfig(
        title=data["title"],
        base_url=data["base_url"],
        language=data["language"],
        footer=data["footer"],
        description=data.get("description", ""),
        output=data.get("output", "_site"),
        sections=sections,
        license=License(license_table["name"], license_table["url"]) if license_table else None,
        sources=data.get("sources"),
        citation=_citation(data.get("citation", {})),
    )
    return config, []


def _citation(table: Mapping[str, Any]) -> CitationSettings:
    """``[citation]``, already checked by the site schema."""
    authors = tuple(Author(**author) for author in table.get("authors", ()))
    return CitationSettings(authors=authors, doi=table.get("doi", ""))


def override_base_url(config: SiteConfig, base_url: str, schemas: SchemaSet) -> tuple[SiteConfig, list[Problem]]:
    """``--base-url``, checked by the site schema's rule for ``base_url`` (a trailing / is added)."""
    url = base_url if base_url.endswith("/") else base_url + "/"
    rule = schemas.documents["site.schema.json"].get("properties", {}).get("base_url", {})
    checker = schemas.validator("site.schema.json").validator.evolve(schema=rule)
    if checker.is_valid(url):
        return replace(config, base_url=url), []
    message = str(rule.get("x-message", "not a valid base URL"))
    return config, [error(Location("--base-url"), f"{message}, got {url!r}", "config", "base_url",
                          str(rule.get("x-hint", "")))]


def _decode(data: bytes) -> str | Problem:
    """site.toml as text (a BOM is dropped), or where its first non-UTF-8 byte stands."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        col = len(data[line_start:exc.start].decode("utf-8", errors="replace")) + 1
        return error(Location(CONFIG_FILE, line, col), f"not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded",
                     "encoding", hint="save site.toml as UTF-8")


def _toml_problem(exc: tomllib.TOMLDecodeError) -> Problem:
    match = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
    line, col = (int(match.group(1)), int(match.group(2))) if match else (1, 1)
    message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(exc))
    return error(Location(CONFIG_FILE, line, col), f"invalid TOML: {message}", "config",
                 hint='write `key = value`; strings need double quotes, e.g. language = "en"')


# Folders of the site root that a build must never replace with its output.
RESERVED_FOLDERS = frozenset({"content", "exports", "schema", "templates", "static", "src", "tests", "bench",
                              ".cache", ".git", ".github"})


def _output_problems(data: dict[str, object], positions: Positions) -> list[Problem]:
    output = data.get("output")
    if not isinstance(output, str) or output.split("/")[0] not in RESERVED_FOLDERS:
        return []
    message = f"output folder {output!r} would replace the site's own {output.split('/')[0]}/"
    return [error(positions.of_key(("output",)), message, "config", "output",
                  'use a folder of its own, e.g. output = "_site"')]


def _positions(text: str, data: dict[str, object]) -> Positions:
    """Lines of top-level keys, of ``[table]`` and ``[[array.of.tables]]`` headers and of keys
    inside tables (``[[citation.authors]]`` is ``("citation", "authors", n)``)."""
    keys: dict[JsonPath, tuple[int, int]] = {}
    table: JsonPath = ()
    counts: dict[JsonPath, int] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        header = re.fullmatch(rf"\[\[\s*({_DOTTED})\s*\]\]", stripped)
        if header:
            names = _names(header.group(1))
            counts[names] = counts.get(names, -1) + 1
            table = names + (counts[names],)
            for depth in range(1, len(table)):
                keys.setdefault(table[:depth], (number, 1))
            keys[table] = (number, 1)
            continue
        single = re.fullmatch(rf"\[\s*({_DOTTED})\s*\]", stripped)
        if single:
            table = _names(single.group(1))
            keys.setdefault(table, (number, line.index(single.group(1).split(".")[0].strip()) + 1))
            continue
        key = re.match(r"([A-Za-z0-9_-]+)\s*=", stripped)
        if key:
            keys[table + (key.group(1),)] = (number, line.index(key.group(1)) + 1)
    return Positions(CONFIG_FILE, keys, {})


_DOTTED = r"[A-Za-z0-9_-]+(?:\s*\.\s*[A-Za-z0-9_-]+)*"


def _names(dotted_name: str) -> JsonPath:
    """The path of a table header's dotted name (site.toml has no tables inside arrays of tables)."""
    return tuple(part.strip() for part in dotted_name.split("."))
