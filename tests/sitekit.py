"""Small real sites for tests: write site.toml and articles into a folder."""

from __future__ import annotations

import json
import os
import textwrap
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHA = "a" * 64
REV = "0123456789abcdef0123456789abcdef01234567"
SOURCE_URL = f"https://github.com/example/bench/blob/{REV}/README.md"

# A chart of every result whose metric is decode_rate (see ``result``).
CHART = """
```chart
id: decode
kind: bar
title: Decode rate
alt: Decode rate of two runs.
panels:
  - select:
      where: {metric: decode_rate}
```
"""


SITE_TOML = """\
title = "Test Evidence"
description = "A site built by the tests."
base_url = "https://example.org/sub/"
language = "en"
footer = "AI-assisted writing, sources checked by the site. No independent model tests."

[[sections]]
id = "guides"
title = "Guides"
"""


def result(label: str = "Decode at C1", value: Any = 42.5, **overrides: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "label": label,
        "metric": "decode_rate",
        "value": value,
        "unit": "tokens/s",
        "statistic": "one run",
        "uncertainty": None,
        "conditions": {
            "system": "1 x DGX Spark",
            "experiment_date": "2026-10-01",
            "concurrency": 1,
            "node_count": 1, "model": "m", "model_artifact": None, "model_revision": None, "engine": "vLLM",
            "runtime_execution_revision": None, "weight_precision": "bf16", "kv_dtype": "bf16",
            "input_tokens": 128, "output_tokens": 256, "temperature": 0, "thinking": False,
            "cache_state": None, "repetitions": 1, "context_limit_tokens": None,
        },
        "evidence_state": "source_reported",
        "site_reproduced": False,
        "evidence_url": SOURCE_URL + "#L10",
        "source_document_sha256": SHA,
        "source_record_id": "example-record",
    }
    entry.update(overrides)
    return entry


def export(*results: dict[str, Any], **sections: Any) -> dict[str, Any]:
    document: dict[str, Any] = {"facts": [], "reported_results": list(results), "conditions": {}}
    document.update(sections)
    return document


def article(
    title: str = "A test article",
    body: str = "Some text.\n\n## First part\n\nMore text.\n",
    export_doc: Mapping[str, Any] | None = None,
    extra_front: str = "",
) -> str:
    front = f'title: "{title}"\nsummary: "What the test article shows."\nchecked: 2026-10-18\n' + extra_front
    if export_doc is not None:
        front += f'sources:\n  - publisher: example\n    url: "{SOURCE_URL}"\n    revision: "{REV}"\n    sha256: "{SHA}"\n'
    text = f"---\n{front}---\n\n{textwrap.dedent(body).strip()}\n"
    if export_doc is not None:
        text += "\n```json export\n" + json.dumps(export_doc, indent=2) + "\n```\n"
    return text


def example_site_toml() -> str:
    """The example site's site.toml without its vault setting: a site that has not set verification
    up, whose runs say nothing of documents missing from a vault."""
    text = (REPO / "site.toml").read_text(encoding="utf-8")
    return "\n".join(line for line in text.split("\n") if not line.startswith("sources ="))


def make_site(root: Path, pages: Mapping[str, str], site_toml: str = SITE_TOML) -> Path:
    """Write ``pages`` (path under content/ -> text) and site.toml into ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "site.toml").write_text(site_toml, encoding="utf-8")
    for rel, text in pages.items():
        path = root / "content" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def many_pages(root: Path, count: int) -> Path:
    """A site of ``count`` articles citing 7 records: enough pages to be spread over workers."""
    pages = {f"guides/p{n:03d}.md": article(f"Page {n}", f"Text of page {n}.\n\n## Part\n\nMore.\n",
                                           export(result("Run A", 40 + n + 0.5, source_record_id=f"record-{n % 7}")))
             for n in range(count)}
    return make_site(root, pages)


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def group_members(group: int) -> list[int]:
    """The live processes (not zombies) of a process group, from /proc (Linux)."""
    members = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        if int(fields[2]) == group and fields[0] != "Z":
            members.append(int(name))
    return sorted(members)


def running(pid: int) -> bool:
    """Does the process ``pid`` still exist?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_until(condition: Callable[[], bool], what: str, patience: float = 60.0) -> None:
    """Poll ``condition`` until it holds (a process's state, read from outside it); ``patience``
    seconds without it is a failure, never a result."""
    deadline = time.monotonic() + patience
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)

