"""The comparability contract (``schema/comparability.json``): which results may be compared.

Two reported results compare when their metrics are the same and every key
condition of that metric is known and equal in both. A condition has three
states: reported (a value, ``null`` excluded), not reported (``null``) and
not considered (the key is absent). Only reported values are equal to
anything: ``null`` equals nothing, not even ``null``. Values are equal when
they are the same JSON value (``8192`` and ``8192.0`` are; ``true`` and
``1`` are not).
"""

from __future__ import annotations

import decimal
import functools
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core import jsontext
from ..core.diagnostics import Location, Problem, error
from ..core.numbers import for_reading

FILE = "comparability.json"
NOT_REPORTED = "not reported"  # null
NOT_CONSIDERED = "not considered"  # the key is absent
# normalize() rounds to its context's precision (28 digits by default): this one keeps every digit
EXACT = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


@dataclass(frozen=True)
class Family:
    name: str
    metrics: tuple[str, ...]
    keys: tuple[str, ...]


@dataclass(frozen=True)
class Rules:
    """The key conditions of every metric: its family's, else the default."""

    default: tuple[str, ...]
    families: tuple[Family, ...] = ()

    def family_of(self, metric: object) -> Family | None:
        return next((f for f in self.families if isinstance(metric, str) and metric in f.metrics), None)

    def keys_of(self, metric: object) -> tuple[str, ...]:
        family = self.family_of(metric)
        return family.keys if family is not None else self.default

    @property
    def every_key(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys([*self.default, *(k for f in self.families for k in f.keys)]))


NO_RULES = Rules(())  # nothing is compared on conditions: every result of a metric compares


def unknown_keys(result: Any, rules: Rules) -> tuple[str, ...]:
    """The result's key conditions that are not reported or not considered, in key order."""
    return comparison(result, rules)[1]


class RulesError(ValueError):
    """comparability.json is not what this module reads (the message names the JSON pointer)."""


def rules_of(document: Any) -> Rules:
    """The rules of a parsed comparability.json; RulesError says what is wrong where."""
    if not isinstance(document, dict):
        raise RulesError("/: expected an object with default and families")
    default = _keys(document.get("default", {}).get("keys") if isinstance(document.get("default"), dict)
                    else None, "/default/keys")
    families = document.get("families", {})
    if not isinstance(families, dict):
        raise RulesError("/families: expected an object of families by name")
    found: list[Family] = []
    owner: dict[str, str] = {}
    for name, family in families.items():
        where = f"/families/{name}"
        if not isinstance(family, dict):
            raise RulesError(f"{where}: expected an object with metrics and keys")
        metrics = _keys(family.get("metrics"), f"{where}/metrics")
        for metric in metrics:
            if metric in owner:
                raise RulesError(f"{where}/metrics: {metric!r} is already in the family {owner[metric]!r}")
            owner[metric] = name
        found.append(Family(name, metrics, _keys(family.get("keys"), f"{where}/keys")))
    return Rules(default, tuple(found))


def rules_problem(exc: RulesError, shown: str) -> Problem:
    return error(Location(shown), f"the comparability rules cannot be read: {exc}", "schema-file",
                 hint="each of default and families.<name> names its condition keys as a list of strings")


def _keys(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise RulesError(f"{where}: expected a list of names")
    return tuple(dict.fromkeys(value))


def state(conditions: Any, key: str) -> str:
    """``NOT_CONSIDERED``, ``NOT_REPORTED`` or the value's canonical text (see ``canonical``)."""
    return _state_of(conditions.get(key, _ABSENT) if isinstance(conditions, Mapping) else _ABSENT)


_ABSENT = object()  # a key condition the result does not carry


def _state_of(value: Any) -> str:
    return NOT_CONSIDERED if value is _ABSENT else NOT_REPORTED if value is None else canonical(value)


def is_known(text: str) -> bool:
    return text not in (NOT_REPORTED, NOT_CONSIDERED)


def canonical(value: Any) -> str:
    """One text per JSON value: numbers by their decimal value, so 8192 and 8192.0 are one."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return _number(jsontext.number_text(value))
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, list):
        return "[" + ",".join(canonical(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{json.dumps(str(k), ensure_ascii=False)}:{canonical(v)}"
                              for k, v in sorted(value.items())) + "}"
    return json.dumps(str(value))


@functools.lru_cache(maxsize=4096)  # a site's conditions take few distinct values, each result many
def _number(literal: str) -> str:
    number = decimal.Decimal(literal).normalize(EXACT)
    return "0" if number.is_zero() else str(number)


@functools.lru_cache(maxsize=4096)
def _text(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def comparison_key(result: Any, rules: Rules) -> str | None:
    """A hash of the result's metric and key conditions (16 hex digits); None when any is unknown."""
    return comparison(result, rules)[0]


def comparison(result: Any, rules: Rules) -> tuple[str | None, tuple[str, ...]]:
    """The result's ``comparison_key`` and its ``unknown_keys``, each key condition's state found
    once (an article's JSON asks for both of every result)."""
    metric = result.get("metric") if isinstance(result, Mapping) else None
    conditions = result.get("conditions") if isinstance(result, Mapping) else None
    keys = rules.keys_of(metric)
    if isinstance(conditions, Mapping):
        values = tuple(map(_told_apart, (conditions.get(key, _ABSENT) for key in keys)))
        try:
            return _comparison_of(metric, keys, values)
        except TypeError:  # a list or an object among them: unhashable, worked out each time
            pass
    return _comparison(metric, [(key, state(conditions, key)) for key in keys])


def _told_apart(value: Any) -> tuple[type, Any, str | None]:
    """A condition's value as a key of the cache: with its type (1, 1.0 and true are equal keys of
    a dict, not equal conditions) and its literal (0.1 and 0.10000000000000000001 are one float)."""
    return type(value), value, getattr(value, "literal", None)


@functools.lru_cache(maxsize=8192)  # a site's results share few combinations of key conditions
def _comparison_of(metric: Any, keys: tuple[str, ...],
                   values: tuple[tuple[type, Any, str | None], ...]) -> tuple[str | None, tuple[str, ...]]:
    return _comparison(metric, [(key, _state_of(value)) for key, (_, value, _) in zip(keys, values, strict=True)])


def _comparison(metric: Any, states: list[tuple[str, str]]) -> tuple[str | None, tuple[str, ...]]:
    unknown = tuple(key for key, text in states if not is_known(text))
    if not isinstance(metric, str) or unknown:
        return None, unknown
    payload = json.dumps([metric, states], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()[:16], unknown


def comparable(a: Any, b: Any, rules: Rules) -> bool:
    """The contract itself, without hashing: the same metric, every key known and equal."""
    if not (isinstance(a, Mapping) and isinstance(b, Mapping)) or a.get("metric") != b.get("metric"):
        return False
    if not isinstance(a.get("metric"), str):
        return False
    for key in rules.keys_of(a["metric"]):
        left, right = state(a.get("conditions"), key), state(b.get("conditions"), key)
        if not (is_known(left) and left == right):
            return False
    return True


@dataclass(frozen=True)
class Difference:
    """A key condition on which the entries of a panel do not all agree, or that some do not know."""

    key: str
    values: tuple[tuple[str, tuple[str, ...]], ...]  # (the value as shown, the labels that have it)

    def text(self, labels: bool = True, most: int = 2) -> str:
        """``kv_dtype: fp8 (A); bf16 (B, C)``, ``input_tokens: not reported (all 3)``; without the
        ``labels``: ``kv_dtype: fp8 / bf16``, ``input_tokens: not reported`` (numbers have commas)."""
        if not labels:
            return f"{self.key}: " + " / ".join(shown for shown, _ in self.values)
        if len(self.values) == 1:
            shown, found = self.values[0]
            return f"{self.key}: {shown} ({'both' if len(found) == 2 else f'all {len(found)}'})"
        parts = []
        for shown, found in self.values:
            who = ", ".join(found) if len(found) <= most else f"{len(found)} entries"
            parts.append(f"{shown} ({who})")
        return f"{self.key}: " + "; ".join(parts)


def differences(entries: Sequence[tuple[str, Any]], keys: Iterable[str]) -> tuple[Difference, ...]:
    """Each key on which the (label, result) entries differ or which some leave unknown, in key order
    (none for fewer than two entries: nothing is compared)."""
    if len(entries) < 2:
        return ()
    found: list[Difference] = []
    for key in keys:
        groups: dict[str, tuple[str, list[str]]] = {}
        for label, result in entries:
            conditions = result.get("conditions") if isinstance(result, Mapping) else None
            text = state(conditions, key)
            shown = as_shown(conditions[key]) if is_known(text) and isinstance(conditions, Mapping) else text
            groups.setdefault(text, (shown, []))[1].append(label)
        if len(groups) > 1 or not all(is_known(text) for text in groups):
            found.append(Difference(key, tuple((shown, tuple(dict.fromkeys(labels)))
                                               for shown, labels in groups.values())))
    return tuple(found)


def as_shown(value: Any) -> str:
    """A condition's value as the export writes it: a string without its quotes, a number as its
    literal with thousands separators (as charts show numbers)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return for_reading(jsontext.number_text(value))
    return jsontext.dumps(value, indent=None)
