"""Cite this page: an article's citation as text, BibTeX and CSL-JSON, its ``citation_*`` meta
tags, and the site's ``CITATION.cff``.

Every field comes from ``site.toml`` or the page's front matter, and a field the site does not
configure is left out: no author unless ``[[citation.authors]]`` names one, no license unless
``[license]`` does. The one exception is CITATION.cff, whose format requires an author: a site
that names none is its own author there, by its title, as in its Atom feed.

The version a citation names is the page's date: ``updated``, else ``checked`` (the date in its
header, its Dataset's ``dateModified`` and its sitemap ``lastmod``). It is known from the content
alone, so two builds of the same content cite the same version, and no clock or repository state
reaches the output.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import yaml

from ..checks.config import Author, SiteConfig
from ..checks.page import Page
from ..core.urls import absolute
from ..site.index import SiteIndex

CFF_MESSAGE = "If you use this site's articles or data, please cite them using these metadata."


@dataclass(frozen=True)
class PageCitation:
    """What an article's "Cite this page" section and its head show."""

    text: str  # one line of plain text
    bibtex: str  # an @online entry
    csl_json: str  # a CSL-JSON array of one item
    meta: tuple[tuple[str, str], ...]  # (name, content) of each citation_* meta tag, in order


@dataclass(frozen=True)
class _Cited:
    """What every format of an article's citation says."""

    key: str  # the BibTeX and CSL id: the page's path and version, guides-a-test-2026-10-18
    title: str
    authors: tuple[Author, ...]
    site: str
    language: str
    version: dt.date
    note: str  # "sources checked 2026-10-18" when the version is a later update, else ""
    url: str


def cite_page(page: Page, config: SiteConfig) -> PageCitation:
    front = page.front
    version = front.updated or front.checked
    checked = f"{'sources checked' if front.sources else 'checked'} {front.checked.isoformat()}"
    cited = _Cited(key=f"{_key_part(page.url)}-{version.isoformat()}", title=front.title,
                   authors=config.citation.authors, site=config.title, language=config.language, version=version,
                   note=checked if front.checked != version else "", url=absolute(config.base_url, page.url))
    return PageCitation(text=_text(cited), bibtex=_bibtex(cited), csl_json=_csl_json(cited), meta=_meta(cited))


def _key_part(site_path: str) -> str:
    """The page's path as a citation key's letters: ``/guides/a-test/`` -> ``guides-a-test``."""
    return re.sub(r"[^A-Za-z0-9]+", "-", site_path).strip("-") or "page"


def _display_name(author: Author) -> str:
    """``Family, Given`` for a person, the name as written for an organisation."""
    if not author.family:
        return author.name
    return f"{author.family}, {author.given}" if author.given else author.family


def _text(cited: _Cited) -> str:
    parts = [_sentence("; ".join(_display_name(a) for a in cited.authors))] if cited.authors else []
    parts.append(_sentence(cited.title))
    note = f" ({cited.note})" if cited.note else ""
    parts.append(f"{cited.site}, version of {cited.version.isoformat()}{note}.")
    parts.append(cited.url)
    return " ".join(_one_line(part) for part in parts)


def _sentence(words: str) -> str:
    return words if words.endswith((".", "?", "!")) else words + "."


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- BibTeX ------------------------------------------------------------------------------------

# What LaTeX would read as markup in a field's text; braces too, which BibTeX itself counts.
_LATEX = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}


def _latex(text: str) -> str:
    return "".join(_LATEX.get(char, char) for char in _one_line(text))


def _bibtex_name(author: Author) -> str:
    """A name as BibTeX parses it: an organisation in braces (never split into given and family
    names); a part of a person's name in braces when it holds a comma or the word "and"."""
    if not author.family:
        return "{" + _latex(author.name) + "}"
    family, given = (_protected(_latex(part)) for part in (author.family, author.given))
    return f"{family}, {given}" if author.given else family


def _protected(part: str) -> str:
    return "{" + part + "}" if "," in part or re.search(r"\band\b", part, re.IGNORECASE) else part


def _bibtex(cited: _Cited) -> str:
    fields: list[tuple[str, str]] = []
    if cited.authors:
        fields.append(("author", " and ".join(_bibtex_name(a) for a in cited.authors)))
    fields += [("title", "{" + _latex(cited.title) + "}"), ("organization", _latex(cited.site)),
               ("date", cited.version.isoformat()), ("version", cited.version.isoformat()),
               ("url", _bibtex_url(cited.url))]
    if cited.note:
        fields.append(("note", _latex(_capitalized(cited.note))))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@online{{{cited.key},\n{body}\n}}"


def _bibtex_url(url: str) -> str:
    """A URL as the url field takes it (verbatim): only braces and backslashes, which would end or
    escape the field, are percent-encoded (a base_url has no spaces)."""
    return url.replace("\\", "%5C").replace("{", "%7B").replace("}", "%7D")


# --- CSL-JSON and meta tags --------------------------------------------------------------------


def _csl_name(author: Author) -> dict[str, str]:
    if not author.family:
        return {"literal": author.name}
    return {"family": author.family, "given": author.given} if author.given else {"family": author.family}


def _csl_json(cited: _Cited) -> str:
    item: dict[str, Any] = {"id": cited.key, "type": "webpage", "title": cited.title}
    if cited.authors:
        item["author"] = [_csl_name(a) for a in cited.authors]
    item["container-title"] = cited.site
    item["URL"] = cited.url
    item["issued"] = {"date-parts": [[cited.version.year, cited.version.month, cited.version.day]]}
    item["version"] = cited.version.isoformat()
    if cited.note:
        item["note"] = _capitalized(cited.note)
    item["language"] = cited.language
    members = ",\n".join(f"    {_json(name)}: {_json(value)}" for name, value in item.items())
    return f"[\n  {{\n{members}\n  }}\n]"


def _json(value: Any) -> str:
    """A value on one line: a member of the CSL item per line reads better than one per number."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _meta(cited: _Cited) -> tuple[tuple[str, str], ...]:
    """Highwire Press tags, which Google Scholar and Zotero read: one citation_author per author."""
    tags = [("citation_title", cited.title)]
    tags += [("citation_author", _display_name(a)) for a in cited.authors]
    tags += [("citation_publication_date", cited.version.strftime("%Y/%m/%d")), ("citation_publisher", cited.site),
             ("citation_public_url", cited.url), ("citation_language", cited.language)]
    return tuple(tags)


# --- CITATION.cff ------------------------------------------------------------------------------

# License URLs whose SPDX identifier is certain (the deed's address, any scheme, with or without
# www., a trailing slash or legalcode); any other license is named by its URL only.
_SPDX = {
    "creativecommons.org/licenses/by/4.0": "CC-BY-4.0",
    "creativecommons.org/licenses/by-sa/4.0": "CC-BY-SA-4.0",
    "creativecommons.org/licenses/by-nd/4.0": "CC-BY-ND-4.0",
    "creativecommons.org/licenses/by-nc/4.0": "CC-BY-NC-4.0",
    "creativecommons.org/licenses/by-nc-sa/4.0": "CC-BY-NC-SA-4.0",
    "creativecommons.org/licenses/by-nc-nd/4.0": "CC-BY-NC-ND-4.0",
    "creativecommons.org/publicdomain/zero/1.0": "CC0-1.0",
    "opendatacommons.org/licenses/odbl/1-0": "ODbL-1.0",
    "opendatacommons.org/licenses/by/1-0": "ODC-By-1.0",
    "opendatacommons.org/licenses/pddl/1-0": "PDDL-1.0",
}


def spdx_id(license_url: str) -> str | None:
    parts = urlsplit(license_url.strip())
    host = parts.netloc.lower().removeprefix("www.")
    path = re.sub(r"/(legalcode(\.[a-z-]+)?)?/?$", "", parts.path)
    return _SPDX.get(host + path)


def _cff_author(author: Author) -> dict[str, str]:
    person = {"family-names": author.family, "given-names": author.given} if author.family else {"name": author.name}
    entry = {key: value for key, value in person.items() if value}
    if author.orcid:
        entry["orcid"] = author.orcid
    return entry


def citation_cff(index: SiteIndex, config: SiteConfig) -> bytes:
    """The site as a data set, in the Citation File Format 1.2.0 (YAML)."""
    document: dict[str, Any] = {"cff-version": "1.2.0", "message": CFF_MESSAGE, "type": "dataset",
                                "title": config.title}
    if config.description:
        document["abstract"] = config.description
    document["authors"] = [_cff_author(a) for a in config.citation.authors] or [{"name": config.title}]
    document["url"] = config.base_url
    if config.citation.doi:
        document["doi"] = config.citation.doi
    if config.license is not None:
        spdx = spdx_id(config.license.url)
        document["license" if spdx else "license-url"] = spdx or config.license.url
    if index.lastmod is not None:
        document["date-released"] = index.lastmod.isoformat()
    text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=1 << 16)
    return text.encode("utf-8")
