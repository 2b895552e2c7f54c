"""Guards that warn: a chart that draws, but reads wrong at a glance (issue: charts a reader trusts).

Each warning names its rule and says how to fix the chart:
- ``chart-single-value``: a panel of one value, alone on its own scale;
- ``chart-mixed-kinds``: values of different kinds (metrics) or denominators side by side;
- ``chart-limit-as-bar``: a limit or capacity drawn as a bar beside measured values;
- ``chart-overlap``: observations drawn on top of each other;
- ``chart-id-label``: a label, legend or tick that shows an internal id;
- ``chart-title-unit``: a panel title that names a unit its axis is not in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..core.diagnostics import Problem, warning
from ..core.model import JsonPath, Positions, dotted
from ..schemas.units import Units, canonical_unit, default_units
from .kinds import kind_of
from .model import PanelSpec, Point
from .select import Selected
from .style import display_number
from .units import MAX_FRACTION_DIGITS, long_literals

DENOMINATORS = ("total", "denominator", "sample_size", "n", "questions", "problems", "trials")
_LIMIT_WORDS = re.compile(r"(^|[\s_\-/])(limit|limits|cap|ceiling|capacity|allowed|budget)($|[\s_\-/])", re.IGNORECASE)
_SNAKE = re.compile(r"\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b")
_KEBAB = re.compile(r"^[A-Za-z0-9]+(?:-[A-Za-z0-9]+){2,}$")
_ID_FIELDS = re.compile(r"(^|\.)(id|[A-Za-z0-9]+_id|metric|classification)$")


def quantity(item: Selected, y: str) -> str:
    """What an entry's plotted value measures: its metric, or the field plotted ("" when unknown:
    a pointer's key says too little, ``initial_wall_seconds`` and ``fixed_wall_seconds`` are one quantity)."""
    if y != "value":
        return y
    metric = item.entry.get("metric")
    return metric if isinstance(metric, str) and item.named and "metric" in item.entry else ""


def denominator(entry: Mapping[str, Any]) -> str:
    """The denominator an entry reports (``total: 20``), as text, or ""."""
    for where in (entry.get("conditions"), entry):
        if isinstance(where, Mapping):
            for key in DENOMINATORS:
                if key in where and isinstance(where[key], (int, float)) and not isinstance(where[key], bool):
                    return f"{key} {where[key]}"
    return ""


def is_limit(item: Selected, text: str) -> bool:
    """Does the entry state a limit or capacity (``context cap``, ``device_..._limit_bytes``)?"""
    names = [text, item.pointer.rsplit("/", 1)[-1], str(item.entry.get("metric", ""))]
    return any(_LIMIT_WORDS.search(name.replace("_", " ")) for name in names if name)


_HEX = re.compile(r"^(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}$")
_KEY_VALUE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*: \S")
_BOOLEAN = frozenset({"true", "false"})


def looks_like_id(text: str) -> bool:
    """``median_ttft``, ``NOT_RUN_BY_GATE``, ``32K telemetry host_rss``, ``qwen-nospec-v3``, a commit
    prefix ``fd2365042f56``, a ``key: value`` pair such as ``thinking: false``."""
    return bool(_SNAKE.search(text) or _KEBAB.match(text) or _HEX.match(text) or _KEY_VALUE.match(text))


def _what(text: str) -> str:
    if _HEX.match(text):
        return f"the commit prefix {text!r}"
    if text in _BOOLEAN:
        return f"the bare value {text!r}"
    return f"the internal id {text!r}"


def _at(panel: PanelSpec, positions: Positions, key: str, message: str, rule: str, hint: str) -> Problem:
    base: JsonPath = ("panels", panel.index)
    path = base + (key,) if key and key in panel.given else base
    where = positions.of_key(path) if path != base else positions.of_value(base)
    return warning(where, message, rule, dotted(path), hint)


def single_value(panel: PanelSpec, points: list[Point], has_references: bool, positions: Positions) -> list[Problem]:
    if not kind_of(panel.kind).value_axis or has_references or len(points) != 1 or len(points[0].observations) > 1:
        return []
    message = f"the panel shows one value ({points[0].label!r}) on a scale of its own"
    hint = ("a lone bar says nothing by its height: put it beside values of the same kind, "
            "draw a reference it is compared with, or state it in the prose")
    return [_at(panel, positions, "select", message, "chart-single-value", hint)]


def unlabelled(panel: PanelSpec, points: list[Point], positions: Positions) -> list[Problem]:
    """A panel whose values have more decimals than a label can show, and no ``digits:`` to round
    them for display: it would show no value labels at all."""
    kind = kind_of(panel.kind)
    numbers = [number for point in points for number in kind.labelled(point).numbers()]
    if not kind.value_axis or panel.digits is not None or not long_literals(numbers):
        return []
    longest = max((display_number(number) for number in numbers), key=lambda text: len(text.partition(".")[2]))
    message = (f"a value of the panel has more than {MAX_FRACTION_DIGITS} decimals ({longest}): "
               "the chart shows no value labels")
    hint = ("add digits: N to the panel to label every value rounded for display (marked ≈); the table keeps "
            "each value as reported")
    return [_at(panel, positions, "select", message, "chart-digits", hint)]


_GENERIC = frozenset({"median", "mean", "avg", "average", "max", "min", "maximum", "minimum", "peak", "total", "p50",
                      "p90", "p95", "p99", "reported", "measured", "estimated"})


def stem(metric: str) -> str:
    """The kind a metric names: ``KL_reference_to_quant`` and ``KL_quant_to_reference`` are both ``kl``;
    ``median_ttft`` is ``ttft`` (a leading statistic word says how, not what)."""
    words = [w for w in metric.lower().split("_") if w]
    while len(words) > 1 and words[0] in _GENERIC:
        words = words[1:]
    return words[0] if words else ""


def mixed_kinds(
    panel: PanelSpec, points: list[Point], kinds: list[str], denominators: list[str], positions: Positions
) -> list[Problem]:
    kind = kind_of(panel.kind)
    if not kind.value_axis:
        return []
    problems = []
    distinct = list(dict.fromkeys(k for k in kinds if k))
    if len({stem(k) for k in distinct}) > 1:
        shown = ", ".join(repr(k) for k in distinct[:4]) + (" …" if len(distinct) > 4 else "")
        message = f"the panel puts different quantities side by side: {shown}"
        hint = "give each quantity its own panel (same unit is not the same kind); the panels then say what they measure"
        problems.append(_at(panel, positions, "select", message, "chart-mixed-kinds", hint))
    over = list(dict.fromkeys(d for d in denominators if d))
    if len(over) > 1 and kind.compares_by_length:  # lengths from zero compare over one denominator only
        message = f"the panel's values have different denominators ({', '.join(over)})"
        hint = "a share of 4 and a share of 20 do not compare by height: draw the counts (e.g. stacked), or one panel each"
        problems.append(_at(panel, positions, "select", message, "chart-mixed-kinds", hint))
    return problems


def limit_as_bar(panel: PanelSpec, points: list[Point], limits: list[bool], positions: Positions) -> list[Problem]:
    if not kind_of(panel.kind).compares_by_length or not any(limits) or all(limits):
        return []
    names = [p.label for p, limit in zip(points, limits, strict=False) if limit]
    message = f"{', '.join(repr(n) for n in names)} {'is a limit' if len(names) == 1 else 'are limits'} drawn as a bar beside measured values"
    hint = "draw a limit or capacity as a line: reference: {pointer: /…, label: …}, and keep the bars for what was measured"
    return [_at(panel, positions, "select", message, "chart-limit-as-bar", hint)]


def overlapping(panel: PanelSpec, points: list[Point], positions: Positions) -> list[Problem]:
    """Observations drawn on one line (range panels): equal values hide each other."""
    if not kind_of(panel.kind).hides_equal_observations:
        return []
    hidden = [(p.label, len(p.observations) - len(set(p.observations))) for p in points]
    hidden = [(label, n) for label, n in hidden if n]
    if not hidden:
        return []
    label, count = hidden[0]
    total = next(len(p.observations) for p in points if p.label == label)
    message = f"{count} of the {total} observations of {label!r} sit on top of others and cannot be seen"
    hint = "use kind: dot, which stacks equal values, so every observation stays visible"
    return [_at(panel, positions, "kind", message, "chart-overlap", hint)]


def id_labels(panel: PanelSpec, items: list[Selected], points: list[Point], positions: Positions) -> Iterator[Problem]:
    """A category, series or pointer label that shows an internal id the author did not choose."""
    chosen = {shown for _, shown in panel.names}
    seen: set[str] = set()
    for item, point in zip(items, points, strict=False):
        texts = [("x", point.label, _ID_FIELDS.search(panel.x) is not None), ("series", point.series, _ID_FIELDS.search(panel.series or "") is not None)]
        for key, text, id_field in texts:
            if not text or text in chosen or text in seen:
                continue
            if not item.named and key == "x":
                seen.add(text)
                message = f"the label of {item.pointer} falls back to its key: {text!r}"
                yield _at(panel, positions, "select", message, "chart-id-label", "give the pointer a label: {pointer: …, label: …}")
            elif id_field or looks_like_id(text) or text in _BOOLEAN:
                seen.add(text)
                message = f"{'a category' if key == 'x' else 'a series'} shows {_what(text)}"
                hint = (f"give it a human label in names: (e.g. names: {{{_yaml_key(text)}: …}}), or plot a human "
                        "field such as label")
                yield _at(panel, positions, key if key in panel.given else "select", message, "chart-id-label", hint)




def _yaml_key(text: str) -> str:
    """``text`` as a YAML key the author can copy: quoted where YAML would read it as another thing."""
    plain = re.fullmatch(r"[A-Za-z][A-Za-z0-9_ .\-]*", text) and text not in _BOOLEAN and ": " not in text
    return text if plain else '"' + text.replace('"', '\\"') + '"'


_TITLE_UNIT = re.compile(r"\(([^()]+)\)\s*$")


def title_unit(panel: PanelSpec, unit: str, positions: Positions, units: Units | None = None) -> list[Problem]:
    """A panel title ending in a unit of the vocabulary, "(MiB)", over an axis in another ("KiB")."""
    match = _TITLE_UNIT.search(panel.title)
    known = default_units() if units is None else units
    named = match.group(1).strip() if match else ""
    if not named or not unit or canonical_unit(named, known) not in known:
        return []
    if canonical_unit(named, known) == canonical_unit(unit, known):
        return []
    message = f"the panel title names the unit {named!r}, but its values and axis are in {unit!r}"
    hint = f"write the entries' unit in the title ({unit}); a chart never converts between units"
    return [_at(panel, positions, "title", message, "chart-title-unit", hint)]
