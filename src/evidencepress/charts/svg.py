"""Finish matplotlib's SVG: real text styled by CSS, colours as custom properties, unique ids.

matplotlib writes text as ``<text>`` (``svg.fonttype: none``) and colours as
hex. This pass rewrites the document so that it works in two places:

- as a standalone ``<id>.svg`` (linked from index.md, opened on its own): its
  own ``<style>`` gives the default colours, a ``prefers-color-scheme: dark``
  block and a font fallback list;
- inlined into the article (``inline``): the ``<style>`` is dropped and the
  page's CSS custom properties (``--ep-ink`` …) and web font apply, so the
  chart follows the page's light and dark theme.

Ids are prefixed with the chart id and variant, so several charts inlined in
one page never share one; ids nothing refers to are dropped; an artist whose
gid starts with ``ep-`` becomes a class. The pass is pure text in, text out:
the same input gives the same bytes.
"""

from __future__ import annotations

import re
from html import escape

from . import style
from .model import ChartPlan

FONT_STACK = "\"DejaVu Sans\", Verdana, \"Bitstream Vera Sans\", sans-serif"
_PROLOGUE = re.compile(r"\A.*?<svg\b[^>]*>\s*", re.DOTALL)
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.DOTALL)
_DEFAULT_STYLE = re.compile(r"\s*<defs>\s*<style type=\"text/css\">[^<]*</style>\s*</defs>", re.DOTALL)
_ID = re.compile(r' id="([^"]+)"')
_REFS = re.compile(r'(?:xlink:href="#|url\(#)([^")]+)')
_HEX = re.compile(r"#[0-9a-fA-F]{6}\b")
_NO_ROTATION = re.compile(r' transform="rotate\(-?0 [^"]*\)"')
_FAMILY = re.compile(r"; font-family: '[^']*'|font-family: '[^']*'; ")
_NUMBER = re.compile(r"(?<=[ ,(\"])(-?\d+\.\d{3,})(?=[ ,)\"\n])")


def css_variables(dark: bool) -> str:
    """``--ep-ink: #222222; …`` for every colour role (light or dark values)."""
    return "; ".join(f"--ep-{role}: {pair[1 if dark else 0].lower()}" for role, pair in style.COLORS.items())


STANDALONE_CSS = (
    f".ep-chart {{ font-family: {FONT_STACK}; }}\n"
    ".ep-chart * { stroke-linejoin: round; stroke-linecap: butt; }\n"
    ".ep-halo text { paint-order: stroke; stroke: var(--ep-bg, #ffffff); stroke-width: 3px; stroke-linejoin: round; }\n"
    f"@media (prefers-color-scheme: dark) {{ .ep-chart {{ {css_variables(dark=True)}; }} }}\n"
)


def finish(raw: bytes, plan: ChartPlan) -> bytes:
    """The standalone SVG of ``plan`` from matplotlib's output."""
    text = raw.decode("utf-8")
    body = _PROLOGUE.sub("", _METADATA.sub("", _DEFAULT_STYLE.sub("", text), count=1), count=1)
    prefix = f"ep-{plan.id}-{'n' if plan.narrow is None and plan.width == style.NARROW_WIDTH_PX else 'w'}-"
    body = _ids(body, prefix)
    body = _FAMILY.sub("", _NO_ROTATION.sub("", body))
    body = _NUMBER.sub(lambda m: _round(m.group(1)), body)
    body = _HEX.sub(_variable, body)
    head = (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" class="ep-chart" '
        f'width="{plan.width}" height="{plan.height}" viewBox="0 0 {_pt(plan.width)} {_pt(plan.height)}" '
        f'role="img" aria-labelledby="{prefix}title {prefix}desc">\n'
        f' <title id="{prefix}title">{escape(plan.title, quote=False)}</title>\n'
        f' <desc id="{prefix}desc">{escape(description(plan), quote=False)}</desc>\n'
        f" <style>\n{STANDALONE_CSS} </style>\n "
    )
    return (head + body.rstrip() + "\n").encode("utf-8")


def description(plan: ChartPlan) -> str:
    """The alt text, and what the drawing says besides: the notes of unlike panels."""
    return " ".join([plan.alt, *(f"{note}." for note in plan.unlike)])


def inline(svg: bytes) -> str:
    """The SVG as markup for an HTML page: no XML declaration, no ``<style>`` (the page styles it)."""
    text = svg.decode("utf-8")
    text = text.split("\n", 1)[1] if text.startswith("<?xml") else text
    return re.sub(r" <style>.*?</style>\n", "", text, count=1, flags=re.DOTALL)


def _ids(body: str, prefix: str) -> str:
    referenced = set(_REFS.findall(body))

    def rename(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("ep-"):
            return f' class="{name}"'
        return f' id="{prefix}{name}"' if name in referenced else ""

    body = _ID.sub(rename, body)
    return _REFS.sub(lambda m: m.group(0)[: -len(m.group(1))] + prefix + m.group(1), body)


def _variable(match: re.Match[str]) -> str:
    color = match.group(0).upper()
    role = _ROLES.get(color)
    return f"var(--ep-{role}, {color.lower()})" if role else match.group(0)


def _round(number: str) -> str:
    """Coordinates to 1/100 pt: far below a pixel, and a third of the file."""
    text = f"{float(number):.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _pt(px: int) -> str:
    return f"{px * 0.75:g}"


_ROLES = {pair[0].upper(): role for role, pair in style.COLORS.items()}
