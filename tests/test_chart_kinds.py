"""The chart-kind registry is sealed: outside ``charts/kinds/`` no code branches on a kind's name.

Code there asks the panel's ``Kind`` what it does (``kind_of(panel.kind).x_axis``). The scan
below looks for comparisons (``==``, ``!=``, ``in``, ``not in``, ``match``) of a chart kind's
name with a registered kind name. Two other enumerations share names with chart kinds and are
not chart kinds: an uncertainty's kind (``whisker.kind``: sd, ci, range, interval) and a legend
entry's kind (``item.kind``: series, observation, range, interval …).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import evidencepress.charts
from evidencepress.charts.kinds import registry

CHARTS = Path(evidencepress.charts.__file__).parent
KINDS = frozenset(registry())
OTHER_ENUMERATIONS = frozenset({"whisker", "item"})


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _names_a_kind(node: ast.expr) -> bool:
    """``panel.kind``, ``p.kind``, ``kind``, ``kind.name`` or ``kind_of(…).name``: a chart kind's name."""
    if isinstance(node, ast.Name):
        return node.id == "kind"
    if not isinstance(node, ast.Attribute):
        return False
    if node.attr == "kind":
        return _last_name(node.value) not in OTHER_ENUMERATIONS
    called = isinstance(node.value, ast.Call) and _last_name(node.value.func) == "kind_of"
    return node.attr == "name" and (called or _last_name(node.value) == "kind")


def _strings(node: ast.expr, constants: dict[str, frozenset[str]]) -> frozenset[str]:
    """The string constants an expression stands for: a literal, a tuple/list/set of them, or a module constant."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return frozenset({node.value})
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return frozenset(s for element in node.elts for s in _strings(element, constants))
    if isinstance(node, ast.Name):
        return constants.get(node.id, frozenset())
    return frozenset()


def _module_constants(tree: ast.Module) -> dict[str, frozenset[str]]:
    constants: dict[str, frozenset[str]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                constants[target.id] = _strings(statement.value, {})
    return constants


def _compared(node: ast.Compare) -> list[tuple[ast.expr, ast.expr]]:
    operands = [node.left, *node.comparators]
    pairs = zip(node.ops, operands, operands[1:], strict=False)
    return [(a, b) for op, a, b in pairs if isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn))]


def _matched(node: ast.Match) -> frozenset[str]:
    return frozenset(
        value.value
        for case in node.cases
        for pattern in ast.walk(case.pattern)
        if isinstance(pattern, ast.MatchValue)
        for value in [pattern.value]
        if isinstance(value, ast.Constant) and isinstance(value.value, str)
    )


def kind_branches(source: str) -> list[int]:
    """The lines of ``source`` that compare a chart kind's name with a registered kind name."""
    tree = ast.parse(source)
    constants = _module_constants(tree)
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for a, b in _compared(node):
                if (_names_a_kind(a) and _strings(b, constants) & KINDS) or (
                    _names_a_kind(b) and _strings(a, constants) & KINDS
                ):
                    lines.append(node.lineno)
        elif isinstance(node, ast.Match) and _names_a_kind(node.subject) and _matched(node) & KINDS:
            lines.append(node.lineno)
    return sorted(set(lines))


def _outside_kinds() -> list[Path]:
    return sorted(p for p in CHARTS.rglob("*.py") if (CHARTS / "kinds") not in p.parents)


def test_no_module_outside_kinds_branches_on_a_kind_name() -> None:
    found = {
        str(path.relative_to(CHARTS)): lines
        for path in _outside_kinds()
        if (lines := kind_branches(path.read_text(encoding="utf-8")))
    }
    assert found == {}, f"ask the panel's Kind (charts/kinds/) what it does, not its name: {found}"


def test_the_scan_covers_the_chart_modules() -> None:
    names = {str(p.relative_to(CHARTS)) for p in _outside_kinds()}
    assert {"panel.py", "plan.py", "checks.py", "values.py", "guards.py", "observations.py"} <= names
    assert "draw/legends.py" in names and not any(name.startswith("kinds/") for name in names)


@pytest.mark.parametrize(
    "source",
    [
        'if panel.kind == "line":\n    pass',
        'horizontal = any(p.kind == "bar" and p.horizontal for p in plans)',
        'x = plan if plan.kind != "status" else None',
        'def f(kind: str) -> bool:\n    return kind == "dot"',
        'groups = kind.name != "line"',
        'mode = kind_of(panel.kind).name == "interval"',
        'VALUE_KINDS = ("bar", "line")\nok = panel.kind not in VALUE_KINDS',
        'ok = ctx.panel.kind in ("range", "dot")',
        'ok = "bar" == spec.kind',
        'match panel.kind:\n    case "bar":\n        pass',
    ],
)
def test_the_scan_finds_a_branch_on_a_kind_name(source: str) -> None:
    assert kind_branches(source) != []


@pytest.mark.parametrize(
    "source",
    [
        'ok = point.whisker.kind != "interval"',  # an uncertainty's kind
        'ok = whisker is None or whisker.kind != "range"',
        'WHISKER_KINDS = ("sd", "range", "ci", "interval")\nok = item.kind in WHISKER_KINDS',  # a legend entry's
        'ok = item.kind == "observation"',
        'ok = kind_of(panel.kind).x_axis',
        'ok = kind.values == "range"',  # how y becomes a point, asked of the kind
    ],
)
def test_the_scan_leaves_other_enumerations_and_behaviours(source: str) -> None:
    assert kind_branches(source) == []
