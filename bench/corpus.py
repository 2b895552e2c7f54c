"""Synthetic corpus generator: N articles with exports and charts, for timing."""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHA = "b" * 64
REV = "89abcdef0123456789abcdef0123456789abcdef"
URL = f"https://github.com/example/bench/blob/{REV}/README.md"


def _result(rng: random.Random, article: int, index: int) -> dict[str, object]:
    return {
        "label": f"Cell {index}",
        "metric": "served_rate",
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


def _article(rng: random.Random, number: int, results: int) -> str:
    export = {"facts": [], "reported_results": [_result(rng, number, i) for i in range(results)], "conditions": {}}
    prose = " ".join(["Served rate depends on the conditions written beside it."] * 40)
    chart = (
        "```chart\nid: served\nkind: bar\ntitle: Served rate by cell\n"
        "alt: Served rate of six cells of one synthetic record.\npanels:\n"
        "  - select:\n      labels: [Cell 0, Cell 1, Cell 2, Cell 3, Cell 4, Cell 5]\n```\n"
    )
    return (
        f'---\ntitle: "Synthetic article {number}"\nsummary: "Generated for timing."\nchecked: 2026-10-18\n'
        f'sources:\n  - publisher: example\n    url: "{URL}"\n    revision: "{REV}"\n    sha256: "{SHA}"\n---\n\n'
        f"Intro. {prose}\n\n## Results\n\n{chart}\n## Notes\n\n{prose}\n\n"
        "```json export\n" + json.dumps(export, indent=2) + "\n```\n"
    )


def make_corpus(target: Path, articles: int, results: int, seed: int = 7) -> Path:
    rng = random.Random(seed)
    if target.exists():
        shutil.rmtree(target)
    (target / "content/guides").mkdir(parents=True)
    shutil.copy(REPO / "site.toml", target / "site.toml")
    for number in range(articles):
        (target / f"content/guides/synthetic-{number:04d}.md").write_text(_article(rng, number, results))
    return target


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    print(make_corpus(REPO / "bench/_corpus", count, 20))
