"""Property tests: whatever an editor writes, `check` answers with diagnostics, never a traceback.

A valid small article (with and without a chart) is mutated at random: lines
deleted, duplicated or swapped, characters and unicode inserted, the file
truncated, JSON and YAML values replaced by values of other types, bytes
flipped (NUL, invalid UTF-8), YAML tags and anchors inserted, numbers replaced
by hostile literals (1e400, -0, 2**64, 400 digits, .inf) and values wrapped in
deep nesting. `check` must exit 0 or 1 and every problem it prints must have
the compiler form; `build` must also never raise.
The exact schema check that lets jsonschema skip valid subtrees is compared
with jsonschema itself on the same kind of mutated exports.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, FormatChecker, validators
from sitekit import REV, SHA, SOURCE_URL, result
from test_diagnostics import ARTICLE, CHART, EXPORT_OPEN, REPO, write_site

from evidencepress.cli import main
from evidencepress.schemas.comparability import comparable, comparison_key, unknown_keys
from evidencepress.schemas.load import DEFAULT_FOLDER, ECMA_KEYWORDS, load_schemas, schema_folder

ARTICLE_WITH_CHART = ARTICLE.replace("The export below holds the value and its conditions.\n", CHART)
assert ARTICLE_WITH_CHART != ARTICLE

DIAGNOSTIC = re.compile(r"^(content/\S.*|site\.toml|exports/\S+)(:\d+:\d+)?: (error|warning|note): .+ \[[a-z0-9-]+\]$")
FOLDED = re.compile(r"^\.\.\. \d+ more warnings? \[[a-z0-9-]+\] not listed \(--all-warnings lists them\)$")
SUMMARY_ROW = re.compile(r"^  \S.* +\d+ (errors?|warnings?|notes?)(, \d+ (warnings?|notes?))*$")
COUNT = re.compile(r"^\d+ errors?, \d+ warnings?(, \d+ notes?)?$")
EXAMPLES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                             HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=6,
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, path + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, path + (index,))
    return found


def _replace(document: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    parent = document
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = new
    return document


def _split(text: str) -> tuple[str, str, str]:
    """(before the export, the export JSON, after it) of a base article."""
    start = text.index(EXPORT_OPEN) + len(EXPORT_OPEN)
    end = text.index("\n```\n", start) + 1
    return text[:start], text[start:end], text[end:]


@st.composite
def retyped_export(draw: st.DrawFn, text: str) -> str:
    before, export, after = _split(text)
    document = json.loads(export)
    path = draw(st.sampled_from(_paths(document)))
    document = _replace(document, path, draw(json_values))
    return before + json.dumps(document, indent=draw(st.sampled_from([None, 2]))) + "\n" + after


@st.composite
def retyped_front_matter(draw: st.DrawFn, text: str) -> str:
    _, front, body = text.split("---\n", 2)
    document = yaml.safe_load(front)
    path = draw(st.sampled_from(_paths(document)[1:]))
    document = _replace(document, path, draw(json_values))
    return "---\n" + yaml.safe_dump(document, allow_unicode=True) + "---\n" + body


@st.composite
def retyped_chart(draw: st.DrawFn, text: str) -> str:
    start = text.index("```chart\n") + len("```chart\n")
    end = text.index("```\n", start)
    document = yaml.safe_load(text[start:end])
    path = draw(st.sampled_from(_paths(document)[1:]))
    document = _replace(document, path, draw(json_values))
    return text[:start] + yaml.safe_dump(document, allow_unicode=True) + text[end:]


@st.composite
def line_edit(draw: st.DrawFn, text: str) -> str:
    lines = text.split("\n")
    index = draw(st.integers(0, len(lines) - 1))
    other = draw(st.integers(0, len(lines) - 1))
    kind = draw(st.sampled_from(["delete", "duplicate", "swap"]))
    if kind == "delete":
        del lines[index]
    elif kind == "duplicate":
        lines.insert(index, lines[index])
    else:
        lines[index], lines[other] = lines[other], lines[index]
    return "\n".join(lines)


@st.composite
def character_edit(draw: st.DrawFn, text: str) -> str:
    at = draw(st.integers(0, len(text)))
    kind = draw(st.sampled_from(["insert", "replace", "truncate", "delete"]))
    noise = draw(st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(list('{}[]:,"\\-#`*<>\n\r\t ')),
                         min_size=1, max_size=8))
    if kind == "insert":
        return text[:at] + noise + text[at:]
    if kind == "replace":
        return text[:at] + noise + text[at + len(noise):]
    if kind == "delete":
        return text[:at] + text[at + draw(st.integers(1, 40)):]
    return text[:at]


HOSTILE_NUMBERS = ["1e400", "-1e400", "1.0e+400", "1e-400", "-0", "-0.0", "22.50", "18446744073709551616",
                   "9" * 400, "1e307", "-1.7976931348623157e308", "0.000000000000000000001", "1E2"]
YAML_TAGS = ["!!set {a, b}", "!!binary aGVsbG8=", "!!omap [a: 1]", "!!python/object:os.system x", "!foo bar",
             "!!timestamp 2026-02-30", "&a [1, *a]", "*nothing", ".inf", "-.inf", ".nan", "1.0e+400", "!!float x"]


@st.composite
def hostile_number(draw: st.DrawFn, text: str) -> str:
    """A number of the export (or a chart/front matter scalar) replaced by a hostile literal."""
    spots = [m.span() for m in re.finditer(r"(?<=[:\[, ])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?=[,\]\}\n])", text)]
    if not spots:
        return text
    start, end = draw(st.sampled_from(spots))
    return text[:start] + draw(st.sampled_from(HOSTILE_NUMBERS + YAML_TAGS[-4:])) + text[end:]


@st.composite
def yaml_tag(draw: st.DrawFn, text: str) -> str:
    """A YAML value of the front matter or the chart replaced by a tagged, anchored or special value."""
    spots = [m.span(1) for m in re.finditer(r"^ *[a-z_]+: (.+)$", text, re.MULTILINE) if "```" not in m.group(0)]
    start, end = draw(st.sampled_from(spots))
    return text[:start] + draw(st.sampled_from(YAML_TAGS)) + text[end:]


@st.composite
def deep_nesting(draw: st.DrawFn, text: str) -> str:
    """A value wrapped in many arrays/objects (JSON) or sequences (YAML, on one line or indented)."""
    depth = draw(st.sampled_from([31, 32, 33, 63, 64, 65, 300, 30_000]))
    kind = draw(st.sampled_from(["json-array", "json-object", "yaml-dashes", "yaml-flow", "markdown-quote"]))
    if kind.startswith("json"):
        start = text.index('"value": ') + len('"value": ')
        end = text.index(",", start)
        open_, close = ("[", "]") if kind == "json-array" else ('{"a": ', "}")
        return text[:start] + open_ * depth + text[start:end] + close * depth + text[end:]
    if kind == "markdown-quote":
        return text.replace("## ", "> " * depth + "## ", 1)
    start = text.index("tags:") if "tags:" in text else text.index("summary:")
    line_end = text.index("\n", start)
    value = "- " * depth + "x" if kind == "yaml-dashes" else "[" * depth + "x" + "]" * depth
    return text[:start] + "tags:\n" + value + text[line_end:]


@st.composite
def byte_edit(draw: st.DrawFn, data: bytes) -> bytes:
    at = draw(st.integers(0, len(data)))
    noise = draw(st.sampled_from([b"\x00", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\r", b"\x1b[0m"]))
    return data[:at] + noise + data[at + draw(st.integers(0, 2)):]


@st.composite
def mutated_article(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from([ARTICLE, ARTICLE_WITH_CHART]))
    first = draw(st.sampled_from(["export", "front", "chart", "number", "tag", "nesting", "none"]))
    if first == "export":
        text = draw(retyped_export(text))
    elif first == "front":
        text = draw(retyped_front_matter(text))
    elif first == "chart":
        text = draw(retyped_chart(ARTICLE_WITH_CHART))
    elif first == "number":
        text = draw(hostile_number(text))
    elif first == "tag":
        text = draw(yaml_tag(text))
    elif first == "nesting":
        text = draw(deep_nesting(text))
    for _ in range(draw(st.integers(0 if first != "none" else 1, 3))):
        text = draw(st.one_of(line_edit(text), character_edit(text)))
    return text


def assert_reported(stderr: str) -> None:
    """Every line is a diagnostic, an indented hint, a folded count, the summary by rule and file, or the count."""
    lines = stderr.splitlines()
    assert lines and COUNT.match(lines[-1]), stderr
    summary = lines.index("by rule:") if "by rule:" in lines else len(lines) - 1
    for line in lines[:summary]:
        assert DIAGNOSTIC.match(line) or line.startswith("  hint: ") or FOLDED.match(line), line
    for line in lines[summary:-1]:
        assert line in ("by rule:", "by file:") or SUMMARY_ROW.match(line), line


def _encoded(article: str, as_bytes: str) -> bytes:
    if as_bytes == "utf-8":
        return article.encode("utf-8", "surrogatepass")
    if as_bytes == "crlf":
        return article.replace("\n", "\r\n").encode("utf-8", "surrogatepass")
    return article.encode("latin-1", "replace")


@EXAMPLES
@given(article=mutated_article(), as_bytes=st.sampled_from(["utf-8", "crlf", "latin-1"]), data=st.data())
def test_check_never_raises_on_a_mutated_article(tmp_path: Path, article: str, as_bytes: str,
                                                  data: st.DataObject) -> None:
    encoded = _encoded(article, as_bytes)
    for _ in range(data.draw(st.integers(0, 2))):
        encoded = data.draw(byte_edit(encoded))
    root = write_site(tmp_path, {"guides/decode.md": encoded})
    result = CliRunner().invoke(main, ["check", "--root", str(root)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"traceback:\n{encoded!r}") from result.exception
    assert result.exit_code in (0, 1), result.output
    if result.exit_code == 1:
        assert_reported(result.stderr)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(article=mutated_article().filter(lambda text: "```chart" not in text))
def test_build_never_raises_on_a_mutated_article(tmp_path: Path, article: str) -> None:
    root = write_site(tmp_path, {"guides/decode.md": article.encode("utf-8", "surrogatepass")})
    result = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", "--no-cache", "--force"])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"traceback:\n{article}") from result.exception
    assert result.exit_code in (0, 1), result.output


# --- the quick schema check agrees with jsonschema -------------------------------------------

SCHEMAS = load_schemas(schema_folder(REPO))
EXPORT = SCHEMAS.validator("export.schema.json")
# jsonschema itself, with patterns matched as ECMA 262 does ($ only at the very end), as the quick check does
REFERENCE = validators.extend(Draft202012Validator, ECMA_KEYWORDS)(
    SCHEMAS.documents["export.schema.json"], registry=SCHEMAS.registry, format_checker=FormatChecker())
BASE_EXPORT = json.loads(_split(ARTICLE)[1])


@st.composite
def mutated_export(draw: st.DrawFn) -> Any:
    document = json.loads(json.dumps(BASE_EXPORT))
    for _ in range(draw(st.integers(1, 3))):
        document = _replace(document, draw(st.sampled_from(_paths(document))), draw(json_values))
    return document


def _errors(validator: Any, instance: Any) -> list[tuple[str, str]]:
    return sorted((json.dumps(list(e.absolute_path)), e.message) for e in validator.iter_errors(instance))


@settings(max_examples=150, deadline=None)
@given(instance=mutated_export())
def test_quick_check_and_its_shortcuts_agree_with_jsonschema(instance: Any) -> None:
    assert EXPORT.quick(instance) == REFERENCE.is_valid(instance)
    assert _errors(EXPORT.validator, instance) == _errors(REFERENCE, instance)


@pytest.mark.parametrize("name", sorted(SCHEMAS.validators))
def test_every_published_schema_has_a_quick_check(name: str) -> None:
    assert callable(SCHEMAS.validator(name).quick)


# --- the comparison key says what the comparability contract says (issue 24) -------------------

RULES = load_schemas(DEFAULT_FOLDER).comparability
CONDITION_KEYS = (*RULES.every_key, "model", "system")  # every key condition, and two that are none
METRICS = ("decode_rate", "ttft", "accuracy", "perplexity", "peak_memory", "artifact_size", "a_metric_of_no_family")
# Values that are and are not the same JSON value: 8192 and 8192.0 are, true and 1 are not, 10**30 and
# 10**30 + 1 are not (nor two 400-digit integers one apart), "1" is a string.
SAMPLE_VALUES = (0, 1, 1.0, -0.0, 8192, 8192.0, 8192.5, True, False, "1", "bf16", "fp8", "", 1e21, 10**21,
                 10**30, 10**30 + 1, 10**400, 10**400 + 1, 0.1, [1, "a"], [1.0, "a"], {"a": 1}, {"a": True})
known_values = st.sampled_from(SAMPLE_VALUES) | st.integers(-10**6, 10**6) | st.integers(10**27, 10**40) \
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4)
condition_values = known_values | st.none()


def _same_value(a: Any, b: Any) -> bool:
    """The contract's equality, written out: the same JSON value, numbers by their exact decimal value
    (as JSON writes them), a boolean never a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return Decimal(repr(a) if isinstance(a, float) else int.__repr__(a)) == Decimal(
            repr(b) if isinstance(b, float) else int.__repr__(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _compare_by_hand(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if not isinstance(a["metric"], str) or a["metric"] != b["metric"]:
        return False
    for key in RULES.keys_of(a["metric"]):
        left, right = a["conditions"].get(key), b["conditions"].get(key)
        if left is None or right is None or not _same_value(left, right):  # null and absent: unknown
            return False
    return True


@st.composite
def condition_map(draw: st.DrawFn) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(CONDITION_KEYS), unique=True))
    return {key: draw(condition_values) for key in keys}


def _alike(value: Any) -> Any:
    """The same JSON value written otherwise, where there is another way (8192 -> 8192.0)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if isinstance(value, int) and abs(value) < 2**53:
        return float(value)
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) < 2**53 else value


@st.composite
def result_pair(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two results, the second mostly the first with a few conditions dropped, nulled, rewritten as
    an equal number, made one more or replaced: equal keys are common, not a coincidence."""
    metric = draw(st.sampled_from(METRICS) | st.sampled_from([None, 5]))
    first = {key: draw(known_values if draw(st.integers(0, 9)) > 0 else condition_values)
             for key in RULES.keys_of(metric) if draw(st.integers(0, 19)) > 0}
    first.update(draw(condition_map()) if draw(st.booleans()) else {})
    second = dict(first)
    for key in draw(st.lists(st.sampled_from(RULES.keys_of(metric)) | st.sampled_from(CONDITION_KEYS), max_size=2)):
        change = draw(st.sampled_from(["drop", "null", "alike", "next", "replace"]))
        value = second.get(key, draw(condition_values))
        if change == "drop":
            second.pop(key, None)
        elif change == "null":
            second[key] = None
        elif change == "alike":
            second[key] = _alike(value)
        elif change == "next":  # a number one more: another value, however many digits it has
            second[key] = value + 1 if isinstance(value, int) and not isinstance(value, bool) else value
        else:
            second[key] = draw(condition_values)
    other = draw(st.sampled_from(METRICS)) if draw(st.integers(0, 5)) == 0 else metric
    return {"metric": metric, "conditions": first}, {"metric": other, "conditions": second}


@settings(max_examples=1500, deadline=None)
@given(pair=result_pair())
def test_equal_comparison_keys_are_exactly_comparable_results(pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    a, b = pair
    key_a, key_b = comparison_key(a, RULES), comparison_key(b, RULES)
    by_hand = _compare_by_hand(a, b)
    assert comparable(a, b, RULES) == comparable(b, a, RULES) == by_hand
    assert (key_a == key_b and key_a is not None) == by_hand
    assert (key_a is None) == bool(unknown_keys(a, RULES)) or not isinstance(a["metric"], str)


def test_the_comparison_key_knows_the_examples_of_the_contract() -> None:
    base = {"metric": "decode_rate", "conditions": {key: 1 for key in RULES.keys_of("decode_rate")}}
    def changed(**conditions: Any) -> dict[str, Any]:
        return {"metric": "decode_rate", "conditions": {**base["conditions"], **conditions}}
    assert comparison_key(changed(input_tokens=8192), RULES) == comparison_key(changed(input_tokens=8192.0), RULES)
    assert comparison_key(changed(thinking=True), RULES) != comparison_key(changed(thinking=1), RULES)
    assert comparison_key(changed(input_tokens=10**30), RULES) != comparison_key(changed(input_tokens=10**30 + 1), RULES)
    assert comparison_key(changed(kv_dtype=None), RULES) is None
    assert comparison_key({"metric": "decode_rate", "conditions": {}}, RULES) is None
    assert not comparable(changed(kv_dtype=None), changed(kv_dtype=None), RULES)  # null equals nothing
    assert comparison_key(base, RULES) != comparison_key(dict(base, metric="ttft"), RULES)


# --- any character in any text field: a page or located diagnostics (issue 25) --------------------

HOSTILE_CHARACTERS = st.one_of(
    st.sampled_from(["\ud800", "\udfff", "\ud83d"]),  # lone surrogates
    st.sampled_from([chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]]),
    st.sampled_from([chr(c) for c in range(0xFDD0, 0xFDF0)] + [chr(p * 0x10000 + 0xFFFE + i) for p in range(17)
                                                                for i in (0, 1)]),  # non-characters
    st.sampled_from([chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]]),  # C0 (NUL among them), DEL, C1
    st.sampled_from(["\u0301", "\u0308", "\u20dd", "\u2028", "\u2029", "\ufeff", "\u00ad", "\u200b"]),
    st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF),  # astral, assigned or not
    st.characters(codec="utf-8"),
)
hostile_text = st.text(HOSTILE_CHARACTERS, min_size=0, max_size=6).map(lambda noise: "a" + noise + "b")
TEXT_FIELDS = ("title", "summary", "publisher", "revision", "url", "tag", "body", "label", "unit", "statistic",
               "system", "engine", "free_condition", "fact_label", "fact_value", "uncertainty_kind", "record_id")


def _article_with(fields: dict[str, str], ensure_ascii: bool) -> str:
    """sitekit's article (a chart-free page with one result and one fact) with ``fields`` put in."""
    got = {name: fields.get(name) for name in TEXT_FIELDS}
    entry = result(got["label"] or "Decode at C1", id="run-a", statistic=got["statistic"] or "one run",
                   unit=got["unit"] or "tokens/s", source_record_id=got["record_id"] or "example-record")
    entry["conditions"].update({key: got[key] for key in ("system", "engine") if got[key] is not None})
    if got["free_condition"] is not None:
        entry["conditions"]["launch_note"] = got["free_condition"]
    if got["uncertainty_kind"] is not None:
        entry["uncertainty"] = {"standard_deviation": 1.5, "kind": got["uncertainty_kind"]}
    fact = {"label": got["fact_label"] or "Machine memory", "value": got["fact_value"] or "128 GB",
            "classification": "hardware", "evidence_url": SOURCE_URL + "#L3", "source_document_sha256": SHA}
    source = {"publisher": got["publisher"] or "example", "url": SOURCE_URL + (got["url"] or ""),
              "revision": got["revision"] or REV, "sha256": SHA}
    front = {"title": got["title"] or "A page", "summary": got["summary"] or "What it shows.", "checked": "2026-10-18",
             "tags": [got["tag"] or "spark"], "sources": [source]}
    body = f"Intro.\n\n## Part {got['body'] or ''}\n\n{got['body'] or 'More.'} text.\n"
    document = {"facts": [fact], "reported_results": [entry], "conditions": {}}
    return ("---\n" + yaml.safe_dump(front, allow_unicode=not ensure_ascii, sort_keys=False) + "---\n\n" + body
            + "\n```json export\n" + json.dumps(document, indent=2, ensure_ascii=ensure_ascii) + "\n```\n")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(fields=st.dictionaries(st.sampled_from(TEXT_FIELDS), hostile_text, min_size=1, max_size=4),
       ensure_ascii=st.booleans())
def test_any_character_in_any_text_field_builds_or_is_reported(tmp_path: Path, fields: dict[str, str],
                                                               ensure_ascii: bool) -> None:
    """Lone surrogates, bidi controls, non-characters, C0 and C1 controls, NUL, combining marks and astral
    characters in the front matter, the body, the sources and the export: a page, or diagnostics with their
    place, never a traceback."""
    article = _article_with(fields, ensure_ascii)
    root = write_site(tmp_path, {"guides/decode.md": article.encode("utf-8", "surrogatepass")})
    result_ = CliRunner().invoke(main, ["build", "--root", str(root), "--jobs", "1", "--no-cache", "--force"])
    if result_.exception is not None and not isinstance(result_.exception, SystemExit):
        raise AssertionError(f"traceback:\n{article!r}") from result_.exception
    assert result_.exit_code in (0, 1), result_.output
    if result_.exit_code == 1:
        assert result_.stderr.endswith("\nbuild failed: nothing was written\n"), result_.stderr
        assert_reported(result_.stderr.removesuffix("build failed: nothing was written\n"))
