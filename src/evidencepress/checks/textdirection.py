"""Bidirectional controls in the one-line texts a page is listed and cited by (Trojan Source).

An embedding, override or isolate control (U+202A-U+202E, U+2066-U+2069)
reorders the characters shown after it until it is closed, and a title,
summary or source line is shown beside other text: a link in llms.txt and
index.md, an entry of the feed, a row of a listing. A right-to-left override
in a title can make the URL after it read as another. Right-to-left text
itself needs none of them, and the marks U+200E and U+200F reorder nothing,
so they are left alone. A warning, not an error: a title in a script written
right to left may use an isolate on purpose.
"""

from __future__ import annotations

import re
import unicodedata

from ..core.diagnostics import Problem, warning
from ..core.model import FrontMatter, JsonPath, Positions, dotted

_CONTROL = re.compile("[\u202a-\u202e\u2066-\u2069]")
HINT = "delete it: right-to-left text shows in its order without it (the marks U+200E and U+200F are allowed)"


def direction_warnings(front: FrontMatter, positions: Positions) -> list[Problem]:
    """A warning at each one-line text of the front matter that holds a bidirectional control."""
    texts: list[tuple[JsonPath, str]] = [(("title",), front.title), (("summary",), front.summary)]
    for index, source in enumerate(front.sources):
        texts += [(("sources", index, "publisher"), source.publisher), (("sources", index, "revision"), source.revision)]
    problems = []
    for path, text in texts:
        if (found := _CONTROL.search(text)) is not None:
            code = ord(found.group())
            message = (f"a string holds the bidirectional control U+{code:04X} ({unicodedata.name(found.group())}), which "
                       "reorders the text shown after it")
            problems.append(warning(positions.of_value(path), message, "bidi", dotted(path), HINT))
    return problems
