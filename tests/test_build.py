"""End-to-end builds of small sites and of the project's own content/."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from chart_manifest import changed_charts
from click.testing import CliRunner
from sitekit import CHART, REPO, article, export, make_site, many_pages, result, tree

from evidencepress.cli import main
from evidencepress.core import lifetime


def build(root: Path, *args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", *args])
    return outcome.exit_code, outcome.output


def small_site(root: Path) -> Path:
    data = export(result("Run A", 42.5), result("Run B", 40.0))
    body = "Intro with a [link](/guides/b/).\n\n## Results\n\n" + CHART + "\n## Reading\n\nText ~~old~~.\n"
    return make_site(root, {
        "guides/a.md": article("Article A", body, data),
        "guides/b.md": article("Article B", "Back to [A](/guides/a/#results)."),
        "about.md": article("About", "A top-level page."),
    })


def test_build_writes_every_page_with_json_and_markdown(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    code, output = build(root)
    assert code == 0, output
    files = tree(root / "_site")
    for folder in ("", "guides/", "guides/a/", "guides/b/", "about/"):
        for name in ("index.html", "index.json", "index.md"):
            assert folder + name in files, folder + name
    assert "guides/a/decode.svg" in files
    assert files["guides/a/decode.svg"].startswith(b"<?xml")
    assert "static/style.css" in files
    assert "schema/export.schema.json" in files and "schema/conditions.schema.json" in files
    assert sorted(tree(root / "exports")) == ["about.json", "guides/a.json", "guides/b.json", "results.csv"]


def test_index_json_is_the_export_with_a_leading_page_envelope(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    build(root)
    text = (root / "_site/guides/a/index.json").read_text()
    document = json.loads(text)
    assert list(document) == ["page", "facts", "reported_results", "conditions"]
    page = document["page"]
    assert page["url"] == "https://example.org/sub/guides/a/"
    assert page["md_url"] == "https://example.org/sub/guides/a/index.md"
    assert page["checked"] == "2026-10-18" and page["updated"] is None
    assert page["sources"][0]["pinned"] is True
    assert page["charts"] == [{"id": "decode", "file": "https://example.org/sub/guides/a/decode.svg",
                               "csv": "https://example.org/sub/guides/a/decode.csv",
                               "json": "https://example.org/sub/guides/a/decode.json", "kind": "bar",
                               "plotted": ["Run A", "Run B"]}]
    assert page["schema"].endswith("/export.schema.json")
    source = (root / "content/guides/a.md").read_text()
    authored = json.loads(source.split("```json export\n")[1].split("\n```")[0])
    assert {k: v for k, v in document.items() if k != "page"} == authored
    assert json.dumps(document["reported_results"]) == json.dumps(authored["reported_results"])


def test_page_without_export_gets_empty_export(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    build(root)
    document = json.loads((root / "_site/guides/b/index.json").read_text())
    assert document["facts"] == [] and document["reported_results"] == [] and document["conditions"] == {}


def test_html_has_article_parts(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    build(root)
    html = (root / "_site/guides/a/index.html").read_text()
    assert "<h1>Article A</h1>" in html
    assert "What the test article shows." in html
    assert 'datetime="2026-10-18"' in html
    assert '<a href="#results">Results</a>' in html  # table of contents
    assert ('<h2 id="results">Results<a class="heading-anchor" href="#results" '
            'aria-label="Link to this section: Results" data-pagefind-ignore>#</a></h2>') in html
    assert '<a href="../b/">link</a>' in html  # site paths become relative
    assert "<s>old</s>" in html
    assert "Original sources and conditions" in html and "badge-pinned" in html
    assert "AI-assisted writing, sources checked by the site." in html
    assert 'href="index.json"' in html and 'href="index.md"' in html
    assert '<desc id="ep-decode-w-desc">Decode rate of two runs.</desc>' in html  # the chart, inlined
    assert "<details" in html and '">Run A</a></td>' in html  # the label links to the result's record row
    assert "```" not in html and '"reported_results"' not in html  # the export fence is not in the body


def test_home_lists_sections_newest_first(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    (root / "content/guides/c.md").write_text(article("Article C").replace("2026-10-18", "2026-11-01"))
    build(root)
    html = (root / "_site/index.html").read_text()
    assert html.index("Article C") < html.index("Article A") < html.index("Article B")
    assert html.index("Guides") < html.index("About")
    assert "Article C" in (root / "_site/guides/index.html").read_text()


def test_markdown_dialect(tmp_path: Path) -> None:
    body = """
    | name | value |
    |:-----|------:|
    | a    | 1     |

    Footnote here.[^1] Autolink https://example.org/x and <https://example.org/y>.

    <script>alert(1)</script>

    [^1]: The note.
    """
    root = make_site(tmp_path, {"guides/a.md": article("A", body)})
    assert build(root)[0] == 0
    html = (root / "_site/guides/a/index.html").read_text()
    assert '<th style="text-align:right">value</th>' in html
    assert 'class="footnotes"' in html
    assert '<a href="https://example.org/x">https://example.org/x</a>' in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>" not in html


def test_base_url_option_and_out(tmp_path: Path) -> None:
    root = small_site(tmp_path / "site")
    out = tmp_path / "public"
    code, _ = build(root, "--out", str(out), "--base-url", "https://user.github.io/site")
    assert code == 0
    page = json.loads((out / "guides/a/index.json").read_text())["page"]
    assert page["url"] == "https://user.github.io/site/guides/a/"
    assert not (root / "_site").exists()


def test_drafts_are_built_only_with_drafts(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    (root / "content/guides/d.md").write_text(article("Draft", extra_front="draft: true\n"))
    build(root)
    assert not (root / "_site/guides/d").exists()
    build(root, "--drafts")
    assert (root / "_site/guides/d/index.html").exists()


def test_assets_are_copied(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    (root / "content/assets").mkdir()
    (root / "content/assets/diagram.svg").write_bytes(b"<svg/>")
    (root / "content/guides/b.md").write_text(article("B", "![A diagram](/assets/diagram.svg)"))
    assert build(root)[0] == 0
    assert (root / "_site/assets/diagram.svg").read_bytes() == b"<svg/>"
    assert 'src="../../assets/diagram.svg"' in (root / "_site/guides/b/index.html").read_text()


def test_failed_build_leaves_previous_output_untouched(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    assert build(root)[0] == 0
    before_site, before_exports = tree(root / "_site"), tree(root / "exports")
    (root / "content/guides/b.md").write_text(article("B", "A [broken](/guides/missing/) link."))
    code, output = build(root)
    assert code == 1
    assert "broken internal link" in output
    assert tree(root / "_site") == before_site
    assert tree(root / "exports") == before_exports
    assert sorted(p.name for p in root.iterdir()) == [".cache", "_site", "content", "exports", "site.toml"]


def test_check_reports_stale_exports_and_writes_nothing(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    outcome = CliRunner().invoke(main, ["check", "--root", str(root)])
    assert outcome.exit_code == 1
    assert "exports/guides/a.json: error: exports/ is stale: missing, the build writes it from content/guides/a.md; " \
           "run `evidencepress build` [exports]" in outcome.output
    assert not (root / "_site").exists()
    build(root)
    assert CliRunner().invoke(main, ["check", "--root", str(root)]).exit_code == 0


def test_missing_site_toml_is_a_usage_error(tmp_path: Path) -> None:
    outcome = CliRunner().invoke(main, ["build", "--root", str(tmp_path)])
    assert outcome.exit_code == 2
    assert "site.toml: error: site.toml not found [config]" in outcome.output


def _build_in_subprocess(root: Path, out: Path, env_overrides: dict[str, str], jobs: str) -> None:
    env = dict(os.environ, **env_overrides)
    subprocess.run([sys.executable, "-m", "evidencepress.cli", "build", "--root", str(root), "--out", str(out),
                    "--jobs", jobs, "--no-cache"], check=True, env=env, capture_output=True)


@pytest.mark.parametrize("site", ["small", "project", "many"])
def test_builds_are_byte_identical_across_time_zone_locale_hash_seed_and_jobs(tmp_path: Path, site: str) -> None:
    """Two builds in separate processes, every chart drawn anew: every file has the same bytes
    (``many``: enough pages that --jobs 2 validates and renders them on two workers)."""
    makers = {"small": small_site, "project": copy_project, "many": lambda root: many_pages(root, 80)}
    root = makers[site](tmp_path / "site")
    _build_in_subprocess(root, tmp_path / "one", {"TZ": "UTC", "LC_ALL": "C", "PYTHONHASHSEED": "1"}, "1")
    _build_in_subprocess(root, tmp_path / "two", {"TZ": "Asia/Kolkata", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "4242"}, "2")
    one, two = tree(tmp_path / "one"), tree(tmp_path / "two")
    assert one.keys() == two.keys()
    assert [name for name in one if one[name] != two[name]] == []
    assert site != "project" or sum(name.endswith(".svg") for name in one) >= 40


def copy_project(target: Path) -> Path:
    """The project's own site, copied so that a test build never writes into the repository."""
    for name in ("content", "schema", "templates", "exports"):
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, target / name)
    shutil.copy(REPO / "site.toml", target / "site.toml")
    return target


def test_project_content_builds_end_to_end(tmp_path: Path) -> None:
    root = copy_project(tmp_path / "project")
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "2"])
    assert outcome.exit_code == 0, outcome.output
    assert "0 errors" in outcome.output or outcome.output.startswith("built")
    files = tree(root / "_site")
    pages = [name for name in files if name.endswith("index.html")]
    assert len(pages) >= 26  # 22 guides, for-ai, the checklist, home, sections
    for name in pages:
        folder = name[: -len("index.html")]
        assert folder + "index.json" in files and folder + "index.md" in files
    assert any(name.endswith(".svg") for name in files)
    # The SVG regression manifest: every chart as reviewed (see tests/chart_manifest.py to update it).
    assert changed_charts(files) == [], "charts changed: look at them, then update tests/chart_manifest.json"


WARM_BUILD = """
import sys
from pathlib import Path
from evidencepress.build.recipe import build_site
from evidencepress.core.options import BuildOptions
problems = build_site(BuildOptions(root=Path(sys.argv[1]), jobs=1))
assert not any(p.is_error for p in problems), problems
print("matplotlib" in sys.modules)
"""


def test_rebuild_without_chart_change_does_not_import_matplotlib(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    assert build(root)[0] == 0
    svg = (root / "_site/guides/a/decode.svg").read_bytes()
    (root / "content/guides/b.md").write_text(article("Article B", "Prose changed, charts not."))
    warm = subprocess.run([sys.executable, "-c", WARM_BUILD, str(root)], capture_output=True, text=True, check=True)
    assert warm.stdout.strip() == "False"
    assert (root / "_site/guides/a/decode.svg").read_bytes() == svg
    assert "Prose changed" in (root / "_site/guides/b/index.html").read_text()


def test_no_cache_redraws_the_same_bytes(tmp_path: Path) -> None:
    root = small_site(tmp_path)
    build(root)
    cached = tree(root / "_site")
    assert build(root, "--no-cache")[0] == 0
    assert tree(root / "_site") == cached


@pytest.mark.parametrize("out", [".", "content", "exports", ".."])
def test_output_folder_may_not_replace_the_site(tmp_path: Path, out: str) -> None:
    root = small_site(tmp_path / "site")
    before = tree(tmp_path)
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--out", str(root / out)])
    assert outcome.exit_code == 2
    assert "[output]" in outcome.output and "hint: use a folder of its own" in outcome.output
    assert tree(tmp_path) == before


def test_a_chart_of_zeros_draws_without_warnings(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/a.md": article("A", CHART, export(result("Run A", 0), result("Run B", -0.0)))})
    outcome = subprocess.run([sys.executable, "-W", "error", "-m", "evidencepress.cli", "build", "--root", str(root),
                              "--no-cache", "--jobs", "1"], capture_output=True, text=True, check=False)
    assert outcome.returncode == 0, outcome.stderr
    assert "Warning" not in outcome.stderr
    assert (root / "_site/guides/a/decode.svg").read_bytes().startswith(b"<?xml")


EXIT_PROBE = """
import atexit, sys
from evidencepress import cli
atexit.register(lambda: print("atexit handler ran", flush=True))
sys.argv = ["evidencepress", *sys.argv[1:]]
cli.run()
"""


@pytest.mark.parametrize(("arguments", "status", "said"), [
    (["build"], 0, "built in"),
    (["check"], 1, "broken internal link /guides/missing/"),
    (["build", "--no-such-option"], 2, "Error: No such option '--no-such-option'"),
    (["--version"], 0, "evidencepress, version"),
])
def test_the_command_exits_with_its_status_after_the_atexit_handlers(tmp_path: Path, arguments: list[str],
                                                                      status: int, said: str) -> None:
    """``run`` (the console command) leaves with os._exit, without freeing the build's objects:
    the status, the output and the atexit handlers are those of a normal exit."""
    body = "See [the other page](/guides/missing/)." if status == 1 else "Text."
    root = make_site(tmp_path, {"guides/a.md": article("A", body)})
    where = ["--root", str(root)] if arguments[0] != "--version" else []
    outcome = subprocess.run([sys.executable, "-c", EXIT_PROBE, *arguments, *where], capture_output=True, text=True,
                             check=False)
    assert outcome.returncode == status, outcome.stderr
    assert said in outcome.stdout + outcome.stderr
    assert outcome.stdout.endswith("atexit handler ran\n")


ENDING_PROBE = """
import atexit, gc, sys
from evidencepress import cli
from evidencepress.core import lifetime
atexit.register(lambda: print(f"collector on: {gc.isenabled()}; kept: {[type(v).__name__ for v in lifetime._kept]}",
                              flush=True))
sys.argv = ["evidencepress", *sys.argv[1:]]
cli.run()
"""


@pytest.mark.parametrize("command", ["build", "check"])
def test_the_command_neither_collects_nor_frees_what_it_made_as_its_process_ends(tmp_path: Path, command: str) -> None:
    """``run``'s process ends with its command (``core.lifetime``): the collector stays off (turned on
    again, its first pass walked every object the build still held: 0.2-0.3 s of an edit of 5,000
    articles) and the caches, which hold every validated page, are kept to the end (freeing them
    took 0.15 s). In a process that goes on, nothing is kept and the collector is restored."""
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.")})
    assert CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"]).exit_code == 0  # check: exports/ current
    assert not lifetime.ending() and lifetime._kept is None
    arguments = [command, "--root", str(root)] + (["--no-cache", "--jobs", "1"] if command == "build" else [])  # not a replay
    outcome = subprocess.run([sys.executable, "-c", ENDING_PROBE, *arguments],
                             capture_output=True, text=True, check=False)
    assert outcome.returncode == 0, outcome.stderr
    assert outcome.stdout.endswith("collector on: False; kept: ['Caches']\n")


def test_broken_reference_link_is_reported_at_its_definition(tmp_path: Path) -> None:
    body = "See [the other page][other].\n\nMore text.\n\n[other]: /guides/missing/\n"
    root = make_site(tmp_path, {"guides/a.md": article("A", body)})
    outcome = CliRunner().invoke(main, ["check", "--root", str(root)])
    assert outcome.exit_code == 1
    assert outcome.output.startswith(
        "content/guides/a.md:11:10: error: broken internal link /guides/missing/: no page or file at /guides/missing/ [link]"
    )


def test_build_and_check_run_without_the_cycle_collector_but_draw_with_it(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Off while build and check run (restored after); on while charts are drawn (a figure is a
    cycle of artists)."""
    import gc

    from evidencepress.build import recipe as build_module
    from evidencepress.charts import draw as draw_module

    root = make_site(tmp_path / "site", {"guides/a.md": article("A", CHART, export(result("Run A"), result("Run B")))})
    seen: list[tuple[str, bool]] = []
    for name in ("build_site", "check_site"):
        original = getattr(build_module, name)
        monkeypatch.setattr(build_module, name, lambda *args, _original=original, _name=name, **kwargs:
                            seen.append((_name, gc.isenabled())) or _original(*args, **kwargs))
    draw_chart = draw_module.draw_chart
    monkeypatch.setattr(draw_module, "draw_chart", lambda plan: seen.append(("draw", gc.isenabled()))
                        or draw_chart(plan))
    assert gc.isenabled()
    for command in ("build", "check"):
        assert CliRunner().invoke(main, [command, "--root", str(root), "--no-cache", "--jobs", "1"] if command == "build"
                                  else [command, "--root", str(root)]).exit_code == 0
    assert seen[0] == ("build_site", False) and ("draw", True) in seen and seen[-1] == ("check_site", False)
    assert gc.isenabled()


SCHEMA_PROBE = """
import sys
from click.testing import CliRunner
from evidencepress.cli import main
result = CliRunner().invoke(main, ["build", "--root", sys.argv[1], "--jobs", "1", "--no-cache"])
print(result.exit_code, "jsonschema" in sys.modules)
"""


def test_jsonschema_is_imported_only_to_explain_a_schema_error(tmp_path: Path) -> None:
    """jsonschema-rs says whether a document is valid; jsonschema, which explains why not, is
    imported when one is not (a tenth of a build's start-up otherwise)."""
    good = make_site(tmp_path / "good", {"guides/a.md": article("A", export_doc=export(result()))})
    bad = make_site(tmp_path / "bad", {"guides/a.md": article("A", export_doc=export(result(unit=7)))})
    outcomes = [subprocess.run([sys.executable, "-c", SCHEMA_PROBE, str(root)], capture_output=True, text=True,
                               check=True).stdout.split() for root in (good, bad)]
    assert outcomes == [["0", "False"], ["1", "True"]]


class _PutOnly:
    """A sink that can only be given files: a stage that read one back would fail here."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def put(self, rel: str, data: bytes, digest: bytes | None = None) -> None:
        self.files[rel] = data

    def put_chunks(self, rel: str, chunks: object) -> None:
        self.files[rel] = b"".join(chunks)  # type: ignore[call-overload]

    def can_link(self, rel: str, digest: str) -> bool:
        return False

    def link(self, rel: str, digest: str) -> None:
        raise AssertionError("no previous output to link from")

    def held(self, rel: str) -> bytes | None:
        return None


def test_rendering_reads_nothing_back_from_the_output(tmp_path: Path) -> None:
    """The charts inlined into an article and the site's results.csv come from their producers
    (the draw stage's Drawings, the pages' facts), not from the files already put."""
    from evidencepress.build.recipe import BuildOptions, plan_site, render_into, render_site

    root = make_site(tmp_path / "site", {"guides/a.md": article("A", CHART, export(result("Run A"), result("Run B"))),
                                         "guides/b.md": article("B", export_doc=export(result("Run C")))})
    options = BuildOptions(root, jobs=1, use_cache=False)
    plan, problems = plan_site(options)
    assert plan is not None, problems
    sink = _PutOnly()
    assert not [p for p in render_into(plan, options, sink) if p.is_error]
    assert sink.files == render_site(plan, options)
    html = sink.files["guides/a/index.html"]
    assert b"<svg" in html and any(name.endswith(".svg") for name in sink.files)
    rows = sink.files["data/results.csv"].decode().splitlines()
    assert len(rows) == 4 and [row.split(",")[3] for row in rows[1:]] == ["Run A", "Run B", "Run C"]
