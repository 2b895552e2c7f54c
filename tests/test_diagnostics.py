"""The bad-input suite (SPEC §4.4, §9): every defect gets its exact diagnostic.

Each case writes a small real site into ``tmp_path`` (site.toml copied from
the project, one or more articles under content/guides/), runs the CLI and
compares the whole report: ``file:line:col: severity: json.path: message
[rule]``, the hint under it, the closing count and the exit code. One defect
per case; ARTICLE below is valid and warning-free, and each case edits it in
place so that the line numbers of the listing stay true.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sitekit import example_site_toml

from evidencepress.build.recipe import site_files
from evidencepress.cli import main
from evidencepress.core.options import BuildOptions
from evidencepress.output.writer import FolderWriter

REPO = Path(__file__).resolve().parents[1]
REV = "0123456789abcdef0123456789abcdef01234567"
SHA = "5f" * 32
URL = f"https://github.com/example/bench/blob/{REV}/README.md"
FILE = "content/guides/decode.md"

# Line numbers, for reading the expectations below:
#  2 title   4 checked   6-9 the source   12 first paragraph   18 ```json export
# 20-28 facts   30-51 reported_results[0]: 31 label, 33 value, 34 unit, 36 uncertainty,
# 37-45 conditions (38 system, 39 experiment_date, 40 concurrency), 46 evidence_state,
# 47 site_reproduced, 48 evidence_url, 49 source_document_sha256, 50 source_record_id
# 53 "conditions": {}   54 }   55 ```
ARTICLE = f"""---
title: "Decode rate on one Spark"
summary: "One reported decode rate and the conditions it was measured under."
checked: 2026-10-18
sources:
  - publisher: example
    url: "{URL}"
    revision: "{REV}"
    sha256: "{SHA}"
---

One community report measured decode on one machine.

## What was measured

The export below holds the value and its conditions.

```json export
{{
  "facts": [
    {{
      "label": "Machine memory",
      "value": "128 GB unified",
      "classification": "hardware",
      "evidence_url": "{URL}#L3",
      "source_document_sha256": "{SHA}"
    }}
  ],
  "reported_results": [
    {{
      "label": "Decode at concurrency 1",
      "metric": "decode_rate",
      "value": 42.5,
      "unit": "tokens/s",
      "statistic": "one run",
      "uncertainty": null,
      "conditions": {{
        "system": "1 x DGX Spark",
        "experiment_date": "2026-10-01",
        "concurrency": 1,
        "node_count": 1, "model": "Qwen3.8-27B", "model_artifact": null, "model_revision": null,
        "engine": "vLLM", "runtime_execution_revision": null, "weight_precision": "NVFP4",
        "kv_dtype": null, "input_tokens": 128, "output_tokens": 256, "temperature": 0,
        "thinking": false, "cache_state": null, "repetitions": 1, "context_limit_tokens": null
      }},
      "evidence_state": "source_reported",
      "site_reproduced": false,
      "evidence_url": "{URL}#L10",
      "source_document_sha256": "{SHA}",
      "source_record_id": "example-decode"
    }}
  ],
  "conditions": {{}}
}}
```
"""

CHART = """```chart
id: decode
kind: bar
title: Decode rate
alt: One decode rate on one Spark.
panels:
  - select:
      where: {source_record_id: example-decode}
    x: label
```
"""
SINGLE_VALUE = ("warning: panels[0].select: the panel shows one value ('Decode at concurrency 1') on a scale of its own "
                "[chart-single-value]")
SINGLE_VALUE_HINT = ("a lone bar says nothing by its height: put it beside values of the same kind, draw a reference "
                     "it is compared with, or state it in the prose")
EXPORT_OPEN = "```json export\n"
PARAGRAPH = "One community report measured decode on one machine."
BUILT = re.compile(r"built in \d+\.\d\d s\n")


# --- helpers -----------------------------------------------------------------------------

def edit(old: str, new: str, text: str = ARTICLE) -> str:
    """``text`` with the one occurrence of ``old`` replaced (a typo in a case fails loudly)."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


def site_toml() -> str:
    return example_site_toml()


def write_site(root: Path, pages: Mapping[str, str | bytes], toml: str | None = None) -> Path:
    """site.toml and ``pages`` (path under content/ -> text or raw bytes) in ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "site.toml").write_text(site_toml() if toml is None else toml, encoding="utf-8")
    (root / "content").mkdir(exist_ok=True)
    for rel, text in pages.items():
        path = root / "content" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return root


def run(root: Path, command: str = "check", *options: str) -> Result:
    """The CLI as a user runs it; a traceback is always a bug."""
    extra = ["--jobs", "1"] if command == "build" else []
    result = CliRunner().invoke(main, [command, "--root", str(root), *extra, *options])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"traceback for bad input:\n{result.output}") from result.exception
    return result


def without_progress(stderr: str) -> str:
    """The report without the lines a run prints every few seconds when stderr is not a terminal."""
    return "".join(line for line in stderr.splitlines(keepends=True) if not line.startswith("progress: "))


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def report(*lines: str, errors: int = 1, warnings: int = 0, breakdown: tuple[str, ...] = ()) -> str:
    """The text report: diagnostic lines (hints indented under them), the summary by rule and file
    (``breakdown``: printed when the problems span several rules or files), then the count."""
    count = f"{errors} error{'' if errors == 1 else 's'}, {warnings} warning{'' if warnings == 1 else 's'}"
    return "\n".join(lines + breakdown + (count,)) + "\n"


def at(line: int, col: int, text: str, hint: str = "") -> str:
    """One diagnostic of FILE."""
    return f"{FILE}:{line}:{col}: {text}" + (f"\n  hint: {hint}" if hint else "")


def test_the_base_article_is_valid_and_warning_free(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    built = run(root, "build")
    assert built.exit_code == 0 and BUILT.fullmatch(built.stderr), built.stderr
    checked = run(root, "check")
    assert (checked.exit_code, checked.stderr, checked.stdout) == (0, "", "")


# --- one defect per case: `check` reports it exactly and exits 1 ---------------------------

YAML_HINT = "YAML needs `key: value` pairs; quote values that contain `: ` or start with a special character"
NULL_HINT = "write null when the source does not report {}"
RESULT_KEYS = ("label, metric, value, unit, statistic, uncertainty, conditions, evidence_state, site_reproduced, "
               "evidence_url, source_document_sha256 and source_record_id")
SECTIONS = ("facts, reported_results, conditions, case_reports, quality_comparisons, memory_observations, "
            "long_context_cases, deployment_profiles, comparison_groups, runtime_options, launch_comparison")
FRONT_KEYS = "known keys: title, summary, checked, updated, draft, tags, sources"
UNCERTAINTY = ("expected null or one uncertainty shape: {standard_deviation}, {observed_min, observed_max, "
               "interval_kind}, {ci95: [lo, hi]}, {spread_ratio} or {approximate: true}")
LINK_HINT = "internal links are site paths such as /guides/llm-speed-metrics/"
SCHEME_HINT = "link to an http(s) URL or a site path"
OTHER_URL = URL.replace("README.md", "docs/other.md")
OTHER_SHA = "ee" * 32
DEEP_JSON = "[" * 70 + "]" * 70
RESULTS_END = '    }\n  ],\n  "conditions"'
FIRST_RESULT = ARTICLE[ARTICLE.index('    {\n      "label": "Decode at'):ARTICLE.index('  ],\n  "conditions"')]
VERY_DEEP_JSON = "[" * 5000 + "]" * 5000
TWO_EXPORTS = ARTICLE + "\n" + EXPORT_OPEN + '{"facts": [], "reported_results": [], "conditions": {}}\n```\n'
FENCE_CLOSE = "}\n```\n"

CHECK_CASES: list[tuple[str, str, str]] = [
    # --- front matter: YAML -----------------------------------------------------------------
    ("yaml-colon-in-value", edit('title: "Decode rate on one Spark"', "title: Decode: rate on one Spark"),
     report(at(2, 14, "error: invalid YAML: the value of `title:` contains `: `, which YAML reads as the start of "
                      "a second key [yaml]", 'quote the value: title: "Decode: rate on one Spark"'))),
    ("yaml-key-indented-under-a-value", edit('summary: "One reported decode rate and the conditions it was measured under."',
                                             "summary: One reported decode rate and its conditions.",
                                             edit("checked: 2026-10-18", "  checked: 2026-10-18")),
     report(at(4, 3, "error: invalid YAML: `checked:` is indented under `summary:`, which already has a value, so "
                     "YAML reads it as part of that value [yaml]",
               "align `checked:` with `summary:` on line 3 (0 spaces); only a key with nothing after its colon holds "
               "nested keys"))),
    ("yaml-key-indented-after-a-quoted-value", edit("checked: 2026-10-18", "  checked: 2026-10-18"),
     report(at(4, 3, "error: invalid YAML: `checked:` is indented 2 spaces, which lines it up with no key above it "
                     "[yaml]", "YAML nests by indentation: indent it 0 spaces like `summary:` on line 3"))),
    ("yaml-key-between-two-indents", edit("    revision:", "   revision:"),
     report(at(8, 4, "error: invalid YAML: `revision:` is indented 3 spaces, which lines it up with no key above it "
                     "[yaml]", "YAML nests by indentation: indent it 4 spaces like `url:` on line 7, or 2 spaces like "
                               "`- publisher: example` on line 6"))),
    ("yaml-tab-indent", edit("    revision:", "\trevision:"),
     report(at(8, 1, "error: invalid YAML: a tab indents this line; YAML indents with spaces only [yaml]",
               "replace the tab with spaces"))),
    ("yaml-unclosed-flow-list", edit("checked: 2026-10-18", "checked: [2026-10-18"),
     report(at(5, 8, "error: invalid YAML: expected ',' or ']', but got ':' [yaml]", YAML_HINT))),
    ("yaml-duplicate-key", edit("checked: 2026-10-18", "checked: 2026-10-18\ntitle: again"),
     report(at(5, 1, "error: title: duplicate key 'title' [duplicate-key]",
               "each key may appear once; merge or remove one"))),
    ("yaml-impossible-date", edit("checked: 2026-10-18", "checked: 2026-02-30"),
     report(at(4, 10, "error: invalid YAML: '2026-02-30' cannot be read: day is out of range for month [yaml]",
               "correct the value, or quote it to keep it as text"))),
    ("yaml-alias", edit("checked: 2026-10-18", "checked: &day 2026-10-18\nupdated: *day"),
     report(at(5, 10, "error: invalid YAML: alias *day is not supported [yaml]",
               "write the value out instead of referring to an anchor"))),
    ("yaml-deep-nesting", edit("checked: 2026-10-18", "checked: 2026-10-18\ntags: " + "[" * 3000 + "]" * 3000),
     report(at(5, 38, "error: invalid YAML: nested deeper than 32 levels [yaml]", "flatten the structure"))),
    ("yaml-control-character", edit('title: "Decode rate', 'title: "Decode\x07 rate'),
     report(at(2, 15, "error: invalid YAML: character U+0007 is not allowed [yaml]",
               "delete the invisible character, or write it as an escape in a double-quoted string"))),
    ("front-matter-not-a-mapping", "---\n- a list\n- not keys\n---\n\nText.\n",
     report(at(2, 1, "error: front matter must be a YAML mapping of keys to values [front-matter]",
               "write `title: ...`, `summary: ...`, `checked: YYYY-MM-DD`"))),
    ("front-matter-empty", "---\n---\n\nText.\n",
     report(*[at(1, 1, f"error: {key}: missing required key '{key}' [front-matter]",
                 "an article's front matter has title, summary and checked (YYYY-MM-DD)")
              for key in ("checked", "summary", "title")], errors=3)),
    ("front-matter-missing", "# Decode\n\nNo front matter.\n",
     report(at(1, 1, "error: missing front matter [front-matter]",
               "start the file with a line `---`, the YAML front matter, and another line `---`"))),
    ("front-matter-not-closed", "---\ntitle: x\n\nText.\n",
     report(at(1, 1, "error: front matter is not closed [front-matter]", "end the front matter with a line `---`"))),
    # --- front matter: schema ---------------------------------------------------------------
    ("front-unknown-key", edit("checked: 2026-10-18", "checked: 2026-10-18\nauthor: someone"),
     report(at(5, 1, "error: author: unknown front matter key 'author' [front-matter]", FRONT_KEYS))),
    ("front-missing-title", edit('title: "Decode rate on one Spark"\n', ""),
     report(at(2, 1, "error: title: missing required key 'title' [front-matter]",
               "an article's front matter has title, summary and checked (YYYY-MM-DD)"))),
    ("front-checked-not-a-date", edit("checked: 2026-10-18", 'checked: "18 Oct 2026"'),
     report(at(4, 1, 'error: checked: expected a date written YYYY-MM-DD, got "18 Oct 2026" [front-matter]'))),
    ("front-source-unknown-key", edit("    revision:", "    licence: MIT\n    revision:"),
     report(at(8, 5, "error: sources[0].licence: unknown key in a source 'licence' [front-matter]",
               "a source has publisher, url, revision and sha256"))),
    ("front-source-sha-unquoted-number", edit(f'sha256: "{SHA}"', "sha256: 12345"),
     report(at(9, 5, "error: sources[0].sha256: expected 64 lowercase hex characters (a SHA-256), got 12345 "
                     "[front-matter]", "quote the hash so YAML keeps it a string"))),
    ("export-without-sources", edit(ARTICLE[ARTICLE.index("sources:"):ARTICLE.index("---\n\nOne")], ""),
     report(at(13, 1, "error: a page with an export needs `sources` in its front matter [front-matter]",
               "list every document the export's evidence_url values point into"))),
    # --- the export: JSON syntax ----------------------------------------------------------
    ("json-missing-comma", edit('"unit": "tokens/s",', '"unit": "tokens/s"'),
     report(at(35, 7, "error: invalid JSON: Expecting ',' delimiter [json]",
               "a comma is missing between two members, or a string is not closed"))),
    ("json-trailing-comma", edit('  "conditions": {}\n}', '  "conditions": {},\n}'),
     report(at(53, 19, "error: invalid JSON: a comma after the last member of an object [json]",
               "delete this comma: JSON allows no comma before `}`"))),
    ("json-trailing-comma-in-a-list", edit('    }\n  ],\n  "conditions"', '    },\n  ],\n  "conditions"'),
     report(at(51, 6, "error: invalid JSON: a comma after the last item of a list [json]",
               "delete this comma: JSON allows no comma before `]`"))),
    ("json-key-without-value", edit('"unit": "tokens/s",', '"unit": ,'),
     report(at(34, 15, "error: invalid JSON: a key without a value [json]",
               "write the value, or null when the source does not report it"))),
    ("json-key-without-quotes", edit('"unit": "tokens/s",', 'unit: "tokens/s",'),
     report(at(34, 7, "error: invalid JSON: a key without double quotes [json]",
               'JSON keys are written in double quotes: "key": value'))),
    ("json-duplicate-key", edit('"unit": "tokens/s",', '"unit": "tokens/s", "unit": "tok/s",'),
     report(at(34, 27, "error: reported_results[0].unit: duplicate key 'unit' [duplicate-key]",
               "each key may appear once in an object; merge or rename one"))),
    ("json-nan", edit('"value": 42.5', '"value": NaN'),
     report(at(33, 16, "error: reported_results[0].value: NaN is not a JSON number [json-number]",
               "write null when the source reports no value"))),
    ("json-infinity", edit('"value": 42.5', '"value": -Infinity'),
     report(at(33, 16, "error: reported_results[0].value: -Infinity is not a JSON number [json-number]",
               "write null when the source reports no value"))),
    ("json-overflow", edit('"value": 42.5', '"value": 1e400'),
     report(at(33, 16, "error: reported_results[0].value: 1e400 is too large for a JSON number [json-number]",
               "write the number as the source reports it, within about ±1.8e308"))),
    ("json-integer-too-large", edit('"value": 42.5', '"value": ' + "9" * 400),
     report(at(33, 16, "error: reported_results[0].value: 99999999999999999999… (400 characters) is too large for "
                       "a JSON number [json-number]",
               "write the number as the source reports it, within about ±1.8e308"))),
    ("json-top-level-array", edit(EXPORT_OPEN + "{", EXPORT_OPEN + "[{", edit(FENCE_CLOSE, "}]\n```\n")),
     report(at(19, 1, "error: the export must be a JSON object, got an array [json]",
               'wrap the export in { }: {"facts": [], "reported_results": [], "conditions": {}}'))),
    ("json-deep-nesting", edit('"conditions": {}\n}', f'"conditions": {{"x": {DEEP_JSON}}}\n}}'),
     report(at(53, 85, "error: conditions.x[0]…[0]: JSON nested deeper than 64 levels [json-depth]",
               "flatten the structure: an export nests at most 64 objects and arrays"))),
    ("json-very-deep-nesting", edit('"conditions": {}\n}', f'"conditions": {{"x": {VERY_DEEP_JSON}}}\n}}'),
     report(at(53, 85, "error: conditions.x[0]…[0]: JSON nested deeper than 64 levels [json-depth]",
               "flatten the structure: an export nests at most 64 objects and arrays"))),
    ("two-export-fences", TWO_EXPORTS,
     report(at(57, 1, "error: a second `json export` fence; the first is on line 18 [export]",
               "a page has at most one export; merge the two"))),
    ("json-key-with-line-break", edit('"conditions": {}\n}', '"conditions": {},\n  "a\\r\\nb": 1\n}'),
     report(at(54, 3, "error: a\\r\\nb: unknown top-level section 'a\\r\\nb' [schema]",
               f"known sections: {SECTIONS}"))),
    ("json-error-with-a-chart", edit('"unit": "tokens/s",', '"unit": "tokens/s"',
                                     edit("The export below holds the value and its conditions.\n", CHART)),
     report(at(44, 7, "error: invalid JSON: Expecting ',' delimiter [json]",
               "a comma is missing between two members, or a string is not closed"))),
    # --- the export: schema ---------------------------------------------------------------
    ("concurrency-wrong-type", edit('"concurrency": 1', '"concurrency": "one"'),
     report(at(40, 9, 'error: reported_results[0].conditions.concurrency: expected integer >= 1 or null, '
                      'got "one" [schema]', NULL_HINT.format("concurrency")))),
    ("concurrency-zero", edit('"concurrency": 1', '"concurrency": 0'),
     report(at(40, 9, "error: reported_results[0].conditions.concurrency: expected integer >= 1 or null, "
                      "got 0 [schema]", NULL_HINT.format("concurrency")))),
    ("value-as-string", edit('"value": 42.5', '"value": "42.5"'),
     report(at(33, 7, 'error: reported_results[0].value: expected a finite number, got "42.5" [schema]',
               "a result needs a number; keep a statement without one in facts"))),
    ("value-boolean", edit('"value": 42.5', '"value": true'),
     report(at(33, 7, "error: reported_results[0].value: expected a finite number, got true [schema]",
               "a result needs a number; keep a statement without one in facts"))),
    ("result-missing-statistic", edit('      "statistic": "one run",\n', ""),
     report(at(30, 5, "error: reported_results[0].statistic: missing required key 'statistic' [schema]",
               f"a reported result has {RESULT_KEYS}"))),
    ("condition-misspelled-required-key", edit('"concurrency": 1', '"concurency": 1'),
     report(at(40, 9, "error: reported_results[0].conditions.concurency: missing required key 'concurrency'; "
                      "'concurency' looks like a misspelling of it [schema]", "rename 'concurency' to 'concurrency'"))),
    ("condition-missing-system", edit('        "system": "1 x DGX Spark",\n', ""),
     report(at(37, 7, "error: reported_results[0].conditions.system: missing required key 'system' [schema]",
               "add the missing condition; write null when the source does not report it"))),
    ("export-missing-facts", edit(ARTICLE[ARTICLE.index('  "facts"'):ARTICLE.index('  "reported_results"')], ""),
     report(at(19, 1, "error: facts: missing required key 'facts' [schema]",
               "an export has facts, reported_results and conditions; write [] or {} when one is empty"))),
    ("result-unknown-key", edit('"statistic": "one run",', '"statistic": "one run", "note": "warm",'),
     report(at(35, 31, "error: reported_results[0].note: unknown key in a reported result 'note' [schema]",
               "put measurement conditions under `conditions`"))),
    ("export-unknown-section", edit('"conditions": {}\n}', '"conditions": {},\n  "notes": []\n}'),
     report(at(54, 3, "error: notes: unknown top-level section 'notes' [schema]", f"known sections: {SECTIONS}"))),
    ("export-page-is-reserved", edit('"conditions": {}\n}', '"conditions": {},\n  "page": {"title": "x"}\n}'),
     report(at(54, 3, "error: page: `page` is reserved for the published envelope [schema]",
               "rename the section; the build adds `page` to index.json itself"))),
    ("result-not-an-object", edit('"reported_results": [\n', '"reported_results": [\n    "decode 42.5",\n'),
     report(at(30, 5, 'error: reported_results[0]: expected a reported result (an object), got "decode 42.5" '
                      "[schema]", f"a reported result has {RESULT_KEYS}"))),
    ("uncertainty-wrong-shape", edit('"uncertainty": null', '"uncertainty": {"sd": 0.25}'),
     report(at(36, 7, f'error: reported_results[0].uncertainty: {UNCERTAINTY}, got {{"sd": 0.25}} [schema]',
               "write null when the source reports no dispersion"))),
    ("uncertainty-ci-of-three", edit('"uncertainty": null', '"uncertainty": {"ci95": [1, 2, 3]}'),
     report(at(36, 7, f'error: reported_results[0].uncertainty: {UNCERTAINTY}, got {{"ci95": [1, 2, 3]}} [schema]',
               "write null when the source reports no dispersion"))),
    ("experiment-date-without-date", edit('"experiment_date": "2026-10-01"', '"experiment_date": "October"'),
     report(at(39, 9, "error: reported_results[0].conditions.experiment_date: expected a string containing a "
                      'YYYY-MM-DD date, or null, got "October" [schema]',
               "write null when the source does not date the experiment"))),
    ("revision-not-hex", edit('"model_revision": null', '"model_revision": "main"'),
     report(at(41, 74, "error: reported_results[0].conditions.model_revision: expected a 7-40 character lowercase "
                       'hex revision or null, got "main" [schema]',
               "write null when the source does not pin this revision; put free text in another key"))),
    ("condition-key-not-identifier", edit('"system": "1 x DGX Spark",', '"system": "1 x DGX Spark", "gpu-clock": 1,'),
     report(at(38, 36, "error: reported_results[0].conditions.gpu-clock: condition keys are identifiers: a letter, "
                       "then letters, digits or underscores, got 'gpu-clock' [schema]",
               "rename the key, e.g. replace spaces and hyphens with underscores"))),
    ("record-id-not-a-slug", edit('"source_record_id": "example-decode"', '"source_record_id": "Example Decode"'),
     report(at(50, 7, "error: reported_results[0].source_record_id: expected a slug (lowercase letters, digits and "
                      'hyphens), got "Example Decode" [schema]'))),
    # --- the export: semantic checks --------------------------------------------------------
    ("evidence-url-not-in-sources", edit("README.md#L10", "docs/other.md#L10"),
     report(at(48, 7, f"error: reported_results[0].evidence_url: {OTHER_URL}#L10 is not in a document listed in "
                      "`sources` [evidence-url]",
               "add the document to the front matter's sources, or correct the URL"))),
    ("fact-url-not-in-sources", edit(f'"evidence_url": "{URL}#L3"', f'"url": "{OTHER_URL}#L3"'),
     report(at(25, 7, f"error: facts[0].url: {OTHER_URL}#L3 is not in a document listed in `sources` [evidence-url]",
               "add the document to the front matter's sources, or correct the URL"))),
    ("sha256-mismatch", edit(f'"source_document_sha256": "{SHA}",\n      "source_record_id"',
                             f'"source_document_sha256": "{OTHER_SHA}",\n      "source_record_id"'),
     report(at(49, 7, "error: reported_results[0].source_document_sha256: SHA-256 eeeeeeeeeeee… differs from the "
                      "source's 5f5f5f5f5f5f… [sha256]", f"the source {URL} is listed with sha256 {SHA}"))),
    ("site-reproduced-with-source-reported", edit('"site_reproduced": false', '"site_reproduced": true'),
     report(at(47, 7, "error: reported_results[0].site_reproduced: site_reproduced must be false when "
                      "evidence_state is source_reported [reproduced]",
               "a value the site reproduced needs another evidence_state"))),
    ("label-repeated-in-a-record", edit(RESULTS_END, '    },\n' + FIRST_RESULT + RESULTS_END[6:]),
     report(at(53, 7, "error: reported_results[1].label: label 'Decode at concurrency 1' repeats reported_results[0] "
                      "of record 'example-decode' [label]",
               "labels are unique within a source_record_id; say what differs"))),
    # --- the body ------------------------------------------------------------------------------
    ("broken-internal-link", edit(PARAGRAPH, "See [the metrics guide](/guides/metrics/) first."),
     report(at(12, 25, "error: broken internal link /guides/metrics/: no page or file at /guides/metrics/ [link]",
               LINK_HINT))),
    ("internal-link-without-slash", edit(PARAGRAPH, "See [this page](/guides/decode) again."),
     report(at(12, 17, "error: broken internal link /guides/decode: no page or file at /guides/decode [link]",
               "did you mean /guides/decode/ ?"))),
    ("broken-relative-link", edit(PARAGRAPH, "See [the image](chart.png)."),
     report(at(12, 17, "error: broken internal link chart.png: no page or file at /guides/decode/chart.png [link]",
               LINK_HINT))),
    ("broken-anchor-on-the-page", edit(PARAGRAPH, "See [below](#what-was-mesured)."),
     report(at(12, 13, "error: broken anchor #what-was-mesured: this page has no heading or footnote with that id "
                       "[link-anchor]", "did you mean #what-was-measured?"))),
    ("broken-anchor-far-from-any-heading", edit(PARAGRAPH, "See [the data](#data)."),
     report(at(12, 16, "error: broken anchor #data: this page has no heading or footnote with that id [link-anchor]",
               "an anchor is a heading's id; the headings of this page are #what-was-measured"))),
    ("javascript-link", edit(PARAGRAPH, "Click [here](javascript:alert(1)) now."),
     report(at(12, 14, "error: javascript: links are refused [link-scheme]", SCHEME_HINT))),
    ("javascript-link-mixed-case", edit(PARAGRAPH, "Click [here](JavaScript:alert(1)) now."),
     report(at(12, 14, "error: javascript: links are refused [link-scheme]", SCHEME_HINT))),
    ("javascript-autolink", edit(PARAGRAPH, "Click <javascript:alert(1)> now."),
     report(at(12, 8, "error: javascript: links are refused [link-scheme]", SCHEME_HINT))),
    ("data-image", edit(PARAGRAPH, "A picture: ![pixel](data:image/png;base64,AAAA)."),
     report(at(12, 21, "error: data: links are refused [link-scheme]", SCHEME_HINT))),
    ("chart-without-export", ARTICLE[:ARTICLE.index(EXPORT_OPEN)]
     + "```chart\nid: decode\nkind: bar\ntitle: Decode\nalt: One bar.\npanels:\n  - select:\n"
       "      where: {metric: decode_rate}\n```\n",
     report(at(24, 5, "error: panels[0].select: the page has no export; a chart plots only values selected from it "
                      "[chart-select]", "add a ```json export fence with the values the chart shows"))),
    ("chart-empty-alt", edit("The export below holds the value and its conditions.\n",
                             edit("alt: One decode rate on one Spark.", 'alt: ""', CHART)),
     report(at(20, 1, 'error: alt: expected a non-empty line of text, got "" [chart-schema]',
               "write the text; quote it when YAML would read it as a number, a date or true/false"))),
    ("chart-id-repeated", edit("The export below holds the value and its conditions.\n", CHART + "\n" + CHART),
     report(at(22, 5, SINGLE_VALUE, SINGLE_VALUE_HINT),
            at(28, 1, "error: id: chart id 'decode' is already used on line 17; ids are unique in a page [chart-id]",
               "the chart is written to decode.svg"),
            at(33, 5, SINGLE_VALUE, SINGLE_VALUE_HINT), warnings=2,
            breakdown=("by rule:", "  chart-id            1 error", "  chart-single-value  2 warnings", "by file:",
                       "  content/guides/decode.md  1 error, 2 warnings"))),
    # --- the file itself -------------------------------------------------------------------
    ("empty-file", "", report(at(1, 1, "error: empty file [front-matter]",
                                 "start the file with a line `---`, the YAML front matter, and another line `---`"))),
    ("blank-file", "\n  \n\n", report(at(1, 1, "error: empty file [front-matter]",
                                         "start the file with a line `---`, the YAML front matter, and another "
                                         "line `---`"))),
]


@pytest.mark.parametrize("article, expected", [c[1:] for c in CHECK_CASES], ids=[c[0] for c in CHECK_CASES])
def test_check_reports_the_defect_exactly(tmp_path: Path, article: str, expected: str) -> None:
    root = write_site(tmp_path, {"guides/decode.md": article})
    result = run(root, "check")
    assert result.stderr == expected
    assert result.exit_code == 1
    assert not (root / "_site").exists() and not (root / "exports").exists()


CHECK_CASES_BY_NAME = {name: expected for name, _, expected in CHECK_CASES}
BUILD_SAMPLE = ("yaml-colon-in-value", "front-unknown-key", "json-duplicate-key", "concurrency-wrong-type",
                "evidence-url-not-in-sources", "broken-internal-link", "javascript-link", "empty-file",
                "chart-without-export")


@pytest.mark.parametrize("article, expected", [c[1:] for c in CHECK_CASES if c[0] in BUILD_SAMPLE],
                         ids=[c[0] for c in CHECK_CASES if c[0] in BUILD_SAMPLE])
def test_build_reports_the_same_and_writes_nothing(tmp_path: Path, article: str, expected: str) -> None:
    root = write_site(tmp_path, {"guides/decode.md": article})
    result = run(root, "build")
    assert result.stderr == expected + "build failed: nothing was written\n"
    assert result.exit_code == 1
    assert sorted(p.name for p in root.iterdir()) == ["content", "site.toml"]


# --- bytes that are not plain UTF-8 LF text ----------------------------------------------

def test_non_utf8_byte_is_located_in_characters(tmp_path: Path) -> None:
    text = edit(PARAGRAPH, "Décodé on one machine \udcff here.").encode("utf-8", "surrogateescape")
    root = write_site(tmp_path, {"guides/decode.md": text})
    result = run(root)
    assert result.stderr == report(at(12, 23, "error: not UTF-8: byte 0xff cannot be decoded [encoding]",
                                      "save the file as UTF-8"))
    assert result.exit_code == 1


def test_latin1_file_is_refused_at_its_first_bad_byte(tmp_path: Path) -> None:
    text = edit('title: "Decode rate on one Spark"', 'title: "Débit de décodage"').encode("latin-1")
    result = run(write_site(tmp_path, {"guides/decode.md": text}))
    assert result.stderr == report(at(2, 10, "error: not UTF-8: byte 0xe9 cannot be decoded [encoding]",
                                      "save the file as UTF-8"))
    assert result.exit_code == 1


@pytest.mark.parametrize("encode", [
    pytest.param(lambda t: t.replace("\n", "\r\n").encode(), id="crlf"),
    pytest.param(lambda t: b"\xef\xbb\xbf" + t.encode(), id="bom"),
    pytest.param(lambda t: b"\xef\xbb\xbf" + t.replace("\n", "\r\n").encode(), id="bom-crlf"),
])
def test_crlf_and_bom_build_and_keep_positions(tmp_path: Path, encode: object) -> None:
    assert callable(encode)
    good = write_site(tmp_path / "good", {"guides/decode.md": encode(ARTICLE)})
    built = run(good, "build")
    assert built.exit_code == 0, built.stderr
    page = json.loads((good / "_site/guides/decode/index.json").read_bytes())
    assert page["reported_results"][0]["value"] == 42.5
    bad = write_site(tmp_path / "bad", {"guides/decode.md": encode(edit('"concurrency": 1', '"concurrency": "one"'))})
    assert run(bad).stderr == CHECK_CASES_BY_NAME["concurrency-wrong-type"]


# --- file names and symlinks ----------------------------------------------------------------

@pytest.mark.parametrize("rel, expected", [
    ("guides/Decode.md", ("content/guides/Decode.md: error: 'Decode' is not a slug [slug]\n"
                         "  hint: use lowercase letters, digits and hyphens, e.g. 'decode'")),
    ("guides/decode rate.md", ("content/guides/decode rate.md: error: 'decode rate' is not a slug [slug]\n"
                              "  hint: use lowercase letters, digits and hyphens, e.g. 'decode-rate'")),
    ("Guides/decode.md", ("content/Guides/decode.md: error: 'Guides' is not a slug [slug]\n"
                         "  hint: use lowercase letters, digits and hyphens, e.g. 'guides'")),
    ("guides/..decode.md", ("content/guides/..decode.md: error: '..decode' is not a slug [slug]\n"
                           "  hint: use lowercase letters, digits and hyphens, e.g. 'decode'")),
    ("guides/decode_rate.md", ("content/guides/decode_rate.md: error: 'decode_rate' is not a slug [slug]\n"
                              "  hint: use lowercase letters, digits and hyphens, e.g. 'decode-rate'")),
])
def test_file_names_must_be_slugs(tmp_path: Path, rel: str, expected: str) -> None:
    result = run(write_site(tmp_path, {rel: ARTICLE}))
    assert result.stderr == report(expected)
    assert result.exit_code == 1


def test_two_files_for_one_url_is_an_error(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE, "guides/decode/index.md": ARTICLE})
    result = run(root)
    assert result.stderr == report("content/guides/decode/index.md: error: /guides/decode/ is already the URL of "
                                   "content/guides/decode.md [path]\n  hint: rename or remove one of the two files")
    assert result.exit_code == 1


def test_symlink_leaving_content_is_refused(tmp_path: Path) -> None:
    root = write_site(tmp_path / "site", {"guides/decode.md": ARTICLE})
    outside = tmp_path / "elsewhere.md"
    outside.write_text(ARTICLE, encoding="utf-8")
    os.symlink(outside, root / "content/guides/linked.md")
    os.symlink(tmp_path, root / "content/guides/folder")
    result = run(root)
    hint = "copy the file into content/ instead of linking to it"
    assert result.stderr == report(f"content/guides/folder: error: symlink points outside content/, to {tmp_path} "
                                   f"[path]\n  hint: {hint}",
                                   f"content/guides/linked.md: error: symlink points outside content/, to {outside} "
                                   f"[path]\n  hint: {hint}", errors=2,
                                   breakdown=("by rule:", "  path  2 errors", "by file:",
                                              "  content/guides/folder     1 error",
                                              "  content/guides/linked.md  1 error"))
    assert result.exit_code == 1


@pytest.mark.parametrize("folder", ["content", "static"])
def test_a_content_or_static_folder_linked_outside_the_site_is_refused(tmp_path: Path, folder: str) -> None:
    """``ln -s /outside static`` published id_rsa, and a linked content/ was read, by build, check and
    serve alike (issue 25): the folder itself must resolve inside the site root."""
    root = write_site(tmp_path / "site", {"guides/decode.md": ARTICLE})
    outside = tmp_path / "outside"
    (root / folder).rename(outside) if folder == "content" else outside.mkdir()
    (outside / "id_rsa").write_text("secret", encoding="utf-8")
    (root / folder).symlink_to(outside)
    expected = report(f"{folder}: error: {folder}/ is a symlink to {outside}, outside the site root [path]\n"
                      f"  hint: move the folder into the site, or link {folder} to a folder inside it")
    for command in ("check", "build"):
        result = run(root, command)
        assert (result.exit_code, without_progress(result.stderr)) == (1, expected + ("build failed: nothing was "
                                                                                     "written\n" if command == "build"
                                                                                     else ""))
    files, problems = site_files(BuildOptions(root=root, jobs=1))
    assert files is None and [p.format() for p in problems] == [expected.split("\n1 error")[0]]
    assert not (root / "_site").exists()


def test_content_and_static_folders_linked_inside_the_site_keep_working(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    (root / "src").mkdir()
    (root / "content").rename(root / "src/content")
    (root / "content").symlink_to("src/content")
    (root / "src/static").mkdir()
    (root / "src/static/CNAME").write_text("evidence.example.org\n", encoding="utf-8")
    (root / "static").symlink_to(root / "src/static")
    assert run(root, "build").exit_code == 0
    assert (root / "_site/CNAME").read_text() == "evidence.example.org\n"
    assert (root / "_site/guides/decode/index.html").is_file()


def test_broken_symlink_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    os.symlink(root / "content/guides/missing.md", root / "content/guides/gone.md")
    result = run(root)
    assert result.stderr == report("content/guides/gone.md: error: broken symlink: its target does not exist [path]\n"
                                   "  hint: remove the link, or point it at a file inside content/")


# --- warnings: the build succeeds and reports them ------------------------------------------

SOURCE_TWO = "  - publisher: {publisher}\n    url: \"{url}\"\n    revision: {revision}\n    sha256: \"{sha}\"\n"


def with_source(url: str, revision: str, publisher: str = "second") -> str:
    entry = SOURCE_TWO.format(publisher=publisher, url=url, revision=revision, sha="ab" * 32)
    return edit("---\n\nOne", entry + "---\n\nOne")


WARNING_CASES: list[tuple[str, str, str]] = [
    ("unpinned-source", with_source("https://forum.example.org/t/spark-decode/123", '"3"'),
     at(12, 5, "warning: sources[1].revision: unpinned source: revision '3' is not a commit in its URL [unpinned]",
        "link a URL that contains the commit, or record a snapshot-YYYY-MM-DD revision")),
    ("commit-not-in-url", with_source("https://github.com/example/bench/blob/main/NOTES.md", '"89abcdef"'),
     at(12, 5, "warning: sources[1].revision: unpinned source: revision '89abcdef' is not a commit in its URL "
               "[unpinned]", "link a URL that contains the commit, or record a snapshot-YYYY-MM-DD revision")),
    ("snapshot-source", with_source("https://www.example.org/articles/some-report", "snapshot-2026-10-18"),
     at(12, 5, "warning: sources[1].revision: mutable URL, pinned only by its snapshot hash [unpinned]",
        "prefer a permanent URL that contains a commit when one exists")),
    ("same-url-twice", with_source(URL + "#top", f'"{REV}"'),
     at(11, 5, "warning: sources[1].url: the same URL is listed as sources[0] [duplicate-source]",
        "list each source document once")),
    ("same-url-percent-encoded", with_source(URL.replace("README", "READ%4DE"), f'"{REV}"'),
     at(11, 5, "warning: sources[1].url: the same URL is listed as sources[0] [duplicate-source]",
        "list each source document once")),
    ("recommended-condition-absent", edit('"cache_state": null, ', ""),
     at(37, 7, "warning: reported_results[0].conditions: recommended condition absent: cache_state [recommended]",
        "write null for a condition the source does not report")),
    ("recommended-conditions-absent", edit('"cache_state": null, "repetitions": 1, ', ""),
     at(37, 7, "warning: reported_results[0].conditions: recommended conditions absent: cache_state, repetitions "
               "[recommended]", "write null for a condition the source does not report")),
    ("checked-before-experiment", edit('"experiment_date": "2026-10-01"',
                                       '"experiment_date": "reference 2026-10-01; candidate filed 2026-10-20"'),
     at(39, 9, "warning: reported_results[0].conditions.experiment_date: experiment_date 2026-10-20 is after the "
               "checked date 2026-10-18 [checked]",
        "update `checked` in the front matter after checking the source again")),
    ("condition-key-misspelled", edit('"kv_dtype": null', '"kv_dtpye": null'),
     at(43, 9, "warning: reported_results[0].conditions.kv_dtpye: unknown condition key 'kv_dtpye': did you mean "
               "'kv_dtype'? [condition-key]", "rename the key to 'kv_dtype'")),
    ("condition-key-in-another-case", edit('"kv_dtype": null', '"KV_dtype": null'),
     at(43, 9, "warning: reported_results[0].conditions.KV_dtype: condition key 'KV_dtype' differs only in case from "
               "'kv_dtype' [condition-key]", "rename the key to 'kv_dtype' (keys are case-sensitive)")),
    ("page-condition-key-misspelled", edit('"conditions": {}\n}', '"conditions": {"cross_source_ranking_alowed": true}\n}'),
     at(53, 18, "warning: conditions.cross_source_ranking_alowed: unknown condition key 'cross_source_ranking_alowed': "
                "did you mean 'cross_source_ranking_allowed'? [condition-key]",
        "rename the key to 'cross_source_ranking_allowed'")),
    ("unknown-unit", edit('"unit": "tokens/s"', '"unit": "tps"'),
     at(34, 7, "warning: reported_results[0].unit: unit 'tps' is not in the unit vocabulary [unit]",
        "use a unit of schema/units.json, or add this one there")),
]


@pytest.mark.parametrize("article, expected", [c[1:] for c in WARNING_CASES], ids=[c[0] for c in WARNING_CASES])
def test_warning_is_reported_and_the_build_succeeds(tmp_path: Path, article: str, expected: str) -> None:
    root = write_site(tmp_path, {"guides/decode.md": article})
    result = run(root, "build")
    assert result.exit_code == 0
    assert result.stderr.startswith(report(expected, errors=0, warnings=1))
    assert BUILT.fullmatch(result.stderr[len(report(expected, errors=0, warnings=1)):])
    assert (root / "_site/guides/decode/index.html").is_file()
    assert run(root, "check").exit_code == 0


def test_strict_turns_a_warning_into_an_error(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": edit('"unit": "tokens/s"', '"unit": "tps"')})
    result = run(root, "build", "--strict")
    assert result.stderr == report(at(34, 7, "error: reported_results[0].unit: unit 'tps' is not in the unit "
                                             "vocabulary [unit]", "use a unit of schema/units.json, or add this "
                                                                  "one there")) + "build failed: nothing was written\n"
    assert result.exit_code == 1
    assert not (root / "_site").exists()
    assert run(root, "build").exit_code == 0
    assert run(root, "check", "--strict").exit_code == 1
    assert run(root, "check").exit_code == 0


def test_plus_and_percent_2b_are_the_same_url(tmp_path: Path) -> None:
    source = f"https://github.com/weklund/bench/blob/{REV}/Apple_M4_Pro_10P%2B4E%2B20GPU/REPORT.md"
    cited = source.replace("%2B", "+") + "#L40"
    article = edit(f'url: "{URL}"', f'url: "{source}"')
    article = edit(f'"evidence_url": "{URL}#L10"', f'"evidence_url": "{cited}"', article)
    article = edit(f'"evidence_url": "{URL}#L3"', f'"evidence_url": "{source}#L3"', article)
    root = write_site(tmp_path, {"guides/decode.md": article})
    result = run(root, "build")
    assert result.exit_code == 0 and BUILT.fullmatch(result.stderr), result.stderr


# --- site.toml ---------------------------------------------------------------------------------

def toml_line(key: str, toml: str | None = None) -> int:
    """The line of site.toml on which ``key`` is set (the template may change; the cases follow it)."""
    lines = (toml or site_toml()).split("\n")
    return next(n for n, line in enumerate(lines, start=1) if line.startswith(key))


TOML = site_toml()
KNOWN_TOML = "known keys: title, description, base_url, language, footer, license, citation, output, sources, sections"
TOML_CASES: list[tuple[str, str, str]] = [
    ("unknown-key", edit('language = "en"', 'language = "en"\nlanguge = "de"', TOML),
     (f"site.toml:{toml_line('language') + 1}:1: error: languge: unknown site.toml key 'languge' [config]\n"
     f"  hint: {KNOWN_TOML}")),
    ("unknown-table", TOML + '\n[params]\ncolour = "red"\n',
     (f"site.toml:{TOML.count(chr(10)) + 2}:2: error: params: unknown site.toml key 'params' [config]\n"
     f"  hint: {KNOWN_TOML}")),
    ("unknown-section-key", TOML + 'colour = "red"\n',
     (f"site.toml:{TOML.count(chr(10)) + 1}:1: error: sections[{TOML.count('[[sections]]') - 1}].colour: unknown key "
     "in a section 'colour' [config]\n  hint: a section has id, title and description")),
    ("wrong-type", edit('language = "en"', "language = 5", TOML),
     f'site.toml:{toml_line("language")}:1: error: language: expected a language tag such as "en", got 5 [config]'),
    ("invalid-toml", edit('language = "en"', "language = en", TOML),
     (f"site.toml:{toml_line('language')}:12: error: invalid TOML: Invalid value [config]\n"
     '  hint: write `key = value`; strings need double quotes, e.g. language = "en"')),
    ("missing-title", edit(TOML.split("\n")[toml_line("title") - 1] + "\n", "", TOML),
     ("site.toml: error: title: missing required key 'title' [config]\n"
     "  hint: site.toml needs title, base_url, language and footer")),
    ("output-escapes-root", edit('output = "_site"', 'output = "../public"', TOML),
     (f"site.toml:{toml_line('output')}:1: error: output: expected a folder inside the site root (no leading /, "
     'no . or ..), got "../public" [config]\n  hint: e.g. output = "_site"')),
    ("output-is-the-root", edit('output = "_site"', 'output = "."', TOML),
     (f"site.toml:{toml_line('output')}:1: error: output: expected a folder inside the site root (no leading /, "
     'no . or ..), got "." [config]\n  hint: e.g. output = "_site"')),
    ("output-replaces-content", edit('output = "_site"', 'output = "content"', TOML),
     (f"site.toml:{toml_line('output')}:1: error: output: output folder 'content' would replace the site's own "
     'content/ [config]\n  hint: use a folder of its own, e.g. output = "_site"')),
]


@pytest.mark.parametrize("toml, expected", [c[1:] for c in TOML_CASES], ids=[c[0] for c in TOML_CASES])
def test_site_toml_is_validated_with_positions(tmp_path: Path, toml: str, expected: str) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE}, toml)
    for command in ("check", "build"):
        result = run(root, command)
        assert result.stderr.startswith(report(expected)), result.stderr
        assert result.exit_code == 1
    assert sorted(p.name for p in root.iterdir()) == ["content", "site.toml"]


def test_site_toml_not_utf8(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    (root / "site.toml").write_bytes(TOML.encode() + "# café \xff\n".encode("latin-1"))
    result = run(root)
    line = TOML.count("\n") + 1
    assert result.stderr == report(f"site.toml:{line}:6: error: not UTF-8: byte 0xe9 cannot be decoded [encoding]\n"
                                   "  hint: save site.toml as UTF-8")


@pytest.mark.parametrize("command", ["check", "build"])
def test_missing_site_toml_is_a_usage_error(tmp_path: Path, command: str) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    (root / "site.toml").unlink()
    result = run(root, command)
    assert result.exit_code == 2
    assert result.stderr == report("site.toml: error: site.toml not found [config]\n"
                                   "  hint: run evidencepress from the site root, pass --root DIR, or start a site here with "
                                   "`evidencepress init`")


# --- HTML in titles and labels ---------------------------------------------------------------

def test_html_in_titles_and_labels_is_escaped(tmp_path: Path) -> None:
    article = edit('title: "Decode rate on one Spark"', "title: \"<script>alert('t')</script> & <b>bold</b>\"")
    article = edit('"label": "Decode at concurrency 1"', '"label": "<img src=x onerror=alert(2)>"', article)
    article = edit('"system": "1 x DGX Spark"', '"system": "<iframe src=javascript:alert(3)>"', article)
    article = edit(PARAGRAPH, "Raw <script>alert(4)</script> and <a href=\"javascript:x\">a</a> in the body.", article)
    root = write_site(tmp_path, {"guides/decode.md": article})
    result = run(root, "build")
    assert result.exit_code == 0, result.stderr
    for page in ("guides/decode/index.html", "index.html", "guides/index.html"):
        html = (root / "_site" / page).read_text(encoding="utf-8")
        assert "<script>alert" not in html and "<b>bold" not in html, page
        assert "<img src=x" not in html and "<iframe" not in html and 'href="javascript:' not in html, page
        assert "&lt;script&gt;alert" in html, page
    data = json.loads((root / "_site/guides/decode/index.json").read_bytes())
    assert data["page"]["title"] == "<script>alert('t')</script> & <b>bold</b>"
    assert data["reported_results"][0]["label"] == "<img src=x onerror=alert(2)>"


def test_yaml_values_that_look_like_dates_stay_text(tmp_path: Path) -> None:
    article = edit('title: "Decode rate on one Spark"', "title: 2026-10-18")
    article = edit("publisher: example", "publisher: 2026-01-01", article)
    root = write_site(tmp_path, {"guides/decode.md": article})
    result = run(root, "build")
    assert result.exit_code == 0, result.stderr
    page = json.loads((root / "_site/guides/decode/index.json").read_bytes())["page"]
    assert page["title"] == "2026-10-18"
    assert page["sources"][0]["publisher"] == "2026-01-01"


# --- size ------------------------------------------------------------------------------------

def big_article(megabytes: float) -> str:
    export = json.loads(ARTICLE[ARTICLE.index(EXPORT_OPEN) + len(EXPORT_OPEN):ARTICLE.rindex("```")])
    template = export["reported_results"][0]
    size = len(json.dumps(template, indent=2))
    results = []
    for index in range(int(megabytes * 1e6 / size) + 1):
        entry = copy.deepcopy(template)
        entry["label"] = f"Decode run {index}"
        entry["value"] = 40 + index % 97 / 10
        entry["conditions"]["input_tokens"] = 128 + index
        results.append(entry)
    export["reported_results"] = results
    return ARTICLE[:ARTICLE.index(EXPORT_OPEN)] + EXPORT_OPEN + json.dumps(export, indent=2) + "\n```\n"


def test_a_10_mb_export_builds_and_checks(tmp_path: Path) -> None:
    article = big_article(10)
    assert len(article) > 10_000_000
    root = write_site(tmp_path, {"guides/decode.md": article})
    built = run(root, "build")  # its time is measured by `make bench`, not asserted here
    assert built.exit_code == 0 and BUILT.fullmatch(without_progress(built.stderr)), built.stderr
    checked = run(root, "check")
    assert checked.exit_code == 0 and without_progress(checked.stderr) == ""


def test_a_10_mb_export_with_a_defect_near_its_end(tmp_path: Path) -> None:
    article = big_article(10)
    last = article.rindex('"concurrency": 1')
    line = article.count("\n", 0, last) + 1
    article = article[:last] + '"concurrency": "one"' + article[last + len('"concurrency": 1'):]
    root = write_site(tmp_path, {"guides/decode.md": article})
    result = run(root)
    assert without_progress(result.stderr).startswith(f"{FILE}:{line}:9: error: reported_results[")
    assert result.stderr.endswith("got \"one\" [schema]\n  hint: write null when the source does not report "
                                  "concurrency\n1 error, 0 warnings\n")


# --- reporting: all problems, sorted, counted; JSON output -------------------------------

def several_files(root: Path) -> Path:
    return write_site(root, {
        "guides/b-second.md": edit('"value": 42.5', '"value": NaN'),
        "guides/a-first.md": edit('"unit": "tokens/s"', '"unit": "tps"',
                                  edit('"concurrency": 1', '"concurrency": "one"',
                                       edit(PARAGRAPH, "See [nowhere](/guides/nowhere/)."))),
        "guides/c-third.md": "",
        "guides/d-fourth.md": edit("README.md#L10", "docs/other.md#L10"),
    })


def test_all_problems_of_all_files_in_one_run_sorted_and_counted(tmp_path: Path) -> None:
    result = run(several_files(tmp_path))
    lines = [line for line in result.stderr.splitlines() if not line.startswith("  hint: ")]
    assert lines == [
        ("content/guides/a-first.md:34:7: warning: reported_results[0].unit: unit 'tps' is not in the unit "
        "vocabulary [unit]"),
        ('content/guides/a-first.md:40:9: error: reported_results[0].conditions.concurrency: expected integer >= 1 '
        'or null, got "one" [schema]'),
        "content/guides/b-second.md:33:16: error: reported_results[0].value: NaN is not a JSON number [json-number]",
        "content/guides/c-third.md:1:1: error: empty file [front-matter]",
        (f"content/guides/d-fourth.md:48:7: error: reported_results[0].evidence_url: {OTHER_URL}#L10 is not in a "
        "document listed in `sources` [evidence-url]"),
        "by rule:",
        "  evidence-url  1 error",
        "  front-matter  1 error",
        "  json-number   1 error",
        "  schema        1 error",
        "  unit          1 warning",
        "by file:",
        "  content/guides/a-first.md   1 error, 1 warning",
        "  content/guides/b-second.md  1 error",
        "  content/guides/c-third.md   1 error",
        "  content/guides/d-fourth.md  1 error",
        "4 errors, 1 warning",
    ]
    assert result.exit_code == 1


def test_links_are_checked_once_every_page_is_valid(tmp_path: Path) -> None:
    root = write_site(tmp_path, {
        "guides/a-first.md": edit(PARAGRAPH, "See [nowhere](/guides/nowhere/) and [b](/guides/b-second/)."),
        "guides/b-second.md": edit(PARAGRAPH, "Back to [a](/guides/a-first/#what-was-measured)."),
    })
    result = run(root)
    assert result.stderr == report("content/guides/a-first.md:12:15: error: broken internal link /guides/nowhere/: "
                                   f"no page or file at /guides/nowhere/ [link]\n  hint: {LINK_HINT}")


def test_anchors_into_other_pages_are_checked(tmp_path: Path) -> None:
    root = write_site(tmp_path, {
        "guides/a-first.md": edit(PARAGRAPH, "See [b](/guides/b-second/#what-was-measurd), [b too](../b-second/#fn1) "
                                             "and [its JSON](/guides/b-second/index.json#anything)."),
        "guides/b-second.md": edit(PARAGRAPH, "Back to [a](../a-first/index.html#what-was-measured) and "
                                              "[its sources](/guides/a-first/#original-sources-and-conditions)."),
    })
    result = run(root)
    assert result.stderr == report(
        "content/guides/a-first.md:12:9: error: broken anchor #what-was-measurd: /guides/b-second/ has no heading or "
        "footnote with that id [link-anchor]\n  hint: did you mean #what-was-measured?",
        "content/guides/a-first.md:12:54: error: broken anchor #fn1: /guides/b-second/ has no heading or footnote "
        "with that id [link-anchor]\n  hint: an anchor is a heading's id; the headings of /guides/b-second/ are "
        "#what-was-measured", errors=2)


def test_footnote_and_chart_anchors_resolve(tmp_path: Path) -> None:
    text = edit(PARAGRAPH, "A claim[^1], see [the note](#fn1), [the claim](#fnref1) and [the chart](#chart-decode).",
                edit("The export below holds the value and its conditions.\n", CHART + "\n[^1]: The note.\n"))
    result = run(write_site(tmp_path, {"guides/decode.md": text}), "build")
    assert result.exit_code == 0 and "[link" not in result.stderr, result.stderr


def test_a_draft_is_a_note_and_a_link_to_it_says_why_it_is_missing(tmp_path: Path) -> None:
    root = write_site(tmp_path, {
        "guides/decode.md": edit(PARAGRAPH, "See [the draft](/guides/later/)."),
        "guides/later.md": edit("checked: 2026-10-18", "checked: 2026-10-18\ndraft: true"),
    })
    result = run(root)
    assert result.stderr == (
        "content/guides/decode.md:12:17: error: broken internal link /guides/later/: no page or file at /guides/later/ "
        "[link]\n  hint: that page is a draft, left out of this build; build with --drafts, or publish it\n"
        "content/guides/later.md:5:1: note: draft: /guides/later/ is a draft, left out of the build [draft]\n"
        "  hint: build with --drafts to include it; remove `draft: true` to publish it\n"
        "by rule:\n  link   1 error\n  draft  1 note\n"
        "by file:\n  content/guides/decode.md  1 error\n  content/guides/later.md   1 note\n"
        "1 error, 0 warnings, 1 note\n")
    (root / "content/guides/decode.md").write_text(ARTICLE, encoding="utf-8")
    for options in ((), ("--strict",)):
        result = run(root, "build", *options)
        assert result.exit_code == 0, result.stderr
        assert result.stderr.startswith(report("content/guides/later.md:5:1: note: draft: /guides/later/ is a draft, "
                                               "left out of the build [draft]\n  hint: build with --drafts to include "
                                               "it; remove `draft: true` to publish it", errors=0)[:-1])
    assert not (root / "_site/guides/later").exists()
    assert run(root, "build", "--drafts").stderr.startswith("built in")
    assert (root / "_site/guides/later/index.html").is_file()


def test_format_json_lists_every_problem_as_data(tmp_path: Path) -> None:
    result = run(several_files(tmp_path), "check", "--format", "json")
    problems = json.loads(result.stdout)
    assert result.exit_code == 1
    assert [(p["file"], p["line"], p["column"], p["severity"], p["rule"]) for p in problems] == [
        ("content/guides/a-first.md", 34, 7, "warning", "unit"),
        ("content/guides/a-first.md", 40, 9, "error", "schema"),
        ("content/guides/b-second.md", 33, 16, "error", "json-number"),
        ("content/guides/c-third.md", 1, 1, "error", "front-matter"),
        ("content/guides/d-fourth.md", 48, 7, "error", "evidence-url"),
    ]
    assert problems[1] == {
        "file": "content/guides/a-first.md", "line": 40, "column": 9, "severity": "error",
        "path": "reported_results[0].conditions.concurrency", "message": 'expected integer >= 1 or null, got "one"',
        "rule": "schema", "hint": "write null when the source does not report concurrency",
    }
    assert all(set(p) == {"file", "line", "column", "severity", "path", "message", "rule", "hint"} for p in problems)


def test_format_json_is_an_empty_array_when_all_is_well(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    built = run(root, "build", "--format", "json")
    assert built.exit_code == 0 and json.loads(built.stdout) == []
    checked = run(root, "check", "--format", "json")
    assert checked.exit_code == 0 and json.loads(checked.stdout) == []


# --- a failed build leaves the previous output untouched ------------------------------------

def test_failed_build_keeps_previous_site_and_exports_byte_for_byte(tmp_path: Path) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE, "guides/other.md": edit("Decode rate", "Other rate")})
    assert run(root, "build").exit_code == 0
    site_before, exports_before = tree(root / "_site"), tree(root / "exports")
    assert "guides/decode/index.json" in site_before and "guides/decode.json" in exports_before
    (root / "content/guides/decode.md").write_text(edit('"concurrency": 1', '"concurrency": "one"'), encoding="utf-8")
    (root / "content/guides/new.md").write_text(ARTICLE, encoding="utf-8")
    result = run(root, "build")
    assert result.exit_code == 1
    assert result.stderr.endswith("build failed: nothing was written\n")
    assert tree(root / "_site") == site_before
    assert tree(root / "exports") == exports_before
    leftovers = [p.name for p in root.iterdir() if re.match(r"\.(_site|exports)\.(new|old)-", p.name)]
    assert leftovers == []


def test_write_failure_leaves_previous_site_and_no_temporary_folder(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})
    assert run(root, "build").exit_code == 0
    site_before, exports_before = tree(root / "_site"), tree(root / "exports")
    (root / "content/guides/new.md").write_text(ARTICLE, encoding="utf-8")
    written: list[str] = []
    original = FolderWriter.write_chunks

    def fail_late(self: FolderWriter, rel: str, chunks: Iterable[bytes]) -> int:
        written.append(rel)
        if len(written) > 5:
            raise OSError(28, "No space left on device")
        return original(self, rel, chunks)

    monkeypatch.setattr(FolderWriter, "write_chunks", fail_late)
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    monkeypatch.undo()
    assert outcome.exit_code != 0 and len(written) > 5
    assert tree(root / "_site") == site_before
    assert tree(root / "exports") == exports_before
    assert [p.name for p in root.iterdir() if ".new-" in p.name or ".old-" in p.name] == []


def test_write_failure_is_reported_without_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_site(tmp_path, {"guides/decode.md": ARTICLE})

    def disk_full(self: FolderWriter, rel: str, chunks: Iterable[bytes]) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(FolderWriter, "write_chunks", disk_full)
    outcome = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1"])
    monkeypatch.undo()
    assert outcome.exit_code == 1
    assert isinstance(outcome.exception, SystemExit)
    assert "No space left on device" in outcome.stderr
