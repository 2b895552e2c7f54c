"""The text report of a run: the list, folded warnings, --quiet, the summary by rule and file, progress lines."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sitekit import CHART, article, export, make_site, result

from evidencepress.cli import main
from evidencepress.core import diagnostics
from evidencepress.core import progress as progress_module
from evidencepress.core.diagnostics import (
    Location,
    Problem,
    Severity,
    TextOptions,
    error,
    format_text,
    note,
    warning,
)
from evidencepress.core.progress import Progress

HINT = "write null for a condition the source does not report"


def run(root: Path, *arguments: str) -> Result:
    outcome = CliRunner().invoke(main, [*arguments, "--root", str(root)])
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise AssertionError(outcome.output) from outcome.exception
    return outcome


def results_without_cache_state(count: int) -> list[dict[str, object]]:
    entries = []
    for index in range(count):
        entry = result(f"Run {index}", 40 + index)
        del entry["conditions"]["cache_state"]  # type: ignore[attr-defined]
        entries.append(entry)
    return entries


def five_warnings_and_a_broken_link(root: Path) -> Path:
    body = "See [nowhere](/guides/nowhere/).\n\n## Part\n\nText.\n" + CHART
    return make_site(root, {
        "guides/a.md": article("A", body, export(*results_without_cache_state(5))),
        "guides/b.md": article("B", "Plain.\n\n## Part\n\nText.\n", export(*results_without_cache_state(1))),
    })


def recommended(file: str, line: int, index: int) -> str:
    return (f"content/guides/{file}.md:{line}:7: warning: reported_results[{index}].conditions: recommended condition "
            f"absent: cache_state [recommended]\n  hint: {HINT}")


BROKEN = ("content/guides/a.md:12:15: error: broken internal link /guides/nowhere/: no page or file at "
          "/guides/nowhere/ [link]\n  hint: internal links are site paths such as /guides/llm-speed-metrics/")
SUMMARY = (
    "by rule:\n"
    "  link         1 error\n"
    "  recommended  6 warnings\n"
    "by file:\n"
    "  content/guides/a.md  1 error, 5 warnings\n"
    "  content/guides/b.md  1 warning\n"
    "1 error, 6 warnings\n"
)


def test_warnings_of_a_rule_beyond_the_first_three_are_folded_into_a_count(tmp_path: Path) -> None:
    outcome = run(five_warnings_and_a_broken_link(tmp_path), "check")
    assert outcome.exit_code == 1
    assert outcome.stderr == "\n".join([
        BROKEN,
        recommended("a", 39, 0), recommended("a", 71, 1), recommended("a", 103, 2),
        "... 3 more warnings [recommended] not listed (--all-warnings lists them)",
    ]) + "\n" + SUMMARY


def test_all_warnings_lists_every_warning(tmp_path: Path) -> None:
    outcome = run(five_warnings_and_a_broken_link(tmp_path), "check", "--all-warnings")
    assert outcome.stderr == "\n".join([
        BROKEN,
        recommended("a", 39, 0), recommended("a", 71, 1), recommended("a", 103, 2), recommended("a", 135, 3),
        recommended("a", 167, 4), recommended("b", 29, 0),
    ]) + "\n" + SUMMARY


@pytest.mark.parametrize("command", ["check", "build"])
def test_quiet_lists_errors_and_the_summary_only(tmp_path: Path, command: str) -> None:
    outcome = run(five_warnings_and_a_broken_link(tmp_path), command, "--quiet")
    tail = "build failed: nothing was written\n" if command == "build" else ""
    assert outcome.stderr == BROKEN + "\n" + SUMMARY + tail
    assert outcome.exit_code == 1


def test_quiet_build_without_errors_prints_the_summary(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"guides/b.md": article("B", "Plain.\n", export(*results_without_cache_state(4)))})
    outcome = run(root, "build", "-q", "--jobs", "1")
    assert outcome.exit_code == 0
    assert outcome.stderr.startswith("0 errors, 4 warnings\nbuilt in ")


def test_json_lists_every_problem_unfolded(tmp_path: Path) -> None:
    outcome = run(five_warnings_and_a_broken_link(tmp_path), "check", "--format", "json", "--quiet")
    problems = json.loads(outcome.stdout)
    assert [(p["file"], p["line"], p["rule"]) for p in problems] == [
        ("content/guides/a.md", 12, "link"),
        *[("content/guides/a.md", line, "recommended") for line in (39, 71, 103, 135, 167)],
        ("content/guides/b.md", 29, "recommended"),
    ]
    assert outcome.stderr == ""


# --- the formatter itself -------------------------------------------------------------------------

def test_one_rule_in_one_file_needs_no_summary() -> None:
    where = Location("content/a.md", 3, 1)
    problems = [error(where, "bad", "schema"), error(Location("content/a.md", 4, 1), "worse", "schema")]
    assert format_text(problems) == ("content/a.md:3:1: error: bad [schema]\n"
                                     "content/a.md:4:1: error: worse [schema]\n"
                                     "2 errors, 0 warnings\n")


def test_notes_are_counted_listed_and_hidden_by_quiet() -> None:
    problems = [note(Location("content/d.md", 5, 1), "not built", "draft", "draft", "pass --drafts"),
                warning(Location("content/e.md", 2, 1), "odd", "unit")]
    assert format_text(problems) == (
        "content/d.md:5:1: note: draft: not built [draft]\n  hint: pass --drafts\n"
        "content/e.md:2:1: warning: odd [unit]\n"
        "by rule:\n  unit   1 warning\n  draft  1 note\n"
        "by file:\n  content/d.md  1 note\n  content/e.md  1 warning\n"
        "0 errors, 1 warning, 1 note\n"
    )
    assert format_text(problems, TextOptions(quiet=True)).startswith("by rule:\n")


def test_rules_with_errors_come_first_then_the_most_frequent() -> None:
    at = Location("content/a.md", 1, 1)
    problems = [warning(at, "w", "unit"), warning(at, "w", "unit"), warning(at, "w", "prose-number"),
                error(at, "e", "schema"), warning(at, "w", "prose-number"), warning(at, "w", "prose-number")]
    lines = format_text(problems, TextOptions(all_warnings=True)).splitlines()
    assert lines[lines.index("by rule:") + 1:lines.index("by file:")] == [
        "  schema        1 error", "  prose-number  3 warnings", "  unit          2 warnings"]



def _breakdown_as_it_was(problems: list[Problem]) -> list[str]:
    """The breakdown before it grouped each problem once (rules x problems, files x problems)."""
    rules = {p.rule for p in problems}
    files = {p.location.path for p in problems}
    if len(rules) < 2 and len(files) < 2:
        return []

    def table(rows: list[tuple[str, list[Problem]]]) -> list[str]:
        width = max(len(name) for name, _ in rows)
        counts = [diagnostics._severity_counts(diagnostics._counts(group)).split(" ", 1) for _, group in rows]
        digits = max(len(number) for number, _ in counts)
        return [f"  {name.ljust(width)}  {number.rjust(digits)} {rest}"
                for (name, _), (number, rest) in zip(rows, counts, strict=True)]

    by_rule = sorted(rules, key=lambda r: (-sum(p.is_error for p in problems if p.rule == r),
                                           -sum(p.severity is Severity.WARNING for p in problems if p.rule == r),
                                           -sum(p.rule == r for p in problems), r))
    return (["by rule:"] + table([(r, [p for p in problems if p.rule == r]) for r in by_rule])
            + ["by file:"] + table([(f, [p for p in problems if p.location.path == f]) for f in sorted(files)]))


@pytest.mark.parametrize("seed", range(5))
def test_the_breakdown_of_many_files_and_problems_is_the_one_of_filtering_per_rule_and_file(seed: int) -> None:
    rng = random.Random(seed)
    makers = (error, warning, note)
    rules = ("schema", "unit", "recommended", "prose-number", "link", "a")[:1 + seed]
    problems = [makers[rng.randrange(3)](Location(f"content/guides/p{rng.randrange(1 + 40 * seed)}.md",
                                                  rng.randrange(1, 90), 1), "m", rng.choice(rules))
                for _ in range(2000)]
    lines = format_text(problems, TextOptions(quiet=True)).splitlines()[:-1]
    assert lines[lines.index("by rule:") if "by rule:" in lines else len(lines):] == _breakdown_as_it_was(problems)


# --- progress -----------------------------------------------------------------------------------

class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_prints_a_line_per_interval_in_a_log() -> None:
    clock = FakeClock()
    shown: list[str] = []
    progress = Progress(shown.append, terminal=False, interval=5, clock=clock)
    assert progress.due_line() is None  # nothing started yet
    progress.update("checking pages", 3, 22)
    clock.now += 4
    assert progress.due_line() is None
    clock.now += 1.2
    assert progress.due_line() == "progress: checking pages 3/22 (5 s)\n"
    progress.update("drawing charts", 40, 86)
    clock.now += 3
    assert progress.due_line() is None
    clock.now += 2
    assert progress.due_line() == "progress: drawing charts 40/86 (10 s)\n"
    progress.update("writing", 0, 0)
    clock.now += 5
    assert progress.due_line() == "progress: writing (15 s)\n"
    assert shown == []  # lines are printed by the heartbeat thread, which due_line does not start


def test_progress_on_a_terminal_rewrites_one_line_and_clears_it() -> None:
    shown: list[str] = []
    with Progress(shown.append, terminal=True) as progress:
        progress.update("checking pages", 1, 2)
        progress.update("drawing charts", 1, 10)
    assert shown == ["\rchecking pages 1/2", "\rdrawing charts 1/10", "\r" + " " * 19 + "\r"]


def test_a_build_in_a_log_prints_progress_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress_module, "INTERVAL_SECONDS", 0.05)
    monkeypatch.delenv("EVIDENCEPRESS_PROGRESS_INTERVAL", raising=False)
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.\n" + CHART, export(result(), result("B", 3)))})
    outcome = run(root, "build", "--no-cache", "--jobs", "1")
    assert outcome.exit_code == 0
    lines = outcome.stderr.splitlines()
    assert lines[-1].startswith("built in ")
    assert lines[:-1] and all(line.startswith("progress: ") for line in lines[:-1]), lines


def test_the_interval_of_progress_lines_is_set_by_the_environment(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress_module, "INTERVAL_SECONDS", 3600.0)
    monkeypatch.setenv("EVIDENCEPRESS_PROGRESS_INTERVAL", "0.05")
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.\n" + CHART, export(result(), result("B", 3)))})
    outcome = run(root, "build", "--no-cache", "--jobs", "1")
    assert outcome.exit_code == 0
    assert any(line.startswith("progress: ") for line in outcome.stderr.splitlines()), outcome.stderr


@pytest.mark.parametrize("text", ["soon", "0", "-1", "nan", "inf"])
def test_an_interval_that_is_no_positive_number_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 text: str) -> None:
    monkeypatch.setenv("EVIDENCEPRESS_PROGRESS_INTERVAL", text)
    root = make_site(tmp_path, {"guides/a.md": article("A", "Text.\n", export(result()))})
    outcome = run(root, "build", "--no-cache")
    assert outcome.exit_code == 2
    assert f"EVIDENCEPRESS_PROGRESS_INTERVAL must be a positive number of seconds, not {text!r}" in outcome.stderr
