"""schema.org ``Dataset`` JSON-LD for an article with an export (SPEC §10).

Only facts the page itself shows: its title, summary, URL, the site's license
(named in the footer), the two downloads linked from its "Data" section, the
metrics and units listed there, and the checked/updated date in its header.
"""

from __future__ import annotations

from typing import Any

from ..checks.config import SiteConfig
from ..core import jsontext
from ..core.urls import absolute
from ..site.index import Entry


def dataset(entry: Entry, config: SiteConfig) -> dict[str, Any]:
    page = entry.page
    url = absolute(config.base_url, page.url)
    document: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "Dataset",
        "name": page.front.title,
        "description": page.front.summary,
        "url": url,
    }
    if config.license is not None:
        document["license"] = config.license.url
    document["distribution"] = [
        {"@type": "DataDownload", "encodingFormat": "application/json", "contentUrl": url + "index.json"},
        {"@type": "DataDownload", "encodingFormat": "text/csv", "contentUrl": url + "index.csv"},
    ]
    if entry.metrics:
        document["variableMeasured"] = [
            {"@type": "PropertyValue", "name": m.metric, "unitText": m.unit} for m in entry.metrics
        ]
    if page.front.sources:
        document["isBasedOn"] = [source.url for source in page.front.sources]
    document["dateModified"] = (page.front.updated or page.front.checked).isoformat()
    return document


def dataset_jsonld(entry: Entry, config: SiteConfig) -> str:
    """The JSON text for a ``<script type="application/ld+json">``; ``<`` is escaped so
    that no value can close the script element."""
    text = jsontext.dumps(dataset(entry, config), indent=None)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
