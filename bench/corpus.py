"""Synthetic corpus generator: N articles with exports and 0..2 charts, for timing.

``make_corpus`` writes an evidencepress site, with the source document each
article cites in its vault (``sources/``: every value on the line it cites),
so that ``check`` and ``build`` verify every value. ``as_hugo``, ``as_pelican`` and
``as_mkdocs`` write the same Markdown bodies (export and chart fences stay in
as code blocks) in the layout each of those generators expects, so that one
bench run times all four on the same text. ``make_real_corpus`` is the example
site's own articles, records and charts, copied N times (each copy citing
records of its own), for the shape of a real site at scale.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHA = "b" * 64
REV = "89abcdef0123456789abcdef0123456789abcdef"
URL = f"https://github.com/example/bench/blob/{REV}/README.md"
PROSE = " ".join(["Served rate depends on the conditions written beside it."] * 40)
FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)


def _result(rng: random.Random, article: int, index: int) -> dict[str, object]:
    return {
        "label": f"Cell {index}",
        "metric": "served_rate" if index % 2 else "decode_rate",
        "value": round(rng.uniform(5, 120), 3),
        "unit": "tokens/s",
        "statistic": "mean of 3 runs",
        "uncertainty": {"standard_deviation": round(rng.uniform(0.1, 3), 3)} if index % 2 else None,
        "conditions": {
            "system": "2 x DGX Spark", "experiment_date": "2026-10-01", "concurrency": 1 + index % 8,
            "node_count": 2, "model": "model", "model_artifact": None, "model_revision": None, "engine": "SGLang",
            "runtime_execution_revision": None, "weight_precision": "NVFP4", "kv_dtype": None,
            "input_tokens": 1024, "output_tokens": 512, "temperature": 0, "thinking": False, "cache_state": None,
            "repetitions": 3, "context_limit_tokens": None,
        },
        "evidence_state": "source_reported",
        "site_reproduced": False,
        "evidence_url": f"{URL}#L{index + 1}",
        "source_document_sha256": SHA,
        "source_record_id": f"record-{article % 5}",
    }


def _chart(metric: str) -> str:
    """Six cells of one metric: served_rate is every odd cell of the export, decode_rate every even one."""
    labels = ", ".join(f"Cell {i}" for i in range(1 if metric == "served_rate" else 0, 12, 2))
    return (
        f"```chart\nid: {metric.replace('_', '-')}\nkind: bar\ntitle: {metric.replace('_', ' ').capitalize()} by cell\n"
        f"alt: {metric.replace('_', ' ').capitalize()} of six cells of one synthetic record.\npanels:\n"
        f"  - select:\n      where: {{metric: {metric}}}\n      labels: [{labels}]\n```\n"
    )


def _document(results: list[dict[str, object]]) -> bytes:
    """The source an article cites: line n holds the value (and deviation) of its result n - 1."""
    lines = []
    for entry in results:
        spread = entry["uncertainty"]
        deviation = f" ± {json.dumps(spread['standard_deviation'])}" if isinstance(spread, dict) else ""
        lines.append(f"{entry['label']}: {json.dumps(entry['value'])}{deviation} tokens/s, mean of 3 runs.")
    return ("\n".join(lines) + "\n").encode()


def _article(rng: random.Random, number: int, results: int, charts: int) -> tuple[str, bytes]:
    """The article's text and the document it cites."""
    entries = [_result(rng, number, i) for i in range(results)]
    document = _document(entries)
    digest = hashlib.sha256(document).hexdigest()
    for entry in entries:
        entry["source_document_sha256"] = digest
    export = {"facts": [], "reported_results": entries, "conditions": {}}
    drawn = "\n".join(_chart(metric) for metric in ("served_rate", "decode_rate")[:charts])
    return (
        f'---\ntitle: "Synthetic article {number}"\nsummary: "Generated for timing."\nchecked: 2026-10-18\n'
        f'sources:\n  - publisher: example\n    url: "{URL}"\n    revision: "{REV}"\n    sha256: "{SHA}"\n---\n\n'
        f"Intro. {PROSE}\n\n## Results\n\n{drawn}\n## Notes\n\n{PROSE}\n\n"
        "```json export\n" + json.dumps(export, indent=2) + "\n```\n"
    ).replace(SHA, digest), document


def make_corpus(target: Path, articles: int, results: int = 20, charts: int = 1, seed: int = 7) -> Path:
    rng = random.Random(seed)
    if target.exists():
        shutil.rmtree(target)
    (target / "content/guides").mkdir(parents=True)
    (target / "sources").mkdir()
    shutil.copy(REPO / "site.toml", target / "site.toml")
    for number in range(articles):
        text, document = _article(rng, number, results, charts)
        (target / f"content/guides/synthetic-{number:04d}.md").write_text(text)
        (target / "sources" / hashlib.sha256(document).hexdigest()).write_bytes(document)
    return target


RECORD_ID = re.compile(r'("source_record_id": "|source_record_id: |/community/)([a-z0-9-]+)')


def make_real_corpus(target: Path, copies: int = 40) -> Path:
    """The example site (``content/``, ``schema/``, ``templates/``, ``site.toml``) with every article and
    record prose page copied ``copies`` times: copy k's files end in ``-xk`` and cite records ``<id>-xk``
    of their own, so the site has ``copies`` times the articles, the records and the charts."""
    if target.exists():
        shutil.rmtree(target)
    for name in ("content", "schema", "templates", "static"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, target / name)
    shutil.copy(REPO / "site.toml", target / "site.toml")
    originals = sorted(path for path in (target / "content").rglob("*.md") if path.parent != target / "content")
    for copy in range(1, copies):
        for path in originals:
            text = RECORD_ID.sub(rf"\1\2-x{copy}", path.read_text())
            path.with_name(f"{path.stem}-x{copy}.md").write_text(text)
    return target


def _articles(site: Path) -> list[tuple[str, str, str]]:
    """(slug, title, body) of every article of an evidencepress site (record prose pages left out);
    an article in a subfolder gets its path as its slug (``hardware-dgx-spark-checklist``)."""
    found = []
    content = site / "content"
    for path in sorted(content.rglob("*.md")):
        if path.parent == content or path.parent.name == "community":
            continue
        text = path.read_text()
        front = FRONT.match(text)
        assert front is not None
        title = re.search(r'^title: "(.*)"$', front.group(1), re.MULTILINE)
        slug = "-".join(path.relative_to(content).with_suffix("").parts[1:])
        found.append((slug, title.group(1) if title else slug, text[front.end():]))
    return found


HUGO_SINGLE = "<!doctype html><html><head><title>{{ .Title }}</title></head><body><main>{{ .Content }}</main></body></html>\n"
HUGO_LIST = ("<!doctype html><html><head><title>{{ .Title }}</title></head><body><ul>{{ range .Pages }}"
             '<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></body></html>\n')


def as_hugo(site: Path, target: Path, highlight: bool = True, layouts: bool = False) -> Path:
    """The articles as a Hugo site. ``highlight`` False turns Chroma off for fenced code
    (``markup.highlight.codeFences = false``); ``layouts`` adds a minimal single and list layout, so
    that Hugo writes a page per article (without layouts it writes 5 files: feeds and a sitemap)."""
    (target / "content/posts").mkdir(parents=True)
    config = 'baseURL = "https://example.org/"\ntitle = "Bench"\n'
    if not highlight:
        config += "[markup.highlight]\ncodeFences = false\n"
    (target / "hugo.toml").write_text(config)
    if layouts:
        (target / "layouts/_default").mkdir(parents=True)
        (target / "layouts/_default/single.html").write_text(HUGO_SINGLE)
        (target / "layouts/_default/list.html").write_text(HUGO_LIST)
    for slug, title, body in _articles(site):
        (target / f"content/posts/{slug}.md").write_text(f'---\ntitle: "{title}"\ndate: 2026-10-18\n---\n{body}')
    return target


def as_pelican(site: Path, target: Path) -> Path:
    (target / "content").mkdir(parents=True)
    (target / "pelicanconf.py").write_text('AUTHOR = "bench"\nSITENAME = "Bench"\nSITEURL = ""\nPATH = "content"\n'
                                           'TIMEZONE = "UTC"\nDEFAULT_LANG = "en"\nFEED_ALL_ATOM = None\n')
    for slug, title, body in _articles(site):
        (target / f"content/{slug}.md").write_text(f"Title: {title}\nDate: 2026-10-18\nSlug: {slug}\n\n{body}")
    return target


def as_mkdocs(site: Path, target: Path) -> Path:
    (target / "docs").mkdir(parents=True)
    (target / "mkdocs.yml").write_text("site_name: Bench\n")
    (target / "docs/index.md").write_text("# Bench\n")
    for slug, title, body in _articles(site):
        (target / f"docs/{slug}.md").write_text(f"# {title}\n{body}")
    return target


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    print(make_corpus(REPO / "bench/_corpus", count, 20))
