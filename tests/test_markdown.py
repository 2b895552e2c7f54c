"""Autolinks: what linkify-it links, found as quickly on paragraphs that cannot hold one."""

from __future__ import annotations

from evidencepress.content.markdown import tokenize
from evidencepress.output.body import render_tokens


def _html(text: str) -> str:
    return render_tokens(tokenize(text), "/guides/a/", {}, frozenset(), {})


def test_urls_with_a_scheme_or_www_and_emails_are_linked() -> None:
    html = _html("See https://example.org/x, www.example.net and ops@example.com.")
    assert '<a href="https://example.org/x">' in html
    assert '<a href="http://www.example.net">' in html
    assert '<a href="mailto:ops@example.com">' in html


def test_prose_without_a_link_stays_text_and_bare_domains_are_linked_as_before() -> None:
    assert "<a " not in _html("Served rate depends on the conditions written beside it. Done, e.g. 3.5 runs.")
    assert '<a href="http://vllm.ai">' in _html("The project vllm.ai says so.")
