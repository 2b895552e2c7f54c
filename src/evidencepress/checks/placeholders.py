"""The example values ``evidencepress new`` writes into a skeleton: an error once the page is published.

A draft may hold them while it is written; a page without ``draft: true``
that still names the example publisher, the all-zero revision or SHA-256,
the example URL or the example summary would publish a made-up source.
"""

from __future__ import annotations

from ..core.diagnostics import Problem, error
from ..core.model import FrontMatter, JsonPath, Positions, dotted

PUBLISHER = "example-publisher"
REVISION = "0" * 40
SHA256 = "0" * 64
URL = f"https://github.com/{PUBLISHER}/example-benchmark/blob/{REVISION}/README.md"
SUMMARY = "One or two sentences: what the source measured, and what it leaves open."
RULE = "placeholder"
_HINT = "write the source's own (`evidencepress new` wrote an example), or keep `draft: true` until then"


def placeholder_problems(front: FrontMatter, positions: Positions) -> list[Problem]:
    """An error at each example value of a page that is not a draft."""
    if front.draft:
        return []
    found: list[tuple[JsonPath, str]] = []
    if front.summary == SUMMARY:
        found.append((("summary",), "the summary"))
    for index, source in enumerate(front.sources):
        path: JsonPath = ("sources", index)
        found += [(path + ("publisher",), "the publisher")] if source.publisher == PUBLISHER else []
        found += [(path + ("url",), "the URL")] if source.url == URL else []
        found += [(path + ("revision",), "the revision")] if source.revision == REVISION else []
        found += [(path + ("sha256",), "the SHA-256")] if source.sha256 == SHA256 else []
    return [error(positions.of_value(key), f"{what} is still the new-article skeleton's example", RULE,
                  dotted(key), _HINT) for key, what in found]
