"""The gap census: which recommended conditions the sources leave unknown, and what that blocks.

Part of the site stage, derived from every reported result of the site's pages (as authored).
A condition has three states (SPEC §4.2): reported (a value), not reported (``null``) and not
considered (the key is absent). The census holds:

- **States per condition.** For each core condition (``SchemaSet.core_conditions``: the
  schema's required and recommended keys), how many results report a value, how many write
  ``null``, how many do not carry the key: over the whole site (``GapCensus.site``) and per
  metric (``GapCensus.metrics``: the metrics with the most results first, ties by name).
- **Blocking conditions per source record.** For a record R and a condition key k, ``pairs``
  counts the pairs of results (r, s) with r in R and s not in R (of another
  ``source_record_id``), of the same metric m, where k is one of m's key conditions
  (``Rules.keys_of(m)``, from ``schema/comparability.json``), and

  * r does not know k (``null`` or absent),
  * s knows k (reports a value),
  * every other key condition of m is known in both and equal.

  Such a pair is not comparable now (``comparable`` says no: r does not know k), and would be
  if R's source reported k for r with s's value: k alone stands between them. A pair where
  neither result knows k does not count for R (an answer from R alone would not make it
  comparable), nor does a pair that differs, or is unknown, on any other key, nor a pair of
  two results of one record. A pair counts at most once over every (record, key). The count
  is an upper bound of what one answer gains: r takes one value, and the s of its pairs may
  differ on k. ``GapCensus.records`` lists every record with a reported result, by id, each
  with the keys whose count is above 0, most pairs first (ties by name).
- **Pair totals** (``GapCensus.pairs``): the pairs of results of the same metric and of two
  records, how many of them are comparable now, and the sum of every record's blocking pairs.
- **Unknown in every result** (``unknowns_of``, for a record page): the core conditions that
  are ``null`` in every result of a record, and those that none of its results carries.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.export import ReportedResult
from ..schemas.comparability import Rules, is_known, state

GAPS_URL = "/gaps/"
GAPS_FILE = "gaps.json"  # in /data/
GAPS_TITLE = "Gaps in the reported conditions"
GAPS_SUMMARY = ("How often each required and recommended condition is reported, not reported (null) or not "
                "considered, and which unreported conditions keep the most results from being compared.")


@dataclass(frozen=True)
class ConditionCount:
    """How many results report a value for one condition, write null, or do not carry it."""

    condition: str
    reported: int
    not_reported: int  # null
    not_considered: int  # the key is absent


@dataclass(frozen=True)
class StateTable:
    """The condition states of a set of results: the site's, or one metric's."""

    metric: str  # "" for the whole site
    results: int
    conditions: tuple[ConditionCount, ...]  # in the order of the core conditions


@dataclass(frozen=True)
class Blocker:
    """A condition a record does not report, and how many pairs it alone keeps from comparing."""

    condition: str
    pairs: int


@dataclass(frozen=True)
class RecordGaps:
    record_id: str
    blockers: tuple[Blocker, ...]  # pairs > 0, most first, ties by name


@dataclass(frozen=True)
class PairTotals:
    """The pairs of results of one metric and of two records, over the whole site."""

    cross_record: int  # every such pair
    comparable: int  # every key condition known and equal in both
    one_answer: int  # not comparable, and one record's answer for one key could make it so (all blockers)


@dataclass(frozen=True)
class GapCensus:
    conditions: tuple[str, ...]  # the core conditions
    site: StateTable
    metrics: tuple[StateTable, ...]  # most results first, ties by name
    records: tuple[RecordGaps, ...]  # every record with a reported result, by id
    pairs: PairTotals

    @property
    def blocking(self) -> tuple[RecordGaps, ...]:
        """The records with at least one blocking condition."""
        return tuple(record for record in self.records if record.blockers)

    @property
    def unblocked(self) -> tuple[RecordGaps, ...]:
        """The records no single unreported condition of theirs blocks a pair for."""
        return tuple(record for record in self.records if not record.blockers)


@dataclass(frozen=True)
class Unknowns:
    """The core conditions a record's results all leave unknown, in core order."""

    not_reported: tuple[str, ...]  # null in every result
    not_considered: tuple[str, ...]  # absent from every result


def gap_census(results: Sequence[ReportedResult], conditions: Sequence[str], rules: Rules) -> GapCensus:
    """The census of ``results`` (every reported result of the site) for the core ``conditions``."""
    keys = tuple(conditions)
    by_metric: dict[str, list[ReportedResult]] = {}
    for result in results:
        by_metric.setdefault(result.metric or "", []).append(result)
    metrics = tuple(sorted((state_table(metric, found, keys) for metric, found in by_metric.items()),
                           key=lambda table: (-table.results, table.metric)))
    rows = keyed(results, rules)
    records = record_gaps(rows)
    return GapCensus(keys, summed(metrics, keys), metrics, records, pair_totals(rows, records))


def state_table(metric: str, results: Sequence[ReportedResult], keys: tuple[str, ...]) -> StateTable:
    """How many of ``results`` report, write null or leave out each key."""
    reported, nulls, absent = [0] * len(keys), [0] * len(keys), [0] * len(keys)
    for result in results:
        own = result.conditions
        for number, key in enumerate(keys):
            if key not in own:
                absent[number] += 1
            elif own[key] is None:
                nulls[number] += 1
            else:
                reported[number] += 1
    return StateTable(metric, len(results), tuple(ConditionCount(key, reported[n], nulls[n], absent[n])
                                                  for n, key in enumerate(keys)))


def summed(tables: Sequence[StateTable], keys: tuple[str, ...]) -> StateTable:
    """The site's table: the metrics' tables added up."""
    def total(number: int, key: str) -> ConditionCount:
        counts = [table.conditions[number] for table in tables]
        return ConditionCount(key, sum(c.reported for c in counts), sum(c.not_reported for c in counts),
                              sum(c.not_considered for c in counts))
    return StateTable("", sum(table.results for table in tables), tuple(map(total, range(len(keys)), keys)))


def unknowns_of(results: Sequence[ReportedResult], conditions: Sequence[str]) -> Unknowns:
    """The core ``conditions`` null in every one of ``results``, and those absent from all (none
    for no results)."""
    if not results:
        return Unknowns((), ())
    # each key's test ends at the first result that says otherwise (a record's page asked for the
    # canonical text of every condition of its 20,000 results: 0.1 s of each)
    found = [result.conditions for result in results]
    return Unknowns(tuple(key for key in conditions if all(key in own and own[key] is None for own in found)),
                    tuple(key for key in conditions if all(key not in own for own in found)))


# A result as the pair counts see it: its record, its metric, the metric's key conditions and the
# result's state of each (``comparability.state``).
_Keyed = tuple[str | None, str, tuple[str, ...], tuple[str, ...]]
# A group: the results of one metric that know every key condition but one key, with equal values
# for the others: (metric, the key, the other keys' states).
_Group = tuple[str, str, tuple[str, ...]]


def keyed(results: Iterable[ReportedResult], rules: Rules) -> list[_Keyed]:
    """Each result with a metric as (record, metric, key conditions, their states)."""
    found: list[_Keyed] = []
    texts: dict[tuple[type, object], str] = {}  # the state of each plain value seen (a site repeats them)
    for result in results:
        metric = result.metric
        if metric is not None:
            keys = rules.keys_of(metric)
            own = result.conditions
            found.append((result.record_id, metric, keys, tuple(_state(own, key, texts) for key in keys)))
    return found


def _state(conditions: Mapping[str, Any], key: str, texts: dict[tuple[type, object], str]) -> str:
    """``comparability.state``, remembered for strings, ints and booleans (exactly those types: a float
    and an authored number are told by their literal)."""
    value = conditions.get(key)
    kind = type(value)
    if kind not in _PLAIN:
        return state(conditions, key)
    found = texts.get((kind, value))
    if found is None:
        found = texts[(kind, value)] = state(conditions, key)
    return found


_PLAIN = frozenset({str, int, bool})


def pair_totals(found: Sequence[_Keyed], gaps: Sequence[RecordGaps]) -> PairTotals:
    """How many pairs of results of the same metric and of different records there are, how many of
    them are comparable, and how many one answer could make comparable (the records' blockers)."""
    metrics: dict[str, Counter[str | None]] = {}
    groups: dict[tuple[str, tuple[str, ...]], Counter[str | None]] = {}
    for record, metric, _, states in found:
        metrics.setdefault(metric, Counter())[record] += 1
        if all(map(is_known, states)):
            groups.setdefault((metric, states), Counter())[record] += 1
    return PairTotals(sum(map(_cross_pairs, metrics.values())), sum(map(_cross_pairs, groups.values())),
                      sum(blocker.pairs for record in gaps for blocker in record.blockers))


def _cross_pairs(records: Counter[str | None]) -> int:
    """The pairs of results of different records among results counted by record (no record: each
    result is its own)."""
    total = sum(records.values())
    same = sum(count * (count - 1) // 2 for record, count in records.items() if record is not None)
    return total * (total - 1) // 2 - same


def record_gaps(found: Sequence[_Keyed]) -> tuple[RecordGaps, ...]:
    """Each record's blocking conditions (see the module's docstring), every record by id."""
    askers: dict[_Group, Counter[str | None]] = {}  # the results that lack the key, by record
    knowers: list[_Keyed] = []
    for record, metric, keys, states in found:
        unknown = [number for number, text in enumerate(states) if not is_known(text)]
        if not unknown:
            knowers.append((record, metric, keys, states))
        elif len(unknown) == 1:  # with two unknown keys, no one answer makes a pair comparable
            number = unknown[0]
            askers.setdefault((metric, keys[number], _without(states, number)), Counter())[record] += 1
    pairs = _pairs(askers, knowers)
    records = sorted({record for record, *_ in found if record is not None})
    return tuple(RecordGaps(record, _blockers(pairs.get(record, Counter()))) for record in records)


def _pairs(askers: dict[_Group, Counter[str | None]], knowers: Sequence[_Keyed]) -> dict[str, Counter[str]]:
    """For each record and key, the pairs an answer for that key could make comparable."""
    known: dict[_Group, Counter[str | None]] = {group: Counter() for group in askers}
    for record, metric, keys, states in knowers:
        for number, key in enumerate(keys):
            group = (metric, key, _without(states, number))
            if group in known:
                known[group][record] += 1
    found: dict[str, Counter[str]] = {}
    for group, asking in askers.items():
        total = sum(known[group].values())
        for record, count in asking.items():
            others = total - known[group][record]
            if record is not None and others:
                found.setdefault(record, Counter())[group[1]] += count * others
    return found


def _without(states: tuple[str, ...], number: int) -> tuple[str, ...]:
    return states[:number] + states[number + 1:]


def _blockers(counts: Counter[str]) -> tuple[Blocker, ...]:
    return tuple(Blocker(key, pairs) for key, pairs in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
                 if pairs > 0)
