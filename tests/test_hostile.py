"""Hostile and careless input: each case gets a located diagnostic, never a traceback or a crash.

The cases are those an attacker or a careless user tried (issue 11): deep
YAML nesting that crashed libyaml, YAML tags with no JSON form, symlink
loops, files that vanish during a build, broken templates and schemas,
`import` of files that are not a published index.md, a terminal that cannot
show UTF-8, patterns that matched a trailing newline, a javascript: base URL,
NUL bytes, and an export fence written with two spaces.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_diagnostics import ARTICLE, at, report, run, tree, write_site

from evidencepress.cli import main
from evidencepress.content import read


def _check(text: str | bytes, tmp_path: Path) -> str:
    root = write_site(tmp_path, {"guides/decode.md": text})
    result = run(root)
    assert result.exit_code == 1
    return result.stderr


def test_thirty_thousand_nested_dashes_are_a_depth_error_not_a_segfault(tmp_path: Path) -> None:
    """libyaml's composer recursed in C and crashed the process (exit 139)."""
    text = ARTICLE.replace('checked: 2026-10-18\n', 'checked: 2026-10-18\ntags:\n' + "- " * 30_000 + "x\n")
    assert _check(text, tmp_path) == report(at(6, 63, "error: invalid YAML: nested deeper than 32 levels [yaml]",
                                               "flatten the structure"))


@pytest.mark.parametrize("value, col, message", [
    ("!!set {a, b}", 7, "!!set (a set) is not supported"),
    ("!!binary aGVsbG8=", 7, "!!binary (binary data) is not supported"),
    ("!!omap [a: 1]", 7, "!!omap (an ordered map) is not supported"),
])
def test_yaml_tags_without_a_json_form_are_refused(tmp_path: Path, value: str, col: int, message: str) -> None:
    text = ARTICLE.replace("checked: 2026-10-18\n", f"checked: 2026-10-18\ntags: {value}\n")
    hint = "write a plain list, mapping or quoted text instead of a tagged value"
    assert _check(text, tmp_path) == report(at(5, col, f"error: invalid YAML: {message} [yaml]", hint))


def test_a_symlink_loop_in_content_is_an_error(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    os.symlink("b.md", root / "content" / "guides" / "a.md")
    os.symlink("a.md", root / "content" / "guides" / "b.md")
    result = run(root)
    hint = "remove the link, or point it at a file"
    assert result.stderr == report(
        f"content/guides/a.md: error: symlink loop: the link points (through others) at itself [path]\n  hint: {hint}",
        f"content/guides/b.md: error: symlink loop: the link points (through others) at itself [path]\n  hint: {hint}",
        errors=2, breakdown=("by rule:", "  path  2 errors", "by file:", "  content/guides/a.md  1 error",
                             "  content/guides/b.md  1 error"))


@pytest.mark.parametrize(("refusal", "message"), [
    (RuntimeError("Symlink loop from 'a.md'"), "symlink loop: the link points (through others) at itself"),  # <= 3.12
    (OSError(errno.ELOOP, "Too many levels of symbolic links"),  # 3.13 on
     "symlink loop: the link points (through others) at itself"),
    (OSError(errno.ENOENT, "No such file or directory"), "broken symlink: its target does not exist"),
])
def test_a_symlink_loop_is_told_from_a_broken_link_on_every_python(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refusal: Exception, message: str) -> None:
    """``Path.resolve(strict=True)`` tells a loop by RuntimeError up to Python 3.12, by ELOOP since."""
    os.symlink("nowhere.md", tmp_path / "a.md")

    def resolve(self: Path, strict: bool = False) -> Path:
        raise refusal

    monkeypatch.setattr(read.Path, "resolve", resolve)
    problem = read._refused(tmp_path / "a.md", tmp_path, "content/a.md")
    assert problem is not None and problem.message == message


def test_a_file_removed_during_the_build_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    (root / "content" / "assets").mkdir()
    (root / "content" / "assets" / "chart.png").write_bytes(b"png")
    read_bytes = Path.read_bytes

    def vanishing(path: Path) -> bytes:
        if path.name == "chart.png":  # removed after it was listed, before it was read
            path.unlink(missing_ok=True)
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", vanishing)
    result = run(root, "build", "--no-cache")  # no build record: its digest would read the file first
    assert result.exit_code == 1
    assert "content/assets/chart.png: error: cannot be read: No such file or directory [read]" in result.stderr
    assert not (root / "_site").exists()


def test_a_template_with_an_undefined_variable_is_an_error(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    (root / "templates").mkdir()
    (root / "templates" / "page.html").write_text(
        '{% extends "base.html" %}\n{% block main %}\n<h1>{{ page.front.title }}</h1>\n{{ nope }}\n{% endblock %}\n')
    result = run(root, "build")
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "templates/page.html:4:1: error: template error: 'nope' is undefined [template]\n"
        "  hint: fix the template; every variable a template uses must be one the renderer passes\n")
    assert not (root / "_site").exists()


LOOP_HINT = "an include, extends or macro call at this line leads back to itself: break the loop"


@pytest.mark.parametrize("template, expected", [
    ('{% extends "base.html" %}\n{% block main %}{% include "page.html" %}{% endblock %}\n',
     ("templates/page.html:1:1: error: template error: the template includes, extends or calls itself without end "
     f"[template]\n  hint: {LOOP_HINT}\n")),
    ("{% macro again() %}{{ again() }}{% endmacro %}\n{{ again() }}\n",
     ("templates/page.html:1:1: error: template error: the template includes, extends or calls itself without end "
     f"[template]\n  hint: {LOOP_HINT}\n")),
    ('{% extends "base.html" %}\n{% block main %}\n{{ 1 // 0 }}{% endblock %}\n',
     ("templates/page.html:3:1: error: template error: arithmetic in the template failed: integer division or modulo "
     "by zero [template]\n  hint: templates show the export's values; they compute nothing from them\n")),
    (b"<p>\n\xff\xfe</p>\n",
     ("templates/page.html:2:1: error: template error: the template is not UTF-8 text: byte 0xff cannot be decoded "
     "[template]\n  hint: save the template as UTF-8 text\n")),
], ids=["includes itself", "recursive macro", "division by zero", "not UTF-8"])
def test_a_template_that_cannot_render_is_an_error_at_its_line(tmp_path: Path, template: str | bytes,
                                                                expected: str) -> None:
    """These raised RecursionError, ZeroDivisionError and UnicodeDecodeError past the build (issue 25)."""
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    (root / "templates").mkdir()
    page = root / "templates" / "page.html"
    page.write_bytes(template) if isinstance(template, bytes) else page.write_text(template, encoding="utf-8")
    result = run(root, "build")
    assert result.exit_code == 1 and result.stderr.startswith(expected), result.stderr
    assert "Traceback" not in result.stderr and not (root / "_site").exists()


def test_a_page_rendered_as_utf8_as_it_is_made_reads_and_fails_as_one_rendered_whole(tmp_path: Path) -> None:
    """Record pages are encoded as Jinja makes them (their pieces took four times a 24 MB page, issue
    27): the bytes are those of the whole text encoded, across every batch of pieces, and a template
    that cannot render fails as it does for ``render``."""
    import jinja2

    from evidencepress.output.templating import guarded_environment, render_utf8

    (tmp_path / "rows.html").write_text("{% for i in items %}<td>é{{ i }}ő</td>{% endfor %}\n", encoding="utf-8")
    (tmp_path / "zero.html").write_text("{% for i in items %}{{ i }}{% endfor %}{{ 1 // 0 }}", encoding="utf-8")
    (tmp_path / "loop.html").write_text("{% macro again() %}{{ again() }}{% endmacro %}{{ again() }}", encoding="utf-8")
    env = guarded_environment([str(tmp_path)], autoescape=True)
    rows = env.get_template("rows.html")
    for items in ([], list(range(3)), list(range(20_000))):  # no piece, a few, many batches
        assert render_utf8(rows, items=items) == rows.render(items=items).encode("utf-8")
    for name, expected in (("zero.html", "arithmetic in the template failed"), ("loop.html", "without end")):
        template = env.get_template(name)
        for render in (template.render, functools.partial(render_utf8, template)):
            with pytest.raises(jinja2.TemplateRuntimeError, match=expected) as raised:
                render(items=list(range(10_000)))
            assert raised.value.hint  # type: ignore[attr-defined]


def test_a_site_schema_that_is_not_json_is_an_error(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    (root / "schema").mkdir()
    (root / "schema" / "export.schema.json").write_text('{\n  "type": "object",\n}\n')
    result = run(root)
    assert result.stderr == report(
        "schema/export.schema.json:3:1: error: invalid JSON: Expecting property name enclosed in double quotes "
        "[schema-file]\n  hint: a schema file is one JSON object")


@pytest.mark.parametrize("content, line, message", [
    (b"just a note\n", 1, "the file does not start with `# Title`"),
    (b"# Title\n\nno checked line\n", 1, "no `Checked YYYY-MM-DD.` line: is this a published index.md?"),
    (b"# T\n\nBody\n\nChecked 2026-02-30. F. Conditions and selected source facts are in the adjacent JSON export.\n",
     5, "the Checked date 2026-02-30 is not a date: day is out of range for month"),
    ((b"# T\n\n<!-- evidencepress: {bad -->\n\nChecked 2026-02-10. F. Conditions and selected source facts are in "
     b"the adjacent JSON export.\n"), 3, ("the evidencepress comment is not valid JSON: Expecting property name "
     "enclosed in double quotes")),
])
def test_import_of_a_file_that_is_not_a_published_page(tmp_path: Path, content: bytes, line: int,
                                                        message: str) -> None:
    source = tmp_path / "page.md"
    source.write_bytes(content)
    result = CliRunner().invoke(main, ["import", str(source)])
    assert result.exit_code == 1 and result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr == (f"{source}:{line}:1: error: {message} [import]\n"
                             "  hint: import reads the index.md that build publishes\n")


def test_import_of_a_non_utf8_file_and_to_an_unwritable_place(tmp_path: Path) -> None:
    source = tmp_path / "page.md"
    source.write_bytes(b"# T\n\xff\n")
    result = CliRunner().invoke(main, ["import", str(source)])
    assert result.exit_code == 1
    assert result.stderr == f"{source}:2:1: error: not UTF-8: byte 0xff cannot be decoded [import]\n"
    published = tmp_path / "index.md"
    published.write_text("# T\n\n> s\n\nBody\n\nChecked 2026-10-18. F. Conditions and selected source facts are "
                         "in the adjacent JSON export.\n")
    target = tmp_path / "missing-folder" / "out.md"
    result = CliRunner().invoke(main, ["import", str(published), "-o", str(target)])
    assert result.exit_code == 1
    assert result.stderr == f"{target}: error: cannot write: No such file or directory [import]\n"


def test_json_output_to_a_latin1_terminal_is_valid_json(tmp_path: Path) -> None:
    text = ARTICLE.replace('"unit": "tokens/s"', '"unit": "€/token ✓"')
    root = write_site(tmp_path, {"guides/decode.md": text})
    env = dict(os.environ, PYTHONIOENCODING="latin-1")
    command = [sys.executable, "-m", "evidencepress.cli", "build", "--root", str(root), "--jobs", "1"]
    for output_format in ("text", "json"):
        done = subprocess.run([*command, "--format", output_format], capture_output=True, env=env, check=False)
        assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    problems = json.loads(done.stdout.decode("latin-1"))
    assert problems[0]["message"] == "unit '€/token ✓' is not in the unit vocabulary"


def test_a_pattern_does_not_accept_a_trailing_newline(tmp_path: Path) -> None:
    """Python's `$` matches before a final newline; JSON Schema's (ECMA) does not."""
    text = ARTICLE.replace('"metric": "decode_rate"', '"metric": "decode_rate\\n"')
    assert "reported_results[0].metric: " in _check(text, tmp_path)


def test_a_javascript_base_url_is_refused(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    result = run(root, "build", "--base-url", "javascript:alert(1)//")
    assert result.exit_code == 2
    assert result.stderr == report(
        "--base-url: error: base_url: expected an http(s) URL ending in /, got 'javascript:alert(1)//' [config]\n"
        '  hint: e.g. base_url = "https://user.github.io/site/"')
    assert not (root / "_site").exists()


def test_a_nul_byte_is_an_error_not_a_replacement_character(tmp_path: Path) -> None:
    text = ARTICLE.replace("One community report", "One commu\x00nity report")
    assert _check(text, tmp_path) == report(at(12, 10, "error: NUL character (U+0000) in the text [encoding]",
                                                "the file is damaged or not text: remove the NUL byte"))


def test_an_export_fence_with_two_spaces_is_the_export_everywhere(tmp_path: Path) -> None:
    """It was validated as the export and also shown as a code block: three modules, three rules."""
    text = ARTICLE.replace("```json export", "```json  export")
    root = write_site(tmp_path, {"guides/decode.md": text})
    assert run(root, "build").exit_code == 0
    html = (root / "_site/guides/decode/index.html").read_text()
    before_citation = html.split('<section class="cite"', 1)[0]  # whose BibTeX and CSL-JSON are code blocks
    assert "source_document_sha256" not in html and "<pre>" not in before_citation
    markdown = (root / "_site/guides/decode/index.md").read_text()
    assert markdown.count("```json\n") == 1 and "json  export" not in markdown
    broken = text.replace('"value": 42.5', '"value": "fast"')
    assert "reported_results[0].value: " in _check(broken, tmp_path / "broken")


def test_a_failed_build_leaves_everything_as_it_was(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    assert run(root, "build").exit_code == 0
    before = tree(root)
    (root / "content" / "guides" / "decode.md").write_text(ARTICLE.replace("tags", "x") + "\x00")
    assert run(root, "build").exit_code == 1
    after = tree(root)
    assert {k: v for k, v in after.items() if not k.startswith("content/")} == \
           {k: v for k, v in before.items() if not k.startswith("content/")}


def test_a_string_beyond_the_limit_is_an_error_at_its_place(tmp_path: Path) -> None:
    text = ARTICLE.replace('"statistic": "one run"', '"statistic": "' + "x" * 10_001 + '"')
    line = text[:text.index('"x')].count("\n") + 1
    assert _check(text, tmp_path) == report(at(
        line, 20, "error: reported_results[0].statistic: a string of 10,001 characters; at most 10,000 [json-limit]",
        "an export string holds at most 10,000 characters; quote the source briefly and link it"))


def test_an_array_beyond_the_limit_is_an_error_at_its_first_item_too_many(tmp_path: Path) -> None:
    text = ARTICLE.replace('"conditions": {}\n}', '"conditions": {"runs": [' + "1," * 20_000 + "1]}\n}")
    line = text[:text.index('"runs"')].count("\n") + 1
    col = text[:text.index('"runs"')].rsplit("\n", 1)[1].__len__() + len('"runs": [') + 2 * 20_000 + 1
    assert _check(text, tmp_path) == report(at(
        line, col, "error: conditions.runs: more than 20,000 items in one array [json-limit]",
        "an export array holds at most 20,000 items; split the evidence over several pages"))


def test_a_markdown_file_beyond_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    """A 20 MB article took 112 s to parse (issue 25): past 12,000,000 bytes a page, and a record's
    prose, is an error at the file before anything parses it."""
    padding = "\n" + "Words of prose. " * 760_000
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE + padding, "community/example-record.md": padding})
    hint = "split the article into several pages, each with the results its prose discusses"
    size = len((ARTICLE + padding).encode())
    result = run(root)
    assert result.exit_code == 1
    assert result.stderr == report(
        f"content/community/example-record.md: error: {len(padding):,} bytes; a page holds at most 12,000,000 "
        f"[file-size]\n  hint: {hint}",
        f"content/guides/decode.md: error: {size:,} bytes; a page holds at most 12,000,000 [file-size]\n  hint: {hint}",
        errors=2, breakdown=("by rule:", "  file-size  2 errors", "by file:", "  content/community/example-record.md  1 error",
                             "  content/guides/decode.md             1 error"))


def test_a_markdown_file_at_the_size_limit_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "content" / "guides"
    folder.mkdir(parents=True)
    (folder / "at.md").write_bytes(b"x" * read.MAX_PAGE_BYTES)
    (folder / "past.md").write_bytes(b"x" * (read.MAX_PAGE_BYTES + 1))
    content, problems = read.read_content(tmp_path)
    assert [page.rel for page in content.pages] == ["guides/at.md"]
    assert [(p.location.path, p.rule) for p in problems] == [("content/guides/past.md", "file-size")]


def test_a_title_beyond_the_limit_is_an_error(tmp_path: Path) -> None:
    text = ARTICLE.replace('title: "Decode rate on one Spark"', 'title: "' + "T" * 301 + '"')
    assert "title: expected one line of at most 300 characters" in _check(text, tmp_path)


def test_schema_and_new_report_a_broken_site_schema(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    (root / "schema").mkdir()
    (root / "schema" / "export.schema.json").write_text("{bad")
    for command in (["schema", "export"], ["new", "guides/another"]):
        result = CliRunner().invoke(main, [*command, "--root", str(root)])
        assert result.exit_code == 1 and not isinstance(result.exception, (KeyError, ValueError)), command
        assert "schema/export.schema.json:1:2: error: invalid JSON" in result.stderr


def test_a_chart_id_with_a_trailing_newline_is_refused(tmp_path: Path) -> None:
    """It wrote a file named `decode\\n` before: the chart schema's slug pattern matched it."""
    from sitekit import CHART, article, export, make_site, result

    root = make_site(tmp_path, {"guides/a.md": article(body=CHART.replace("id: decode", 'id: "decode\\n"'),
                                                       export_doc=export(result(), result("Decode at C2", 40.0)))})
    outcome = run(root, "build")
    assert outcome.exit_code == 1 and "id: " in outcome.stderr and "[chart-schema]" in outcome.stderr
    assert not (root / "_site").exists()


SURROGATE_HINT = "write the character itself (in YAML its \\U0001F600 escape; in JSON the escapes of both halves of its pair)"


def test_a_lone_surrogate_is_an_error_at_its_place_not_a_traceback(tmp_path: Path) -> None:
    """``\\ud800`` pairs with nothing: no page, CSV or feed can hold it (it was a UnicodeEncodeError)."""
    text = ARTICLE.replace('title: "Decode rate on one Spark"', 'title: "Decode \\ud800 rate"')
    assert _check(text, tmp_path / "yaml") == report(at(2, 8, "error: title: a string holds the lone surrogate "
                                                             "U+D800, which is not a character [text]", SURROGATE_HINT))
    text = ARTICLE.replace('"label": "Decode at concurrency 1"', '"label": "Decode \\udc00 at concurrency 1"')
    found = _check(text, tmp_path / "json")
    assert "reported_results[0].label: a string holds the lone surrogate U+DC00, which is not a character [text]" \
        in found and "Traceback" not in found
    paired = ARTICLE.replace('"label": "Machine memory"', '"label": "\\ud83d\\ude00 Machine memory"')  # a pair in JSON is one character
    root = write_site(tmp_path / "pair", {"guides/decode.md": paired})
    outcome = CliRunner().invoke(main, ["build", "--root", str(root)])
    assert outcome.exit_code == 0, outcome.stderr
    assert "\U0001f600 Machine memory" in (root / "_site/guides/decode/index.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("escape, code", [("\\x01", "0001"), ("\\f", "000C"), ("\\v", "000B"), ("\\uFFFF", "FFFF")])
def test_a_control_character_xml_forbids_is_an_error_at_its_place(tmp_path: Path, escape: str, code: str) -> None:
    """A title holding U+0001 or U+FFFF made feed.xml not well-formed, exit 0 (issue 25)."""
    text = ARTICLE.replace('title: "Decode rate on one Spark"', f'title: "Decode {escape} rate"')
    assert _check(text, tmp_path) == report(at(2, 8, f"error: title: a string holds the control character U+{code} "
                                                     "[text]", "delete the invisible character: pages, charts and "
                                                     "feeds cannot hold it"))


@pytest.mark.parametrize("field, old, message", [
    ("title", 'title: "Decode rate on one Spark"', "expected one line of at most 300 characters"),
    ("summary", 'summary: "One reported', "expected one line of at most 1,000 characters"),
])
def test_a_line_break_in_a_one_line_field_is_an_error(tmp_path: Path, field: str, old: str, message: str) -> None:
    """A newline in a title injected a `## Fake section` and a live link into index.md and llms.txt (issue 25)."""
    text = ARTICLE.replace(old, old.replace(': "', ': "Fake\\n## Fake section\\n', 1), 1)
    found = _check(text, tmp_path)
    assert f"error: {field}: {message}, got \"Fake\\n## Fake section" in found and "Traceback" not in found


_INJECTED = '\\n## Fake section\\n[live](https://evil.example/)'
_ONE_LINE = "write it on one line; a longer statement belongs in the prose or a fact's value"
_CONDITION_LINE = "write it on one line: a line break would end its line in every table, CSV and Markdown file"


@pytest.mark.parametrize("old, where, path, message, hint", [
    ('"label": "Decode at concurrency 1"', (31, 7), "reported_results[0].label",
     'expected a non-empty string on one line, got "Decode at concurrency 1\\n## Fake section\\n[live](https:/...',
     _ONE_LINE),
    ('"unit": "tokens/s"', (34, 7), "reported_results[0].unit",
     'expected a non-empty string on one line, got "tokens/s\\n## Fake section\\n[live](https://evil.example/)"',
     _ONE_LINE),
    ('"statistic": "one run"', (35, 7), "reported_results[0].statistic",
     'expected a non-empty string on one line, got "one run\\n## Fake section\\n[live](https://evil.example/)"',
     _ONE_LINE),
    ('"label": "Machine memory"', (22, 7), "facts[0].label",
     'expected a non-empty string on one line, got "Machine memory\\n## Fake section\\n[live](https://evil.exa...',
     _ONE_LINE),
    ('"system": "1 x DGX Spark"', (38, 9), "reported_results[0].conditions.system",
     'expected a string on one line or null, got "1 x DGX Spark\\n## Fake section\\n[live](https://evil.exam...',
     _CONDITION_LINE),
    ('"engine": "vLLM"', (42, 9), "reported_results[0].conditions.engine",
     'expected a string on one line or null, got "vLLM\\n## Fake section\\n[live](https://evil.example/)"',
     _CONDITION_LINE),
    ('"model": "Qwen3.8-27B"', (41, 26), "reported_results[0].conditions.model",
     'expected a string on one line or null, got "Qwen3.8-27B\\n## Fake section\\n[live](https://evil.exampl...',
     _CONDITION_LINE),
])
def test_a_line_break_in_a_name_of_the_export_is_an_error_at_its_key(tmp_path: Path, old: str, where: tuple[int, int],
                                                                     path: str, message: str, hint: str) -> None:
    """A newline in a result's label, unit or statistic, a fact's label or a condition that names a thing was
    published: a table row, a CSV line and a Markdown line each broke in two (issue 25)."""
    assert ARTICLE.count(old) == 1
    text = ARTICLE.replace(old, old[:-1] + _INJECTED + '"')
    assert _check(text, tmp_path) == report(at(*where, f"error: {path}: {message} [schema]", hint))


def test_a_line_break_in_a_fact_value_adds_no_line_to_the_markdown_and_text_files(tmp_path: Path) -> None:
    """A fact's value is a statement and may hold several lines: every Markdown and text output keeps it on
    one line (or inside the JSON block), so no `## Fake section` or live link appears."""
    text = ARTICLE.replace('"value": "128 GB unified"', '"value": "128 GB' + _INJECTED + '"')
    root = write_site(tmp_path, {"guides/decode.md": text})
    assert run(root, "build").exit_code == 0
    for page in sorted((root / "_site").rglob("*")):
        if page.suffix in (".md", ".txt"):
            lines = page.read_text(encoding="utf-8").split("\n")
            assert not [line for line in lines if line.lstrip().startswith(("## Fake", "[live]"))], page


_BIDI_HINT = "delete it: right-to-left text shows in its order without it (the marks U+200E and U+200F are allowed)"


def test_a_bidirectional_control_in_a_title_or_source_line_is_a_warning_at_its_place(tmp_path: Path) -> None:
    """A right-to-left override in a title reordered the link and summary after it in llms.txt and index.md
    (Trojan Source); a right-to-left mark reorders nothing and is no warning (issue 25)."""
    text = ARTICLE.replace('title: "Decode rate on one Spark"', 'title: "Decode \u202erate\u202c on one Spark"')
    text = text.replace("publisher: example", 'publisher: "ex\u2067ample"').replace(
        'summary: "One reported', 'summary: "\u200fOne reported')
    root = write_site(tmp_path, {"guides/decode.md": text})
    built = run(root, "build")
    assert built.exit_code == 0
    assert built.stderr.split("built in")[0] == report(
        at(2, 8, "warning: title: a string holds the bidirectional control U+202E (RIGHT-TO-LEFT OVERRIDE), which "
                 "reorders the text shown after it [bidi]", _BIDI_HINT),
        at(6, 16, "warning: sources[0].publisher: a string holds the bidirectional control U+2067 (RIGHT-TO-LEFT "
                  "ISOLATE), which reorders the text shown after it [bidi]", _BIDI_HINT),
        errors=0, warnings=2)
