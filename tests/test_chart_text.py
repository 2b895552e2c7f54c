"""Inline values in a chart's alt text and caption; numbers copied there are prose numbers (issue 29)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result
from sitekit import article, export, make_site, result

from evidencepress.cli import main

FILE = "content/guides/a.md"


def chart(alt: str, caption: str) -> str:
    return f"""
```chart
id: decode
kind: bar
title: Decode rate
alt: {alt}
caption: {caption}
panels:
  - select:
      where: {{metric: decode_rate}}
    x: label
```
"""


def site(tmp_path: Path, alt: str, caption: str = "One run each.", value: float = 36.6) -> Path:
    runs = export(result("Run A", value), result("Run B", 40.25))
    return make_site(tmp_path, {"guides/a.md": article("A", "Text.\n" + chart(alt, caption), runs)})


def run(root: Path, *arguments: str) -> Result:
    outcome = CliRunner().invoke(main, [arguments[0], "--root", str(root), *arguments[1:]])
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise AssertionError(outcome.output) from outcome.exception
    return outcome


def line_of(root: Path, key: str) -> int:
    lines = (root / FILE).read_text().split("\n")
    return next(number for number, line in enumerate(lines, start=1) if line.startswith(f"{key}:"))


def test_a_reference_in_the_alt_text_and_caption_shows_the_value_and_follows_it(tmp_path: Path) -> None:
    """An alt text that said 36.6 once kept saying it after the value became 38.1."""
    alt = '"Run A decoded at {value}`Run A`, Run B at {value}`Run B; nounit` tokens/s."'
    root = site(tmp_path, alt, '"B is {ratio}`Run B; Run A; digits=2` times A."')
    assert run(root, "build", "--jobs", "1").exit_code == 0
    shown = "Run A decoded at 36.6 tokens/s, Run B at 40.25 tokens/s."
    html = (root / "_site/guides/a/index.html").read_text()
    assert f'alt="{shown}"' in html or shown in html
    assert shown in (root / "_site/guides/a/decode.svg").read_text()
    assert f"![{shown}](decode.svg)" in (root / "_site/guides/a/index.md").read_text()
    assert "B is 1.10 times A." in html
    text = (root / FILE).read_text()
    (root / FILE).write_text(text.replace('"value": 36.6', '"value": 38.1'))
    assert run(root, "build", "--jobs", "1").exit_code == 0
    assert "Run A decoded at 38.1 tokens/s" in (root / "_site/guides/a/decode.svg").read_text()
    assert "{value}`Run A`" in (root / "_site/guides/a/index.md").read_text(), "the spec keeps its references"


def test_a_number_copied_into_the_alt_text_is_a_prose_number(tmp_path: Path) -> None:
    root = site(tmp_path, "Run A decoded at 36.6 tokens/s.")
    outcome = run(root, "build", "--jobs", "1")
    assert outcome.exit_code == 0
    column = len("alt: Run A decoded at ") + 1
    assert outcome.stderr.startswith(
        f"{FILE}:{line_of(root, 'alt')}:{column}: warning: 36.6 is a value of the export; write it as a reference "
        "[prose-number]\n  hint: write {value}`Run A`\n"), outcome.stderr
    assert "[prose-number]" not in run(root, "build", "--jobs", "1", "--no-prose").stderr


def test_a_broken_reference_in_a_caption_is_an_error_at_its_line(tmp_path: Path) -> None:
    root = site(tmp_path, "Two bars.", "From {value}`Run C`.")
    outcome = run(root, "check")
    assert outcome.exit_code == 1
    column = len("caption: From ") + 1
    assert outcome.stderr.startswith(
        f"{FILE}:{line_of(root, 'caption')}:{column}: error: `Run C`: no reported result is labelled 'Run C' "
        "[inline-value]\n  hint: did you mean 'Run B'?\n"), outcome.stderr
