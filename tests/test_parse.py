"""The parse stage leaves the data fences' bodies out of what markdown-it tokenizes: the tokens
must still be those of the whole body, line numbers and fence contents included."""

from __future__ import annotations

import pytest

from evidencepress.content.markdown import tokenize
from evidencepress.content.parse import parse_page
from evidencepress.core.model import SourceFile

EXPORT = '```json export\n{\n  "facts": [],\n  "reported_results": [],\n  "conditions": {}\n}\n```\n'
CHART = "~~~~ chart\ntitle: Decode\nkind: bar\n~~~~~\n"

BODIES = {
    "export, then prose": f"Intro.\n\n{EXPORT}\n## After\n\nA [link](/x/) on a later line.\n",
    "two data fences and a list between": f"{EXPORT}\n- one\n- two\n\n{CHART}\nText *after*.[^n]\n\n[^n]: A note.\n",
    "a fence in a list item is tokenized as written": f"- item\n\n  ```json export\n  {{}}\n  ```\n\n{EXPORT}\nEnd.\n",
    "an unclosed fence": "Before.\n\n```json export\n{\n",
    "a data fence right after a paragraph": f"Para.\n{EXPORT}\nEnd.\n",
    "a table after the export": f"{EXPORT}\n| a | b |\n|---|---|\n| 1 | 2 |\n",
}


def _shape(tokens: object) -> list[tuple[str, list[int] | None, str, list[tuple[str, str]]]]:
    """Each token's type, lines, content and children; a data fence's content is not compared (its
    token holds none when its body was left out: the body is in the page's Fence)."""
    return [(t.type, t.map, "" if t.type == "fence" and t.info.split() in (["json", "export"], ["chart"]) else t.content,
             [(c.type, c.content) for c in (t.children or ())]) for t in tokens]  # type: ignore[attr-defined]


@pytest.mark.parametrize("body", BODIES.values(), ids=BODIES.keys())
def test_tokens_are_those_of_the_whole_body(body: str) -> None:
    text = f"---\ntitle: T\n---\n{body}"
    parsed, _ = parse_page(SourceFile("content/a.md", "a.md", text))
    assert parsed is not None
    assert _shape(parsed.tokens) == _shape(tokenize(body))


def test_fence_positions_are_lines_of_the_file() -> None:
    text = f"---\ntitle: T\n---\nIntro.\n\n{EXPORT}\n{CHART}"
    parsed, _ = parse_page(SourceFile("content/a.md", "a.md", text))
    assert parsed is not None and parsed.export_fence is not None
    assert parsed.export_fence.line == 6  # the opening ``` line of the file
    assert [fence.line for fence in parsed.chart_fences] == [14]
    assert parsed.chart_fences[0].content == "title: Decode\nkind: bar\n"
    assert parsed.export_fence.content == '{\n  "facts": [],\n  "reported_results": [],\n  "conditions": {}\n}\n'
    assert [t.content for t in parsed.tokens if t.type == "fence"] == ["", ""]  # not held twice
