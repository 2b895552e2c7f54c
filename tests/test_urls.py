"""Relative links between site paths: the same text posixpath.relpath gives, whatever the paths."""

from __future__ import annotations

import posixpath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencepress.core.urls import relative

SEGMENTS = st.sampled_from(["guides", "a", "b", "é", "a b", ".", "..", "", "community", "x.json"])
PATHS = st.lists(SEGMENTS, max_size=5).map(lambda parts: "/" + "/".join(parts)) | st.lists(
    SEGMENTS, min_size=1, max_size=4).map("/".join).filter(bool)  # relpath refuses ""


@given(PATHS, PATHS, st.booleans())
def test_a_link_is_what_relpath_makes_of_the_two_paths(target: str, page: str, folder: bool) -> None:
    target = target + "/" if folder and not target.endswith("/") else target
    expected = posixpath.relpath(target, page)
    if target.endswith("/"):
        expected = "./" if expected == "." else expected + "/"
    assert relative(page, target + "#x") == expected + "#x"


@pytest.mark.parametrize(("page", "target", "link"), [
    ("/guides/a/", "/guides/b/#x", "../b/#x"),
    ("/guides/a/", "/guides/a/", "./"),
    ("/guides/a/", "/", "../../"),
    ("/", "/guides/a/index.json", "guides/a/index.json"),
    ("/guides/a/", "/guides/a/../b/", "../b/"),  # normalised by relpath, as before
    ("/guides/a/", "#results", "#results"),
])
def test_links_between_site_paths(page: str, target: str, link: str) -> None:
    assert relative(page, target) == link
