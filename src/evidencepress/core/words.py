"""How a key of the export is named to a reader: one function for every surface.

Record pages, chart notes, the sources section and the "Data in this article" list all name a
metric or condition key the same way: its schema ``title`` where the schema gives one, else the
key in words with acronyms in capitals (``median_ttft`` -> ``Median TTFT``).
"""

from __future__ import annotations

from collections.abc import Mapping

# Words written in capitals when a key is put in words.
ACRONYMS = frozenset({"ttft", "tpot", "kv", "gpu", "cpu", "rss", "kl", "tp", "ep", "pp", "moe", "mtp", "vq", "tps",
                      "ram", "vram", "nvfp4", "fp8", "bf16", "fp16", "id", "url", "sha256"})


def in_words(key: str) -> str:
    """A metric or condition key as words, acronyms in capitals: ``median_ttft`` -> ``median TTFT``,
    ``kv_dtype`` -> ``KV dtype``, ``GPU_memory`` -> ``GPU memory`` (a key of no words stays itself)."""
    words = [word.upper() if word.lower() in ACRONYMS else word for word in key.replace("_", " ").split()]
    return " ".join(words) or key


def key_name(key: str, titles: Mapping[str, str] | None = None) -> str:
    """A key as a label: its schema ``title`` where ``titles`` has one, else the key in words with a
    capital first letter: ``GPU_memory_utilization`` -> ``GPU memory utilization``, ``kv_dtype`` ->
    ``KV dtype``, ``max_kv_tokens`` -> ``Max KV tokens``."""
    title = (titles or {}).get(key)
    if title:
        return title
    words = in_words(key)
    return words[:1].upper() + words[1:]
