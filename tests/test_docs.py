"""docs/ stays true: its commands, keys, rules, schema tables, examples and links are the code's.

Each test reads a page the way a reader does (its tables, its fences, its links)
and compares it with what the code knows, both ways, so that a page which
drifts from the code fails with the page's name.
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
import unicodedata
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from markdown_it import MarkdownIt
from markdown_it.token import Token
from sitekit import REPO, SITE_TOML

from evidencepress.checks.config import Author, CitationSettings, License, Section, SiteConfig, load_config
from evidencepress.cli import main
from evidencepress.schemas.load import load_schemas, schema_folder

DOCS = REPO / "docs"
GUIDE = DOCS / "guide"
REFERENCE = DOCS / "reference"
PAGES = sorted([REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "CHANGELOG.md", *DOCS.rglob("*.md")])
PACKAGE = REPO / "src" / "evidencepress"


def tokens(path: Path) -> list[Token]:
    return MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))


def inline_tokens(path: Path) -> Iterator[Token]:
    for token in tokens(path):
        yield from token.children or ()


def name(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


# --- tables and sections -------------------------------------------------------------------


def tables(path: Path, heading: str | None = None) -> list[list[list[str]]]:
    """The tables of a page (or only those under ``heading``, up to the next heading): rows of
    cell sources, the header row left out. A cell keeps its Markdown (``code`` spans as written)."""
    stream = tokens(path)
    if heading is not None:
        starts = [n for n, t in enumerate(stream) if t.type == "heading_open" and stream[n + 1].content == heading]
        assert len(starts) == 1, f"{name(path)}: one heading {heading!r}"
        after = [n for n, t in enumerate(stream) if t.type == "heading_open" and n > starts[0]]
        stream = stream[starts[0]:after[0] if after else len(stream)]
    return table_rows(stream)


def code_spans(cell: str) -> list[str]:
    """The code spans of a cell's Markdown: ``` ``a `b` `` ``` and `` `c` ``."""
    return [double or single for double, single in re.findall(r"``\s?(.+?)\s?``|`([^`]+)`", cell)]


def sections(path: Path, level: str = "h2") -> dict[str, list[Token]]:
    """Each heading of ``level`` with the tokens under it, to the next heading of that level."""
    stream = tokens(path)
    found: dict[str, list[Token]] = {}
    current: list[Token] | None = None
    for number, token in enumerate(stream):
        if token.type == "heading_open" and token.tag == level:
            current = found.setdefault(stream[number + 1].content, [])
            continue
        if current is not None:
            current.append(token)
    return found


# --- commands --------------------------------------------------------------------------------


def cli_options(command: click.Command) -> set[str]:
    return {opt for param in command.params if isinstance(param, click.Option)
            for opt in (*param.opts, *param.secondary_opts)}


def commands() -> dict[str, click.Command]:
    """Every command by its name; a group's commands as ``group command`` (``sources fetch``)."""
    found: dict[str, click.Command] = {}
    for command_name, command in main.commands.items():
        if isinstance(command, click.Group):
            found |= {f"{command_name} {sub}": subcommand for sub, subcommand in command.commands.items()}
        else:
            found[command_name] = command
    return found


def test_the_commands_reference_lists_every_command_with_its_usage_and_options() -> None:
    page = REFERENCE / "commands.md"
    documented = {title.strip("`").removeprefix("evidencepress "): body for title, body in sections(page).items()
                  if title.startswith("`evidencepress ")}
    assert set(documented) == set(commands()), f"{name(page)}: one section per command"
    for command_name, body in documented.items():
        command = commands()[command_name]
        with click.Context(command, info_name=command_name) as ctx:
            usage = " ".join(["evidencepress", command_name, *command.collect_usage_pieces(ctx)])
        blocks = [t.content.strip() for t in body if t.type == "fence"]
        assert usage in blocks, f"{name(page)}: the usage of {command_name} is {usage!r}"
        rows = [row for table in table_rows(body) for row in table]
        written = {opt for row in rows for span in code_spans(row[0]) for opt in re.findall(r"(?<![\w-])--?[a-z][\w-]*", span)}
        assert written == cli_options(command) - {"--help"}, f"{name(page)}: the options of {command_name}"


def table_rows(stream: list[Token]) -> list[list[list[str]]]:
    found: list[list[list[str]]] = []
    cells: list[str] | None = None
    in_body = False
    for token in stream:
        if token.type in ("tbody_open", "tbody_close"):
            in_body = token.type == "tbody_open"
            found += [[]] if in_body else []
        elif token.type == "tr_open" and in_body:
            cells = []
        elif token.type == "tr_close" and cells is not None:
            found[-1].append(cells)
            cells = None
        elif token.type == "inline" and cells is not None:
            cells.append(token.content)
    return found


def command_lines() -> Iterator[tuple[Path, str]]:
    """Every ``evidencepress …`` command written in the docs' code (spans and fences)."""
    for page in PAGES:
        texts = [t.content for t in tokens(page) if t.type == "fence" and t.info.strip() in ("", "sh", "console")]
        texts += [t.content for t in inline_tokens(page) if t.type == "code_inline"]
        for text in texts:
            for line in text.splitlines():
                for match in re.finditer(r"(?:^|[\s(])(?:\.venv/bin/)?evidencepress ([^#|&;`]+)", line):
                    yield page, match.group(1).strip()


def test_every_documented_command_line_uses_a_real_command_and_its_options() -> None:
    seen = 0
    for page, words in command_lines():
        parts = words.split()
        if parts[0] in ("--help", "--version", "COMMAND"):
            continue
        if isinstance(main.commands.get(parts[0]), click.Group) and len(parts) > 1:
            parts = [f"{parts[0]} {parts[1]}", *parts[2:]]
        assert parts[0] in commands(), f"{name(page)}: `evidencepress {words}`: no command {parts[0]!r}"
        known = cli_options(commands()[parts[0]]) | {"--help"}
        for part in parts[1:]:
            option = part.strip("[]").split("=", 1)[0]
            if option.startswith("-"):
                assert option in known, f"{name(page)}: `evidencepress {words}`: {parts[0]} has no option {option}"
        seen += 1
    assert seen > 30  # the docs are full of commands: the scan must find them


def test_the_makefile_targets_are_the_documented_ones() -> None:
    phony = re.search(r"^\.PHONY:(.*)$", (REPO / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    assert phony is not None
    (targets,) = [rows for rows in tables(REFERENCE / "commands.md", "Makefile targets")]
    documented = {span.removeprefix("make ") for row in targets for span in code_spans(row[0])}
    assert documented == set(phony.group(1).split())


# --- site.toml -------------------------------------------------------------------------------


def schema_keys(schema: dict[str, Any], prefix: str = "") -> set[str]:
    keys: set[str] = set()
    for key, rule in schema.get("properties", {}).items():
        keys.add(prefix + key)
        inner = rule.get("items", rule) if rule.get("type") == "array" else rule
        keys |= schema_keys(inner, f"{prefix}{key}.")
    return keys


def test_the_site_toml_reference_names_exactly_the_keys_the_config_checker_knows() -> None:
    page = REFERENCE / "site-toml.md"
    (rows,) = tables(page, "Keys")
    documented = {code_spans(row[0])[0] for row in rows}
    site_schema = json.loads((REPO / "schema/site.schema.json").read_text(encoding="utf-8"))
    assert documented == schema_keys(site_schema), f"{name(page)}: the keys of schema/site.schema.json"
    config_fields = {f.name for f in fields(SiteConfig)} | {f"sections.{f.name}" for f in fields(Section)}
    config_fields |= {f"license.{f.name}" for f in fields(License)}
    config_fields |= {f"citation.{f.name}" for f in fields(CitationSettings)}
    config_fields |= {f"citation.authors.{f.name}" for f in fields(Author)}
    assert documented == config_fields, f"{name(page)}: the fields of SiteConfig"
    required = {code_spans(row[0])[0] for row in rows if row[1] == "required"}
    assert required == set(site_schema["required"])
    project = tomllib.loads((REPO / "site.toml").read_text(encoding="utf-8"))
    used = {key for key in project} | {f"{key}.{inner}" for key, value in project.items()
                                        for table in (value if isinstance(value, list) else [value])
                                        if isinstance(table, dict) for inner in table}
    assert used <= documented, f"{name(page)}: keys the project's own site.toml uses"


def test_the_site_toml_example_is_valid(tmp_path: Path) -> None:
    page = REFERENCE / "site-toml.md"
    (example,) = [t.content for t in tokens(page) if t.type == "fence" and t.info.strip() == "toml"]
    (tmp_path / "site.toml").write_text(example, encoding="utf-8")
    config, problems = load_config(tmp_path, load_schemas(schema_folder(REPO)))
    assert config is not None and problems == [], f"{name(page)}: {problems}"
    assert config.license is not None and config.sections and config.citation.authors


# --- diagnostics -----------------------------------------------------------------------------

KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def reported_rules() -> set[str]:
    """Every rule the package can report: the ``rule`` argument of each call to a function that
    takes one (``error``, ``warning``, ``note``, ``schema_problems``, the chart helpers …),
    written as a literal or a module constant, and the defaults of such parameters."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in PACKAGE.rglob("*.py")}
    positions: dict[str, set[int]] = {"Problem": {3}}
    rules: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                names = [a.arg for a in node.args.args]
                if "rule" in names:
                    positions.setdefault(node.name, set()).add(names.index("rule") - (names[:1] == ["self"]))
                    defaults = dict(zip(names[len(names) - len(node.args.defaults):], node.args.defaults, strict=True))
                    default = defaults.get("rule")
                    if isinstance(default, ast.Constant) and isinstance(default.value, str):
                        rules.add(default.value)
    for tree in trees.values():
        constants = {n.targets[0].id: n.value.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                     and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                     and n.targets[0].id.endswith("RULE") and isinstance(n.value, ast.Constant)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            if called not in positions:
                continue
            given = [node.args[i] for i in positions[called] if i < len(node.args)]
            given += [k.value for k in node.keywords if k.arg == "rule"]
            for arg in given:
                value = arg.value if isinstance(arg, ast.Constant) else constants.get(getattr(arg, "id", ""))
                if isinstance(value, str) and KEBAB.fullmatch(value):
                    rules.add(value)
    return rules


def test_the_diagnostics_reference_lists_exactly_the_rules_the_code_reports() -> None:
    page = REFERENCE / "diagnostics.md"
    (rows,) = tables(page, "Rules")
    documented = [code_spans(row[0])[0] for row in rows]
    assert len(documented) == len(set(documented)), f"{name(page)}: a rule listed twice"
    found = reported_rules()
    assert {"schema", "config", "prose-number", "chart-select", "inline-value"} <= found  # the scan sees them all
    assert set(documented) - found == set(), f"{name(page)}: rules the code no longer reports"
    assert found - set(documented) == set(), f"{name(page)}: rules the code reports that the page does not list"


def test_the_documented_diagnostics_have_the_reported_form() -> None:
    line = re.compile(r"^\S+?(:\d+:\d+)?: (error|warning|note): .+ \[[a-z0-9-]+\]$")
    for page in PAGES:
        for token in tokens(page):
            if token.type == "fence" and token.info.strip() == "":
                for text in token.content.splitlines():
                    if re.match(r"^(content|site\.toml|exports)\S*: ", text):
                        assert line.match(text), f"{name(page)}: {text!r} is not a diagnostic line"


# --- schemas ---------------------------------------------------------------------------------

SCHEMAS = load_schemas(schema_folder(REPO))


def documented_keys(page: Path, heading: str) -> dict[str, str]:
    """First-column key -> second column, of the one table under ``heading``."""
    (rows,) = tables(page, heading)
    return {code_spans(row[0])[0]: row[1] for row in rows if code_spans(row[0])}


def test_the_conditions_table_is_the_condition_vocabulary() -> None:
    page = REFERENCE / "schemas.md"
    documented = documented_keys(page, "Conditions")
    documented = {key: state for key, state in documented.items() if not key.startswith("_")}
    vocabulary = SCHEMAS.documents["conditions.schema.json"]["$defs"]
    assert set(documented) == set(SCHEMAS.known_conditions), f"{name(page)}: the known condition keys"
    required = set(vocabulary["result_conditions"]["required"])
    assert {k for k, state in documented.items() if state == "required"} == required
    assert {k for k, state in documented.items() if state == "recommended"} == set(SCHEMAS.recommended_conditions)
    order = [k for k, state in documented.items() if state in ("required", "recommended")]
    assert order == list(SCHEMAS.core_conditions), f"{name(page)}: in the order of the CSV columns"


def test_the_export_tables_are_the_export_schema() -> None:
    page = REFERENCE / "schemas.md"
    export = SCHEMAS.documents["export.schema.json"]
    assert set(documented_keys(page, "The export")) == set(export["properties"])
    for heading, definition in (("A reported result", "reported_result"), ("A fact", "fact")):
        rule = export["$defs"][definition]
        documented = documented_keys(page, heading)
        assert set(documented) == set(rule["properties"]), f"{name(page)}: {heading}"
        required = {key for key, state in documented.items() if state == "required"}
        assert required == set(rule.get("required", ())), f"{name(page)}: what {heading} requires"


def test_the_front_matter_and_chart_tables_are_their_schemas() -> None:
    front = SCHEMAS.documents["frontmatter.schema.json"]
    documented = documented_keys(GUIDE / "writing-articles.md", "Front matter")
    assert set(documented) == set(front["properties"])
    assert {k for k, state in documented.items() if state == "required"} == set(front["required"])
    chart = SCHEMAS.documents["chart.schema.json"]
    (rows,) = tables(GUIDE / "charts.md", "Chart keys")
    written = {span for row in rows for span in code_spans(row[0])}
    assert written == set(chart["$defs"]["panel"]["properties"]), "docs/guide/charts.md: the panel keys"
    units = set(SCHEMAS.units)
    text = (REFERENCE / "schemas.md").read_text(encoding="utf-8").split("## Units", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"`([^`]+)`", text.split("lists the units", 1)[1].split("`same_as`", 1)[0]))
    assert listed - {"unit"} == units, "docs/reference/schemas.md: the unit vocabulary"


def test_the_chart_kinds_table_is_the_kind_registry() -> None:
    from evidencepress.charts.kinds import registry

    (rows,) = tables(GUIDE / "charts.md", "Kinds")
    assert sorted(code_spans(row[0])[0] for row in rows) == sorted(registry())
    for row in rows:
        kind = registry()[code_spans(row[0])[0]]
        assert set(code_spans(row[2])) == set(kind.keys), f"docs/guide/charts.md: the keys of {kind.name}"


# --- examples --------------------------------------------------------------------------------


def example_articles() -> list[tuple[str, int, str]]:
    """(page, number, article) of every complete article (a ````markdown fence with front matter) in the guide."""
    found = []
    for page in sorted(GUIDE.glob("*.md")):
        articles = [t.content for t in tokens(page) if t.type == "fence" and t.info.strip() == "markdown"
                    and t.content.startswith("---\n")]
        found += [(name(page), number, text) for number, text in enumerate(articles)]
    return found


def build_example(root: Path, article: str, extra: str = "") -> tuple[int, str, Path]:
    """Build ``article`` (with ``extra`` appended to its body) as content/guides/example.md, beside a
    stub page for each internal page it links to. Returns the exit code, stderr and the page folder."""
    if extra:
        head, fence, tail = article.partition("```json export")
        article = head + extra + "\n\n" + fence + tail
    (root / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    page = root / "content/guides/example.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(article, encoding="utf-8")
    for target in set(re.findall(r"\]\((/[a-z0-9/-]+/)\)", article)):
        stub = root / "content" / (target.strip("/") + ".md")
        stub.parent.mkdir(parents=True, exist_ok=True)
        stub.write_text('---\ntitle: "Linked"\nsummary: "A page an example links to."\nchecked: 2026-10-18\n---\n\nText.\n',
                        encoding="utf-8")
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", "--strict"])
    return outcome.exit_code, outcome.stderr, root / "_site/guides/example"


def test_the_guide_has_example_articles() -> None:
    pages = {page for page, _, _ in example_articles()}
    assert {"docs/guide/writing-articles.md", "docs/guide/charts.md", "docs/guide/inline-values.md"} <= pages


@pytest.mark.parametrize(("page", "number", "article"),
                         [pytest.param(*example, id=f"{example[0]}:{example[1] + 1}") for example in example_articles()])
def test_every_example_article_of_the_guide_builds_without_a_problem(tmp_path: Path, page: str, number: int,
                                                                    article: str) -> None:
    code, stderr, folder = build_example(tmp_path, article)
    assert code == 0 and stderr.startswith("built in "), f"{page}, example {number + 1}:\n{stderr}"
    for chart in re.findall(r"^```chart\n(?:#.*\n)?id: ([a-z0-9-]+)$", article, re.MULTILINE):
        assert (folder / f"{chart}.svg").is_file(), f"{page}: chart {chart}"


def test_the_writing_guide_example_is_the_seed_data_as_authored(tmp_path: Path) -> None:
    ((_, _, article),) = [example for example in example_articles() if example[0].endswith("writing-articles.md")]
    code, stderr, folder = build_example(tmp_path, article)
    assert code == 0, stderr
    html = (folder / "index.html").read_text(encoding="utf-8")
    assert ">231.294 tokens/s</a>" in html and ">4.91 tokens/s</a>" in html
    seed = REPO.parent / "shared/seed/exports/13.json"
    if not seed.is_file():
        pytest.skip("shared/seed is not beside the repository")
    original = {r["label"]: r for r in json.loads(seed.read_bytes())["reported_results"]}
    for result in json.loads((folder / "index.json").read_bytes())["reported_results"]:
        for key, value in result.items():
            if key != "conditions":
                assert original[result["label"]][key] == value, key
        for key, value in result["conditions"].items():
            assert original[result["label"]]["conditions"][key] == value, key


def test_the_inline_values_table_shows_what_the_page_shows(tmp_path: Path) -> None:
    page = GUIDE / "inline-values.md"
    ((_, _, article),) = [example for example in example_articles() if example[0] == name(page)]
    (rows,) = tables(page, "What you write, what the page shows")
    pairs = [(code_spans(write)[0], code_spans(shows)[0]) for write, shows in rows]
    assert len(pairs) >= 8
    extra = "\n\n".join(f"Row {chr(97 + n)}: {role}." for n, (role, _) in enumerate(pairs))
    code, stderr, folder = build_example(tmp_path, article, extra)
    assert code == 0, stderr
    markdown = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", (folder / "index.md").read_text(encoding="utf-8"))
    markdown = re.sub(r"<!--=.*?-->|<!--/=\n*-->", "", markdown, flags=re.DOTALL)  # the roles, for import
    for n, (role, shown) in enumerate(pairs):
        assert f"Row {chr(97 + n)}: {shown}." in markdown, f"{name(page)}: {role} shows {shown!r}"


# --- links -----------------------------------------------------------------------------------


def anchor(heading: str) -> str:
    """GitHub's id of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = unicodedata.normalize("NFC", heading).lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    stream = tokens(page)
    return {anchor("".join(child.content for child in stream[n + 1].children or ()))
            for n, t in enumerate(stream) if t.type == "heading_open"}


def test_every_relative_link_and_anchor_of_the_docs_resolves() -> None:
    checked = 0
    for page in PAGES:
        for token in inline_tokens(page):
            if token.type != "link_open":
                continue
            href = str(token.attrs["href"])
            if re.match(r"^[a-z]+:", href):
                continue
            target, _, fragment = href.partition("#")
            path = (page.parent / target).resolve() if target else page
            assert path.exists(), f"{name(page)}: link {href} points at nothing"
            if fragment and path.suffix == ".md":
                assert fragment in anchors(path), f"{name(page)}: {href}: no heading with that anchor"
            checked += 1
    assert checked > 20


def test_the_readme_links_every_page_of_the_docs() -> None:
    linked = {str(t.attrs["href"]) for t in inline_tokens(REPO / "README.md") if t.type == "link_open"}
    pages = {name(page) for page in DOCS.rglob("*.md")} | {"CONTRIBUTING.md", "CHANGELOG.md", "LICENSE"}
    assert pages <= linked, f"README.md does not link {sorted(pages - linked)}"


# --- architecture ----------------------------------------------------------------------------


def defined_classes(module: Path) -> set[str]:
    return {node.name for node in ast.walk(ast.parse(module.read_text(encoding="utf-8")))
            if isinstance(node, ast.ClassDef)}


def test_the_architecture_names_types_where_they_are_defined() -> None:
    page = DOCS / "architecture.md"
    (rows,) = tables(page, "The values between stages")
    for row in rows:
        (module,) = code_spans(row[1])
        names = [span for span in code_spans(row[0]) if re.fullmatch(r"[A-Z]\w+", span)]
        assert names, f"{name(page)}: a row without a type: {row}"
        missing = set(names) - defined_classes(PACKAGE / module)
        assert not missing, f"{name(page)}: {sorted(missing)} not defined in {module}"


def test_the_architecture_lists_every_package_and_only_modules_that_exist() -> None:
    page = DOCS / "architecture.md"
    (rows,) = tables(page, "The package")
    listed = {code_spans(row[0])[0].rstrip("/") for row in rows}
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert packages | {"cli.py"} == listed, f"{name(page)}: the packages of src/evidencepress/"
    for row in rows:
        package = PACKAGE / code_spans(row[0])[0].rstrip("/")
        named = set(re.findall(r"`([\w/]+\.(?:py|js))`", row[2]))
        for module in named:
            assert (package / module).exists(), f"{name(page)}: {package.name}/{module} does not exist"
        if package.is_dir():
            modules = {p.name for p in package.glob("*.py") if p.name != "__init__.py"}
            assert modules <= named, f"{name(page)}: {package.name}/ has {sorted(modules - named)}, not described"


def test_the_how_to_sections_of_the_architecture_name_what_exists() -> None:
    """Adding a chart kind, a condition key, a derived page: each name the steps use is there."""
    def defines(module: str, wanted: str) -> bool:
        tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == wanted:
                return True
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == wanted for t in node.targets):
                return True
        return False

    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    for module, wanted in (("charts/kinds/__init__.py", "_MODULES"), ("charts/kinds/__init__.py", "KIND_KEYS"),
                           ("charts/kinds/__init__.py", "Kind"), ("charts/style.py", "RENDERER_VERSION"),
                           ("site/index.py", "index_site"), ("site/index.py", "generated_paths"),
                           ("site/index.py", "CatalogEntry"), ("build/render.py", "render_generated"),
                           ("build/recipe.py", "build_site"), ("build/recipe.py", "check_site"),
                           ("build/recipe.py", "site_files"), ("build/plan.py", "plan_site"),
                           ("build/plan.py", "load_setup")):
        assert re.search(rf"`[^`]*\b{wanted}\b[^`]*`", text), f"docs/architecture.md no longer names {wanted}"
        assert defines(module, wanted), f"docs/architecture.md: {wanted} is not in {module} any more"
    conditions = SCHEMAS.documents["conditions.schema.json"]["$defs"]
    assert "x-recommended" in conditions["result_conditions"] and "properties" in conditions["known"]
    kind = (PACKAGE / "charts/kinds/interval.py").read_text(encoding="utf-8")
    assert "KIND = Kind(" in kind and "def draw(sheet: Sheet, panel: PanelPlan)" in kind
    assert "`draw(sheet, panel)`" in text and defines("charts/draw/surface.py", "Sheet")
