"""Planning the site: read, parse and validate every page, then check it as a whole.

``load_setup`` reads the schemas and ``site.toml``; ``plan_site`` reads
content/, parses and validates each page (through the page cache), indexes
the site (records, listings, data) and checks what only the whole site shows:
URL and file collisions, internal links. Nothing is drawn or written here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..cache.caches import Caches, Store, key_of, open_caches
from ..cache.pages import Outcome, load_pages, page_key, save_page
from ..checks.config import SiteConfig, load_config, override_base_url
from ..checks.filenames import name_collisions
from ..checks.links import check_links
from ..checks.page import Page
from ..checks.recordprose import RecordProse, is_record_prose, unknown_records, validate_record_prose
from ..checks.sources import Locate, PageVerification, ResultState, result_states, verified_states, verify_page
from ..content.history import read_export_history
from ..content.parse import parse_page
from ..content.read import read_content
from ..content.vault import read_vault
from ..core.diagnostics import Location, Problem, Severity, error, has_errors, strict
from ..core.model import Asset, JsonPath, SourceFile
from ..core.options import BuildOptions, ConfigError, StageProgress
from ..output.article import (
    static_files,
    template_folder,
)
from ..output.writer import MARKER
from ..schemas.load import SchemaFileError, SchemaSet, load_schemas, schema_folder
from ..site.dataset import table_spec
from ..site.history import DataHistory, data_history
from ..site.index import PageFacts, SiteIndex, generated_paths, index_site
from .validating import validate_sources

CACHE_ROOT = ".cache"
# Rules a build option turns off. Page outcomes (cached) always carry them; plan_site leaves them out.
_PROSE_RULE = "prose-number"
_DRAFT_RULE = "draft"
_ABSENT_RULE = "source-absent"  # an error unless BuildOptions.absent_is_error is off


@dataclass(frozen=True)
class SitePlan:
    """Everything validated; what the render stage needs."""

    config: SiteConfig
    schemas: SchemaSet
    pages: tuple[Page, ...]
    assets: tuple[Asset, ...]
    index: SiteIndex  # everything across pages: listings, records, the result table, the catalog
    page_keys: Mapping[str, str]  # each page's key in the page cache (its file, the schemas, the code), by URL
    static: tuple[Asset, ...] = ()  # the site's static/ folder, for the output root
    # Each reported result's state against the vault (verified, moved, ...), by page URL.
    source_states: Mapping[str, tuple[ResultState, ...]] = field(default_factory=dict)
    history: DataHistory = field(default_factory=DataHistory)  # the changes to the published data, from git
    # The digest of each page's states (``PageVerification.digest``), by URL: the rendered cache keys
    # take it instead of writing every state out again on every build.
    state_keys: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Setup:
    """What every page is checked against: the schemas and the site configuration."""

    schemas: SchemaSet
    config: SiteConfig


def load_setup(options: BuildOptions) -> tuple[Setup | None, list[Problem]]:
    """Schemas and site.toml (with --base-url). Raises ConfigError when there is no site."""
    root = options.root
    try:
        schemas = load_schemas(schema_folder(root))
    except SchemaFileError as exc:
        return None, [exc.problem]
    config, problems = load_config(root, schemas)
    if config is None:
        if not (root / "site.toml").is_file():
            raise ConfigError(problems)
        return None, problems
    if options.base_url:
        config, refused = override_base_url(config, options.base_url, schemas)
        if refused:
            raise ConfigError(refused)
    return Setup(schemas, config), problems


def site_caches(options: BuildOptions) -> Caches:
    """The caches of the site (memory only with --no-cache); nothing is written before commit()."""
    return open_caches(caches_of(options) if options.use_cache else None)


def plan_site(options: BuildOptions, setup: Setup | None = None, caches: Caches | None = None,
              progress: StageProgress | None = None) -> tuple[SitePlan | None, list[Problem]]:
    """Read, parse and validate every page, check links: all problems, nothing drawn or written.
    Validated pages are saved in ``caches`` (new ones when None), which the caller commits."""
    problems: list[Problem] = []
    if setup is None:
        setup, problems = load_setup(options)
        if setup is None:
            return None, problems
    root, schemas, config = options.root, setup.schemas, setup.config
    caches = caches if caches is not None else site_caches(options)
    content, read_problems = read_content(root, known=caches.read, book=caches.pages_read)
    problems += read_problems
    pages: list[Page] = []
    every_page: list[Page] = []  # drafts included: a record of a draft may have its prose
    prose: list[RecordProse] = []
    store = caches.pages
    drafts: list[str] = []
    for source in content.pages:
        if is_record_prose(source):
            prose_text, prose_problems = _record_prose(source, schemas)
            problems += prose_problems
            prose += [prose_text] if prose_text is not None else []
    sources = [source for source in content.pages if not is_record_prose(source)]
    keys = [page_key(source, schemas.fingerprint) for source in sources]
    facts: dict[str, PageFacts] = {}
    failed: set[str] = set()  # URLs of pages with errors: links to them are not broken links as well
    spec = table_spec(schemas)
    validated = _validated(sources, keys, store, schemas, options.jobs, progress, caches.outcomes)
    for source, outcome in zip(sources, validated, strict=True):
        page = outcome.page
        failed |= {source.url} if page is None else set()
        problems += [p for p in outcome.problems if _wanted(p, options)]
        if page is not None and outcome.facts is not None:
            facts[page.url] = outcome.facts
        every_page += [page] if page is not None else []
        if page is not None and page.front.draft and not options.drafts:
            drafts.append(page.url)
        elif page is not None:
            pages.append(page)
    if len(every_page) == len(content.pages) - sum(map(is_record_prose, content.pages)):
        # a page that failed validation may name the record: then only its own problems are reported
        problems += unknown_records(prose, {rid for page in every_page for rid in page.record_ids})
    page_keys = {source.url: key for source, key in zip(sources, keys, strict=True)}
    source_states, state_keys, source_problems = _verified_sources(options.vault_root or root, config, pages, caches,
                                                                   page_keys)
    problems += source_problems if options.absent_is_error else [_as_warning(p) for p in source_problems]
    index = index_site(pages, prose, config, spec, facts, result_states(source_states))
    exports_history = read_export_history(root)
    problems += exports_history.problems
    history = data_history(exports_history, [page for page in pages if not page.front.draft])
    generated = generated_paths(index, pages, history.paths)
    theme = static_files(template_folder(root))
    problems += _url_collisions(pages, generated)
    problems += _file_collisions(pages, content.assets, content.static, schemas, generated, theme)
    produced = produced_paths(pages, content.assets, schemas, generated, theme) | {"/" + i.rel for i in content.static}
    record_prose = [record.prose for record in index.records if record.prose is not None]
    problems += check_links(pages, produced, frozenset(drafts), record_prose, frozenset(failed))
    if options.strict:
        problems = strict(problems)
    if has_errors(problems):
        return None, problems
    return SitePlan(config, schemas, tuple(pages), content.assets, index, page_keys, content.static,
                    source_states, history, state_keys), problems


def _verified_sources(root: Path, config: SiteConfig, pages: list[Page], caches: Caches,
                      page_keys: Mapping[str, str]
                      ) -> tuple[dict[str, tuple[ResultState, ...]], dict[str, str], list[Problem]]:
    """The vault, each document's digest checked on every run (by a stat its book vouches for, else
    read and hashed: a changed byte must show), and each page's reported results looked up on the
    lines they cite: read back from the page cache under the page's key and the digests of the
    documents it cites that the vault holds; with the digest of each page's states. Documents
    missing from the vault are noted when the site has set verification up: its vault folder
    exists or site.toml names it."""
    store, memo = caches.pages, caches.verified
    vault, problems = read_vault(root, config.vault, caches.vault)
    verified: dict[str, PageVerification] = {}
    held = [sorted(page.cited_documents & vault.documents.keys()) for page in pages]
    keys = ["verified " + key_of(page_keys[page.url], vault.folder, *cited) for page, cited in zip(pages, held, strict=True)]
    loaded = iter(store.load_many([key for key in keys if key not in memo]))
    for page, cited, key in zip(pages, held, keys, strict=True):
        found = memo[key] if key in memo else next(loaded)
        if not isinstance(found, PageVerification):
            found = verify_page(page.claims(), {digest: vault.lines(digest) or () for digest in cited}, vault.folder,
                                _locator(page))
            store.save(key, found)
        verified[page.url] = found
    memo.clear()  # a dev server's next rebuild takes them from here
    memo.update(zip(keys, verified.values(), strict=True))
    states, verify_problems = verified_states(verified, vault.folder, vault.exists or config.sources is not None)
    return states, {url: found.digest for url, found in verified.items()}, problems + verify_problems


def _locator(page: Page) -> Locate:
    """Where a key of the page's export stands in its file, for a verification problem: the page
    parsed again, on its first problem only (claims keep JSON paths; placing every literal of every
    page when it was validated scanned every export's text, a tenth of a cold build)."""
    def locate(path: JsonPath) -> Location:
        export = page.reparsed.export
        return export.positions.of_key(path) if export is not None else Location(page.source.path)

    return locate


def _as_warning(problem: Problem) -> Problem:
    """A ``source-absent`` error as a warning with the same message (``diff`` reports such a value)."""
    return replace(problem, severity=Severity.WARNING) if problem.rule == _ABSENT_RULE else problem


def _record_prose(source: SourceFile, schemas: SchemaSet) -> tuple[RecordProse | None, list[Problem]]:
    """content/community/<id>.md: parsed like a page, validated as record prose (not cached: it is small)."""
    parsed, problems = parse_page(source)
    if parsed is None:
        return None, problems
    prose, prose_problems = validate_record_prose(parsed, schemas)
    return prose, problems + prose_problems


def _wanted(problem: Problem, options: BuildOptions) -> bool:
    """A page's prose warnings unless --no-prose; its draft note unless --drafts builds it."""
    if problem.rule == _PROSE_RULE:
        return options.prose
    return not (problem.rule == _DRAFT_RULE and options.drafts)


def caches_of(options: BuildOptions) -> Path:
    return options.cache_root or options.root / CACHE_ROOT


def _validated(sources: list[SourceFile], keys: list[str], store: Store, schemas: SchemaSet, jobs: int,
               progress: StageProgress | None, memo: dict[str, object]) -> list[Outcome]:
    """Parse and validate each page, or take its outcome from ``memo`` (those of the last run of a
    dev server), or read it back from the page cache under its key (``page_key``: of the file, the
    schemas and this package's code). The pages the cache misses are validated together (on
    several processes when there are many). ``memo`` is left holding this run's outcomes."""
    outcomes: list[Outcome | None] = [found if isinstance(found, Outcome) else None for found in map(memo.get, keys)]
    unknown = [number for number, outcome in enumerate(outcomes) if outcome is None]
    for number, outcome in zip(unknown, load_pages(store, [keys[n] for n in unknown], [sources[n] for n in unknown]),
                               strict=True):
        outcomes[number] = outcome
    missing = [number for number, outcome in enumerate(outcomes) if outcome is None]
    if progress is not None:
        progress("checking pages", len(sources) - len(missing), len(sources))
    fresh = validate_sources([sources[number] for number in missing], schemas, jobs)
    for done, (number, (outcome, data)) in enumerate(zip(missing, fresh, strict=True), start=1):
        save_page(store, keys[number], data)
        outcomes[number] = outcome
        if progress is not None:
            progress("checking pages", len(sources) - len(missing) + done, len(sources))
    memo.clear()
    memo.update((key, outcome) for key, outcome in zip(keys, outcomes, strict=True) if outcome is not None)
    return [outcome for outcome in outcomes if outcome is not None]


def _url_collisions(pages: list[Page], generated: set[str]) -> list[Problem]:
    return [
        error(Location(p.source.path), f"{p.url} is generated by the site", "path",
              hint="rename the file; home, section indexes, /community/, /explore/, /search/ and /schema/ "
                   "are built from the articles")
        for p in pages
        if p.url in generated or p.url + "index.html" in generated
    ]


def _file_collisions(pages: list[Page], assets: tuple[Asset, ...], static: tuple[Asset, ...], schemas: SchemaSet,
                     generated: set[str], theme: dict[str, bytes]) -> list[Problem]:
    """An asset or static file at a path the build generates would silently replace it: an error."""
    generated = produced_paths(pages, (), schemas, generated, theme) | {"/" + MARKER}
    problems = []
    for folder, files in (("content", assets), ("static", static)):
        for item in files:
            if "/" + item.rel in generated:
                problems.append(error(Location(f"{folder}/{item.rel}"), f"/{item.rel} is a file the build generates",
                                      "path", hint="rename or move the file; it would replace the generated one"))
    seen = {item.rel for item in assets}
    for item in static:
        if item.rel in seen:
            problems.append(error(Location(f"static/{item.rel}"), f"/{item.rel} is also content/{item.rel}", "path",
                                  hint="keep one of the two files"))
    copied = {f"/{item.rel}": f"static/{item.rel}" for item in static if item.rel not in seen}
    copied |= {f"/{item.rel}": f"content/{item.rel}" for item in assets}
    return problems + name_collisions(generated - copied.keys(), copied)


def produced_paths(pages: list[Page], assets: tuple[Asset, ...], schemas: SchemaSet, generated: set[str],
                   theme: dict[str, bytes]) -> set[str]:
    """Every site path the build writes, for link checking (the Pagefind bundle is linked from nothing)."""
    paths = set(generated) | {f"/static/{name}" for name in theme}
    for page in pages:
        paths |= {page.url, page.url + "index.html", page.url + "index.json", page.url + "index.md"}
        paths |= {f"{page.url}{name}" for chart in page.charts for name, _ in chart.variants()}
        paths |= {f"{page.url}{name}" for chart in page.charts for name in chart.data_files()}
    paths |= {"/" + asset.rel for asset in assets}
    paths |= {f"/schema/{name}" for name, _ in schemas.published}
    return paths


