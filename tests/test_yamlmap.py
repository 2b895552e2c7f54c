"""The libyaml fast path of yamlmap gives exactly what the checking loader gives."""

from __future__ import annotations

import re

import pytest
import yaml
from sitekit import REPO

from evidencepress.content import yamlmap

BLOCKS = [
    block
    for path in sorted((REPO / "content").rglob("*.md"))
    for block in [path.read_text().split("---\n")[1]] + re.findall(r"^```chart\n(.*?)^```$", path.read_text(), re.MULTILINE | re.DOTALL)
]


def _slow(text: str) -> tuple[object, object]:
    loader = yamlmap._Loader(text)
    try:
        node = loader.get_single_node()
        return node, loader.construct_document(node)
    finally:
        loader.dispose()


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")
def test_fast_and_checking_loaders_agree_on_every_block_of_the_example_site() -> None:
    assert len(BLOCKS) > 60
    for text in BLOCKS:
        fast = yamlmap._load_fast(text)
        assert fast is not None
        fast_doc, _ = yamlmap._document(text, *fast, "f.md", 1, 0)
        slow_doc, _ = yamlmap._document(text, *_slow(text), "f.md", 1, 0)
        assert fast_doc == slow_doc


@pytest.mark.parametrize("text", [
    "a: &x [1, 2]\nb: *x\n",                       # alias
    "a: " + "[" * 70 + "]" * 70 + "\n",            # deep flow nesting
    "a: b: c\n",                                    # a syntax error
    "checked: 2026-02-30\n",                        # a value PyYAML cannot build
])
def test_unusual_text_goes_to_the_checking_loader(text: str) -> None:
    assert yamlmap._load_fast(text) is None
